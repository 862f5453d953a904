import Foundation
import XCTest
@testable import OpenCoreData

/// Child contexts: saving into the parent, reading through it, nesting, discarding.
final class ParentContextTests: CoreTestCase {
    private func child(of parent: NSManagedObjectContext, _ type: NSManagedObjectContext.ConcurrencyType = .privateQueueConcurrencyType) -> NSManagedObjectContext {
        let child = NSManagedObjectContext(concurrencyType: type)
        child.parent = parent
        return child
    }

    private func names(_ request: NSFetchRequest<NSManagedObject>, in context: NSManagedObjectContext) throws -> [String] {
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        return try context.performAndWait { try context.fetch(request).map { $0.value(forKey: "name") as! String } }
    }

    private func storedNames() throws -> [String] {
        let reader = try openContainer()
        return try names(NSFetchRequest(entityName: "Trail"), in: reader.viewContext)
    }

    func testChildTakesItsParentsCoordinator() throws {
        let container = try openContainer()
        let scratch = child(of: container.viewContext)
        XCTAssertTrue(scratch.parent === container.viewContext)
        XCTAssertTrue(scratch.persistentStoreCoordinator === container.persistentStoreCoordinator)
    }

    func testChildSaveGoesToTheParentNotToDisk() throws {
        let container = try openContainer()
        let view = container.viewContext
        let scratch = child(of: view)
        try scratch.performAndWait {
            let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: scratch)
            trail.setValue("Kungsleden", forKey: "name")
            try scratch.save()
            XCTAssertFalse(scratch.hasChanges)
            XCTAssertFalse(trail.isInserted)
        }
        XCTAssertTrue(view.hasChanges)
        XCTAssertEqual(view.insertedObjects.map { $0.value(forKey: "name") as? String }, ["Kungsleden"])
        XCTAssertEqual(try storedNames(), [], "a child's save writes nothing to the store")
        try view.save()
        XCTAssertEqual(try storedNames(), ["Kungsleden"])
    }

    func testChildFetchSeesTheParentsUnsavedInsertsChangesAndDeletions() throws {
        try saveTrails(3)
        let container = try openContainer()
        let view = container.viewContext
        let stored = try view.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
        view.delete(stored.first { $0.value(forKey: "name") as? String == "Trail 0" }!)
        stored.first { $0.value(forKey: "name") as? String == "Trail 1" }!.setValue("Renamed", forKey: "name")
        NSEntityDescription.insertNewObject(forEntityName: "Trail", into: view).setValue("New", forKey: "name")

        let scratch = child(of: view)
        XCTAssertEqual(try names(NSFetchRequest(entityName: "Trail"), in: scratch), ["New", "Renamed", "Trail 2"])
        let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        request.predicate = NSPredicate(format: "name BEGINSWITH %@", "Re")
        XCTAssertEqual(try names(request, in: scratch), ["Renamed"])
        XCTAssertEqual(try scratch.performAndWait { try scratch.count(for: NSFetchRequest<NSManagedObject>(entityName: "Trail")) }, 3)
        // The child's own unsaved changes come on top of the parent's.
        try scratch.performAndWait {
            let new = try scratch.fetch(request).first!
            scratch.delete(new)
            NSEntityDescription.insertNewObject(forEntityName: "Trail", into: scratch).setValue("Child's", forKey: "name")
        }
        XCTAssertEqual(try names(NSFetchRequest(entityName: "Trail"), in: scratch), ["Child's", "New", "Trail 2"])
        XCTAssertEqual(try names(NSFetchRequest(entityName: "Trail"), in: view), ["New", "Renamed", "Trail 2"])
    }

    func testAChildObjectCarriesTheParentsUnsavedValuesAndRelationships() throws {
        try saveTrails(1, hikesEach: 2)
        let container = try openContainer()
        let view = container.viewContext
        let trail = try view.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first!
        trail.setValue(4.5, forKey: "rating")
        let extra = NSEntityDescription.insertNewObject(forEntityName: "Hike", into: view)
        extra.setValue(trail, forKey: "trail")
        let scratch = child(of: view)
        scratch.performAndWait {
            let copy = scratch.object(with: trail.objectID)
            XCTAssertFalse(copy === trail)
            XCTAssertEqual(copy.value(forKey: "rating") as? Double, 4.5)
            XCTAssertFalse(copy.hasChanges, "the parent's changes are the child's starting point")
            let hikes = copy.value(forKey: "hikes") as! Set<NSManagedObject>
            XCTAssertEqual(hikes.count, 3)
            XCTAssertTrue(hikes.allSatisfy { $0.managedObjectContext === scratch })
            XCTAssertTrue(hikes.contains { $0.objectID == extra.objectID })
        }
    }

    func testRelationshipsMadeInAChildArriveInTheParentAndOnDisk() throws {
        try saveTrails(1)
        let container = try openContainer()
        let view = container.viewContext
        let trail = try view.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first!
        let scratch = child(of: view)
        try scratch.performAndWait {
            let copy = scratch.object(with: trail.objectID)
            for _ in 0..<2 { NSEntityDescription.insertNewObject(forEntityName: "Hike", into: scratch).setValue(copy, forKey: "trail") }
            try scratch.save()
        }
        let hikes = trail.value(forKey: "hikes") as! Set<NSManagedObject>
        XCTAssertEqual(hikes.count, 2)
        XCTAssertTrue(hikes.allSatisfy { $0.value(forKey: "trail") as? NSManagedObject === trail })
        try view.save()
        let reader = try openContainer()
        let stored = try reader.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Hike"))
        XCTAssertEqual(stored.count, 2)
        XCTAssertTrue(stored.allSatisfy { ($0.value(forKey: "trail") as? NSManagedObject)?.value(forKey: "name") as? String == "Trail 0" })
    }

    func testChildChangesAndDeletionsArriveAsChangesInTheParent() throws {
        try saveTrails(2)
        let container = try openContainer()
        let view = container.viewContext
        let scratch = child(of: view)
        try scratch.performAndWait {
            let trails = try scratch.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
            trails.first { $0.value(forKey: "name") as? String == "Trail 0" }!.setValue("Changed", forKey: "name")
            scratch.delete(trails.first { $0.value(forKey: "name") as? String == "Trail 1" }!)
            try scratch.save()
        }
        XCTAssertEqual(view.updatedObjects.map { $0.value(forKey: "name") as? String }, ["Changed"])
        XCTAssertEqual(view.deletedObjects.count, 1)
        XCTAssertEqual(try storedNames(), ["Trail 0", "Trail 1"])
        try view.save()
        XCTAssertEqual(try storedNames(), ["Changed"])
    }

    func testNestedChildrenSaveOneLevelAtATime() throws {
        let container = try openContainer()
        let view = container.viewContext
        let middle = child(of: view)
        let inner = child(of: middle)
        try inner.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Trail", into: inner).setValue("Deep", forKey: "name")
            try inner.save()
        }
        XCTAssertEqual(try names(NSFetchRequest(entityName: "Trail"), in: middle), ["Deep"])
        XCTAssertTrue(middle.performAndWait { middle.hasChanges })
        XCTAssertFalse(view.hasChanges)
        try middle.performAndWait { try middle.save() }
        XCTAssertEqual(try names(NSFetchRequest(entityName: "Trail"), in: view), ["Deep"])
        XCTAssertEqual(try storedNames(), [])
        try view.save()
        XCTAssertEqual(try storedNames(), ["Deep"])
    }

    func testDiscardingAChildLeavesTheParentAsItWas() throws {
        try saveTrails(1)
        let container = try openContainer()
        let view = container.viewContext
        var scratch: NSManagedObjectContext? = child(of: view)
        try scratch!.performAndWait {
            let trail = try scratch!.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first!
            trail.setValue("Never saved", forKey: "name")
            NSEntityDescription.insertNewObject(forEntityName: "Trail", into: scratch!).setValue("Also not", forKey: "name")
        }
        scratch = nil
        XCTAssertFalse(view.hasChanges)
        XCTAssertEqual(try names(NSFetchRequest(entityName: "Trail"), in: view), ["Trail 0"])
    }

    func testChildObjectsKeepTemporaryIDsAfterTheParentSaves() throws {
        let container = try openContainer()
        let view = container.viewContext
        let scratch = child(of: view)
        let trail = try scratch.performAndWait { () -> NSManagedObject in
            let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: scratch)
            trail.setValue("Temporary", forKey: "name")
            try scratch.save()
            return trail
        }
        let inParent = view.insertedObjects.first!
        try view.save()
        XCTAssertTrue(scratch.performAndWait { trail.objectID.isTemporaryID })
        XCTAssertFalse(inParent.objectID.isTemporaryID)
        // The child can still change it: the parent knows the temporary ID.
        try scratch.performAndWait {
            trail.setValue("Changed later", forKey: "name")
            try scratch.save()
        }
        try view.save()
        XCTAssertEqual(try storedNames(), ["Changed later"])
    }

    func testObtainPermanentIDsThroughAChain() throws {
        let container = try openContainer()
        let view = container.viewContext
        let middle = child(of: view)
        let inner = child(of: middle)
        let id = try inner.performAndWait { () -> NSManagedObjectID in
            let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: inner)
            trail.setValue("Named early", forKey: "name")
            try inner.obtainPermanentIDs(for: [trail])
            XCTAssertFalse(trail.objectID.isTemporaryID)
            try inner.save()
            return trail.objectID
        }
        try middle.performAndWait { try middle.save() }
        XCTAssertTrue(view.registeredObject(for: id) != nil, "the parent knows the object by its permanent ID")
        try view.save()
        let reader = try openContainer()
        let readerID = reader.persistentStoreCoordinator.managedObjectID(forURIRepresentation: id.uriRepresentation())!
        XCTAssertEqual(try reader.viewContext.existingObject(with: readerID).value(forKey: "name") as? String, "Named early")

        // An object the parent already saved takes the ID the parent gave it.
        let later = child(of: view)
        let temporary = try later.performAndWait { () -> NSManagedObject in
            let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: later)
            trail.setValue("Saved first", forKey: "name")
            try later.save()
            return trail
        }
        try view.save()
        let savedFirst = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        savedFirst.predicate = NSPredicate(format: "name == %@", "Saved first")
        let savedID = try view.fetch(savedFirst).first!.objectID
        XCTAssertFalse(savedID.isTemporaryID)
        try later.performAndWait { try later.obtainPermanentIDs(for: [temporary]) }
        XCTAssertEqual(later.performAndWait { temporary.objectID }, savedID)
    }

    func testSavingChangesToAnObjectTheParentNoLongerHasFails() throws {
        try saveTrails(1)
        let container = try openContainer()
        let view = container.viewContext
        let scratch = child(of: view)
        let copy = try scratch.performAndWait { try scratch.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first! }
        scratch.performAndWait { _ = copy.value(forKey: "name") }
        view.delete(try view.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first!)
        try view.save()
        try scratch.performAndWait {
            copy.setValue("Too late", forKey: "name")
            XCTAssertThrowsError(try scratch.save()) { error in
                let error = error as NSError
                XCTAssertEqual(error.domain, NSCocoaErrorDomain)
                XCTAssertEqual(error.code, NSManagedObjectReferentialIntegrityError)
            }
            XCTAssertTrue(scratch.hasChanges, "a failed save keeps the child's changes")
        }
        XCTAssertFalse(view.hasChanges)
    }

    func testExistingObjectInAChildThrowsForAnUnknownTemporaryID() throws {
        let container = try openContainer()
        let scratch = child(of: container.viewContext)
        let stranger = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: try openContainer().viewContext)
        try scratch.performAndWait {
            XCTAssertThrowsError(try scratch.existingObject(with: stranger.objectID)) { error in
                XCTAssertEqual((error as NSError).code, NSManagedObjectReferentialIntegrityError)
            }
        }
    }

    func testValidationRunsInTheChildBeforeAnythingReachesTheParent() throws {
        let container = try openContainer()
        let view = container.viewContext
        let scratch = child(of: view)
        try scratch.performAndWait {
            _ = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: scratch)  // no name: required
            XCTAssertThrowsError(try scratch.save()) { error in
                XCTAssertEqual((error as NSError).code, NSValidationMissingMandatoryPropertyError)
            }
        }
        XCTAssertFalse(view.hasChanges)
    }
}

/// A child made and used inside its private parent's own block: the child reads and saves
/// through the parent whose block is still running on the same thread.
final class NestedQueueTests: CoreTestCase {
    func testAChildUsedInsideItsPrivateParentsBlockDoesNotDeadlock() throws {
        try saveTrails(2)
        let container = try openContainer()
        let background = container.newBackgroundContext()
        let done = expectation(description: "finished")
        var names: [String] = []
        background.perform {
            let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            child.parent = background
            child.performAndWait {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
                request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
                names = ((try? child.fetch(request)) ?? []).compactMap { $0.value(forKey: "name") as? String }
                NSEntityDescription.insertNewObject(forEntityName: "Trail", into: child).setValue("From the child", forKey: "name")
                try? child.save()
            }
            names.append("parent has \(background.insertedObjects.count) inserted")
            done.fulfill()
        }
        wait(for: [done], timeout: 20)
        XCTAssertEqual(names, ["Trail 0", "Trail 1", "parent has 1 inserted"])
    }
}
