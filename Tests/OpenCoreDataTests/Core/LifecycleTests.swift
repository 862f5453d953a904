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

/// A Trail class whose willSave keeps a derived, persistent value up to date through the
/// accessors (checking first, as Apple's documentation of willSave advises), and counts
/// its calls.
final class MeasuredTrail: NSManagedObject {
    static var willSaveCalls = 0
    override func willSave() {
        super.willSave()
        MeasuredTrail.willSaveCalls += 1
        let length = Int32((value(forKey: "name") as? String)?.count ?? 0)
        if value(forKey: "elevation") as? Int32 != length { setValue(length, forKey: "elevation") }
    }
}

/// A Trail class whose willSave saves its context again.
final class ResavingTrail: NSManagedObject {
    static var innerError: NSError?
    override func willSave() {
        super.willSave()
        do { try managedObjectContext?.save() } catch { ResavingTrail.innerError = error as NSError }
    }
}

/// A Trail class that records the change announcements setValue(_:forKey:) makes, around
/// the value it stores.
final class AnnouncingTrail: NSManagedObject {
    override func willChangeValue(forKey key: String) {
        super.willChangeValue(forKey: key)
        LifecycleRecorder.calls.append("will \(key) \(primitiveValue(forKey: key) ?? "nil")")
    }
    override func didChangeValue(forKey key: String) {
        super.didChangeValue(forKey: key)
        LifecycleRecorder.calls.append("did \(key) \(primitiveValue(forKey: key) ?? "nil")")
    }
}

/// Object lifecycle hooks, the context's registry, and save notifications.
final class LifecycleTests: CoreTestCase {
    /// A subclass's willChangeValue/didChangeValue(forKey:) run around each value set
    /// through key-value coding; a plain NSManagedObject (which skips the base class's
    /// calls, whose work setValue does itself) records its changes just the same.
    func testSetValueAnnouncesChangesToSubclassesAndRecordsThemForPlainObjects() throws {
        model.entitiesByName["Trail"]!.managedObjectClassName = NSStringFromClass(AnnouncingTrail.self)
        model.entitiesByName["Hike"]!.managedObjectClassName = "NSManagedObject"
        let context = try openContainer().viewContext
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        let hike = NSEntityDescription.insertNewObject(forEntityName: "Hike", into: context)
        XCTAssertTrue(trail is AnnouncingTrail)
        XCTAssertTrue(type(of: hike) == NSManagedObject.self)
        trail.setValue("Routeburn", forKey: "name")
        trail.setValue(4.5, forKey: "rating")
        XCTAssertEqual(LifecycleRecorder.calls, ["will name nil", "did name Routeburn", "will rating nil", "did rating 4.5"])
        let first = Date(timeIntervalSinceReferenceDate: 1_000)
        hike.setValue(first, forKey: "date")
        XCTAssertEqual(hike.changedValues()["date"] as? Date, first)
        try context.save()

        LifecycleRecorder.calls = []
        trail.setValue(3.0, forKey: "rating")
        XCTAssertEqual(LifecycleRecorder.calls, ["will rating 4.5", "did rating 3.0"])
        XCTAssertTrue(trail.isUpdated)
        XCTAssertEqual(trail.changedValues()["rating"] as? Double, 3.0)
        XCTAssertEqual(trail.committedValues(forKeys: ["rating"])["rating"] as? Double, 4.5)

        let second = Date(timeIntervalSinceReferenceDate: 2_000)
        hike.setValue(second, forKey: "date")
        XCTAssertTrue(hike.isUpdated)
        XCTAssertTrue(context.updatedObjects.contains(hike))
        XCTAssertEqual(hike.changedValues().count, 1)
        XCTAssertEqual(hike.changedValues()["date"] as? Date, second)
        XCTAssertEqual(hike.committedValues(forKeys: ["date"])["date"] as? Date, first)
        hike.setValue(first, forKey: "date")
        XCTAssertTrue(hike.changedValues().isEmpty, "set back to the saved value: no persistent change")
    }

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

