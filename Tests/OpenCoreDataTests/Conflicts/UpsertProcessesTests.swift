import Foundation
import XCTest
@testable import OpenCoreData

/// Two processes upsert and update the same rows of one store at the same time, under the
/// object-trump merge policy. Afterwards the store opens, every key is held by one row
/// (the uniqueness constraint holds), every save a writer saw return is in the store, and
/// each shared row holds values some returned save wrote to it.
final class UpsertProcessesTests: XCTestCase {
    func testTwoProcessesUpsertingTheSameRowsLoseNothing() throws {
        let writer = try CrashTests.writerExecutable()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-upserts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("Upserts.sqlite")
        // The store exists before the writers start, so they never race to create it.
        _ = try open(store)

        let rounds = 150
        let names = ["alpha", "beta"]
        var outputs: [String: Pipe] = [:]
        var processes: [Process] = []
        for name in names {
            let process = Process()
            process.executableURL = writer
            process.arguments = [store.path, "upsert", name, "\(rounds)"]
            let pipe = Pipe()
            process.standardOutput = pipe
            outputs[name] = pipe
            processes.append(process)
        }
        for process in processes { try process.run() }
        // Drain both outputs while the writers run, so neither blocks on a full pipe.
        var text: [String: String] = [:]
        let lock = NSLock()
        let group = DispatchGroup()
        for (name, pipe) in outputs {
            group.enter()
            Thread {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                lock.withLock { text[name] = String(decoding: data, as: UTF8.self) }
                group.leave()
            }.start()
        }
        XCTAssertEqual(group.wait(timeout: .now() + 120), .success, "the writers did not finish")
        for process in processes {
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0, "a writer failed: \(text.values.joined())")
        }

        // What each writer saw saved: its rounds, and the shared keys each round wrote.
        var written: [String: Set<String>] = [:]   // shared key -> "writer/round" pairs
        var lockingConflicts = 0, constraintConflicts = 0
        for name in names {
            let lines = (text[name] ?? "").split(separator: "\n").filter { $0.hasPrefix("saved ") }
            XCTAssertEqual(lines.count, rounds, "\(name) saved every round")
            for line in lines {
                let parts = line.split(separator: " ")
                for key in parts[2].split(separator: ",") { written[String(key), default: []].insert("\(name)/\(parts[1])") }
            }
            if let last = lines.last?.split(separator: " "), last.count == 5 {
                lockingConflicts += Int(last[3]) ?? 0
                constraintConflicts += Int(last[4]) ?? 0
            }
        }

        // Every round upserts keys the store already holds: the constraint path ran.
        XCTAssertGreaterThan(constraintConflicts, rounds)
        print("conflicts settled by the writers: \(lockingConflicts) optimistic locking, \(constraintConflicts) constraint")

        let context = try open(store).viewContext
        let rows = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Row"))
        var byKey: [String: [NSManagedObject]] = [:]
        for row in rows { byKey[row.value(forKey: "key") as! String, default: []].append(row) }
        XCTAssertTrue(byKey.values.allSatisfy { $0.count == 1 }, "a key is held by more than one row")
        for name in names {
            for round in 1...rounds { XCTAssertNotNil(byKey["\(name)-\(round)"], "\(name)'s round \(round) returned but is not in the store") }
            XCTAssertEqual(byKey["ledger-\(name)"]?.first?.value(forKey: "round") as? Int64, Int64(rounds), "the ledger holds the last save")
        }
        let shared = byKey.filter { $0.key.hasPrefix("shared-") }
        XCTAssertFalse(shared.isEmpty)
        for (key, found) in shared {
            let row = found[0]
            let pair = "\(row.value(forKey: "writer") as! String)/\(row.value(forKey: "round") as! Int64)"
            XCTAssertTrue(written[key]?.contains(pair) ?? false, "\(key) holds \(pair), which no returned save wrote")
        }
        XCTAssertEqual(rows.count, shared.count + 2 + 2 * rounds)
    }

    private func open(_ store: URL) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Upserts", managedObjectModel: Self.model())
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: store)]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    /// The writer's model (Tests/CrashTestWriter/UpsertWriter.swift).
    static func model() -> NSManagedObjectModel {
        let entity = makeEntity("Row")
        entity.properties = [makeAttribute("key", .stringAttributeType), makeAttribute("writer", .stringAttributeType), makeAttribute("round", .integer64AttributeType)]
        entity.uniquenessConstraints = [["key"]]
        return makeModel([entity])
    }
}
