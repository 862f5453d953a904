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
