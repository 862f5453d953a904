import Foundation
import XCTest
@testable import OpenCoreData

/// WillSave (no userInfo), DidSave (objects), DidSaveObjectIDs (IDs) and the merge's
/// DidMergeChangesObjectIDs, with Apple's keys.
final class SaveNotificationTests: TrackingTestCase {
    func testWillSaveHasNoUserInfo() throws {
        let recorder = NotificationRecorder(.NSManagedObjectContextWillSave, from: context)
        _ = newTrail("Overland")
        try context.save()
        XCTAssertEqual(recorder.count, 1)
        XCTAssertNil(recorder.last?.userInfo, "Apple: 'There is no userInfo dictionary.'")
    }

    func testDidSaveCarriesTheSavedObjectsAndDidSaveObjectIDsTheirPermanentIDs() throws {
        let changed = try savedTrail("Abel Tasman")
        let doomed = try savedTrail("Heaphy")
        let objects = NotificationRecorder(.NSManagedObjectContextDidSave, from: context)
        let ids = NotificationRecorder(NSManagedObjectContext.didSaveObjectIDsNotification, from: context)
        let added = newTrail("Paparoa")
        changed.setValue(4.0, forKey: "rating")
        context.delete(doomed)
        try context.save()

        XCTAssertEqual(objects.lastKeys, [NSDeletedObjectsKey, NSInsertedObjectsKey, NSUpdatedObjectsKey])
        XCTAssertEqual(objects.objects(NSInsertedObjectsKey), [added])
        XCTAssertEqual(objects.objects(NSUpdatedObjectsKey), [changed])
        XCTAssertEqual(objects.objects(NSDeletedObjectsKey), [doomed])

        XCTAssertEqual(ids.count, 1)
        XCTAssertEqual(ids.lastKeys, [NSDeletedObjectIDsKey, NSInsertedObjectIDsKey, NSUpdatedObjectIDsKey])
        let inserted = ids.last?.userInfo?[NSInsertedObjectIDsKey] as? Set<NSManagedObjectID>
        XCTAssertEqual(inserted, [added.objectID])
        XCTAssertEqual(inserted?.first?.isTemporaryID, false, "the IDs are the permanent ones the save gave")
        XCTAssertEqual(ids.last?.userInfo?[NSUpdatedObjectIDsKey] as? Set<NSManagedObjectID>, [changed.objectID])
        XCTAssertEqual(ids.last?.userInfo?[NSDeletedObjectIDsKey] as? Set<NSManagedObjectID>, [doomed.objectID])
    }

    func testDidSaveReportsEveryInsertedObjectWhateverEventsReportedThem() throws {
        let didChange = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, from: context)
        let didSave = NotificationRecorder(.NSManagedObjectContextDidSave, from: context)
        // One event: the save's objects-did-change reports the same objects as did-save.
        let first = (0..<3).map { newTrail("Trail \($0)") }
        try context.save()
        XCTAssertEqual(didChange.objects(NSInsertedObjectsKey), Set(first))
        XCTAssertEqual(didSave.objects(NSInsertedObjectsKey), Set(first))

        // Two events: the save's objects-did-change reports only the second one's object.
        let earlier = newTrail("Earlier")
        context.processPendingChanges()
        let later = newTrail("Later")
        try context.save()
        XCTAssertEqual(didChange.objects(NSInsertedObjectsKey), [later])
        XCTAssertEqual(didSave.objects(NSInsertedObjectsKey), [earlier, later])

