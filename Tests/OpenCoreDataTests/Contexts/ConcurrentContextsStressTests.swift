import Foundation
import XCTest
@testable import OpenCoreData

/// Several private contexts of one coordinator inserting, fetching, faulting and saving
/// at once: the row cache, registries, statement cache and connection are shared.
final class ConcurrentContextsStressTests: CoreTestCase {
    func testPrivateContextsWorkingAtOnceLoseNothing() throws {
        let workers = 6, batches = 5, perBatch = 40
        try saveTrails(20, hikesEach: 2)
        let container = try openContainer()
        container.viewContext.automaticallyMergesChangesFromParent = true
        let merged = MergedInsertions()
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: container.viewContext, queue: nil) {
            merged.total += ($0.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject>)?.count ?? 0
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let failures = FailureLog()
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            let context = container.newBackgroundContext()
            context.name = "worker \(worker)"
            context.performAndWait {
                do {
                    for batch in 0..<batches {
                        // Fetch and fault shared rows, change one, insert a batch with relationships.
                        let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
                        request.predicate = NSPredicate(format: "name BEGINSWITH %@", "Trail ")
                        let shared = try context.fetch(request)
                        for trail in shared { _ = (trail.value(forKey: "hikes") as? Set<NSManagedObject>)?.first?.value(forKey: "date") }
                        for index in 0..<perBatch {
                            let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
                            trail.setValue("w\(worker)-b\(batch)-\(index)", forKey: "name")
                            trail.setValue(Double(index % 5), forKey: "rating")
                            let hike = NSEntityDescription.insertNewObject(forEntityName: "Hike", into: context)
                            hike.setValue(trail, forKey: "trail")
                            hike.setValue(Date(timeIntervalSince1970: Double(worker * 1000 + index)), forKey: "date")
                        }
                        try context.save()
                        context.refreshAllObjects()
                        let mine = NSFetchRequest<NSManagedObject>(entityName: "Trail")
                        mine.predicate = NSPredicate(format: "name BEGINSWITH %@", "w\(worker)-")
                        let count = try context.count(for: mine)
                        if count != (batch + 1) * perBatch { failures.add("worker \(worker) batch \(batch): counted \(count)") }
                    }
                } catch {
                    failures.add("worker \(worker): \(error)")
                }
            }
        }
        XCTAssertEqual(failures.messages, [])

        let reader = try openContainer()
        let trails = try reader.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
        XCTAssertEqual(trails.count, 20 + workers * batches * perBatch)
        var seen = Set<String>()
        for trail in trails {
            let name = trail.value(forKey: "name") as! String
            XCTAssertTrue(seen.insert(name).inserted, "\(name) saved twice")
            guard name.hasPrefix("w") else { continue }
            let index = Int(name.split(separator: "-").last!)!
            XCTAssertEqual(trail.value(forKey: "rating") as? Double, Double(index % 5), name)
            let hikes = trail.value(forKey: "hikes") as! Set<NSManagedObject>
            XCTAssertEqual(hikes.count, 1, name)
            let worker = Int(name.dropFirst().prefix { $0 != "-" })!
            XCTAssertEqual(hikes.first?.value(forKey: "date") as? Date, Date(timeIntervalSince1970: Double(worker * 1000 + index)), name)
        }
        XCTAssertEqual(try reader.viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Hike")), 40 + workers * batches * perBatch)
        // The view context merges every save on the main queue, as the main queue runs.
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, merged.total < workers * batches * perBatch * 2 {
            RunLoop.main.run(until: Date().addingTimeInterval(0.01))
        }
        XCTAssertEqual(merged.total, workers * batches * perBatch * 2, "inserted trails and hikes, merged into the view context")
    }

    func testChildrenOfOneParentOnDifferentQueues() throws {
        let container = try openContainer()
        let parent = container.newBackgroundContext()
        let failures = FailureLog()
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            child.parent = parent
            child.performAndWait {
                do {
                    for index in 0..<25 {
                        NSEntityDescription.insertNewObject(forEntityName: "Trail", into: child).setValue("c\(worker)-\(index)", forKey: "name")
                        try child.save()
                    }
                    let count = try child.count(for: NSFetchRequest<NSManagedObject>(entityName: "Trail"))
                    if count < 25 { failures.add("child \(worker) sees \(count)") }
                } catch {
                    failures.add("child \(worker): \(error)")
                }
            }
        }
        XCTAssertEqual(failures.messages, [])
        try parent.performAndWait { try parent.save() }
        XCTAssertEqual(try trailCount(in: try openContainer()), 100)
    }
}

/// Messages collected from several threads.
final class FailureLog: @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [String] = []
    func add(_ message: String) { lock.lock(); collected.append(message); lock.unlock() }
    var messages: [String] { lock.lock(); defer { lock.unlock() }; return collected }
}

/// Counted on the main queue only.
final class MergedInsertions: @unchecked Sendable { var total = 0 }