    /// Deleting a deleted object again calls its prepareForDeletion again and changes
    /// nothing else: Core Data's deleteObject: has no early return for deleted objects
    /// (decompiled, iOS 26). An object of another context raises (run in a child process).
    func testDeletingTwicePreparesTwiceAndAnotherContextsObjectRaises() throws {
        let container = try openContainer()
        let hike = NSEntityDescription.insertNewObject(forEntityName: "Hike", into: container.viewContext)
        try container.viewContext.save()
        LifecycleRecorder.calls = []
        container.viewContext.delete(hike)
        container.viewContext.delete(hike)
        XCTAssertEqual(LifecycleRecorder.calls, ["prepareForDeletion", "prepareForDeletion"])
        XCTAssertEqual(container.viewContext.deletedObjects.count, 1)
        try container.viewContext.save()
        XCTAssertEqual(LifecycleRecorder.calls, ["prepareForDeletion", "prepareForDeletion", "willSave deleted", "didSave"])

        try CrashTests.assertWriterRaises(store: directory.appendingPathComponent("Foreign.sqlite"), mode: "delete-foreign-object",
                                          exception: "NSInvalidArgumentException",
                                          reason: "An NSManagedObjectContext cannot delete objects in other contexts.'")
    }

    /// Permanent IDs need a coordinator: a bare context raises, with Core Data's message
    /// and its spelling (decompiled -[NSManagedObjectContext obtainPermanentIDsForObjects:
    /// error:], iOS 26). Deleted objects keep their temporary IDs.
    func testObtainingPermanentIDsNeedsACoordinatorAndSkipsDeletedObjects() throws {
        let container = try openContainer()
        let kept = NSEntityDescription.insertNewObject(forEntityName: "Hike", into: container.viewContext)
        let dropped = NSEntityDescription.insertNewObject(forEntityName: "Hike", into: container.viewContext)
        container.viewContext.delete(dropped)
        try container.viewContext.obtainPermanentIDs(for: [kept, dropped])
        XCTAssertFalse(kept.objectID.isTemporaryID)
        XCTAssertTrue(dropped.objectID.isTemporaryID, "a deleted object is left out")

        try CrashTests.assertWriterRaises(store: directory.appendingPathComponent("Bare.sqlite"), mode: "permanent-ids-without-coordinator",
                                          exception: "NSInternalInconsistencyException",
                                          reason: "Context does not have a coordinator;  cannot obtain permenant ids without a coordinator.'")
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

    /// A change made in willSave through the accessors makes the save call willSave again
    /// (Apple's documentation of `willSave()`: Core Data will "invoke willSave again before
    /// saving"); a round that changes nothing ends it.
    func testAChangeInWillSaveCallsWillSaveAgain() throws {
        model.entitiesByName["Trail"]!.managedObjectClassName = NSStringFromClass(MeasuredTrail.self)
        MeasuredTrail.willSaveCalls = 0
        let container = try openContainer()
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: container.viewContext)
        trail.setValue("Milford Track", forKey: "name")
        try container.viewContext.save()
        XCTAssertEqual(MeasuredTrail.willSaveCalls, 2, "once, and once more after its change")
        XCTAssertEqual(trail.value(forKey: "elevation") as? Int32, 13)
        XCTAssertFalse(container.viewContext.hasChanges, "the change made in willSave was saved")
        MeasuredTrail.willSaveCalls = 0
        trail.setValue(4.0, forKey: "rating")
        try container.viewContext.save()
        XCTAssertEqual(MeasuredTrail.willSaveCalls, 1, "nothing to change: one call")
    }

    /// Changing a value in every willSave never settles: Core Data raises after 1,000
    /// rounds (decompiled -[NSManagedObjectContext _prepareForPushChanges:], iOS 26).
    /// Raising stops the process, as on Apple platforms, so a child process runs it.
    func testWillSaveThatAlwaysChangesStopsTheProgramAfterAThousandRounds() throws {
        try CrashTests.assertWriterRaises(
            store: directory.appendingPathComponent("Restless.sqlite"), mode: "restless-will-save", exception: "NSInternalInconsistencyException",
            reason: "Failed to process pending changes before save.  The context is still dirty after 1000 attempts.  Typically this "
                + "recursive dirtying is caused by a bad validation method, -willSave, or notification handler.'")
    }

