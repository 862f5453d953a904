import Foundation
import XCTest
@testable import OpenCoreData

/// Records every hook call, in order.
enum LifecycleRecorder {
    static var calls: [String] = []
}

/// A Hike class whose hooks record their calls.
final class HookedHike: NSManagedObject {
    override func awakeFromInsert() { super.awakeFromInsert(); LifecycleRecorder.calls.append("awakeFromInsert") }
    override func awakeFromFetch() { super.awakeFromFetch(); LifecycleRecorder.calls.append("awakeFromFetch") }
    override func willSave() { super.willSave(); LifecycleRecorder.calls.append("willSave \(isDeleted ? "deleted" : isInserted ? "inserted" : "updated")") }
    override func didSave() { super.didSave(); LifecycleRecorder.calls.append("didSave") }
    override func prepareForDeletion() { super.prepareForDeletion(); LifecycleRecorder.calls.append("prepareForDeletion") }
}

/// A Trail class that fills its mandatory name in willSave.
final class StampedTrail: NSManagedObject {
    override func willSave() {
        super.willSave()
        if value(forKey: "name") == nil { setPrimitiveValue("Stamped in willSave", forKey: "name") }
    }
}

/// Object lifecycle hooks, the context's registry, and save notifications.
final class LifecycleTests: CoreTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        model.entitiesByName["Hike"]!.managedObjectClassName = NSStringFromClass(HookedHike.self)
        LifecycleRecorder.calls = []
    }

    func testHooksRunAtInsertFetchSaveAndDelete() throws {
        let container = try openContainer()
        let hike = NSEntityDescription.insertNewObject(forEntityName: "Hike", into: container.viewContext)
        XCTAssertTrue(hike is HookedHike)
        try container.viewContext.save()
        XCTAssertEqual(LifecycleRecorder.calls, ["awakeFromInsert", "willSave inserted", "didSave"])

        LifecycleRecorder.calls = []
        let reader = try openContainer()
        let fetched = try XCTUnwrap(reader.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Hike")).first)
        XCTAssertEqual(LifecycleRecorder.calls, [], "a fetched fault has not awoken yet")
        fetched.setValue(Date(timeIntervalSinceReferenceDate: 0), forKey: "date")
        XCTAssertEqual(LifecycleRecorder.calls, ["awakeFromFetch"])
        reader.viewContext.delete(fetched)
        // Core Data calls it inside deleteObject: itself (decompiled NSManagedObjectContext,
        // iOS 26: the method ends with [object prepareForDeletion]), not at the end of the event.
        XCTAssertEqual(LifecycleRecorder.calls, ["awakeFromFetch", "prepareForDeletion"], "delete(_:) prepares the object at once")
        try reader.viewContext.save()
        XCTAssertEqual(LifecycleRecorder.calls, ["awakeFromFetch", "prepareForDeletion", "willSave deleted", "didSave"])
    }

    func testWillSaveCanSetValuesThatAreSavedAndValidated() throws {
        model.entitiesByName["Trail"]!.managedObjectClassName = NSStringFromClass(StampedTrail.self)
        let container = try openContainer()
        _ = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: container.viewContext)
        try container.viewContext.save()  // name is mandatory: willSave runs before validation
        let reader = try openContainer()
        let names = try reader.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).map { $0.value(forKey: "name") as? String }
        XCTAssertEqual(names, ["Stamped in willSave"])
    }

    func testDidSaveNotificationListsTheSavedObjects() throws {
        let container = try openContainer()
        let context = container.viewContext
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        trail.setValue("Noticed", forKey: "name")
        var inserted: Set<NSManagedObject> = []
        let token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: context, queue: nil) { note in
            inserted = note.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject> ?? []
        }
        defer { NotificationCenter.default.removeObserver(token) }
        try context.save()
        XCTAssertEqual(inserted, [trail])
    }

    func testRegistryHoldsUnchangedObjectsWeaklyAndResetForgetsEverything() throws {
        let writer = try openContainer()
        for name in ["a", "b"] {
            NSEntityDescription.insertNewObject(forEntityName: "Trail", into: writer.viewContext).setValue(name, forKey: "name")
        }
        try writer.viewContext.save()
        let context = try openContainer().viewContext
        var fetched: [NSManagedObject]? = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
        XCTAssertEqual(context.registeredObjects.count, 2)
        fetched![0].setValue("changed", forKey: "name")
        let changed = fetched![0]
        fetched = nil
        XCTAssertEqual(context.registeredObjects, [changed], "unchanged objects nobody holds leave the context; changed ones stay")
        context.reset()
        XCTAssertTrue(context.registeredObjects.isEmpty)
        XCTAssertFalse(context.hasChanges)
        XCTAssertNil(changed.managedObjectContext)
    }

    func testRefreshAllObjectsKeepsChangesAndPicksUpOtherSaves() throws {
        let container = try openContainer()
        let main = container.viewContext
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: main)
        trail.setValue("Before", forKey: "name")
        try main.save()
        let background = container.newBackgroundContext()
        try background.performAndWait {
            let other = background.object(with: trail.objectID)
            other.setValue(2.5, forKey: "rating")
            try background.save()
        }
        XCTAssertNil(trail.value(forKey: "rating"), "the main context still has its snapshot")
        trail.setValue("Local", forKey: "name")
        main.refreshAllObjects()
        XCTAssertEqual(trail.value(forKey: "rating") as? Double, 2.5)
        XCTAssertEqual(trail.value(forKey: "name") as? String, "Local")
    }

    func testToOneReferencesPrintAsObjectIDs() throws {
        let container = try openContainer()
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: container.viewContext)
        trail.setValue("Referenced", forKey: "name")
        let hike = NSEntityDescription.insertNewObject(forEntityName: "Hike", into: container.viewContext)
        hike.setValue(trail, forKey: "trail")
        try container.viewContext.save()
        let reader = try openContainer()
        let fetched = try XCTUnwrap(reader.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Hike")).first)
        _ = fetched.value(forKey: "date")
        XCTAssertTrue(fetched.description.contains("    trail = \"0x"), fetched.description)
        XCTAssertTrue(fetched.description.contains("/Trail/p1>\";\n"), fetched.description)
    }
}
