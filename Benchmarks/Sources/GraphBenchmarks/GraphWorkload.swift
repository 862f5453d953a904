import Foundation

/// The object-graph work both subjects do, each on its own database file.
///
/// - traverse: one trail with 100,000 hikes; open the store afresh, find the trail, follow
///   its `hikes` relationship and read one attribute of every hike.
/// - cascade: a tree of 100,001 nodes (a root, 100 branches, 999 leaves on each); open the
///   store afresh, delete the root and save, the cascade rule on `children` taking every
///   node with it.
enum GraphPhase: String, CaseIterable, Codable {
    case traverse = "traverse a to-many relationship of 100,000 objects"
    case cascade = "cascade-delete a tree of 100,001 objects and save"
}

enum GraphSizes {
    static let hikes = 100_000
    static let branches = 100
    static let leavesPerBranch = 999
    static var nodes: Int { 1 + branches + branches * leavesPerBranch }

    /// The distance of hike `index`, in metres; the traversal sums them.
    static func distance(_ index: Int) -> Int64 { Int64(index % 40_000) + 500 }
    /// The sum every traversal must find.
    static var expectedDistance: Int64 { (0..<hikes).reduce(0) { $0 + distance($1) } }
}

/// One way of doing the work.
protocol GraphSubject {
    static var name: String { get }
    init(databaseURL: URL) throws
    /// Untimed: writes the data `phase` works on.
    mutating func prepare(_ phase: GraphPhase) throws
    /// Timed: the work. Returns a checksum that both subjects must agree on.
    mutating func run(_ phase: GraphPhase) throws -> Int64
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// User plus system CPU seconds of this process so far: on a shared machine, far steadier
/// than wall time.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// VmHWM of this process in megabytes, after resetting it (Linux: write 5 to clear_refs).
enum PeakMemory {
    static func reset() { try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8) }
    static func megabytes() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return .nan }
        return (line.split(separator: " ").compactMap { Double($0) }.first ?? .nan) / 1024
    }
}
