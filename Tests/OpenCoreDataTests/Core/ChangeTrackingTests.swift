import Foundation
import XCTest
@testable import OpenCoreData

/// hasChanges, the inserted/updated/deleted sets, changed and committed values, rollback,
/// refresh, relationships and delete rules.
final class ChangeTrackingTests: CoreTestCase {
    func testChangeSetsFollowInsertUpdateDeleteAndSave() throws {
        let context = try openContainer().viewContext
        XCTAssertFalse(context.hasChanges)
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        trail.setValue("Tongariro", forKey: "name")
        XCTAssertEqual(context.insertedObjects.count, 1)
        XCTAssertTrue(trail.isInserted)
        try context.save()
        XCTAssertFalse(context.hasChanges)
        XCTAssertFalse(trail.isInserted)

        trail.setValue(3.5, forKey: "rating")
        XCTAssertTrue(trail.isUpdated)
        XCTAssertEqual(context.updatedObjects.count, 1)
        XCTAssertEqual(trail.changedValues()["rating"] as? Double, 3.5)
        XCTAssertTrue(trail.committedValues(forKeys: ["rating"])["rating"] is NSNull)
        try context.save()
        XCTAssertEqual(trail.committedValues(forKeys: ["rating"])["rating"] as? Double, 3.5)

        context.delete(trail)
        XCTAssertTrue(trail.isDeleted)
        XCTAssertEqual(context.deletedObjects.count, 1)
        try context.save()
        XCTAssertNil(trail.managedObjectContext)
        XCTAssertEqual(try trailCount(in: openContainer()), 0)
    }

    /// `delete(_:)` adds a saved object to the deleted list without asking the list first
    /// (it cannot be there while not deleted): every way back from a deletion (insert,
    /// undo, rollback) must take it out, or it would be listed twice.
    func testDeletingAgainAfterEachWayBackListsTheObjectOnce() throws {
        let context = try openContainer().viewContext
        context.undoManager = UndoManager()
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        trail.setValue("Tongariro", forKey: "name")
        try context.save()
        let ways: [(String, () -> Void)] = [
            ("insert", { context.insert(trail) }),
            ("undo", { context.processPendingChanges(); context.undoManager?.undo() }),
            ("rollback", { context.rollback() }),
        ]
        for (name, wayBack) in ways {
            context.delete(trail)
            wayBack()
            XCTAssertFalse(trail.isDeleted, name)
            XCTAssertEqual(context.deleted.count, 0, name)
            context.delete(trail)
            XCTAssertEqual(context.deleted.objects.count, 1, name)
            XCTAssertEqual(context.deleted.count, 1, name)
            context.rollback()
        }
        context.delete(trail)
        try context.save()
        XCTAssertEqual(try trailCount(in: openContainer()), 0)
    }

    func testDeletingAnUnsavedObjectLeavesNothingToSave() throws {
        let context = try openContainer().viewContext
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        context.delete(trail)
        XCTAssertFalse(context.hasChanges)
    }

    func testRollbackRestoresSavedValuesAndDropsInserts() throws {
        let context = try openContainer().viewContext
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        trail.setValue("Original", forKey: "name")
        try context.save()
        trail.setValue("Changed", forKey: "name")
        let extra = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        context.rollback()
        XCTAssertEqual(trail.value(forKey: "name") as? String, "Original")
        XCTAssertFalse(context.hasChanges)
        XCTAssertNil(extra.managedObjectContext)
    }

    func testRefreshTurnsAnObjectIntoAFaultOrMergesChanges() throws {
        let context = try openContainer().viewContext
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        trail.setValue("Saved", forKey: "name")
        try context.save()
        trail.setValue("Unsaved", forKey: "name")
        context.refresh(trail, mergeChanges: true)
        XCTAssertEqual(trail.value(forKey: "name") as? String, "Unsaved")
        context.refresh(trail, mergeChanges: false)
        XCTAssertTrue(trail.isFault)
        XCTAssertEqual(trail.value(forKey: "name") as? String, "Saved")
        XCTAssertFalse(context.hasChanges)
    }

    func testManagedPropertiesAwakeFromInsertAndDefaults() throws {
        let context = try openContainer().viewContext
        let trail = TestTrail(context: context)
        XCTAssertEqual(trail.awakeCount, 1)
        trail.name = "Typed"
        trail.rating = 4
        trail.elevation = 1200
        trail.isFavorite = true
        XCTAssertEqual(trail.value(forKey: "elevation") as? Int, 1200)
        XCTAssertEqual(trail.fee, nil)
        XCTAssertEqual(trail.lastHiked, nil)
        XCTAssertEqual(TestTrail(context: context).rating, 0, "a missing scalar reads as zero")
    }

    func testInversesFollowEitherSideAndCascadeDeletes() throws {
        let container = try openContainer()
        let context = container.viewContext
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        trail.setValue("Milford", forKey: "name")
        let hike = NSEntityDescription.insertNewObject(forEntityName: "Hike", into: context)
        hike.setValue(trail, forKey: "trail")
        XCTAssertEqual((trail.value(forKey: "hikes") as? Set<NSManagedObject>)?.count, 1, "setting the to-one fills the to-many")
        let second = NSEntityDescription.insertNewObject(forEntityName: "Hike", into: context)
        trail.setValue(Set([hike, second]), forKey: "hikes")
        XCTAssertTrue(second.value(forKey: "trail") as? NSManagedObject === trail, "setting the to-many fills the to-one")
        try context.save()

        let reopened = try openContainer().viewContext
        let fetchedTrail = try XCTUnwrap(reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first)
        XCTAssertEqual((fetchedTrail.value(forKey: "hikes") as? Set<NSManagedObject>)?.count, 2)
        reopened.delete(fetchedTrail)
        try reopened.save()
        XCTAssertEqual(try openContainer().viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Hike")), 0, "cascade")
    }
}
