import Foundation
import XCTest
@testable import OpenCoreData

/// Pinned contexts on their own queues while another queue saves: each pinned read sees
/// its snapshot, whatever the writer does meanwhile (run under ThreadSanitizer by
/// `make tsan`).
final class QueryGenerationConcurrencyTests: StoreTestCase {
    func testPinnedContextsOnTwoQueuesReadOneSnapshotWhileAThirdSaves() throws {
        let entity = NSEntityDescription()
        entity.name = "Item"
        let number = NSAttributeDescription()
        number.name = "number"
        number.attributeType = .integer64AttributeType
        entity.properties = [number]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL())
        let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        writer.persistentStoreCoordinator = coordinator
        func insert(_ count: Int) throws {
            try writer.performAndWait {
                for index in 0..<count { NSEntityDescription.insertNewObject(forEntityName: "Item", into: writer).setValue(Int64(index), forKey: "number") }
                try writer.save()
            }
        }
        try insert(10)
        let first = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        first.persistentStoreCoordinator = coordinator
        let second = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        second.persistentStoreCoordinator = coordinator
        let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
        try first.performAndWait {
            try first.setQueryGenerationFrom(.current)
            XCTAssertEqual(try first.count(for: request), 10)
        }
        let token = first.performAndWait { first.queryGenerationToken }
        try second.performAndWait { try second.setQueryGenerationFrom(token) }

        let group = DispatchGroup()
        var failures: [String] = []
        let lock = NSLock()
        for context in [first, second] {
            group.enter()
            context.perform {
                defer { group.leave() }
                for _ in 0..<50 {
                    let count = (try? context.count(for: request)) ?? -1
                    let fetched = (try? context.fetch(request).count) ?? -1
                    if count != 10 || fetched != 10 {
                        lock.lock(); failures.append("count \(count), fetched \(fetched)"); lock.unlock()
                    }
                }
            }
        }
        for _ in 0..<20 { try insert(5) }
        group.wait()
        XCTAssertEqual(failures, [])
        try first.performAndWait {
            try first.setQueryGenerationFrom(.current)
            XCTAssertEqual(try first.count(for: request), 110)
        }
    }
}
