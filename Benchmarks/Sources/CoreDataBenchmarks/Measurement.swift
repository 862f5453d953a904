import Foundation

#if os(Linux)
/// glibc's `malloc_trim`, which the Glibc module does not export.
@_silgen_name("malloc_trim") private func mallocTrim(_ pad: Int) -> Int32
#endif

/// Wall-clock time and the resident-memory high-water mark of one phase.
struct PhaseMeasurement: Codable {
    var subject: String
    var phase: String
    /// Wall-clock seconds.
    var seconds: Double
    /// User + system CPU seconds of the process: less disturbed than wall-clock time when
    /// other work shares the machine (it leaves out time spent waiting, fsync included).
    var cpuSeconds: Double
    var peakMegabytes: Double
    var checksum: Int
}

enum ProcessMemory {
    /// Whether ``resetPeak()`` gives freed heap back first; `--warm` turns it off, or the
    /// measured run would page in afresh what its warm-up freed.
    static var returnsFreedHeap = true

    /// Returns freed heap to the system (unless ``returnsFreedHeap`` is off), then resets
    /// the kernel's resident-set high-water mark (VmHWM) for this process, so the next
    /// reading covers only what follows (Linux 4.0+; writing 5 to clear_refs).
    static func resetPeak() {
        #if os(Linux)
        if returnsFreedHeap { _ = mallocTrim(0) }
        #endif
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    /// VmHWM (or VmRSS for `field: "VmRSS:"`) from /proc/self/status, in megabytes.
    static func megabytes(_ field: String = "VmHWM:") -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) })
        else { return .nan }
        let kilobytes = line.split(separator: " ").compactMap { Double($0) }.first ?? .nan
        return kilobytes / 1024
    }
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// Runs one phase of one subject in this process, printing one JSON line.
func runPhase<S: Subject>(_ type: S.Type, _ phase: Phase, databaseURL: URL) throws {
    try runPhase(S(databaseURL: databaseURL), phase)
}

/// Runs one phase of `subject`, made by the caller (a floor level), printing one JSON line.
func runPhase<S: Subject>(_ subject: S, _ phase: Phase) throws {
    var subject = subject
    try subject.prepare(phase)
    ProcessMemory.resetPeak()
    let start = monotonicSeconds(), cpuStart = cpuSeconds()
    let checksum = try subject.run(phase)
    let seconds = monotonicSeconds() - start, cpu = cpuSeconds() - cpuStart
    let measurement = PhaseMeasurement(
        subject: S.name, phase: phase.rawValue, seconds: seconds, cpuSeconds: cpu,
        peakMegabytes: ProcessMemory.megabytes(), checksum: checksum)
    print(String(decoding: try JSONEncoder().encode(measurement), as: UTF8.self))
}
