import Foundation

// Usage:
//   core-data-benchmarks [--repeat N]        runs every subject N times (default 3), each
//                                            repetition in fresh processes and files, and
//                                            prints a Markdown table of medians and ratios
//   core-data-benchmarks --subject NAME --db PATH   (internal) one subject, one process

let subjects: [String: (URL) throws -> Void] = [
    "sqlite": { try runSubject(RawSQLiteSubject.self, databaseURL: $0) },
    "grdb": { try runSubject(GRDBSubject.self, databaseURL: $0) },
    "opencoredata": { try runSubject(OpenCoreDataSubject.self, databaseURL: $0) },
]
let order = ["sqlite", "grdb", "opencoredata"]

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

if let subject = option("--subject"), let path = option("--db") {
    guard let run = subjects[subject] else {
        FileHandle.standardError.write("unknown subject \(subject); known: \(order.joined(separator: ", "))\n".data(using: .utf8)!)
        exit(2)
    }
    do {
        try run(URL(fileURLWithPath: path))
    } catch {
        FileHandle.standardError.write("\(subject) failed: \(error)\n".data(using: .utf8)!)
        exit(1)
    }
    exit(0)
}

let repetitions = Int(option("--repeat") ?? "3") ?? 3
let only = option("--only").map { $0.split(separator: ",").map(String.init) } ?? order
var results: [String: [String: [PhaseMeasurement]]] = [:]  // subject -> phase -> runs
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("core-data-benchmarks-\(getpid())")
try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: scratch) }

for repetition in 1...repetitions {
    for subject in only {
        let database = scratch.appendingPathComponent("\(subject)-\(repetition).sqlite")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        process.arguments = ["--subject", subject, "--db", database.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            FileHandle.standardError.write("\(subject) exited with status \(process.terminationStatus)\n".data(using: .utf8)!)
            exit(1)
        }
        for line in String(decoding: output, as: UTF8.self).split(separator: "\n") {
            let measurement = try JSONDecoder().decode(PhaseMeasurement.self, from: Data(line.utf8))
            results[subject, default: [:]][measurement.phase, default: []].append(measurement)
        }
        FileHandle.standardError.write("run \(repetition)/\(repetitions): \(subject) done\n".data(using: .utf8)!)
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
}
func format(_ value: Double, _ digits: Int = 3) -> String { String(format: "%.\(digits)f", value) }

print("| phase | SQLite C API (s) | GRDB (s) | OpenCoreData (s) | OCD ÷ SQLite | OCD ÷ GRDB | peak MB SQLite / GRDB / OCD |")
print("|---|---:|---:|---:|---:|---:|---:|")
for phase in Phase.allCases {
    func seconds(_ subject: String) -> Double { median(results[subject]?[phase.rawValue]?.map(\.seconds) ?? []) }
    func memory(_ subject: String) -> String { format(median(results[subject]?[phase.rawValue]?.map(\.peakMegabytes) ?? []), 0) }
    let floor = seconds("sqlite"), grdb = seconds("grdb"), ours = seconds("opencoredata")
    print("| \(phase.rawValue) | \(format(floor)) | \(format(grdb)) | \(format(ours)) | \(format(ours / floor, 2))× | \(format(ours / grdb, 2))× | \(memory("sqlite")) / \(memory("grdb")) / \(memory("opencoredata")) |")
}
