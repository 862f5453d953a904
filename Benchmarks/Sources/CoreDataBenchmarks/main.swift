import Foundation
import GRDBSQLite

// Usage:
//   core-data-benchmarks [--repeat N] [--rows R] [--only sqlite,grdb,grdb-fast,opencoredata]
//       runs every subject N times (default 3), each phase of each repetition in a fresh
//       process, each repetition on fresh files; checks that the subjects' checksums
//       agree; prints Markdown tables of medians and ratios (wall, then CPU time). --rows (or BENCH_ROWS)
//       changes the 100,000 rows, for profiling.
//   core-data-benchmarks --object-floor [--repeat N] [--rows R]
//       the least the fetch-all phase can cost with Core Data's API (ObjectLayerFloor).
//   core-data-benchmarks --write-floor [--repeat N] [--rows R]
//       the same for insert, update-all and delete-all (WriteObjectFloor).
//   core-data-benchmarks --by-id-floor [--repeat N] [--rows R]
//       the least the fetch-by-ID phase can cost with Core Data's API (ByIDFloor).
//   core-data-benchmarks --pairs N --phase PHASE [--only sqlite,opencoredata] [--rows R]
//       one phase, the subjects run back to back N times, each divided by the first
//       subject's run of the same repetition (PairedRuns): ratios a switch in the shared
//       machine's speed between repetitions does not skew. For fetch-all and
//       fetch-all-typed, --only may name object-floor-1 … object-floor-6 too: a level of
//       the object floor run in a fresh process like a subject (ObjectFloorSubject).
//       With --warm, each run of a phase that only reads first runs it once untimed in
//       its process, on a fresh subject: measured on a heap already paged in, as the
//       --object-floor table's levels are (the untimed run's memory is not given back,
//       so peak memory then counts it too).
//   core-data-benchmarks --subject NAME --phase PHASE --db PATH
//       (internal) one phase of one subject, in this process; prints one JSON line.
//       NAME may also be memory-faults or memory-rows, with --phase fetch-batched: the
//       batched fetch's memory floor (BatchMemoryFloor.swift).

var subjects: [String: (Phase, URL) throws -> Void] = [
    "sqlite": { try runPhase(RawSQLiteSubject.self, $0, databaseURL: $1) },
    "grdb": { try runPhase(GRDBSubject.self, $0, databaseURL: $1) },
    "grdb-fast": { try runPhase(GRDBFastSubject.self, $0, databaseURL: $1) },
    "opencoredata": { try runPhase(OpenCoreDataSubject.self, $0, databaseURL: $1) },
    // The batched fetch's memory floor (BatchMemoryFloor.swift): `--subject` only.
    "memory-faults": { try runPhase(BatchMemoryFloor<FaultsOnly>.self, $0, databaseURL: $1) },
    "memory-rows": { try runPhase(BatchMemoryFloor<FaultsHoldingRows>.self, $0, databaseURL: $1) },
]
let order = ["sqlite", "grdb", "grdb-fast", "opencoredata"]
// The object floor's levels as subjects (ObjectFloorSubject): for `--pairs` on the fetch-all
// phases, each run in a fresh process as OpenCoreData's is.
for (offset, name) in ObjectFloorSubject.subjectNames.enumerated() {
    subjects[name] = { try runPhase(ObjectFloorSubject(level: offset + 1, databaseURL: $1), $0) }
}

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}
func fail(_ message: String) -> Never {
    FileHandle.standardError.write((message + "\n").data(using: .utf8)!)
    exit(1)
}

let usage = """
    usage: core-data-benchmarks [--repeat N] [--rows R] [--only sqlite,grdb,grdb-fast,opencoredata]
           core-data-benchmarks --object-floor [--repeat N] [--rows R]
           core-data-benchmarks --write-floor [--repeat N] [--rows R]
           core-data-benchmarks --by-id-floor [--repeat N] [--rows R]
           core-data-benchmarks --pairs N --phase PHASE [--only sqlite,opencoredata] [--rows R] [--warm]
           core-data-benchmarks --subject NAME --phase PHASE --db PATH   (one phase, internal)
    """
if arguments.contains("--help") || arguments.contains("-h") {
    print(usage)
    exit(0)
}
// Every argument is an option with a value; anything else is a mistake, not a request to
// run the whole benchmark.
let knownOptions: Set = ["--repeat", "--rows", "--only", "--subject", "--phase", "--db", "--pairs"]
let floorOptions: Set = ["--object-floor", "--write-floor", "--by-id-floor"]
/// `--warm`: each measured run of a phase that only reads is preceded, in the same process,
/// by an untimed run of it on a fresh subject (see `runPhase(_:_:warm:)`).
let warm = arguments.contains("--warm")
if warm { ProcessMemory.returnsFreedHeap = false }
var position = 1
while position < arguments.count {
    if floorOptions.contains(arguments[position]) || arguments[position] == "--warm" {
        position += 1
        continue
    }
    guard knownOptions.contains(arguments[position]), position + 1 < arguments.count else {
        fail("unexpected argument '\(arguments[position])'\n" + usage)
    }
    position += 2
}

