import Foundation
import XCTest
@testable import OpenCoreData

/// A save whose objects lie in two stores, listed alternately: the save finds a run's store
/// by its handle (SavePlan's grouping, the deleted keys of finishSave), so a change of store
/// at every object must still put each row in its own store, and every deleted object must
/// leave its store's row cache, the registry and the context.
final class SaveAcrossStoresTests: StoreTestCase {
    private var coordinator: NSPersistentStoreCoordinator!
    private var leftStore: NSPersistentStore!
    private var rightStore: NSPersistentStore!

    override func setUpWithError() throws {
        try super.setUpWithError()
        let left = makeEntity("Left"), right = makeEntity("Right")
        left.properties = [makeAttribute("name", .stringAttributeType)]
        right.properties = [makeAttribute("name", .stringAttributeType)]
        let model = makeModel([left, right])
        model.setEntities([left], forConfigurationName: "LeftOnly")
        model.setEntities([right], forConfigurationName: "RightOnly")
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        leftStore = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: "LeftOnly", at: storeURL("Left.sqlite"))
        rightStore = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: "RightOnly", at: storeURL("Right.sqlite"))
    }

    override func tearDownWithError() throws {
        coordinator = nil
        leftStore = nil
        rightStore = nil
        try super.tearDownWithError()
    }

    private func newContext() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// The names stored in `store`'s table of `entity`, sorted.
    private func storedNames(_ entity: String, in store: NSPersistentStore) throws -> [String] {
        try query(store.url!, "SELECT ZNAME FROM Z\(entity.uppercased()) ORDER BY ZNAME").map { $0[0] as! String }
    }

    func testObjectsOfTwoStoresListedAlternatelyAreSavedAndDeletedEachInItsStore() throws {
        let context = newContext()
        var objects: [NSManagedObject] = []
        for number in 0..<4 {
            for entity in ["Left", "Right"] {
                let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
                object.setValue("\(entity) \(number)", forKey: "name")
                objects.append(object)
            }
        }
        try context.save()
        XCTAssertEqual(try storedNames("Left", in: leftStore), ["Left 0", "Left 1", "Left 2", "Left 3"])
        XCTAssertEqual(try storedNames("Right", in: rightStore), ["Right 0", "Right 1", "Right 2", "Right 3"])
        for object in objects {
            XCTAssertTrue(object.objectID.persistentStore === (object.entity.name == "Left" ? leftStore : rightStore))
        }

        // Deleted alternately, one store after the other, all but the last of each.
        let doomed = Array(objects.prefix(6)), kept = Array(objects.suffix(2))
        let keys = doomed.map { ($0.objectID, $0.objectID.storeKey!, $0.objectID.persistentStore!) }
        for (_, key, store) in keys { XCTAssertNotNil(store.rowCache.row(for: key)) }
        let didSave = NotificationRecorder(.NSManagedObjectContextDidSave, from: context)
        let didSaveIDs = NotificationRecorder(.NSManagedObjectContextDidSaveObjectIDs, from: context)
        for object in doomed { context.delete(object) }
        try context.save()

        XCTAssertEqual(didSave.objects(NSDeletedObjectsKey), Set(doomed))
        XCTAssertEqual(didSaveIDs.last?.userInfo?[NSDeletedObjectIDsKey] as? Set<NSManagedObjectID>, Set(keys.map(\.0)))
        XCTAssertEqual(try storedNames("Left", in: leftStore), ["Left 3"])
        XCTAssertEqual(try storedNames("Right", in: rightStore), ["Right 3"])
        for (object, (id, key, store)) in zip(doomed, keys) {
            XCTAssertNil(object.managedObjectContext)
            XCTAssertFalse(object.isDeleted)
            XCTAssertTrue(object.objectID === id)
            XCTAssertNil(store.rowCache.row(for: key), "\(id) left its store's row cache")
            XCTAssertNil(context.registeredObject(for: id))
        }
        for object in kept {
            XCTAssertTrue(object.managedObjectContext === context)
            XCTAssertTrue(context.registeredObject(for: object.objectID) === object)
            XCTAssertNotNil(object.objectID.persistentStore!.rowCache.row(for: object.objectID.storeKey!))
        }
    }
}
