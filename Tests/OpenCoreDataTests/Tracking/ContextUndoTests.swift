import Foundation
import XCTest
@testable import OpenCoreData

/// A context with an undo manager: inserts, deletes, attribute and relationship changes
/// undone and redone, grouped by event or explicitly, undo after save, and rollback and
/// reset clearing the stacks (Apple: rollback "Removes everything from the undo stack").
final class ContextUndoTests: TrackingTestCase {
    var undoManager: UndoManager!

    override func setUpWithError() throws {
        try super.setUpWithError()
        undoManager = UndoManager()
        context.undoManager = undoManager
    }

    /// Saved set-up data is not part of what the tests undo. (With `groupsByEvent`, its
    /// registration would open a group that only a turn of the run loop closes.)
    override func savedTrail(_ name: String, hikes: Int = 0) throws -> NSManagedObject {
        context.undoManager = nil
        defer { context.undoManager = undoManager }
        return try super.savedTrail(name, hikes: hikes)
    }

    /// Runs `changes` as one explicit undo group.
    func group(_ changes: () throws -> Void) rethrows {
        undoManager.beginUndoGrouping()
        try changes()
        undoManager.endUndoGrouping()
    }

    func testContextsHaveNoUndoManagerByDefault() throws {
        let fresh = try openContainer()
        XCTAssertNil(fresh.viewContext.undoManager)
        XCTAssertNil(fresh.newBackgroundContext().undoManager)
        XCTAssertNil(NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType).undoManager)
    }

    func testAnAttributeChangeIsUndoneAndRedone() throws {
        let trail = try savedTrail("Tongariro")
        group { trail.setValue(4.5, forKey: "rating") }
        group { trail.setValue(5.0, forKey: "rating") }
        context.undo()
        XCTAssertEqual(trail.value(forKey: "rating") as? Double, 4.5)
        context.undo()
        XCTAssertNil(trail.value(forKey: "rating"))
        XCTAssertFalse(undoManager.canUndo)
        context.redo()
        XCTAssertEqual(trail.value(forKey: "rating") as? Double, 4.5)
        context.redo()
        XCTAssertEqual(trail.value(forKey: "rating") as? Double, 5.0)
    }

    /// An event's old values are kept two inline and the rest in a list: events changing
    /// one, two and four properties of an object are each undone and redone whole.
    func testSeveralAttributeChangesOfOneEventAreUndoneAndRedoneTogether() throws {
        let trail = try savedTrail("Abel Tasman")
        group { trail.setValue(3.5, forKey: "rating") }
        group {
            trail.setValue(4.0, forKey: "rating")
            trail.setValue(Int32(120), forKey: "elevation")
        }
        group {
            trail.setValue(Int32(300), forKey: "elevation")
            trail.setValue(Int16(7), forKey: "steps")
            trail.setValue(4.5, forKey: "rating")
            trail.setValue(true, forKey: "isFavorite")
        }
        func values() -> [String] {
            func text(_ value: Any?) -> String { value.map { "\($0)" } ?? "nil" }
            return [text(trail.value(forKey: "rating") as? Double), text(trail.value(forKey: "elevation") as? Int32),
                    text(trail.value(forKey: "steps") as? Int16), text(trail.value(forKey: "isFavorite") as? Bool)]
        }
        XCTAssertEqual(values(), ["4.5", "300", "7", "true"])
        context.undo()
        XCTAssertEqual(values(), ["4.0", "120", "nil", "nil"])
        context.undo()
        XCTAssertEqual(values(), ["3.5", "nil", "nil", "nil"])
        context.undo()
        XCTAssertEqual(values(), ["nil", "nil", "nil", "nil"])
        XCTAssertFalse(undoManager.canUndo)
        context.redo()
        context.redo()
        XCTAssertEqual(values(), ["4.0", "120", "nil", "nil"])
        context.redo()
        XCTAssertEqual(values(), ["4.5", "300", "7", "true"])
    }

    func testAnInsertIsUndoneAndRedoneWithTheSameObject() throws {
        var trail: TestTrail!
        group {
            trail = (newTrail("Routeburn") as! TestTrail)
            trail.rating = 4
        }
        context.undo()
        XCTAssertNil(trail.managedObjectContext)
        XCTAssertTrue(context.insertedObjects.isEmpty)
        XCTAssertFalse(context.hasChanges)
        context.redo()
        XCTAssertTrue(trail.managedObjectContext === context)
        XCTAssertEqual(context.insertedObjects, [trail])
        XCTAssertEqual(trail.name, "Routeburn")
        XCTAssertEqual(trail.rating, 4)
        XCTAssertEqual(trail.awakeCount, 1, "redo puts the object back; it is not inserted anew")
        try context.save()
        XCTAssertEqual(try trailCount(in: openContainer()), 1)
    }

    func testADeletionWithItsCascadeIsUndoneAndRedone() throws {
        let trail = try savedTrail("Kepler", hikes: 2)
        let hikes = trail.value(forKey: "hikes") as! Set<NSManagedObject>
        group { context.delete(trail) }
        XCTAssertEqual(context.deletedObjects, hikes.union([trail]))
        context.undo()
        XCTAssertTrue(context.deletedObjects.isEmpty)
        XCTAssertFalse(trail.isDeleted)
        XCTAssertEqual(trail.value(forKey: "hikes") as? Set<NSManagedObject>, hikes, "the delete rule's changes are undone too")
        for hike in hikes { XCTAssertTrue(hike.value(forKey: "trail") as AnyObject? === trail) }
        context.redo()
        XCTAssertEqual(context.deletedObjects, hikes.union([trail]))
        try context.save()
        XCTAssertEqual(try trailCount(in: openContainer()), 0)
    }

    func testARelationshipChangeIsUndoneOnBothSides() throws {
        let first = try savedTrail("Milford", hikes: 1)
        let second = try savedTrail("Hollyford")
        let hike = (first.value(forKey: "hikes") as! Set<NSManagedObject>).first!
        group { hike.setValue(second, forKey: "trail") }
        XCTAssertEqual((second.value(forKey: "hikes") as! Set<NSManagedObject>), [hike])
        context.undo()
        XCTAssertTrue(hike.value(forKey: "trail") as AnyObject? === first)
        XCTAssertEqual(first.value(forKey: "hikes") as? Set<NSManagedObject>, [hike])
        XCTAssertEqual(second.value(forKey: "hikes") as? Set<NSManagedObject>, [])
        context.redo()
        XCTAssertTrue(hike.value(forKey: "trail") as AnyObject? === second)
        XCTAssertEqual(first.value(forKey: "hikes") as? Set<NSManagedObject>, [])
    }

    func testUndoingAnInsertLeavesObjectsTheEventDidNotTouch() throws {
        context.undoManager = nil
        let hike = newHike(on: nil)
        try context.save()
        context.undoManager = undoManager
        var trail: NSManagedObject!
        group {
            trail = newTrail("Abel Tasman")
            hike.setValue(trail, forKey: "trail")  // the trail cascades to its hikes
        }
        try context.save()
        context.undo()  // the trail, saved since, is deleted again; the hike only let go
        XCTAssertEqual(context.deletedObjects, [trail])
        XCTAssertFalse(hike.isDeleted)
        XCTAssertNil(hike.value(forKey: "trail"))
    }

    func testUndoAfterSaveMakesTheContextDirtyWithTheReverseChange() throws {
        let trail = try savedTrail("Heaphy")
        group { trail.setValue(3.0, forKey: "rating") }
        try context.save()
        XCTAssertFalse(context.hasChanges)
        context.undo()
        XCTAssertTrue(context.hasChanges)
        XCTAssertEqual(context.updatedObjects, [trail])
        XCTAssertNil(trail.value(forKey: "rating"))
        try context.save()
        context.redo()
        XCTAssertEqual(trail.value(forKey: "rating") as? Double, 3.0)
        try context.save()
        let reader = try openContainer()
        let stored = try reader.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
        XCTAssertEqual(stored.map { $0.value(forKey: "rating") as? Double }, [3.0])
    }

    func testUndoingASavedInsertDeletesItAndUndoingASavedDeletionInsertsItAgain() throws {
        var trail: NSManagedObject!
        group { trail = newTrail("Rakiura") }
        try context.save()
        context.undo()
        XCTAssertEqual(context.deletedObjects, [trail], "the saved insert is now a deletion to save")
        try context.save()
        XCTAssertEqual(try trailCount(in: openContainer()), 0)
        context.redo()  // undoes the deletion, which had been saved too
        XCTAssertEqual(context.insertedObjects, [trail])
        XCTAssertTrue(trail.managedObjectContext === context)
        try context.save()
        XCTAssertEqual(try trailCount(in: openContainer()), 1)
        XCTAssertEqual(trail.value(forKey: "name") as? String, "Rakiura")
    }

    func testEventsAreGroupedByTheRunLoopWhenGroupingByEvent() throws {
        let trail = try savedTrail("Old Ghost Road")
        trail.setValue(1.0, forKey: "rating")
        trail.setValue(2.0, forKey: "rating")
        RunLoop.main.run(until: Date().addingTimeInterval(0.05))  // one turn: one event, one group
        XCTAssertEqual(undoManager.groupingLevel, 0)
        trail.setValue(3.0, forKey: "rating")
        context.undo()
        XCTAssertEqual(trail.value(forKey: "rating") as? Double, 2.0)
        context.undo()
        XCTAssertNil(trail.value(forKey: "rating"))
    }

    func testAnExplicitGroupSpansSeveralEvents() throws {
        let trail = try savedTrail("Queen Charlotte")
        group {
            trail.setValue(1.0, forKey: "rating")
            context.processPendingChanges()
            trail.setValue("Queen Charlotte Track", forKey: "name")
            context.processPendingChanges()
            _ = newTrail("Nydia")
        }
        context.undo()
        XCTAssertNil(trail.value(forKey: "rating"))
        XCTAssertEqual(trail.value(forKey: "name") as? String, "Queen Charlotte")
        XCTAssertTrue(context.insertedObjects.isEmpty)
        XCTAssertFalse(undoManager.canUndo)
    }

    func testUndoPostsObjectsDidChangeForTheReverseChanges() throws {
        let trail = try savedTrail("Hump Ridge")
        var added: NSManagedObject!
        group {
            trail.setValue(2.5, forKey: "rating")
            added = newTrail("Tuatapere")
        }
        let recorder = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, from: context)
        context.undo()
        XCTAssertEqual(recorder.count, 1)
        XCTAssertEqual(recorder.lastKeys, [NSDeletedObjectsKey, NSUpdatedObjectsKey])
        XCTAssertEqual(recorder.objects(NSDeletedObjectsKey), [added])
        XCTAssertEqual(recorder.objects(NSUpdatedObjectsKey), [trail])
        context.redo()
        XCTAssertEqual(recorder.lastKeys, [NSInsertedObjectsKey, NSUpdatedObjectsKey])
    }

    func testANewChangeAfterUndoClearsTheRedoStack() throws {
        let trail = try savedTrail("Pouakai")
        group { trail.setValue(1.0, forKey: "rating") }
        context.undo()
        XCTAssertTrue(undoManager.canRedo)
        trail.setValue(4.0, forKey: "rating")
        XCTAssertFalse(undoManager.canRedo, "canRedo's checkpoint records the pending change, which clears redo")
    }

    func testRollbackAndResetEmptyTheUndoStack() throws {
        let trail = try savedTrail("Cape Brett")
        group { trail.setValue(1.0, forKey: "rating") }
        context.rollback()
        XCTAssertFalse(undoManager.canUndo)
        group { trail.setValue(2.0, forKey: "rating") }
        context.undo()
        context.reset()
        XCTAssertFalse(undoManager.canUndo)
        XCTAssertFalse(undoManager.canRedo)
    }

    func testDisabledRegistrationLeavesChangesOutOfUndo() throws {
        let trail = try savedTrail("Tasman")
        undoManager.disableUndoRegistration()
        trail.setValue(1.0, forKey: "rating")
        context.processPendingChanges()
        undoManager.enableUndoRegistration()
        XCTAssertFalse(undoManager.canUndo)
        XCTAssertEqual(trail.value(forKey: "rating") as? Double, 1.0)
    }
}
