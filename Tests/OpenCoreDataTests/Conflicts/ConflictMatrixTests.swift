import Foundation
import XCTest
@testable import OpenCoreData

/// Every merge policy against the same conflicts: an attribute changed in two contexts, a
/// to-one pointed elsewhere, a to-many grown on both sides, a deletion against a change
/// and a change against a deletion.
///
/// Expected results follow Core Data's documented semantics (NSMergePolicy.h and the
/// NSMergePolicy reference): the error policy fails the save with 133020 and a
/// `conflictList` of NSMergeConflicts; store trump merges property by property with the
/// store's value winning where both changed; object trump the same with the context's
/// value winning; overwrite pushes the context's whole object; rollback discards the
/// context's changes to the conflicting objects. A new version number of 0 means the row
/// was deleted (NSMergeConflict's `newVersionNumber` documentation). The delete cases are
/// where Core Data's documentation says least; what this library does is listed in
/// LinuxDifferences.md.
final class ConflictMatrixTests: ConflictTestCase {
    let policies: [NSMergePolicy] = [.error, .mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump, .overwrite, .rollback]

    /// Runs `body` once per policy, each on a fresh store.
    private func forEachPolicy(_ body: (NSMergePolicy) throws -> Void) throws {
        for policy in policies {
            try tearDownWithError()
            try setUpWithError()
            // Failures below this line in the log belong to this policy.
            print("policy \(policy.mergeType)")
            try body(policy)
        }
    }

    /// Saves `context` under `policy`; returns the error the save threw, if any.
    private func save(_ context: NSManagedObjectContext, under policy: NSMergePolicy) -> NSError? {
        context.mergePolicy = policy
        do {
            try context.save()
            return nil
        } catch {
            return error as NSError
        }
    }

    private func conflicts(_ error: NSError?) -> [NSMergeConflict] {
        (error?.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [Any])?.compactMap { $0 as? NSMergeConflict } ?? []
    }

    // MARK: Attribute

    func testAnAttributeChangedInBothContexts() throws {
        try forEachPolicy { policy in
            let setup = newContext()
            insertTrail("Ridge", rating: 3, lengthKm: 10, country: "NO", into: setup)
            try setup.save()
            let app = newContext(), importer = newContext()
            let mine = try trail("Ridge", in: app)!
            let theirs = try trail("Ridge", in: importer)!
            mine.setValue(4.0, forKey: "rating")        // both change the rating
            mine.setValue("SE", forKey: "country")      // only the app
            theirs.setValue(5.0, forKey: "rating")
            theirs.setValue(12.0, forKey: "lengthKm")   // only the importer
            try importer.save()

            let error = save(app, under: policy)
            let stored = try storedTrails()["Ridge"]!
            switch policy.mergeType {
            case .errorMergePolicyType:
                XCTAssertEqual(error?.domain, NSCocoaErrorDomain)
                XCTAssertEqual(error?.code, NSManagedObjectMergeError)
                let list = conflicts(error)
                XCTAssertEqual(list.count, 1)
                XCTAssertTrue(list.first?.sourceObject === mine)
                XCTAssertEqual(list.first?.oldVersionNumber, 1)
                XCTAssertEqual(list.first?.newVersionNumber, 2)
                XCTAssertEqual(list.first?.objectSnapshot?["rating"] as? Double, 3)
                XCTAssertEqual(list.first?.cachedSnapshot?["rating"] as? Double, 5)
                XCTAssertEqual(list.first?.cachedSnapshot?["lengthKm"] as? Double, 12)
                XCTAssertNil(list.first?.persistedSnapshot)
                XCTAssertNil(list.first?.cachedSnapshot?["hikes"], "snapshots leave out to-many relationships")
                XCTAssertTrue(app.hasChanges, "a failed save keeps the context's changes")
                XCTAssertEqual(stored.rating, 5); XCTAssertEqual(stored.lengthKm, 12); XCTAssertEqual(stored.country, "NO")
            case .mergeByPropertyStoreTrumpMergePolicyType:
                XCTAssertNil(error)
                XCTAssertEqual(stored.rating, 5); XCTAssertEqual(stored.lengthKm, 12); XCTAssertEqual(stored.country, "SE")
            case .mergeByPropertyObjectTrumpMergePolicyType:
                XCTAssertNil(error)
                XCTAssertEqual(stored.rating, 4); XCTAssertEqual(stored.lengthKm, 12); XCTAssertEqual(stored.country, "SE")
            case .overwriteMergePolicyType:
                XCTAssertNil(error)
                XCTAssertEqual(stored.rating, 4); XCTAssertEqual(stored.lengthKm, 10); XCTAssertEqual(stored.country, "SE")
            case .rollbackMergePolicyType:
                XCTAssertNil(error)
                XCTAssertEqual(stored.rating, 5); XCTAssertEqual(stored.lengthKm, 12); XCTAssertEqual(stored.country, "NO")
            }
            if error == nil {
                // The app's object now reads what the store holds, and saves again without conflict.
                XCTAssertEqual(mine.value(forKey: "rating") as? Double, stored.rating)
                XCTAssertEqual(mine.value(forKey: "lengthKm") as? Double, stored.lengthKm)
                XCTAssertFalse(app.hasChanges)
                mine.setValue(1.0, forKey: "rating")
                app.mergePolicy = NSMergePolicy.error
                XCTAssertNoThrow(try app.save())
            }
        }
    }