    /// save() inside the same context's save fails with Core Data's 132001 and saves
    /// nothing itself; the outer save goes on (decompiled -[NSManagedObjectContext save:]).
    func testSavingFromWillSaveIsRefused() throws {
        model.entitiesByName["Trail"]!.managedObjectClassName = NSStringFromClass(ResavingTrail.self)
        ResavingTrail.innerError = nil
        let container = try openContainer()
        NSEntityDescription.insertNewObject(forEntityName: "Trail", into: container.viewContext).setValue("Twice", forKey: "name")
        try container.viewContext.save()
        XCTAssertEqual(ResavingTrail.innerError?.code, 132001)
        XCTAssertEqual(ResavingTrail.innerError?.userInfo["message"] as? String, "attempt to recursively call -save: on the context aborted")
        XCTAssertNotNil(ResavingTrail.innerError?.userInfo["stack trace"])
        XCTAssertFalse(container.viewContext.hasChanges)
        XCTAssertEqual(try openContainer().viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Trail")), 1)
    }

    /// The did-save notification comes after the save: saving again from it is allowed.
    func testSavingFromTheDidSaveNotificationIsAllowed() throws {
        let container = try openContainer()
        let context = container.viewContext
        var innerSaveFailed = false
        let token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: context, queue: nil) { _ in
            guard context.insertedObjects.isEmpty else { return }
            if (try? context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Trail"))) == 1 {
                NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context).setValue("Follow-up", forKey: "name")
                do { try context.save() } catch { innerSaveFailed = true }
            }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context).setValue("First", forKey: "name")
        try context.save()
        XCTAssertFalse(innerSaveFailed)
        XCTAssertEqual(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Trail")), 2)
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

/// A Hike class that records which objects its didSave was called on, in order.
final class OrderedHike: NSManagedObject {
    static var saved: [ObjectIdentifier] = []
    override func didSave() { super.didSave(); OrderedHike.saved.append(ObjectIdentifier(self)) }
}

/// The inserted and deleted objects of a save: the save takes the arrays its
/// objects-did-change notification reported when they hold the same objects (see
/// ReportedChangeSets), and copies the context's lists otherwise. Either way the order and
/// the objects' lifetime are the context's.
final class SavedDeletionTests: CoreTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        model.entitiesByName["Hike"]!.managedObjectClassName = NSStringFromClass(OrderedHike.self)
        OrderedHike.saved = []
    }

    func testSavedObjectsGetDidSaveInTheOrderTheyWereInsertedOrDeletedWhateverEventsReportedThem() throws {
        let context = try openContainer().viewContext
        // Insertions too, in one event (as reported) and in two.
        let hikes = (0..<6).map { _ in NSEntityDescription.insertNewObject(forEntityName: "Hike", into: context) }
        try context.save()
        XCTAssertEqual(OrderedHike.saved, hikes.map(ObjectIdentifier.init))
        let order = [4, 1, 5, 0, 3, 2]

        // Two events: the save's objects-did-change reports only the second one's deletions.
        for index in order.prefix(3) { context.delete(hikes[index]) }
        context.processPendingChanges()
        for index in order.dropFirst(3).prefix(2) { context.delete(hikes[index]) }
        OrderedHike.saved = []
        try context.save()
        XCTAssertEqual(OrderedHike.saved, order.prefix(5).map { ObjectIdentifier(hikes[$0]) })

        // One event: the same objects as reported.
        var more = (0..<2).map { _ in NSEntityDescription.insertNewObject(forEntityName: "Hike", into: context) }
        context.processPendingChanges()
        more += (0..<2).map { _ in NSEntityDescription.insertNewObject(forEntityName: "Hike", into: context) }
        OrderedHike.saved = []
        try context.save()
        XCTAssertEqual(OrderedHike.saved, more.map(ObjectIdentifier.init))
        for index in [2, 0, 3, 1] { context.delete(more[index]) }
        OrderedHike.saved = []
        try context.save()
        XCTAssertEqual(OrderedHike.saved, [2, 0, 3, 1].map { ObjectIdentifier(more[$0]) })
        for hike in more {
            XCTAssertFalse(hike.isDeleted)
            XCTAssertNil(hike.managedObjectContext)
        }
        let stored = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Hike"))
        XCTAssertEqual(stored.map(ObjectIdentifier.init), [ObjectIdentifier(hikes[order[5]])])
    }

    func testDeletionsAreFreedOnceTheSaveIsOverWhenNothingElseHoldsThem() throws {
        let context = try openContainer().viewContext
        context.undoManager = nil
        weak var first: NSManagedObject?
        weak var second: NSManagedObject?
        try {
            let hikes = (0..<2).map { _ in NSEntityDescription.insertNewObject(forEntityName: "Hike", into: context) }
            try context.save()
            first = hikes[0]
            second = hikes[1]
            for hike in hikes { context.delete(hike) }
            try context.save()
            XCTAssertEqual(OrderedHike.saved.suffix(2), hikes.map(ObjectIdentifier.init))
        }()
        XCTAssertNil(first, "a holder of the save's deletions outlived the save")
        XCTAssertNil(second, "a holder of the save's deletions outlived the save")
    }
}
