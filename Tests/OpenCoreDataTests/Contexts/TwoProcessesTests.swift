import Foundation
import XCTest
@testable import OpenCoreData

/// Another process saving to the store file this process reads: every fetch sees whole
/// saves only (never part of a batch), the count only grows as the other process's saves
/// become visible, and an object fetched at the start is found by its ID at the end.
final class TwoProcessesTests: XCTestCase {
    func testAWriterProcessesSavesAppearWholeToAReaderProcess() throws {
        let writer = try CrashTests.writerExecutable()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-two-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("Shared.sqlite")

        let process = Process()
        process.executableURL = writer
        process.arguments = [store.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        // Wait for the writer's first save, then keep draining its output so it never blocks.
        let firstSave = DispatchSemaphore(value: 0)
        Thread {
            var signalled = false
            while true {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                if !signalled, String(decoding: chunk, as: UTF8.self).contains("saved") {
                    signalled = true
                    firstSave.signal()
                }
            }
        }.start()
        XCTAssertEqual(firstSave.wait(timeout: .now() + 60), .success, "the writer never saved")

        let container = NSPersistentContainer(name: "Crash", managedObjectModel: CrashTests.crashModel())
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: store)]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        let context = container.viewContext
        let entries = NSFetchRequest<NSManagedObject>(entityName: "Entry")

        let first = try context.fetch(entries).first!
        let payload = first.value(forKey: "payload") as? String
        var counts: [Int] = []
        let until = Date().addingTimeInterval(1.5)
        while Date() < until {
            context.reset()
            let fetched = try context.fetch(entries)
            var perBatch: [Int64: Int] = [:]
            for entry in fetched { perBatch[entry.value(forKey: "batch") as! Int64, default: 0] += 1 }
            XCTAssertTrue(perBatch.values.allSatisfy { $0 == 10 }, "a fetch saw part of a save")
            counts.append(fetched.count)
            usleep(20_000)
        }
        XCTAssertEqual(counts, counts.sorted(), "the count only grows")
        XCTAssertGreaterThan(counts.last!, counts.first!, "the other process's saves became visible")
        let again = try context.existingObject(with: first.objectID)
        XCTAssertEqual(again.value(forKey: "payload") as? String, payload)
    }
}
