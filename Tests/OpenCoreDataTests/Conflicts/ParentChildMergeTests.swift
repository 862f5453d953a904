import Foundation
import XCTest
@testable import OpenCoreData

/// Merge policies with parent and child contexts: a child's save pushes its values into
/// the parent without a conflict check (the parent's unsaved value is replaced), and the
/// parent's own policy settles conflicts and constraints when it saves to the store.
final class ParentChildMergeTests: ConflictTestCase {
    func testAChildSaveReplacesTheParentsValuesAndTheParentsPolicyMeetsTheStore() throws {
        let setup = newContext()
        insertTrail("Ridge", rating: 3, into: setup)
        try setup.save()

        let parent = newContext()
        let inParent = try trail("Ridge", in: parent)!
        inParent.setValue(4.0, forKey: "rating")
        let child = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        child.parent = parent
        try trail("Ridge", in: child)!.setValue(4.5, forKey: "rating")
        try child.save()
        XCTAssertEqual(inParent.value(forKey: "rating") as? Double, 4.5, "the child's save replaced the parent's unsaved value")

        let other = newContext()
        try trail("Ridge", in: other)!.setValue(1.0, forKey: "rating")
        try trail("Ridge", in: other)!.setValue(20.0, forKey: "lengthKm")
        try other.save()

        child.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump  // the child's policy plays no part
        XCTAssertThrowsError(try parent.save(), "the parent's error policy meets the store's newer row") { error in
            XCTAssertEqual((error as NSError).code, NSManagedObjectMergeError)
        }
        parent.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
        try parent.save()
        let stored = try storedTrails()["Ridge"]!
        XCTAssertEqual(stored.rating, 4.5)
        XCTAssertEqual(stored.lengthKm, 20)
    }

    func testDuplicatesFromAChildAreCaughtWhenTheParentSaves() throws {
        let parent = newContext()
        insertTrail("Lake", into: parent)
        let child = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        child.parent = parent
        insertTrail("Lake", rating: 5, into: child)
        XCTAssertNoThrow(try child.save(), "a child's save into its parent checks no constraint")
        XCTAssertThrowsError(try parent.save()) { error in
            XCTAssertEqual((error as NSError).code, NSManagedObjectConstraintMergeError)
        }
        parent.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        try parent.save()
        XCTAssertEqual(try storedTrails()["Lake"]?.rating, 5, "the child's later insert wins under object trump")
        XCTAssertEqual(try count("Trail"), 1)
    }

    func testSettingSomethingElseAsThePolicyIsRefused() {
        let context = newContext()
        XCTAssertTrue(context.mergePolicy as? NSMergePolicy === NSMergePolicy.error, "the error policy is the default")
        XCTAssertTrue(NSErrorMergePolicy as? NSMergePolicy === NSMergePolicy.error)
        XCTAssertTrue(NSRollbackMergePolicy as? NSMergePolicy === NSMergePolicy.rollback)
        XCTAssertEqual(NSMergePolicy.overwrite.mergeType.rawValue, 3)
        XCTAssertEqual((NSMergeByPropertyStoreTrumpMergePolicy as? NSMergePolicy)?.mergeType, .mergeByPropertyStoreTrumpMergePolicyType)
    }

    func testACustomPolicySeesBothKindsOfConflict() throws {
        final class Recorder: NSMergePolicy {
            var locking = 0, constraints = 0
            init() { super.init(merge: .mergeByPropertyObjectTrumpMergePolicyType) }
            override func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
                locking += list.count
                try super.resolve(optimisticLockingConflicts: list)
            }
            override func resolve(constraintConflicts list: [NSConstraintConflict]) throws {
                constraints += list.count
                try super.resolve(constraintConflicts: list)
            }
        }
        let setup = newContext()
        insertTrail("Ridge", into: setup)
        try setup.save()
        let app = newContext(), importer = newContext()
        try trail("Ridge", in: app)!.setValue(2.0, forKey: "rating")
        try trail("Ridge", in: importer)!.setValue(5.0, forKey: "rating")
        try importer.save()
        insertTrail("Ridge", rating: 1, into: app)
        let recorder = Recorder()
        app.mergePolicy = recorder
        try app.save()
        XCTAssertEqual(recorder.locking, 1)
        XCTAssertEqual(recorder.constraints, 1)
        XCTAssertEqual(try count("Trail"), 1)
        XCTAssertEqual(try storedTrails()["Ridge"]?.rating, 1, "the later insert's rating wins under object trump")
    }

    func testAPolicyThatLeavesConstraintConflictsFailsTheSave() throws {
        final class DoesNothing: NSMergePolicy {
            init() { super.init(merge: .mergeByPropertyObjectTrumpMergePolicyType) }
            override func resolve(constraintConflicts list: [NSConstraintConflict]) throws {}
        }
        let context = newContext()
        insertTrail("Lake", into: context)
        insertTrail("Lake", into: context)
        context.mergePolicy = DoesNothing()
        XCTAssertThrowsError(try context.save()) { error in
            XCTAssertEqual((error as NSError).code, NSManagedObjectConstraintMergeError)
        }
        XCTAssertEqual(try count("Trail"), 0)
    }
}
