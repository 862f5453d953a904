import Foundation
import XCTest
@testable import OpenCoreData

/// `NSManagedObjectContextObjectsDidChange` for a context's own changes: posted by
/// processPendingChanges(), save(), perform, the main run loop, refresh, rollback and
/// reset, with one event's changes coalesced as Core Data coalesces them.
///
/// Core Data puts a key in the userInfo only for the kinds of change that happened (code
/// written against it reads `userInfo[NSInsertedObjectsKey] as? Set<NSManagedObject> ?? []`);
/// these tests pin the exact key lists.
final class ObjectsDidChangeTests: TrackingTestCase {
    func testProcessPendingChangesReportsAnInsertUnderTheInsertedKeyOnly() {
        let recorder = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, from: context)
        let trail = newTrail("Tongariro")
        XCTAssertEqual(recorder.count, 0, "nothing is posted before the event ends")
        context.processPendingChanges()
        XCTAssertEqual(recorder.count, 1)
        XCTAssertTrue(recorder.last?.object as AnyObject? === context)
        XCTAssertEqual(recorder.lastKeys, [NSInsertedObjectsKey])
        XCTAssertEqual(recorder.objects(NSInsertedObjectsKey), [trail])
        context.processPendingChanges()
        XCTAssertEqual(recorder.count, 1, "an event without changes posts nothing")
    }

    func testAnObjectInsertedAndDeletedInOneEventIsNotReported() {
        let recorder = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, from: context)
        let trail = newTrail("Ghost")
        context.delete(trail)
        context.processPendingChanges()
        XCTAssertEqual(recorder.count, 0)
    }

    func testAnObjectInsertedThenChangedIsReportedOnlyAsInserted() {
        let recorder = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, from: context)
        let trail = newTrail("Routeburn")
        trail.setValue(4.5, forKey: "rating")
        context.processPendingChanges()
        XCTAssertEqual(recorder.lastKeys, [NSInsertedObjectsKey])
        XCTAssertEqual(recorder.objects(NSInsertedObjectsKey), [trail])
    }

    /// Ends the current event and checks that its notification reported `objects` under
    /// `key` and nothing else.
    private func assertEventReports(_ key: String, _ objects: Set<NSManagedObject>, to recorder: NotificationRecorder,
                                    file: StaticString = #filePath, line: UInt = #line) {
        context.processPendingChanges()
        XCTAssertEqual(recorder.lastKeys, [key], file: file, line: line)
        XCTAssertEqual(recorder.objects(key), objects, file: file, line: line)
    }

    func testAnUnsavedObjectChangedInALaterEventIsReportedAsUpdatedThenDeleted() {
        let recorder = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, from: context)
        let trail = newTrail("Kepler")
        context.processPendingChanges()
        trail.setValue(3.0, forKey: "rating")
        assertEventReports(NSUpdatedObjectsKey, [trail], to: recorder)
        context.delete(trail)
        assertEventReports(NSDeletedObjectsKey, [trail], to: recorder)
        XCTAssertEqual(recorder.count, 3)
    }

    func testASavedObjectChangedThenDeletedIsReportedOnlyAsDeleted() throws {
        let trail = try savedTrail("Milford")
        let recorder = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, from: context)
        trail.setValue(2.0, forKey: "rating")
        context.delete(trail)
        context.processPendingChanges()
        XCTAssertEqual(recorder.lastKeys, [NSDeletedObjectsKey])
        XCTAssertEqual(recorder.objects(NSDeletedObjectsKey), [trail])
    }

    func testADeletionTakenBackInTheSameEventIsNotReported() throws {
        let trail = try savedTrail("Tuatapere")
        let recorder = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, from: context)
        context.delete(trail)
        context.insert(trail)  // Core Data's way to take back a deletion before it is processed
        context.processPendingChanges()
        XCTAssertEqual(recorder.count, 0)
        XCTAssertFalse(context.hasChanges)
    }

    func testADeletionTakenBackThenAChangeIsReportedAsAnUpdate() throws {
        let trail = try savedTrail("Kepler")
        let recorder = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, from: context)
        context.delete(trail)
        context.insert(trail)
        trail.setValue(3.0, forKey: "rating")
        assertEventReports(NSUpdatedObjectsKey, [trail], to: recorder)
        // Deleted again in a later event: reported as deleted there, and only there.
        context.delete(trail)
        assertEventReports(NSDeletedObjectsKey, [trail], to: recorder)
        XCTAssertEqual(recorder.count, 2)
    }

    func testObjectsDeletedInAnEventCanBeReportedDeletedAgainInALaterOne() throws {
        // The end of an event clears each deleted object's mark in the walk over the updated
        // objects when every deleted one was updated too (a cascade: its hikes lose their
        // trail), and walks the deleted ones as well when one was not (a lone trail).
        let trail = try savedTrail("Dusky", hikes: 2)
        let hikes = trail.value(forKey: "hikes") as! Set<NSManagedObject>
        let lone = try savedTrail("Hollyford")
        let recorder = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, from: context)
        context.delete(trail)
        context.processPendingChanges()
        XCTAssertEqual(recorder.objects(NSDeletedObjectsKey), hikes.union([trail]))
        XCTAssertEqual(recorder.lastKeys, [NSDeletedObjectsKey])
        context.delete(lone)
        context.processPendingChanges()
        XCTAssertEqual(recorder.objects(NSDeletedObjectsKey), [lone])
        XCTAssertEqual(recorder.lastKeys, [NSDeletedObjectsKey])

        for object in hikes.union([trail, lone]) { context.insert(object) }
        context.processPendingChanges()
        XCTAssertEqual(recorder.objects(NSInsertedObjectsKey), hikes.union([trail, lone]))
        for hike in hikes { context.delete(hike) }
        context.delete(lone)
        context.processPendingChanges()
        XCTAssertEqual(recorder.objects(NSDeletedObjectsKey), hikes.union([lone]), "deleted again, reported again")
        XCTAssertEqual(recorder.count, 4)
    }

    func testEachEventIsReportedOnItsOwn() throws {
        let trail = try savedTrail("Mangatepopo")
        let recorder = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, from: context)
        trail.setValue(1.0, forKey: "rating")
        context.processPendingChanges()
        trail.setValue(2.0, forKey: "rating")
        context.processPendingChanges()
        XCTAssertEqual(recorder.count, 2)
        XCTAssertEqual(recorder.notifications.map { $0.userInfo?[NSUpdatedObjectsKey] as? Set<NSManagedObject> }, [[trail], [trail]])
    }

    func testChangesOfOneEventAreReportedTogether() throws {
        let kept = try savedTrail("Abel Tasman")
        let doomed = try savedTrail("Heaphy")
        let recorder = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, from: context)
        kept.setValue(4.0, forKey: "rating")
        kept.setValue(4.2, forKey: "rating")
        context.delete(doomed)
        let added = newTrail("Hump Ridge")
        context.processPendingChanges()
        XCTAssertEqual(recorder.count, 1)
        XCTAssertEqual(recorder.lastKeys, [NSDeletedObjectsKey, NSInsertedObjectsKey, NSUpdatedObjectsKey])
        XCTAssertEqual(recorder.objects(NSInsertedObjectsKey), [added])
        XCTAssertEqual(recorder.objects(NSUpdatedObjectsKey), [kept])
        XCTAssertEqual(recorder.objects(NSDeletedObjectsKey), [doomed])
    }

    func testDeleteRulesRunAtTheEndOfTheEventAndTheirChangesAreReported() throws {
        let trail = try savedTrail("Rakiura", hikes: 2)
        let hikes = trail.value(forKey: "hikes") as! Set<NSManagedObject>
        let lonely = newHike(on: nil)
        try context.save()
        let recorder = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, from: context)
        context.delete(trail)  // cascades to its hikes
        context.processPendingChanges()
        XCTAssertEqual(recorder.objects(NSDeletedObjectsKey), hikes.union([trail]))
        XCTAssertFalse(recorder.objects(NSUpdatedObjectsKey).contains(lonely))

        // Nullify: deleting a hike changes its trail, which is reported as updated.
        let other = try savedTrail("Queen Charlotte", hikes: 1)
        let hike = (other.value(forKey: "hikes") as! Set<NSManagedObject>).first!
        recorder.removeAll()
        context.delete(hike)
        context.processPendingChanges()
        XCTAssertEqual(recorder.lastKeys, [NSDeletedObjectsKey, NSUpdatedObjectsKey])
        XCTAssertEqual(recorder.objects(NSUpdatedObjectsKey), [other])
    }

    func testSavePostsObjectsDidChangeBeforeWillSaveAndDidSave() throws {
        final class Order { var names: [String] = [] }
        let order = Order()
        let names: [Notification.Name] = [.NSManagedObjectContextObjectsDidChange, .NSManagedObjectContextWillSave, .NSManagedObjectContextDidSave]
        let tokens = names.map { name in
            NotificationCenter.default.addObserver(forName: name, object: context, queue: nil) { order.names.append($0.name.rawValue) }
        }
        defer { tokens.forEach(NotificationCenter.default.removeObserver) }
        _ = newTrail("Overland")
        try context.save()
        XCTAssertEqual(order.names, ["NSObjectsChangedInManagingContextNotification", "NSManagingContextWillSaveChangesNotification",
                               "NSManagingContextDidSaveChangesNotification"])
    }

    func testChangesMadeWhileTheContextWillSaveAreReportedBeforeItSaves() throws {
        let trail = try savedTrail("Cape Brett")
        let recorder = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, from: context)
        let token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextWillSave, object: context, queue: nil) { _ in
            trail.setValue(5.0, forKey: "rating")
        }
        defer { NotificationCenter.default.removeObserver(token) }
        _ = newTrail("Pouakai")
        try context.save()
        XCTAssertEqual(recorder.count, 2)
        XCTAssertEqual(recorder.objects(NSUpdatedObjectsKey), [trail])
        XCTAssertFalse(context.hasChanges, "the change made in the notification was saved")
        let reader = try openContainer()
        let names = try reader.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).map { "\($0.value(forKey: "name")!) \($0.value(forKey: "rating") ?? "nil")" }
        XCTAssertEqual(names.sorted(), ["Cape Brett 5.0", "Pouakai nil"])
    }

    func testRefreshIsReportedUnderTheRefreshedKey() throws {
        let trail = try savedTrail("Old Ghost Road")
        let recorder = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, from: context)
        trail.setValue(1.0, forKey: "rating")
        context.refresh(trail, mergeChanges: false)
        context.processPendingChanges()
        XCTAssertEqual(recorder.lastKeys, [NSRefreshedObjectsKey], "the discarded change is not reported")
        XCTAssertEqual(recorder.objects(NSRefreshedObjectsKey), [trail])
        XCTAssertFalse(context.hasChanges)
    }

    func testResetPostsInvalidatedAllWithTheRegisteredObjectsIDs() throws {
        let trail = try savedTrail("Great Walk")
        let id = trail.objectID
        let recorder = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, from: context)
        context.reset()
        XCTAssertEqual(recorder.count, 1)
        XCTAssertEqual(recorder.lastKeys, [NSInvalidatedAllObjectsKey])
        XCTAssertEqual(recorder.last?.userInfo?[NSInvalidatedAllObjectsKey] as? [NSManagedObjectID], [id])
    }

    func testRollbackReportsWhatItUndid() throws {
        let changed = try savedTrail("Tasman")
        let deleted = try savedTrail("Dusky")
        let inserted = newTrail("Waitutu")
        changed.setValue(0.5, forKey: "rating")
        context.delete(deleted)
        context.processPendingChanges()
        let recorder = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, from: context)
        context.rollback()
        XCTAssertEqual(recorder.count, 1)
        XCTAssertEqual(recorder.objects(NSDeletedObjectsKey), [inserted], "an unsaved insert leaves the context")
        XCTAssertEqual(recorder.objects(NSInsertedObjectsKey), [deleted], "a deletion taken back brings the object back")
        XCTAssertEqual(recorder.objects(NSRefreshedObjectsKey), [changed])
        XCTAssertFalse(context.hasChanges)
    }

    func testAPerformBlockEndsItsEvent() throws {
        let background = container.newBackgroundContext()
        let recorder = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, from: background)
        let done = expectation(description: "perform ran")
        background.perform {
            _ = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: background)
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        background.performAndWait {}  // the queue is serial: the first block has finished
        XCTAssertEqual(recorder.count, 1)
        XCTAssertEqual(recorder.lastKeys, [NSInsertedObjectsKey])

        background.performAndWait { _ = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: background) }
        XCTAssertEqual(recorder.count, 1, "performAndWait does not end the event")
    }

    func testAMainQueueContextEndsItsEventWhenTheMainRunLoopTurns() {
        XCTAssertEqual(context.concurrencyType, .mainQueueConcurrencyType)
        let recorder = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, from: context)
        let trail = newTrail("Hollyford")
        XCTAssertEqual(recorder.count, 0)
        RunLoop.main.run(until: Date().addingTimeInterval(0.05))
        XCTAssertEqual(recorder.count, 1)
        XCTAssertEqual(recorder.objects(NSInsertedObjectsKey), [trail])
    }

    func testRemovingAStoreInvalidatesItsObjects() throws {
        let trail = try savedTrail("Whanganui")
        let unsaved = newTrail("Not yet saved")
        trail.setValue(3.0, forKey: "rating")
        let recorder = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, from: context)
        let stores = NotificationRecorder(.NSPersistentStoreCoordinatorStoresDidChange, from: context)
        let coordinator = container.persistentStoreCoordinator
        var removed: [NSPersistentStore]?
        let token = NotificationCenter.default.addObserver(forName: .NSPersistentStoreCoordinatorStoresDidChange, object: coordinator, queue: nil) {
            removed = $0.userInfo?[NSRemovedPersistentStoresKey] as? [NSPersistentStore]
        }
        defer { NotificationCenter.default.removeObserver(token) }
        let store = coordinator.persistentStores[0]
        try coordinator.remove(store)
        XCTAssertTrue(removed?.first === store)
        XCTAssertEqual(stores.count, 0, "the coordinator, not the context, posts it")

        XCTAssertEqual(recorder.count, 2, "the pending changes first, then the invalidation")
        XCTAssertEqual(recorder.notifications[0].userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject>, [unsaved])
        XCTAssertEqual(recorder.lastKeys, [NSInvalidatedObjectsKey])
        XCTAssertEqual(recorder.objects(NSInvalidatedObjectsKey), [trail])
        XCTAssertNil(trail.managedObjectContext)
        XCTAssertTrue(trail.isFault, "an invalidated object is a fault that cannot be fulfilled")
        XCTAssertEqual(context.insertedObjects, [unsaved], "objects of no store are not invalidated")
        XCTAssertEqual(context.updatedObjects, [])
    }

    func testAMergePostsOnlyTheKeysItHasObjectsFor() throws {
        let trail = try savedTrail("Lake Waikaremoana")
        let recorder = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, from: context)
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: [trail.objectID]], into: [context])
        XCTAssertEqual(recorder.lastKeys, [NSDeletedObjectsKey])
        XCTAssertEqual(recorder.objects(NSDeletedObjectsKey), [trail])
    }

    func testNotificationNamesAndKeysHaveCoreDatasValues() {
        XCTAssertEqual(NSManagedObjectContext.didChangeObjectsNotification, .NSManagedObjectContextObjectsDidChange)
        XCTAssertEqual(NSManagedObjectContext.willSaveObjectsNotification, .NSManagedObjectContextWillSave)
        XCTAssertEqual(NSManagedObjectContext.didSaveObjectsNotification, .NSManagedObjectContextDidSave)
        XCTAssertEqual(NSManagedObjectContext.didSaveObjectIDsNotification, .NSManagedObjectContextDidSaveObjectIDs)
        XCTAssertEqual(NSManagedObjectContext.didMergeChangesObjectIDsNotification, .NSManagedObjectContextDidMergeChangesObjectIDs)
        XCTAssertEqual(Notification.Name.NSManagedObjectContextObjectsDidChange.rawValue, "NSObjectsChangedInManagingContextNotification")
        XCTAssertEqual(Notification.Name.NSManagedObjectContextDidSaveObjectIDs.rawValue, "NSManagedObjectContextDidSaveObjectIDsNotification")
        typealias Key = NSManagedObjectContext.NotificationKey
        XCTAssertEqual(Key.insertedObjects.rawValue, NSInsertedObjectsKey)
        XCTAssertEqual(Key.updatedObjects.rawValue, NSUpdatedObjectsKey)
        XCTAssertEqual(Key.deletedObjects.rawValue, NSDeletedObjectsKey)
        XCTAssertEqual(Key.refreshedObjects.rawValue, NSRefreshedObjectsKey)
        XCTAssertEqual(Key.invalidatedObjects.rawValue, NSInvalidatedObjectsKey)
        XCTAssertEqual(Key.invalidatedAllObjects.rawValue, NSInvalidatedAllObjectsKey)
        XCTAssertEqual(Key.insertedObjectIDs.rawValue, NSInsertedObjectIDsKey)
        XCTAssertEqual(Key.updatedObjectIDs.rawValue, NSUpdatedObjectIDsKey)
        XCTAssertEqual(Key.deletedObjectIDs.rawValue, NSDeletedObjectIDsKey)
        XCTAssertEqual(Key.refreshedObjectIDs.rawValue, NSRefreshedObjectIDsKey)
        XCTAssertEqual(Key.invalidatedObjectIDs.rawValue, NSInvalidatedObjectIDsKey)
        XCTAssertEqual([NSInsertedObjectsKey, NSUpdatedObjectsKey, NSDeletedObjectsKey, NSRefreshedObjectsKey, NSInvalidatedObjectsKey,
                        NSInvalidatedAllObjectsKey], ["inserted", "updated", "deleted", "refreshed", "invalidated", "invalidatedAll"])
    }
}
