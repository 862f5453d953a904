import Foundation
import XCTest
@testable import OpenCoreData

/// Uniqueness constraints at save: duplicates among the context's own objects and against
/// the store, single and compound, the error policy's 133021 and the upserts of the trump
/// policies.
///
/// The 133021 error as Core Data prints it (a public Core Data tutorial's output):
/// `Error Domain=NSCocoaErrorDomain Code=133021 "(null)" UserInfo={NSExceptionOmitCallstacks=true,
/// conflictList=( "NSConstraintConflict (0x…) for constraint (\n name\n): database: (null),
/// conflictedObjects: (…` — and unique constraints only act at save, with the error policy
/// as the default (dorianroy.com, "How to implement Unique Constraints in Core Data with iOS 9").
final class UniquenessConstraintTests: ConflictTestCase {
    private func constraintConflicts(_ error: Error) -> [NSConstraintConflict] {
        ((error as NSError).userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [Any])?.compactMap { $0 as? NSConstraintConflict } ?? []
    }

    func testDuplicatesAmongTheContextsOwnObjectsFailUnderTheErrorPolicy() throws {
        let context = newContext()
        let first = insertTrail("Lake", rating: 1, into: context)
        let second = insertTrail("Lake", rating: 2, into: context)
        insertTrail("Other", into: context)
        XCTAssertThrowsError(try context.save()) { error in
            let error = error as NSError
            XCTAssertEqual(error.code, NSManagedObjectConstraintMergeError)
            XCTAssertEqual(error.code, 133021)
            XCTAssertEqual(error.userInfo["NSExceptionOmitCallstacks"] as? Bool, true)
            let list = constraintConflicts(error)
            XCTAssertEqual(list.count, 1)
            XCTAssertEqual(list[0].constraint, ["name"])
            XCTAssertEqual(list[0].constraintValues["name"] as? String, "Lake")
            XCTAssertNil(list[0].databaseObject)
            XCTAssertNil(list[0].databaseSnapshot)
            XCTAssertEqual(list[0].conflictingObjects.count, 2)
            XCTAssertTrue(list[0].conflictingObjects[0] === first && list[0].conflictingObjects[1] === second)
            XCTAssertEqual(list[0].conflictingSnapshots.count, 2)
            XCTAssertTrue("\(error)".hasPrefix("Error Domain=NSCocoaErrorDomain Code=133021 \"(null)\" UserInfo={NSExceptionOmitCallstacks=1, conflictList=("), "\(error)")
            XCTAssertTrue(list[0].description.contains("for constraint (\n    name\n): database: (null), conflictedObjects: (\n"), list[0].description)
        }
        XCTAssertEqual(try count("Trail"), 0, "nothing was written")
        XCTAssertTrue(context.hasChanges)
    }

    /// The save looks for stored duplicates with one `SELECT … WHERE … ZNAME IN (?, …)` per
    /// 500 names (LinuxDifferences.md), and the upsert still finds the one stored name.
    func testTheConstraintCheckLogsOneInListPerFiveHundredNames() throws {
        let setup = newContext()
        insertTrail("Trail 0", rating: 1, into: setup)
        try setup.save()
        let importer = newContext()
        importer.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        for index in 0..<501 { insertTrail("Trail \(index)", rating: 4, into: importer) }
        var lines: [String] = []
        let lock = NSLock()
        SQLDebugLog.setLevelOverride(1)
        SQLDebugLog.setSink { line in lock.lock(); lines.append(line); lock.unlock() }
        defer {
            SQLDebugLog.setLevelOverride(nil)
            SQLDebugLog.setSink(nil)
        }
        try importer.save()
        let lookups = lines.filter { $0.hasPrefix("CoreData: sql: SELECT") && $0.contains("ZNAME IN (") }
        XCTAssertEqual(lookups.count, 2, "\(lookups)")
        let select = "CoreData: sql: SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZLENGTHKM, t0.ZRATING, t0.ZCOUNTRY, t0.ZNAME FROM ZTRAIL t0 WHERE  t0.ZNAME IN "
        XCTAssertEqual(lookups.first, select + "(" + Array(repeating: "?", count: 500).joined(separator: ", ") + ") ORDER BY t0.Z_PK")
        XCTAssertEqual(lookups.last, select + "(?) ORDER BY t0.Z_PK")
        XCTAssertEqual(try storedTrails().count, 501)
        XCTAssertEqual(try storedTrails()["Trail 0"]?.rating, 4)
    }