    // MARK: To-one

    func testAToOnePointedToDifferentTrails() throws {
        try forEachPolicy { policy in
            let setup = newContext()
            let ridge = insertTrail("Ridge", into: setup)
            insertTrail("Coast", into: setup)
            insertTrail("Forest", into: setup)
            insertHike("first", on: ridge, into: setup)
            try setup.save()
            let app = newContext(), importer = newContext()
            try hike("first", in: app)!.setValue(try trail("Coast", in: app), forKey: "trail")
            try hike("first", in: importer)!.setValue(try trail("Forest", in: importer), forKey: "trail")
            try importer.save()

            let error = save(app, under: policy)
            let stored = try storedTrails()
            let owner = stored.first { $0.value.hikes.contains("first") }?.key
            switch policy.mergeType {
            case .errorMergePolicyType:
                XCTAssertEqual(error?.code, NSManagedObjectMergeError)
                // The hike and the trail both contexts took it from.
                let sources = conflicts(error).map { $0.sourceObject.entity.name! }.sorted()
                XCTAssertEqual(sources, ["Hike", "Trail"])
                let hikeConflict = conflicts(error).first { $0.sourceObject.entity.name == "Hike" }
                XCTAssertEqual((hikeConflict?.cachedSnapshot?["trail"] as? NSManagedObjectID)?.uriRepresentation().lastPathComponent, "p3")
                XCTAssertEqual(owner, "Forest")
            case .mergeByPropertyStoreTrumpMergePolicyType, .rollbackMergePolicyType:
                XCTAssertNil(error)
                XCTAssertEqual(owner, "Forest")
            case .mergeByPropertyObjectTrumpMergePolicyType, .overwriteMergePolicyType:
                XCTAssertNil(error)
                XCTAssertEqual(owner, "Coast")
            }
            XCTAssertEqual(stored.values.map(\.hikes.count).reduce(0, +), 1, "the hike belongs to one trail")
        }
    }

    // MARK: To-many

    func testATooManyGrownInBothContexts() throws {
        try forEachPolicy { policy in
            let setup = newContext()
            insertHike("first", on: insertTrail("Ridge", into: setup), into: setup)
            try setup.save()
            let app = newContext(), importer = newContext()
            let mine = try trail("Ridge", in: app)!
            XCTAssertEqual((mine.value(forKey: "hikes") as! Set<NSManagedObject>).count, 1)
            insertHike("mine", on: mine, into: app)
            insertHike("theirs", on: try trail("Ridge", in: importer)!, into: importer)
            try importer.save()

            let error = save(app, under: policy)
            let stored = try storedTrails()["Ridge"]!
            if policy.mergeType == .errorMergePolicyType {
                XCTAssertEqual(error?.code, NSManagedObjectMergeError)
                XCTAssertEqual(conflicts(error).map { $0.sourceObject.entity.name! }, ["Trail"])
                XCTAssertEqual(stored.hikes, ["first", "theirs"])
            } else {
                // The members live in each hike's row: both additions are kept.
                XCTAssertNil(error)
                XCTAssertEqual(stored.hikes, ["first", "mine", "theirs"])
                let inMemory = (mine.value(forKey: "hikes") as! Set<NSManagedObject>).compactMap { $0.value(forKey: "notes") as? String }
                XCTAssertEqual(inMemory.sorted(), ["first", "mine", "theirs"], "the object reads the merged relationship")
            }
        }
    }

    // MARK: Deletion against change

    func testADeletionAgainstAChangeInTheStore() throws {
        try forEachPolicy { policy in
            let setup = newContext()
            insertTrail("Coast", rating: 3, into: setup)
            try setup.save()
            let app = newContext(), importer = newContext()
            let mine = try trail("Coast", in: app)!
            app.delete(mine)
            try trail("Coast", in: importer)!.setValue(1.0, forKey: "rating")
            try importer.save()

            let error = save(app, under: policy)
            let stored = try storedTrails()["Coast"]
            switch policy.mergeType {
            case .errorMergePolicyType:
                XCTAssertEqual(error?.code, NSManagedObjectMergeError)
                XCTAssertEqual(conflicts(error).first?.oldVersionNumber, 1)
                XCTAssertEqual(conflicts(error).first?.newVersionNumber, 2)
                XCTAssertEqual(stored?.rating, 1)
            case .rollbackMergePolicyType, .mergeByPropertyStoreTrumpMergePolicyType:
                // Store trump too: its merge inserts a deleted object back (decompiled
                // NSMergePolicy, iOS 26, end of _mergeChangesStoreUpdatesTrumpForObject:).
                XCTAssertNil(error)
                XCTAssertEqual(stored?.rating, 1, "the store's change wins over the deletion")
                XCTAssertFalse(mine.isDeleted)
                XCTAssertEqual(mine.value(forKey: "rating") as? Double, 1)
            default:
                XCTAssertNil(error)
                XCTAssertNil(stored, "the context's deletion stands")
            }
        }
    }