        // An object inserted while the context will save is reported in a later event.
        var added: NSManagedObject?
        let token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextWillSave, object: context, queue: nil) { [self] _ in
            if added == nil { added = newTrail("Added") }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        let last = newTrail("Last")
        try context.save()
        XCTAssertEqual(didChange.objects(NSInsertedObjectsKey), [added!])
        XCTAssertEqual(didSave.objects(NSInsertedObjectsKey), [last, added!])
    }

    func testDidSaveReportsEveryUpdatedAndDeletedObjectWhateverEventsReportedThem() throws {
        let trails = try (0..<4).map { try savedTrail("Trail \($0)") }
        let didChange = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, from: context)
        let didSave = NotificationRecorder(.NSManagedObjectContextDidSave, from: context)
        // One event: the save's objects-did-change reports the same objects as did-save.
        trails[0].setValue(1.0, forKey: "rating")
        context.delete(trails[1])
        try context.save()
        XCTAssertEqual(didChange.objects(NSUpdatedObjectsKey), [trails[0]])
        XCTAssertEqual(didChange.objects(NSDeletedObjectsKey), [trails[1]])
        XCTAssertEqual(didSave.objects(NSUpdatedObjectsKey), [trails[0]])
        XCTAssertEqual(didSave.objects(NSDeletedObjectsKey), [trails[1]])

        // Two events: the save's objects-did-change reports only the second one's changes.
        trails[0].setValue(2.0, forKey: "rating")
        context.delete(trails[2])
        context.processPendingChanges()
        trails[3].setValue(3.0, forKey: "rating")
        try context.save()
        XCTAssertEqual(didChange.objects(NSUpdatedObjectsKey), [trails[3]])
        XCTAssertNil(didChange.last?.userInfo?[NSDeletedObjectsKey])
        XCTAssertEqual(didSave.objects(NSUpdatedObjectsKey), [trails[0], trails[3]])
        XCTAssertEqual(didSave.objects(NSDeletedObjectsKey), [trails[2]])
    }

    func testReportedChangeSetsGiveTheReportedSetOnlyForTheSameObjectsInOrder() {
        let objects = (0..<3).map { newTrail("Trail \($0)") }
        var reported = ReportedChangeSets()
        reported.record(objects, in: Set(objects), as: NSDeletedObjectsKey)
        XCTAssertEqual(reported.set(of: objects, as: NSDeletedObjectsKey), Set(objects))
        XCTAssertEqual(reported.set(of: Array(objects.prefix(2)), as: NSDeletedObjectsKey), Set(objects.prefix(2)))
        XCTAssertEqual(reported.set(of: objects.reversed(), as: NSDeletedObjectsKey), Set(objects))
        XCTAssertEqual(reported.set(of: [objects[2]], as: NSDeletedObjectsKey), [objects[2]])
        XCTAssertEqual(reported.set(of: objects, as: NSUpdatedObjectsKey), Set(objects))
        XCTAssertEqual(reported.set(of: [], as: NSInsertedObjectsKey), [])
    }

    func testReportedChangeSetsGiveTheReportedObjectsOnlyForAListOfTheSameObjectsInOrder() {
        let objects = (0..<4).map { newTrail("Trail \($0)") }
        var reported = ReportedChangeSets()
        reported.record(Array(objects.prefix(3)), in: Set(objects.prefix(3)), as: NSDeletedObjectsKey)
        func list(_ members: [NSManagedObject]) -> ObjectList {
            var list = ObjectList()
            for object in members { list.appendNew(object) }
            return list
        }
        let same = reported.objects(sameAs: list(Array(objects.prefix(3))), as: NSDeletedObjectsKey)
        XCTAssertEqual(same.map { $0.map(ObjectIdentifier.init) }, objects.prefix(3).map(ObjectIdentifier.init))
        XCTAssertNil(reported.objects(sameAs: list(Array(objects.prefix(3))), as: NSUpdatedObjectsKey))
        XCTAssertNil(reported.objects(sameAs: list([objects[1], objects[0], objects[2]]), as: NSDeletedObjectsKey))
        XCTAssertNil(reported.objects(sameAs: list(Array(objects.prefix(2))), as: NSDeletedObjectsKey))
        XCTAssertNil(reported.objects(sameAs: list(objects), as: NSDeletedObjectsKey))
        // Holes left by removals and objects taken from the front are skipped.
        let taken = newTrail("Taken")
        var holed = list([taken, objects[0], objects[3], objects[1], objects[2]])
        XCTAssertTrue(holed.popFirst() === taken)
        XCTAssertTrue(holed.remove(objects[3]))
        XCTAssertEqual(holed.count, 3)
        XCTAssertNotNil(reported.objects(sameAs: holed, as: NSDeletedObjectsKey))
    }

    func testDidSaveObjectIDsCanBeMergedIntoAnotherContext() throws {
        let trail = try savedTrail("Tongariro")
        let other = container.newBackgroundContext()
        let copy = other.performAndWait { try! other.existingObject(with: trail.objectID) }
        var payload: [AnyHashable: Any] = [:]
        let token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSaveObjectIDs, object: context, queue: nil) {
            payload = $0.userInfo ?? [:]
        }
        defer { NotificationCenter.default.removeObserver(token) }
        trail.setValue(4.8, forKey: "rating")
        try context.save()

        let merged = NotificationRecorder(.NSManagedObjectContextDidMergeChangesObjectIDs, from: other)
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: payload, into: [other])
        XCTAssertEqual(other.performAndWait { copy.value(forKey: "rating") as? Double }, 4.8)
        XCTAssertEqual(merged.count, 1)
        XCTAssertEqual(merged.last?.userInfo?[NSUpdatedObjectIDsKey] as? Set<NSManagedObjectID>, [trail.objectID])
    }
}

/// mergeChanges(fromContextDidSave:) with the objects of a did-save notification.
final class MergeNotificationTests: TrackingTestCase {
    func testADidSaveNotificationFromAnotherContextIsMergedAndReported() throws {
        let kept = try savedTrail("Kepler")
        let doomed = try savedTrail("Heaphy")
        let background = container.newBackgroundContext()
        var saved: Notification?
        let token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: background, queue: nil) {
            saved = $0
        }
        defer { NotificationCenter.default.removeObserver(token) }
        try background.performAndWait {
            try background.existingObject(with: kept.objectID).setValue(4.4, forKey: "rating")
            background.delete(try background.existingObject(with: doomed.objectID))
            NSEntityDescription.insertNewObject(forEntityName: "Trail", into: background).setValue("Milford", forKey: "name")
            try background.save()
        }
        kept.setValue("Kepler Track", forKey: "name")  // an unsaved change of our own
        context.processPendingChanges()

        let recorder = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, from: context)
        context.mergeChanges(fromContextDidSave: try XCTUnwrap(saved))
        XCTAssertEqual(recorder.count, 1)
        XCTAssertEqual(recorder.lastKeys, [NSDeletedObjectsKey, NSInsertedObjectsKey, NSUpdatedObjectsKey])
        XCTAssertEqual(recorder.objects(NSUpdatedObjectsKey), [kept])
        XCTAssertEqual(recorder.objects(NSDeletedObjectsKey), [doomed])
        XCTAssertEqual(recorder.objects(NSInsertedObjectsKey).map { $0.value(forKey: "name") as? String }, ["Milford"])
        XCTAssertEqual(kept.value(forKey: "rating") as? Double, 4.4)
        XCTAssertEqual(kept.value(forKey: "name") as? String, "Kepler Track", "the merge keeps our unsaved change")
        XCTAssertNil(doomed.managedObjectContext)
    }
}