    func testADuplicateOfAStoredRowFailsNamingTheDatabaseObject() throws {
        let setup = newContext()
        insertTrail("Ridge", rating: 3, into: setup)
        try setup.save()
        let stored = try trail("Ridge", in: setup)!
        let importer = newContext()
        let duplicate = insertTrail("Ridge", rating: 5, into: importer)
        XCTAssertThrowsError(try importer.save()) { error in
            XCTAssertEqual((error as NSError).code, NSManagedObjectConstraintMergeError)
            let conflict = constraintConflicts(error).first
            XCTAssertEqual(conflict?.databaseObject?.objectID, stored.objectID)
            XCTAssertEqual(conflict?.databaseSnapshot?["rating"] as? Double, 3)
            XCTAssertEqual(conflict?.conflictingObjects.count, 1)
            XCTAssertTrue(conflict?.conflictingObjects.first === duplicate)
            XCTAssertEqual(conflict?.conflictingSnapshots.first?.count, 0, "an inserted object has no saved values")
            XCTAssertTrue(conflict?.description.contains("): database: 0x") ?? false)
        }
        XCTAssertEqual(try count("Trail"), 1)
    }

    func testAChangeOntoAnotherRowsValuesConflictsToo() throws {
        let setup = newContext()
        insertTrail("Ridge", into: setup)
        insertTrail("Coast", into: setup)
        try setup.save()
        let app = newContext()
        try trail("Coast", in: app)!.setValue("Ridge", forKey: "name")
        XCTAssertThrowsError(try app.save()) { error in
            let conflict = constraintConflicts(error).first
            XCTAssertEqual(conflict?.databaseObject.flatMap { $0.value(forKey: "name") as? String }, "Ridge")
            XCTAssertEqual(conflict?.conflictingSnapshots.first?["name"] as? String, "Coast", "a saved object's snapshot holds its saved values")
        }
        // Renaming a trail to a name that was freed in the same save is no conflict.
        let swap = newContext()
        swap.delete(try trail("Ridge", in: swap)!)
        try trail("Coast", in: swap)!.setValue("Ridge", forKey: "name")
        XCTAssertNoThrow(try swap.save())
        XCTAssertEqual(try storedTrails().keys.sorted(), ["Ridge"])
    }

    func testTheSchemaCarriesTheConstraint() throws {
        let url = directory.appendingPathComponent("Trails.sqlite")
        let database = try SQLiteDatabase(path: url.path, create: false)
        let statement = try database.statement("SELECT sql FROM sqlite_master WHERE name = 'ZTRAIL'")
        XCTAssertTrue(try statement.step())
        let sql = statement.string(0)
        statement.reset()
        XCTAssertTrue(sql.hasSuffix(", UNIQUE (ZNAME) )"), sql)
    }