    func testAChangeAgainstADeletionInTheStore() throws {
        try forEachPolicy { policy in
            let setup = newContext()
            insertTrail("Coast", rating: 3, into: setup)
            try setup.save()
            let app = newContext(), importer = newContext()
            let mine = try trail("Coast", in: app)!
            mine.setValue(4.0, forKey: "rating")
            importer.delete(try trail("Coast", in: importer)!)
            try importer.save()

            let id = mine.objectID
            let error = save(app, under: policy)
            switch policy.mergeType {
            case .errorMergePolicyType:
                XCTAssertEqual(error?.code, NSManagedObjectMergeError)
                let conflict = conflicts(error).first
                XCTAssertEqual(conflict?.newVersionNumber, 0, "0: the row was deleted")
                XCTAssertNil(conflict?.cachedSnapshot)
                XCTAssertEqual(conflict?.objectSnapshot?["rating"] as? Double, 3)
                XCTAssertNil(try storedTrails()["Coast"])
            case .overwriteMergePolicyType:
                // Core Data forces the object back in (decompiled NSMergePolicy, iOS 26,
                // `_forceInsertionForObject:`): the whole in-memory object is pushed.
                XCTAssertNil(error)
                XCTAssertTrue(mine.managedObjectContext === app, "the object stays")
                XCTAssertEqual(mine.objectID, id, "under the same object ID")
                XCTAssertEqual(try storedTrails()["Coast"]?.rating, 4, "its row is saved again")
                XCTAssertFalse(app.hasChanges)
                XCTAssertEqual((try trail("Coast", in: newContext()))?.objectID.uriRepresentation(), id.uriRepresentation())
            default:
                XCTAssertNil(error)
                XCTAssertNil(mine.managedObjectContext, "the store's deletion stands; the object leaves the context")
                XCTAssertFalse(app.hasChanges)
                XCTAssertNil(try storedTrails()["Coast"])
            }
        }
    }

    // MARK: The error and its description

    func testTheErrorPrintsItsConflictsAsCoreDataDoes() throws {
        let setup = newContext()
        insertTrail("Ridge", rating: 3, lengthKm: 10, country: "NO", into: setup)
        try setup.save()
        let app = newContext(), importer = newContext()
        try trail("Ridge", in: app)!.setValue(4.0, forKey: "rating")
        try trail("Ridge", in: importer)!.setValue(5.0, forKey: "rating")
        try importer.save()
        let error = save(app, under: .error)!
        XCTAssertNil(error.userInfo[NSLocalizedDescriptionKey], "Core Data prints \"(null)\" for this error's description")
        let description = "\(error)"
        // As printed in public reports (Simperium/simperium-ios#387, paulw11/Seam3#48):
        // Error Domain=NSCocoaErrorDomain Code=133020 "(null)" UserInfo={conflictList=(
        //     "NSMergeConflict (0x…) for NSManagedObject (0x…) with objectID '0x… <x-coredata://…/League/p1>'
        //      with oldVersion = 1 and newVersion = 2 and old object snapshot = {…} and new cached row = {…}" )}
        XCTAssertTrue(description.hasPrefix("Error Domain=NSCocoaErrorDomain Code=133020 \"(null)\" UserInfo={conflictList=(\n    \"NSMergeConflict (0x"), description)
        let conflict = conflicts(error)[0]
        let pattern = #"^NSMergeConflict \(0x[0-9a-f]+\) for NSManagedObject \(0x[0-9a-f]+\) with objectID '0x[0-9a-f]+ <x-coredata://[0-9A-F-]+/Trail/p1>' with oldVersion = 1 and newVersion = 2 and old object snapshot = \{\n    country = NO;\n    lengthKm = 10;\n    name = Ridge;\n    rating = 3;\n\} and new cached row = \{\n    country = NO;\n    lengthKm = 10;\n    name = Ridge;\n    rating = 5;\n\}$"#
        XCTAssertNotNil(conflict.description.range(of: pattern, options: .regularExpression), conflict.description)
    }

    func testAMergeConflictMadeByHand() throws {
        let context = newContext()
        let ridge = insertTrail("Ridge", into: context)
        let conflict = NSMergeConflict(source: ridge, newVersion: 0, oldVersion: 3, cachedSnapshot: nil, persistedSnapshot: nil)
        XCTAssertEqual(conflict.newVersionNumber, 0)
        XCTAssertEqual(conflict.oldVersionNumber, 3)
        XCTAssertNil(conflict.objectSnapshot, "an unsaved object has no snapshot")
        XCTAssertTrue(conflict.description.hasSuffix("and old object snapshot = (null) and new cached row = (null)"), conflict.description)
    }
}
