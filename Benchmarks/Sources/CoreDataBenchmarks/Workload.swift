import Foundation

/// The operations every subject performs, in this order, on its own database file.
/// Each phase runs in a process of its own, with a fresh connection (or container), so no
/// phase profits from another's in-memory caches or inherits its heap.
enum Phase: String, CaseIterable {
    case insert = "insert"
    case fetchAll = "fetch-all"
    case fetchAllTyped = "fetch-all-typed"
    case fetchBatched = "fetch-batched"
    case fetchBatchedRefreshing = "fetch-batched-refresh"
    case fetchByID = "fetch-by-id"
    case updateAll = "update-all"
    case deleteAll = "delete-all"

    /// The row label of the report.
    var title: String {
        switch self {
        case .insert: return "insert \(ItemValues.count.grouped) objects (8 attributes) and save"
        case .fetchAll: return "fetch all, read two attributes of each"
        case .fetchAllTyped: return "fetch all, read them through typed properties"
        case .fetchBatched: return "fetch all in batches of 20, read two attributes"
        case .fetchBatchedRefreshing: return "the same, each object turned back into a fault after"
        case .fetchByID: return "fetch \(ItemValues.lookups.grouped) by object ID"
        case .updateAll: return "change one attribute on all and save"
        case .deleteAll: return "delete all and save"
        }
    }
}

/// One library under measurement.
protocol Subject {
    static var name: String { get }
    init(databaseURL: URL) throws
    /// Untimed: opens the connection (or container) the phase uses and prepares what it
    /// needs (for example the IDs to fetch).
    mutating func prepare(_ phase: Phase) throws
    /// Timed. Returns a checksum so the work cannot be optimised away and results can be
    /// compared across subjects: every subject must return the same checksum for a phase.
    mutating func run(_ phase: Phase) throws -> Int
}

/// The rows every subject inserts: 8 attributes of the common types.
struct ItemValues {
    /// 100,000 unless `BENCH_ROWS` says otherwise (smaller counts are for profiling).
    static let count: Int = {
        guard let text = ProcessInfo.processInfo.environment["BENCH_ROWS"], let rows = Int(text), rows > 0 else { return 100_000 }
        return rows
    }()
    static let lookups = min(10_000, count)
    static let epoch = Date(timeIntervalSinceReferenceDate: 700_000_000)

    let index: Int
    var name: String { "Item \(index)" }
    var category: String { ["trail", "hike", "hiker", "waypoint"][index % 4] }
    var price: Double { Double(index % 1000) / 10 }
    var quantity: Int32 { Int32(index % 500) }
    var createdAt: Date { ItemValues.epoch.addingTimeInterval(Double(index)) }
    var isActive: Bool { index % 3 == 0 }
    var notes: String { "Notes for item number \(index), long enough to be realistic." }
    var code: Int64 { Int64(index) * 7919 }

    /// Positions (in insertion order) of the rows fetched by ID: spread over the whole
    /// table, each at most once when `count` is not a multiple of 7,919.
    static func lookupPositions() -> [Int] {
        (0..<lookups).map { ($0 * 7_919) % count }
    }
}

extension Int {
    /// `100,000`.
    var grouped: String {
        let digits = Array(String(self))
        var result = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return result
    }
}