    func testCompoundConstraints() throws {
        let person = makeEntity("Person")
        person.properties = [makeAttribute("firstName", .stringAttributeType), makeAttribute("lastName", .stringAttributeType)]
        person.uniquenessConstraints = [["firstName", "lastName"]]
        let url = directory.appendingPathComponent("People.sqlite")
        let people = try Self.openContainer(at: url, model: makeModel([person]))
        let context = people.viewContext
        func add(_ first: String, _ last: String?) {
            let object = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            object.setValue(first, forKey: "firstName")
            object.setValue(last, forKey: "lastName")
        }
        add("Ada", "Lovelace"); add("Ada", "Byron"); add("Alan", "Lovelace")
        XCTAssertNoThrow(try context.save(), "no pair repeats")
        add("Ada", "Lovelace")
        XCTAssertThrowsError(try context.save()) { error in
            let conflict = constraintConflicts(error).first
            XCTAssertEqual(conflict?.constraint, ["firstName", "lastName"])
            XCTAssertEqual(conflict?.constraintValues["lastName"] as? String, "Lovelace")
            XCTAssertNotNil(conflict?.databaseObject)
        }
        context.rollback()
        add("Grace", nil); add("Grace", nil)
        XCTAssertNoThrow(try context.save(), "a nil value is never a duplicate (as in SQLite's UNIQUE)")
    }

    // MARK: Upserts