if let rows = option("--rows") {
    guard let count = Int(rows), count > 0 else { fail("--rows needs a positive number") }
    setenv("BENCH_ROWS", String(count), 1)  // read by ItemValues, inherited by the children
}

if let subject = option("--subject") {
    guard let run = subjects[subject] else { fail("unknown subject \(subject); known: \(subjects.keys.sorted().joined(separator: ", "))") }
    guard let phaseName = option("--phase"), let phase = Phase(rawValue: phaseName) else {
        fail("--phase must be one of \(Phase.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    guard let path = option("--db") else { fail("--db PATH is required") }
    if warm, PairedRuns.writes(phase) { fail("--warm is for the phases that only read; \(phase.rawValue) changes the file") }
    do {
        // The untimed run's line comes first; the parent reads the last line.
        if warm { try run(phase, URL(fileURLWithPath: path)) }
        try run(phase, URL(fileURLWithPath: path))
    } catch {
        fail("\(subject) \(phase.rawValue) failed: \(error)")
    }
    exit(0)
}

guard let repetitions = Int(option("--repeat") ?? "3"), repetitions > 0 else { fail("--repeat needs a positive number") }
/// Runs one floor measurement in a scratch directory of its own, removed afterwards, then
/// exits (`exit` runs no `defer`, so the directory is removed before it).
func runFloor(_ name: String, _ measure: (URL) throws -> Void) -> Never {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(getpid())")
    do {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try measure(directory)
    } catch {
        try? FileManager.default.removeItem(at: directory)
        fail("\(name) failed: \(error)")
    }
    try? FileManager.default.removeItem(at: directory)
    exit(0)
}
if arguments.contains("--object-floor") {
    runFloor("object-floor") { try ObjectLayerFloor.run(rows: ItemValues.count, repetitions: repetitions, scratch: $0) }
}
if arguments.contains("--write-floor") {
    runFloor("write-floor") { try WriteObjectFloor.run(rows: ItemValues.count, repetitions: repetitions, scratch: $0) }
}
if arguments.contains("--by-id-floor") {
    runFloor("by-id-floor") { try ByIDFloor.run(rows: ItemValues.count, repetitions: repetitions, scratch: $0) }
}
var results: [String: [Phase: [PhaseMeasurement]]] = [:]  // subject -> phase -> runs
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("core-data-benchmarks-\(getpid())")
try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: scratch) }
let executable = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL

/// Runs one phase of `subject` in a child process and returns its measurement.
func measure(_ subject: String, _ phase: Phase, database: URL) throws -> PhaseMeasurement {
    let process = Process()
    process.executableURL = executable
    process.arguments = ["--subject", subject, "--phase", phase.rawValue, "--db", database.path]
        + (warm && !PairedRuns.writes(phase) ? ["--warm"] : [])
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        try? FileManager.default.removeItem(at: scratch)
        fail("\(subject) \(phase.rawValue) exited with status \(process.terminationStatus)")
    }
    guard let line = String(decoding: output, as: UTF8.self).split(separator: "\n").last else {
        fail("\(subject) \(phase.rawValue) printed no measurement")
    }
    return try JSONDecoder().decode(PhaseMeasurement.self, from: Data(line.utf8))
}

