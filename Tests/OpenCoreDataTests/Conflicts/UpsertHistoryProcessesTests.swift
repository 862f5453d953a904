import Foundation
import XCTest
@testable import OpenCoreData

/// The proof of issue 14 in one test: three writer processes upsert and update the same
/// constrained rows under the object-trump merge policy, with persistent history on, while
/// this process follows their history after its last token, as an app follows another
/// process's changes. Afterwards the store opens, no key is held by two rows, every save a
/// writer saw return is one transaction of that writer holding exactly the changes its
/// did-save notification listed, the reader saw every transaction, and the rows history
/// says exist are exactly the rows in the store.
final class UpsertHistoryProcessesTests: XCTestCase {
    func testWritersUpsertTheSameRowsWhileAReaderFollowsHistory() throws {
        let writer = try CrashTests.writerExecutable()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-upsert-history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("Upserts.sqlite")
        let rounds = 200
        let names = ["alpha", "beta", "gamma"]

        // The reader opens the store first, so the writers find its schema made.
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: UpsertProcessesTests.model())
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: store, options: [NSPersistentHistoryTrackingKey: true])
        let reader = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        reader.persistentStoreCoordinator = coordinator

        var processes: [Process] = []
        let outputs = names.map { _ in OutputCollector() }
        for (index, name) in names.enumerated() {
            let process = Process()
            process.executableURL = writer
            process.arguments = [store.path, "upsert", name, String(rounds), "history"]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            outputs[index].start(pipe.fileHandleForReading)
            processes.append(process)
        }
        defer { for process in processes where process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        // Follow history while the writers run, keeping the set of rows it says exist.
        let history = HistoryFollower(reader: reader)
        var passes = 0
        while processes.contains(where: \.isRunning) {
            try history.follow()
            passes += 1
            usleep(5_000)
        }
        for process in processes { process.waitUntilExit() }
        try history.follow()
        let printed = outputs.map { $0.finish() }
        for (index, process) in processes.enumerated() {
            XCTAssertEqual(process.terminationStatus, 0, "\(names[index]) failed: \(printed[index])")
        }
        XCTAssertGreaterThan(passes, 1, "the reader followed history while the writers saved")

        // The store opens; no key is held by two rows (plain SQL on the file).
        let fresh = NSPersistentStoreCoordinator(managedObjectModel: UpsertProcessesTests.model())
        try fresh.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: store, options: [NSPersistentHistoryTrackingKey: true])
        let check = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        check.persistentStoreCoordinator = fresh
        let database = try SQLiteDatabase(path: store.path)
        defer { database.close() }
        let duplicates = try database.statement("SELECT ZKEY, COUNT(*) FROM ZROW GROUP BY ZKEY HAVING COUNT(*) > 1")
        XCTAssertFalse(try duplicates.step(), "a key is held by more than one row: \(duplicates.string(0))")
        duplicates.reset()

        // The rows history says exist are the rows in the store.
        let rows = try check.fetch(NSFetchRequest<NSManagedObject>(entityName: "Row"))
        XCTAssertEqual(history.live, Set(rows.map { $0.objectID.storeKey!.primaryKey }), "history accounts for every row in the store")

        // Every reported save is one transaction of its writer, with exactly its changes,
        // and the reader saw it: the transactions seen are the writers' saves and no more.
        var reported = 0, lockingConflicts = 0, constraintConflicts = 0
        for (index, name) in names.enumerated() {
            let lines = printed[index].split(separator: "\n")
            let saves = lines.filter { $0.hasPrefix("saved ") }
            if let last = saves.last?.split(separator: " "), last.count == 5 {
                lockingConflicts += Int(last[3]) ?? 0
                constraintConflicts += Int(last[4]) ?? 0
            }
            let changes = lines.filter { $0.hasPrefix("changes ") }
            XCTAssertEqual(saves.count, rounds, "\(name) saved every round")
            XCTAssertEqual(changes.count, saves.count, "\(name) listed each save's changes")
            let own = history.seen.filter { $0.author == name }
            XCTAssertEqual(own.count, saves.count, "\(name): one transaction per save that returned")
            XCTAssertTrue(own.allSatisfy { $0.processID == String(processes[index].processIdentifier) })
            for (line, transaction) in zip(changes, own) {
                XCTAssertEqual(Self.changes(in: transaction), Self.changes(printed: line), "\(name): \(line)")
            }
            reported += saves.count
        }
        XCTAssertEqual(history.seen.count, reported, "history holds the writers' saves and nothing else")
        // Every round upserts keys the store already holds: the constraint path ran.
        XCTAssertGreaterThan(constraintConflicts, rounds)
        print("conflicts settled by the writers: \(lockingConflicts) optimistic locking, \(constraintConflicts) constraint; \(passes) reader passes")

        // No save that returned is lost: each round's event row and the last ledger write.
        var byKey: [String: NSManagedObject] = [:]
        for row in rows { byKey[row.value(forKey: "key") as! String] = row }
        for name in names {
            for round in 1...rounds { XCTAssertNotNil(byKey["\(name)-\(round)"], "\(name)'s round \(round) returned but is not in the store") }
            XCTAssertEqual(byKey["ledger-\(name)"]?.value(forKey: "round") as? Int64, Int64(rounds), "the ledger holds the last save")
        }
    }

    /// A transaction's changes as primary keys by kind ("I", "U", "D").
    private static func changes(in transaction: NSPersistentHistoryTransaction) -> [String: Set<Int64>] {
        var kinds: [String: Set<Int64>] = ["I": [], "U": [], "D": []]
        for change in transaction.changes ?? [] {
            let kind = change.changeType == .insert ? "I" : change.changeType == .update ? "U" : "D"
            kinds[kind]!.insert(change.changedObjectID.storeKey!.primaryKey)
        }
        return kinds
    }

    /// A writer's "changes I=pk,… U=pk,… D=pk,…" line as primary keys by kind.
    private static func changes(printed line: Substring) -> [String: Set<Int64>] {
        var kinds: [String: Set<Int64>] = [:]
        for part in line.split(separator: " ").dropFirst() {
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            kinds[String(pair[0])] = Set(pair[1].split(separator: ",").compactMap { Int64($0) })
        }
        return kinds
    }
}