    /// Saves Ridge (rating 3, 10 km, one hike), then imports Ridge again (rating 5, no
    /// length set) under `policy`; returns what the store holds and the row's primary key
    /// before and after.
    private func importRidgeAgain(under policy: NSMergePolicy) throws -> (stored: (rating: Double, lengthKm: Double, country: String?, hikes: [String]), count: Int, sameRow: Bool) {
        let setup = newContext()
        insertHike("first", on: insertTrail("Ridge", rating: 3, lengthKm: 10, country: "NO", into: setup), into: setup)
        try setup.save()
        let before = try trail("Ridge", in: setup)!.objectID
        let importer = newContext()
        importer.mergePolicy = policy
        let incoming = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: importer)
        incoming.setValue("Ridge", forKey: "name")
        incoming.setValue(5.0, forKey: "rating")
        insertHike("imported", on: incoming, into: importer)
        try importer.save()
        let after = try trail("Ridge", in: newContext())!.objectID
        return (try storedTrails()["Ridge"]!, try count("Trail"), before.uriRepresentation() == after.uriRepresentation())
    }

    /// Core Data's object trump against a stored object sets every attribute and to-one of
    /// an inserted object on the stored one, set or not (decompiled `NSMergePolicy`, iOS 26,
    /// `_byPropertyObjectTrumpResolveConstraintConflict:`: for an inserted conflicting object
    /// each attribute goes through `setValue:forKey:` with no comparison), then moves its
    /// to-many members over and deletes it.
    func testObjectTrumpTurnsTheInsertIntoAnUpdateOfTheStoredRow() throws {
        let result = try importRidgeAgain(under: .mergeByPropertyObjectTrump)
        XCTAssertEqual(result.count, 1)
        XCTAssertTrue(result.sameRow, "the stored row was updated, not replaced")
        XCTAssertEqual(result.stored.rating, 5, "the import's values win")
        XCTAssertEqual(result.stored.lengthKm, 0, "a property the import did not set takes the import's default")
        XCTAssertNil(result.stored.country, "an optional the import left unset becomes nil")
        XCTAssertEqual(result.stored.hikes, ["first", "imported"], "relationships of both are kept")
    }

    /// An object fetched and changed, then given a stored object's constraint value, brings
    /// only what it changed (Core Data compares it with its own snapshot).
    func testObjectTrumpFromASavedObjectBringsOnlyItsChanges() throws {
        let setup = newContext()
        insertTrail("Ridge", rating: 3, lengthKm: 10, country: "NO", into: setup)
        insertTrail("Ridge draft", rating: 1, lengthKm: 99, country: "SE", into: setup)
        try setup.save()
        let editor = newContext()
        editor.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
        let draft = try trail("Ridge draft", in: editor)!
        draft.setValue("Ridge", forKey: "name")
        draft.setValue(4.0, forKey: "rating")
        try editor.save()
        let stored = try storedTrails()
        XCTAssertEqual(stored.count, 1, "the changed object left; the stored Ridge stayed")
        XCTAssertEqual(stored["Ridge"]?.rating, 4, "its changed rating won")
        XCTAssertEqual(stored["Ridge"]?.lengthKm, 10, "its unchanged length did not travel")
        XCTAssertEqual(stored["Ridge"]?.country, "NO")
    }

    func testStoreTrumpKeepsTheStoredValues() throws {
        let result = try importRidgeAgain(under: .mergeByPropertyStoreTrump)
        XCTAssertEqual(result.count, 1)
        XCTAssertTrue(result.sameRow)
        XCTAssertEqual(result.stored.rating, 3)
        XCTAssertEqual(result.stored.hikes, ["first", "imported"])
    }

    /// Core Data's overwrite against a stored object keeps the imported object and deletes
    /// the stored one, after uniting their to-many relationships on the import (decompiled
    /// `NSMergePolicy`, iOS 26, `_overwriteResolveConstraintConflict:`): the row is replaced.
    func testOverwriteWritesTheWholeImportedObject() throws {
        let result = try importRidgeAgain(under: .overwrite)
        XCTAssertEqual(result.count, 1)
        XCTAssertFalse(result.sameRow, "the stored row was deleted and the import's row inserted")
        XCTAssertEqual(result.stored.rating, 5)
        XCTAssertEqual(result.stored.lengthKm, 0, "the import's default length replaces the stored one")
        XCTAssertNil(result.stored.country)
        XCTAssertEqual(result.stored.hikes, ["first", "imported"], "the stored trail's hikes moved to the import")
        XCTAssertEqual(try count("Hike"), 2)
    }

    func testRollbackDiscardsTheImport() throws {
        let result = try importRidgeAgain(under: .rollback)
        XCTAssertEqual(result.count, 1)
        XCTAssertEqual(result.stored.rating, 3)
        XCTAssertEqual(result.stored.hikes, ["first"], "rollback keeps none of the import's changes")
        // Core Data deletes the import with deleteObject: (`_rollbackResolveConstraintConflict:`),
        // so its delete rules run: Trail.hikes cascades, and the import's new hike goes too.
        XCTAssertEqual(try count("Hike"), 1, "the imported hike went with its deleted trail")
    }

    /// Two imports of one stored row in one save: the duplicates are settled among
    /// themselves first (the first kept, taking what the second set), and the one kept
    /// then meets the stored row: a nil the second import left does not erase the first's.
    func testDuplicatesOfAStoredRowAreSettledAmongThemselvesFirst() throws {
        let setup = newContext()
        insertTrail("Ridge", rating: 3, lengthKm: 10, country: "NO", into: setup)
        try setup.save()
        let importer = newContext()
        importer.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
        insertTrail("Ridge", rating: 5, lengthKm: 12, country: "SE", into: importer)
        insertTrail("Ridge", rating: 4, lengthKm: 12, country: nil, into: importer)
        try importer.save()
        let stored = try storedTrails()
        XCTAssertEqual(stored.count, 1)
        XCTAssertEqual(stored["Ridge"]?.rating, 4, "the later import's rating")
        XCTAssertEqual(stored["Ridge"]?.country, "SE", "the earlier import's country, which the later one left unset")
    }

    /// Duplicates among the save's own objects (decompiled `NSMergePolicy`, iOS 26,
    /// `resolveConstraintConflicts:error:`): the first inserted is kept; under either trump
    /// policy it first takes every value the later ones hold, under overwrite and rollback
    /// it stays as it is; the others are deleted.
    func testDuplicatesInOneSaveBecomeOneRow() throws {
        for (policy, file, expected) in [(NSMergePolicy.mergeByPropertyObjectTrump, "Lake", 2.0), (.mergeByPropertyStoreTrump, "Sea", 2.0),
                                         (.overwrite, "Pond", 1.0), (.rollback, "Tarn", 1.0)] {
            let context = newContext()
            context.mergePolicy = policy
            let first = insertTrail(file, rating: 1, lengthKm: 7, into: context)
            let second = insertTrail(file, rating: 2, lengthKm: 7, country: nil, into: context)
            try context.save()
            let stored = try storedTrails()[file]
            XCTAssertEqual(stored?.rating, expected, "\(file): rating")
            XCTAssertEqual(stored?.country, "NO", "\(file): a nil of a later duplicate does not erase a value")
            XCTAssertFalse(first.objectID.isTemporaryID, "\(file): the first inserted object is the one saved")
            XCTAssertNil(second.managedObjectContext, "\(file): the later duplicate left the context")
        }
        XCTAssertEqual(try count("Trail"), 4)
    }

    func testImportingTheSameBatchTwiceKeepsOneRowEach() throws {
        for round in 1...2 {
            let importer = newContext()
            importer.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
            for index in 0..<50 { insertTrail("Trail \(index)", rating: Double(round), into: importer) }
            try importer.save()
        }
        let stored = try storedTrails()
        XCTAssertEqual(stored.count, 50)
        XCTAssertTrue(stored.values.allSatisfy { $0.rating == 2 })
    }

    /// A batch insert into an entity with a uniqueness constraint, run by a context whose
    /// policy is object trump, updates the rows whose values are stored (augmentedcode.io,
    /// "Importing items from network to a Core Data store", 2021), writing the attributes
    /// the dictionaries name; under the error policy the stored row stays and the
    /// duplicate is dropped (`INSERT OR IGNORE`; see BatchInsertUpsertTests).
    func testABatchInsertUnderObjectTrumpUpdatesStoredRows() throws {
        let setup = newContext()
        insertHike("first", on: insertTrail("Ridge", rating: 3, lengthKm: 10, country: "NO", into: setup), into: setup)
        try setup.save()
        let importer = newContext()
        importer.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
        let request = NSBatchInsertRequest(entityName: "Trail", objects: [
            ["name": "Ridge", "rating": 4.5], ["name": "Coast", "rating": 2.0], ["name": "Coast", "rating": 2.5],
        ])
        request.resultType = .objectIDs
        let result = try importer.execute(request) as! NSBatchInsertResult
        XCTAssertEqual((result.result as? [NSManagedObjectID])?.count, 3)
        let stored = try storedTrails()
        XCTAssertEqual(stored.count, 2, "no duplicate, within the batch or against the store")
        XCTAssertEqual(stored["Ridge"]?.rating, 4.5)
        XCTAssertEqual(stored["Ridge"]?.country, "NO", "only the attributes the dictionaries name are written")
        XCTAssertEqual(stored["Ridge"]?.hikes, ["first"], "relationships stay")
        XCTAssertEqual(stored["Coast"]?.rating, 2.5)

        let strict = newContext()
        let kept = try strict.execute(NSBatchInsertRequest(entityName: "Trail", objects: [["name": "Ridge", "rating": 1.0]])) as! NSBatchInsertResult
        XCTAssertEqual(kept.result as? Bool, true, "under the error policy the duplicate is dropped, without an error")
        XCTAssertEqual(try storedTrails()["Ridge"]?.rating, 4.5)
    }

    func testAnInsertDuplicatingAnObjectChangedInTheSameSaveConflictsWithItsRow() throws {
        let setup = newContext()
        insertTrail("Ridge", rating: 3, into: setup)
        try setup.save()
        let app = newContext()
        let ridge = try trail("Ridge", in: app)!
        ridge.setValue(4.0, forKey: "rating")   // changed, but not its name
        insertTrail("Ridge", rating: 5, into: app)
        XCTAssertThrowsError(try app.save()) { error in
            let conflict = constraintConflicts(error).first
            XCTAssertTrue(conflict?.databaseObject === ridge)
            XCTAssertEqual(conflict?.conflictingObjects.count, 1)
        }
        app.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
        try app.save()
        XCTAssertEqual(try count("Trail"), 1)
        XCTAssertEqual(try storedTrails()["Ridge"]?.rating, 5, "the later insert's value wins")
    }
}
