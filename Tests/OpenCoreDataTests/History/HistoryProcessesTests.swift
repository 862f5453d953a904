import Foundation
import XCTest
@testable import OpenCoreData

/// Two writer processes insert, update and delete at the same time while this process
/// reads their history after its last token and applies it, as an app applies another
/// process's changes. Afterwards the store opens, the objects history says exist are
/// exactly the objects in the store, and every save a writer reported as returned is in
/// history with exactly the changes it made.
final class HistoryProcessesTests: XCTestCase {
    func testAReaderFollowsTwoWritersThroughHistory() throws {
        let writer = try CrashTests.writerExecutable()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("History.sqlite")
        let savesPerWriter = 150

        // The reader opens the store first, so the writers find its schema made.
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: CrashTests.crashModel())
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: store, options: [NSPersistentHistoryTrackingKey: true])
        let reader = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        reader.persistentStoreCoordinator = coordinator

        var processes: [(Process, Pipe)] = []
        for _ in 0..<2 {
            let process = Process()
            process.executableURL = writer
            process.arguments = [store.path, "churn", String(savesPerWriter)]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            processes.append((process, output))
        }
        defer { for (process, _) in processes where process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // Drain each writer's output on a thread of its own, so that it never blocks.
        let outputs = processes.map { _ in OutputCollector() }
        for (index, (_, pipe)) in processes.enumerated() { outputs[index].start(pipe.fileHandleForReading) }

        // Follow history while the writers run.
        let history = HistoryFollower(reader: reader)
        var passes = 0
        while processes.contains(where: { $0.0.isRunning }) {
            try history.follow()
            passes += 1
            usleep(5_000)
        }
        for (process, _) in processes { process.waitUntilExit() }
        try history.follow()
        for (index, (process, _)) in processes.enumerated() {
            XCTAssertEqual(process.terminationStatus, 0, "writer \(index): \(outputs[index].finish())")
        }

        // The store opens, and history's objects are the store's objects.
        let fresh = NSPersistentStoreCoordinator(managedObjectModel: CrashTests.crashModel())
        try fresh.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: store, options: [NSPersistentHistoryTrackingKey: true])
        let check = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        check.persistentStoreCoordinator = fresh
        let stored = Set(try check.fetch(NSFetchRequest<NSManagedObject>(entityName: "Entry")).map { $0.objectID.storeKey!.primaryKey })
        XCTAssertEqual(history.live, stored, "history accounts for every object in the store")
        XCTAssertEqual(stored.count, 2 * savesPerWriter * 3 - 2 * (savesPerWriter - 1), "every save that returned is in the store")

        // Every reported save is one transaction of that writer, with exactly its changes.
        for (index, (process, _)) in processes.enumerated() {
            let lines = outputs[index].finish().split(separator: "\n").filter { $0.hasPrefix("saved ") }
            XCTAssertEqual(lines.count, savesPerWriter, "writer \(index) reported every save")
            let own = history.seen.filter { $0.processID == String(process.processIdentifier) }
            XCTAssertEqual(own.count, lines.count, "writer \(index): one transaction per save")
            XCTAssertTrue(own.allSatisfy { $0.author == "writer \(process.processIdentifier)" })
            for (line, transaction) in zip(lines, own) {
                XCTAssertEqual(Self.describe(transaction), String(line), "writer \(index)")
            }
        }
        XCTAssertGreaterThan(passes, 1, "the reader followed history while the writers saved")
    }

    /// A transaction as the writer prints its save: `saved I=pk,pk,pk U=pk D=pk`.
    private static func describe(_ transaction: NSPersistentHistoryTransaction) -> String {
        func keys(_ type: NSPersistentHistoryChangeType) -> String {
            (transaction.changes ?? []).filter { $0.changeType == type }.map { String($0.changedObjectID.storeKey!.primaryKey) }.joined(separator: ",")
        }
        return "saved I=\(keys(.insert)) U=\(keys(.update)) D=\(keys(.delete))"
    }
}

/// Everything a child process prints, collected on a thread of its own.
final class OutputCollector: @unchecked Sendable {
    private let lock = NSCondition()
    private var data = Data()
    private var ended = false

    func start(_ handle: FileHandle) {
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

    /// The output, once it has ended.
    func finish() -> String {
        lock.lock(); defer { lock.unlock() }
        while !ended { lock.wait() }
        return String(decoding: data, as: UTF8.self)
    }
}
