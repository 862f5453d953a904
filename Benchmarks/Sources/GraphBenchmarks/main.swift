import Foundation

// Object-graph benchmarks: OpenCoreData against the same work on SQLite's C API.
//
// Usage:
//   graph-benchmarks [--repeat N]      each subject N times (default 5), every run in a fresh
//                                      process on fresh files; prints a Markdown table of
//                                      medians and of the median of the paired ratios
//   graph-benchmarks --object-floor [--repeat N]   the least work Core Data's API forces
//                                      for each phase, level by level (GraphFloor.swift)
//   graph-benchmarks --subject NAME --phase PHASE --db PATH   (internal) one timed run

struct Measurement: Codable {
    var seconds: Double
    var cpuSeconds: Double
    var peakMegabytes: Double
    var checksum: Int64
}

func runOne<S: GraphSubject>(_ type: S.Type, phase: GraphPhase, databaseURL: URL) throws -> Measurement {
    var subject = try S(databaseURL: databaseURL)
    try subject.prepare(phase)
    PeakMemory.reset()
    let start = monotonicSeconds(), startCPU = cpuSeconds()
    let checksum = try subject.run(phase)
    let seconds = monotonicSeconds() - start, cpu = cpuSeconds() - startCPU
    return Measurement(seconds: seconds, cpuSeconds: cpu, peakMegabytes: PeakMemory.megabytes(), checksum: checksum)
}

let subjects: [String: (GraphPhase, URL) throws -> Measurement] = [
    "sqlite": { try runOne(RawSQLiteGraph.self, phase: $0, databaseURL: $1) },
    "opencoredata": { try runOne(OpenCoreDataGraph.self, phase: $0, databaseURL: $1) },
]
let order = ["sqlite", "opencoredata"]

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

if let subject = option("--subject"), let phaseName = option("--phase"), let path = option("--db") {
    guard let run = subjects[subject], let phase = GraphPhase.allCases.first(where: { "\($0)" == phaseName }) else {
        FileHandle.standardError.write("unknown subject or phase\n".data(using: .utf8)!)
        exit(2)
    }
    do {
        let measurement = try run(phase, URL(fileURLWithPath: path))
        print(String(decoding: try JSONEncoder().encode(measurement), as: UTF8.self))
    } catch {
        FileHandle.standardError.write("\(subject) failed: \(error)\n".data(using: .utf8)!)
        exit(1)
    }
    exit(0)
}

let repetitions = Int(option("--repeat") ?? "5") ?? 5
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("graph-benchmarks-\(getpid())")
try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: scratch) }

if arguments.contains("--object-floor") {
    do {
        try GraphFloor.run(repetitions: repetitions, scratch: scratch)
    } catch {
        FileHandle.standardError.write("object floor failed: \(error)\n".data(using: .utf8)!)
        try? FileManager.default.removeItem(at: scratch)
        exit(1)
    }
    try? FileManager.default.removeItem(at: scratch)
    exit(0)
}

var results: [GraphPhase: [String: [Measurement]]] = [:]
for repetition in 1...repetitions {
    for phase in GraphPhase.allCases {
        for subject in order {
            let database = scratch.appendingPathComponent("\(subject)-\(phase)-\(repetition).sqlite")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
            process.arguments = ["--subject", subject, "--phase", "\(phase)", "--db", database.path]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                FileHandle.standardError.write("\(subject) \(phase) exited with status \(process.terminationStatus)\n".data(using: .utf8)!)
                exit(1)
            }
            let measurement = try JSONDecoder().decode(Measurement.self, from: output)
            results[phase, default: [:]][subject, default: []].append(measurement)
            FileHandle.standardError.write("run \(repetition)/\(repetitions): \(subject) \(phase) \(String(format: "%.3f", measurement.seconds)) s (cpu \(String(format: "%.3f", measurement.cpuSeconds)) s)\n".data(using: .utf8)!)
        }
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}
func format(_ value: Double, _ digits: Int = 3) -> String { String(format: "%.\(digits)f", value) }

print("| work | SQLite C API (s) | OpenCoreData (s) | OCD ÷ SQLite | peak MB SQLite / OCD |")
print("|---|---:|---:|---:|---:|")
for phase in GraphPhase.allCases {
    let floor = results[phase]?["sqlite"] ?? [], ours = results[phase]?["opencoredata"] ?? []
    // Both must have done the same work.
    let checksums = Set((floor + ours).map(\.checksum))
    guard checksums.count == 1 else {
        FileHandle.standardError.write("\(phase): checksums differ: \(checksums.sorted())\n".data(using: .utf8)!)
        exit(1)
    }
    // Runs of one repetition ran back to back: the median of their ratios is less noisy
    // than the ratio of medians when the machine is shared.
    let ratios = zip(ours, floor).map { $0.seconds / $1.seconds }
    print("| \(phase.rawValue) | \(format(median(floor.map(\.seconds)))) | \(format(median(ours.map(\.seconds)))) | \(format(median(ratios), 1))× | \(format(median(floor.map(\.peakMegabytes)), 0)) / \(format(median(ours.map(\.peakMegabytes)), 0)) |")
}

// The same medians in CPU time (user + system of the run's process), steadier than wall
// time when other work shares the machine.
print("")
print("| work (CPU time) | SQLite C API (s) | OpenCoreData (s) | OCD ÷ SQLite |")
print("|---|---:|---:|---:|")
for phase in GraphPhase.allCases {
    let floor = results[phase]?["sqlite"] ?? [], ours = results[phase]?["opencoredata"] ?? []
    let ratios = zip(ours, floor).map { $0.cpuSeconds / $1.cpuSeconds }
    print("| \(phase.rawValue) | \(format(median(floor.map(\.cpuSeconds)))) | \(format(median(ours.map(\.cpuSeconds)))) | \(format(median(ratios), 1))× |")
}