if let pairs = option("--pairs") {
    guard let count = Int(pairs), count > 0 else { fail("--pairs needs a positive number") }
    guard let phaseName = option("--phase"), let phase = Phase(rawValue: phaseName) else {
        fail("--pairs needs --phase, one of \(Phase.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    let paired = option("--only").map { $0.split(separator: ",").map(String.init) } ?? ["sqlite", "opencoredata"]
    let pairable = order + ObjectFloorSubject.subjectNames
    for name in paired where !pairable.contains(name) { fail("unknown subject \(name); known: \(pairable.joined(separator: ", "))") }
    if paired.contains(where: ObjectFloorSubject.subjectNames.contains), ![.fetchAll, .fetchAllTyped].contains(phase) {
        fail("the object-floor subjects run \(Phase.fetchAll.rawValue) and \(Phase.fetchAllTyped.rawValue) only, not \(phase.rawValue)")
    }
    guard paired.count >= 2 else { fail("--pairs needs at least two subjects in --only") }
    do {
        try PairedRuns.run(phase: phase, subjects: paired, repetitions: count, scratch: scratch) { subject, phase, database in
            try measure(subject, phase, database: database)
        }
    } catch {
        try? FileManager.default.removeItem(at: scratch)
        fail("--pairs failed: \(error)")
    }
    try? FileManager.default.removeItem(at: scratch)
    exit(0)
}

let only = option("--only").map { $0.split(separator: ",").map(String.init) } ?? order
for name in only where !order.contains(name) { fail("unknown subject \(name); known: \(order.joined(separator: ", "))") }

/// The 1-, 5- and 15-minute load averages: how busy the shared machine was.
func loadAverage() -> String {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
}
let loadAtStart = loadAverage()
FileHandle.standardError.write("\(ItemValues.count.grouped) rows, \(repetitions) repetitions, subjects: \(only.joined(separator: ", "))\n".data(using: .utf8)!)
for repetition in 1...repetitions {
    // Rotate the order so that no subject always runs first on a shared machine.
    let shift = (repetition - 1) % only.count
    let rotated = Array(only[shift...] + only[..<shift])
    var checksums: [Phase: [(String, Int)]] = [:]
    for subject in rotated {
        let database = scratch.appendingPathComponent("\(subject)-\(repetition).sqlite")
        var line = "run \(repetition)/\(repetitions) \(subject):"
        for phase in Phase.allCases {
            let measurement = try measure(subject, phase, database: database)
            results[subject, default: [:]][phase, default: []].append(measurement)
            checksums[phase, default: []].append((subject, measurement.checksum))
            line += " \(phase.rawValue) \(String(format: "%.3f", measurement.seconds))s (cpu \(String(format: "%.3f", measurement.cpuSeconds))s)"
        }
        FileHandle.standardError.write((line + "\n").data(using: .utf8)!)
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: database.path + suffix)
        }
    }
    // Equivalent work: every subject must produce the same checksum for every phase.
    for phase in Phase.allCases {
        let sums = checksums[phase] ?? []
        if Set(sums.map(\.1)).count > 1 {
            try? FileManager.default.removeItem(at: scratch)
            fail("CHECKSUM MISMATCH in \(phase.rawValue) (run \(repetition)): " + sums.map { "\($0.0)=\($0.1)" }.joined(separator: ", "))
        }
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}
func format(_ value: Double, _ digits: Int = 3) -> String { value.isNaN ? "–" : String(format: "%.\(digits)f", value) }
/// `1.23×`, or `–` when a subject was left out (`--only`).
func ratio(_ value: Double) -> String { value.isNaN ? "–" : format(value, 2) + "×" }

print("\(ItemValues.count.grouped) rows; medians of \(repetitions) runs; SQLite \(String(cString: sqlite3_libversion())); load average \(loadAtStart) at the start, \(loadAverage()) at the end; every phase's checksums agreed across subjects in every run.")
print("")
print("| phase | SQLite C API (s) | GRDB (s) | GRDB fastest (s) | OpenCoreData (s) | OCD ÷ SQLite | OCD ÷ GRDB | OCD ÷ GRDB fastest | OCD ÷ SQLite, CPU time | peak MB SQLite / GRDB / fastest / OCD |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for phase in Phase.allCases {
    func seconds(_ subject: String, _ value: KeyPath<PhaseMeasurement, Double> = \.seconds) -> Double {
        median(results[subject]?[phase]?.map { $0[keyPath: value] } ?? [])
    }
    func memory(_ subject: String) -> String { format(seconds(subject, \.peakMegabytes), 0) }
    let floor = seconds("sqlite"), grdb = seconds("grdb"), fast = seconds("grdb-fast"), ours = seconds("opencoredata")
    let cpuRatio = seconds("opencoredata", \.cpuSeconds) / seconds("sqlite", \.cpuSeconds)
    print("| \(phase.title) | \(format(floor)) | \(format(grdb)) | \(format(fast)) | \(format(ours)) | \(ratio(ours / floor)) | \(ratio(ours / grdb)) | \(ratio(ours / fast)) | \(ratio(cpuRatio)) | \(memory("sqlite")) / \(memory("grdb")) / \(memory("grdb-fast")) / \(memory("opencoredata")) |")
}

// CPU time, which waiting for other processes on a shared machine does not inflate: on a
// busy machine, compare these rather than the wall times above.
print("")
print("| phase (CPU s, medians) | SQLite C API | GRDB | GRDB fastest | OpenCoreData | OCD ÷ SQLite | OCD ÷ GRDB | OCD ÷ GRDB fastest |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for phase in Phase.allCases {
    func cpu(_ subject: String) -> Double { median(results[subject]?[phase]?.map(\.cpuSeconds) ?? []) }
    let floor = cpu("sqlite"), grdb = cpu("grdb"), fast = cpu("grdb-fast"), ours = cpu("opencoredata")
    print("| \(phase.title) | \(format(floor)) | \(format(grdb)) | \(format(fast)) | \(format(ours)) | \(ratio(ours / floor)) | \(ratio(ours / grdb)) | \(ratio(ours / fast)) |")
}
