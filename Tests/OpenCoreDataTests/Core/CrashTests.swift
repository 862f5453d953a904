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

    /// The same with persistent history: after every kill, history holds exactly one
    /// transaction of ten inserts for each batch in the store, and nothing else.
    func testKilledWritersKeepHistoryAndDataTogether() throws {
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
            if mode == "history" { try Self.checkHistory(of: store, batches: batches.count, round: round) }
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

    /// Checks that history has one transaction of ten inserts per batch, each insert
    /// naming a row that exists, and no other change.
    private static func checkHistory(of store: URL, batches: Int, round: Int) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: crashModel())
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: store, options: [NSPersistentHistoryTrackingKey: true])
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let result = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)) as! NSPersistentHistoryResult
        let transactions = result.result as! [NSPersistentHistoryTransaction]
        XCTAssertEqual(transactions.count, batches, "round \(round): one transaction per batch")
        let stored = Set(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Entry")).map(\.objectID))
        var inserted = Set<NSManagedObjectID>()
        for transaction in transactions {
            XCTAssertEqual(transaction.changes?.count, 10, "round \(round): transaction \(transaction.transactionNumber)")
            XCTAssertTrue(transaction.changes?.allSatisfy { $0.changeType == .insert } ?? false)
            for change in transaction.changes ?? [] { inserted.insert(change.changedObjectID) }
        }
        XCTAssertEqual(inserted, stored, "round \(round): history names exactly the stored rows")
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
        let model = NSManagedObjectModel()
        model.entities = [entity]
        return model
    }

    /// The CrashTestWriter executable built beside the test bundle.
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
