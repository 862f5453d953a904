import Foundation
import XCTest
@testable import OpenCoreData

/// A process saving in a loop, killed with SIGKILL again and again: the store always
/// opens and holds whole saves only, at least every save that returned.
final class CrashTests: XCTestCase {
    /// Kills per test: `CRASH_KILLS` (the `make stress` target sets 1,000), else a few
    /// dozen, which keeps `make test` short.
    private static var kills: Int { ProcessInfo.processInfo.environment["CRASH_KILLS"].flatMap(Int.init) ?? 20 }

    func testKilledWritersNeverCorruptTheStoreOrLoseAReturnedSave() throws {
        try killWriterRepeatedly(mode: "plain")
    }

    /// The same with persistent history and a uniqueness constraint: each save also upserts
    /// three constrained Tally rows under object trump. After every kill no Tally key is held
    /// twice, each holds the last whole batch that wrote it, and history holds exactly one
    /// transaction per batch in the store (its ten inserts and its three Tally writes),
    /// naming exactly the rows the store holds.
    func testKilledWritersKeepHistoryConstraintsAndDataTogether() throws {
        try killWriterRepeatedly(mode: "history")
    }

    private func killWriterRepeatedly(mode: String) throws {
        let writer = try Self.writerExecutable()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var store = directory.appendingPathComponent("Crash.sqlite")
        var generator = SystemRandomNumberGenerator()
        var lastReported: Int64 = 0
        for round in 0..<Self.kills {
            // A new store every 50 kills keeps each round's checks (which read the whole
            // store) short when the stress target kills a thousand times.
            if round > 0, round % 50 == 0 {
                store = directory.appendingPathComponent("Crash-\(round).sqlite")
                lastReported = 0
            }
            let process = Process()
            process.executableURL = writer
            process.arguments = [store.path, mode]
            let output = Pipe()
            process.standardOutput = output
            let reader = OutputReader(output.fileHandleForReading)
            try process.run()
            // Kill only once the writer is saving (its start-up time depends on the machine's
            // load), at a random moment in its stream of saves.
            XCTAssertTrue(reader.waitForFirstSave(seconds: 60), "round \(round): the writer never saved")
            usleep(UInt32.random(in: 0...60_000, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let printed = reader.finish()
            XCTAssertFalse(printed.contains("open failed"), "round \(round): \(printed)")
            if let last = printed.split(separator: "\n").last(where: { $0.hasPrefix("saved ") }), let number = Int64(last.dropFirst(6)) {
                lastReported = max(lastReported, number)
            }
            let batches = try Self.batches(in: store, history: mode == "history")
            for (batch, count) in batches { XCTAssertEqual(count, 10, "round \(round): batch \(batch) is partial") }
            let numbers = batches.keys.sorted()
            XCTAssertEqual(numbers, Array(numbers.isEmpty ? [] : Array(1...numbers.count).map(Int64.init)), "round \(round): batches are contiguous")
            XCTAssertGreaterThanOrEqual(Int64(numbers.count), lastReported, "round \(round): a save that returned is missing")
            if mode == "history" {
                try Self.checkTallies(in: store, batches: Int64(batches.count), round: round)
                try Self.checkHistory(of: store, batches: batches.count, round: round)
            }
        }
        XCTAssertGreaterThan(lastReported, 0, "the writer saved at least once")
    }

    /// Collects a child's standard output on a background thread and tells when the first
    /// "saved" line has arrived.
    private final class OutputReader: @unchecked Sendable {
        private let handle: FileHandle
        private let lock = NSCondition()
        private var data = Data()
        private var ended = false

        init(_ handle: FileHandle) {
            self.handle = handle
            Thread { [self] in
                while true {
                    let chunk = handle.availableData
                    lock.lock()
                    if chunk.isEmpty { ended = true } else { data.append(chunk) }
                    lock.broadcast()
                    lock.unlock()
                    if chunk.isEmpty { return }
                }
            }.start()
        }

        func waitForFirstSave(seconds: Double) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            lock.lock(); defer { lock.unlock() }
            while !ended, !String(decoding: data, as: UTF8.self).contains("saved ") {
                guard lock.wait(until: deadline) else { return false }
            }
            return String(decoding: data, as: UTF8.self).contains("saved ")
        }

        /// Everything the child printed, once its output has ended.
        func finish() -> String {
            lock.lock(); defer { lock.unlock() }
            while !ended { lock.wait() }
            return String(decoding: data, as: UTF8.self)
        }
    }

    /// Entries per batch, read through a fresh coordinator.
    private static func batches(in store: URL, history: Bool) throws -> [Int64: Int] {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: crashModel())
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: store,
                                           options: history ? [NSPersistentHistoryTrackingKey: true] : nil)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        var counts: [Int64: Int] = [:]
        for entry in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Entry")) {
            counts[entry.value(forKey: "batch") as! Int64, default: 0] += 1
        }
        return counts
    }

    /// Checks with plain SQL that no Tally key is held twice and that each key holds the
    /// last of the store's `batches` batches that upserted it (batch N writes keys N % 5,
    /// (N + 1) % 5 and (N + 2) % 5).
    private static func checkTallies(in store: URL, batches: Int64, round: Int) throws {
        var expected: [String: Int64] = [:]
        if batches > 0 {
            for batch in 1...batches { for offset in 0..<Int64(3) { expected["k\((batch + offset) % 5)"] = batch } }
        }
        let database = try SQLiteDatabase(path: store.path, create: false)
        defer { database.close() }
        let statement = try database.statement("SELECT ZKEY, ZBATCH FROM ZTALLY ORDER BY ZKEY")
        defer { statement.reset() }
        var found: [String: Int64] = [:]
        while try statement.step() {
            let key = statement.string(0)
            XCTAssertNil(found[key], "round \(round): Tally key \(key) is held by more than one row")
            found[key] = statement.int64(1)
        }
        XCTAssertEqual(found, expected, "round \(round): the Tally rows hold the last batch that wrote them")
    }

    /// Checks that history has one transaction per batch: ten Entry inserts, and Tally
    /// changes that insert or update three rows; that the Entry inserts name exactly the
    /// stored entries; and that the Tally rows history leaves alive are the stored ones.
    private static func checkHistory(of store: URL, batches: Int, round: Int) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: crashModel())
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: store, options: [NSPersistentHistoryTrackingKey: true])
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let result = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)) as! NSPersistentHistoryResult
        let transactions = result.result as! [NSPersistentHistoryTransaction]
        XCTAssertEqual(transactions.count, batches, "round \(round): one transaction per batch")
        let stored = Set(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Entry")).map(\.objectID))
        let storedTallies = Set(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Tally")).map(\.objectID))
        var inserted = Set<NSManagedObjectID>()
        var liveTallies = Set<NSManagedObjectID>()
        for transaction in transactions {
            let changes = transaction.changes ?? []
            let entries = changes.filter { $0.changedObjectID.entity.name == "Entry" }
            XCTAssertEqual(entries.count, 10, "round \(round): transaction \(transaction.transactionNumber)")
            XCTAssertTrue(entries.allSatisfy { $0.changeType == .insert })
            for change in entries { inserted.insert(change.changedObjectID) }
            var written = Set<NSManagedObjectID>()
            for change in changes where change.changedObjectID.entity.name == "Tally" {
                switch change.changeType {
                case .insert:
                    XCTAssertTrue(liveTallies.insert(change.changedObjectID).inserted, "round \(round): a Tally row inserted twice")
                    written.insert(change.changedObjectID)
                case .update:
                    XCTAssertTrue(liveTallies.contains(change.changedObjectID), "round \(round): a Tally row updated before its insert")
                    written.insert(change.changedObjectID)
                case .delete:
                    XCTAssertNotNil(liveTallies.remove(change.changedObjectID), "round \(round): a Tally row deleted before its insert")
                }
            }
            XCTAssertEqual(written.count, 3, "round \(round): transaction \(transaction.transactionNumber) writes three Tally rows")
        }
        XCTAssertEqual(inserted, stored, "round \(round): history names exactly the stored entries")
        XCTAssertEqual(liveTallies, storedTallies, "round \(round): history accounts for exactly the stored Tally rows")
    }

    /// The writer's model, built the same way.
    static func crashModel() -> NSManagedObjectModel {
        let entity = NSEntityDescription()
        entity.name = "Entry"
        let batch = NSAttributeDescription()
        batch.name = "batch"
        batch.attributeType = .integer64AttributeType
        batch.isOptional = false
        let payload = NSAttributeDescription()
        payload.name = "payload"
        payload.attributeType = .stringAttributeType
        payload.preservesValueInHistoryOnDeletion = true
        entity.properties = [batch, payload]
        let tally = NSEntityDescription()
        tally.name = "Tally"
        let key = NSAttributeDescription()
        key.name = "key"
        key.attributeType = .stringAttributeType
        let tallyBatch = NSAttributeDescription()
        tallyBatch.name = "batch"
        tallyBatch.attributeType = .integer64AttributeType
        tally.properties = [key, tallyBatch]
        tally.uniquenessConstraints = [["key"]]
        let model = NSManagedObjectModel()
        model.entities = [entity, tally]
        return model
    }

    /// The CrashTestWriter executable built beside the test bundle.
    /// What a run of the writer in `mode` left: its standard output and error, and how
    /// it ended. For library code that raises (which stops the process, as on Apple
    /// platforms, so a child process runs it).
    static func runWriter(store: URL, mode: String) throws -> (output: String, errors: String, reason: Process.TerminationReason, status: Int32) {
        let process = Process()
        process.executableURL = try writerExecutable()
        process.arguments = [store.path, mode]
        process.environment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
        let errors = Pipe(), output = Pipe()
        process.standardError = errors
        process.standardOutput = output
        try process.run()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let outputText = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (outputText, errorText, process.terminationReason, process.terminationStatus)
    }

    /// Runs the writer in `mode` and checks that it stopped with an uncaught exception
    /// named `exception` whose reason starts with `reason`, as Core Data's program would;
    /// returns what the writer printed before.
    @discardableResult
    static func assertWriterRaises(store: URL, mode: String, exception: String, reason: String,
                                   file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let run = try runWriter(store: store, mode: mode)
        XCTAssertEqual(run.reason, .uncaughtSignal, file: file, line: line)
        XCTAssertEqual(run.status, SIGABRT, file: file, line: line)
        XCTAssertTrue(run.errors.contains("*** Terminating app due to uncaught exception '\(exception)', reason: '\(reason)"),
                      run.errors, file: file, line: line)
        return run.output
    }

    static func writerExecutable() throws -> URL {
        // On Linux the test process is the .xctest executable itself, in the build directory.
        let places = [
            Bundle.main.executableURL, URL(fileURLWithPath: CommandLine.arguments[0]), Bundle(for: CrashTests.self).bundleURL,
        ].compactMap { $0?.deletingLastPathComponent() }
        for directory in places {
            let candidate = directory.appendingPathComponent("CrashTestWriter")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw NSError(domain: "CrashTests", code: 1, userInfo: [
            NSLocalizedDescriptionKey: "CrashTestWriter is not built beside the tests; `swift build` builds it"
        ])
    }
}
