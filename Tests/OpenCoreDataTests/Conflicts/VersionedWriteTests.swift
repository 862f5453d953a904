import Foundation
import XCTest
@testable import OpenCoreData

/// A save that checks no uniqueness constraint finds its optimistic-locking conflicts as
/// Core Data does: through the version test of its `UPDATE` and `DELETE` statements
/// (`… WHERE Z_PK = ? AND Z_OPT = ?`, the clause Core Data's statement builder appends to
/// both), without reading every row's version first. When a write misses, nothing of that
/// first attempt may remain: the save starts again and reports or settles the conflicts.
final class VersionedWriteTests: ConflictTestCase {
    /// Saves "Ridge" and "Coast" (rating 3), then changes Ridge's rating to 5 through
    /// another context after `app` fetched and read both.
    private func twoTrailsWithRidgeChangedInTheStore(app: NSManagedObjectContext) throws -> (ridge: NSManagedObject, coast: NSManagedObject) {
        let setup = newContext()
        insertTrail("Ridge", rating: 3, into: setup)
        insertTrail("Coast", rating: 3, into: setup)
        try setup.save()
        let ridge = try XCTUnwrap(trail("Ridge", in: app))
        let coast = try XCTUnwrap(trail("Coast", in: app))
        // Fired now, so both hold version 1 (a fault fired later would read the new row).
        XCTAssertEqual(ridge.value(forKey: "rating") as? Double, 3)
        XCTAssertEqual(coast.value(forKey: "rating") as? Double, 3)
        let importer = newContext()
        try XCTUnwrap(trail("Ridge", in: importer)).setValue(5.0, forKey: "rating")
        try importer.save()
        return (ridge, coast)
    }

    /// The stored version (Z_OPT) of the trail named `name`.
    private func storedVersion(of name: String) throws -> Int64? {
        let database = try SQLiteDatabase(path: directory.appendingPathComponent("Trails.sqlite").path)
        defer { database.close() }
        let select = try database.statement("SELECT Z_OPT FROM ZTRAIL WHERE ZNAME = ?")
        select.bind(name, at: 1)
        return try select.step() ? select.int64(0) : nil
    }

    func testADeletionIsWrittenWithTheVersionItWasFetchedWith() throws {
        let setup = newContext()
        insertTrail("Ridge", into: setup)
        try setup.save()
        let app = newContext()
        app.delete(try XCTUnwrap(trail("Ridge", in: app)))
        let (_, lines) = try capturingSQL { try app.save() }
        XCTAssertTrue(lines.contains("CoreData: sql: DELETE FROM ZTRAIL WHERE Z_PK = ? AND Z_OPT = ?"), lines.joined(separator: "\n"))
        XCTAssertNil(try storedTrails()["Ridge"])
    }

    func testAnUpdateThatMissesLeavesNothingOfTheSaveInTheStore() throws {
        let app = newContext()
        let (ridge, coast) = try twoTrailsWithRidgeChangedInTheStore(app: app)
        coast.setValue(4.0, forKey: "rating")   // written before or after Ridge: either way undone
        ridge.setValue(1.0, forKey: "rating")
        insertHike("Morning", on: nil, into: app)   // a Hike has no constraint to check

        let (failure, lines) = capturingSQL { Result { try app.save() } }
        // As LinuxDifferences.md says: the first attempt's statements and its ROLLBACK, then
        // the second attempt (versions read unlogged, the conflicting row fetched), which fails.
        let log = lines.joined(separator: "\n")
        XCTAssertEqual(lines.filter { $0 == "CoreData: sql: BEGIN EXCLUSIVE" }.count, 2, log)
        XCTAssertEqual(lines.filter { $0 == "CoreData: sql: ROLLBACK" }.count, 2, log)
        XCTAssertEqual(lines.filter { $0.hasPrefix("CoreData: sql: UPDATE ZTRAIL SET ZRATING = ?, Z_OPT = ? WHERE Z_PK = ? AND Z_OPT = ?") }.count, 2, log)
        XCTAssertTrue(lines.contains { $0.hasPrefix("CoreData: sql: SELECT 0, t0.Z_PK, t0.Z_OPT,") && $0.hasSuffix("FROM ZTRAIL t0 WHERE t0.Z_PK = ?") }, log)
        XCTAssertThrowsError(try failure.get()) { error in
            let error = error as NSError
            XCTAssertEqual(error.code, NSManagedObjectMergeError)
            let list = error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict] ?? []
            XCTAssertEqual(list.count, 1, "only Ridge moved on")
            XCTAssertTrue(list.first?.sourceObject === ridge)
            XCTAssertEqual(list.first?.oldVersionNumber, 1)
            XCTAssertEqual(list.first?.newVersionNumber, 2)
            XCTAssertEqual(list.first?.cachedSnapshot?["rating"] as? Double, 5)
        }
        let stored = try storedTrails()
        XCTAssertEqual(stored["Coast"]?.rating, 3, "Coast's update was rolled back with the save")
        XCTAssertEqual(stored["Ridge"]?.rating, 5)
        XCTAssertEqual(try count("Hike"), 0, "the inserted hike was rolled back with the save")
        XCTAssertEqual(try storedVersion(of: "Coast"), 1)
        XCTAssertTrue(app.hasChanges)

        // Under a merge policy the same save is written once: one hike, each row one version on.
        app.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
        try app.save()
        let merged = try storedTrails()
        XCTAssertEqual(merged["Coast"]?.rating, 4)
        XCTAssertEqual(merged["Ridge"]?.rating, 1)
        XCTAssertEqual(try count("Hike"), 1)
        XCTAssertEqual(try storedVersion(of: "Coast"), 2)
        XCTAssertEqual(try storedVersion(of: "Ridge"), 3)
        XCTAssertFalse(app.hasChanges)
    }

    func testADeletionThatMissesIsAConflictAndDeletesNothing() throws {
        let app = newContext()
        let (ridge, coast) = try twoTrailsWithRidgeChangedInTheStore(app: app)
        coast.setValue(4.0, forKey: "rating")
        app.delete(ridge)

        XCTAssertThrowsError(try app.save()) { error in
            let error = error as NSError
            XCTAssertEqual(error.code, NSManagedObjectMergeError)
            let list = error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict] ?? []
            XCTAssertEqual(list.count, 1)
            XCTAssertTrue(list.first?.sourceObject === ridge)
            XCTAssertEqual(list.first?.newVersionNumber, 2)
        }
        let stored = try storedTrails()
        XCTAssertEqual(stored["Ridge"]?.rating, 5, "the deletion was not written")
        XCTAssertEqual(stored["Coast"]?.rating, 3)

        app.mergePolicy = NSMergePolicy.mergeByPropertyStoreTrump
        try app.save()
        let merged = try storedTrails()
        // Store trump: the store's change beats the context's deletion (see ConflictMatrixTests).
        XCTAssertEqual(merged["Ridge"]?.rating, 5, "the store's change wins under store trump")
        XCTAssertFalse(ridge.isDeleted)
        XCTAssertEqual(merged["Coast"]?.rating, 4)
    }

    /// The deletions' keys and versions are read a run of objects at a time (see
    /// SavePlan.forEachRunOfDeletions): a miss in a later run still stops the save, and nothing of
    /// the runs before it stays deleted.
    func testADeletionThatMissesPastTheFirstRunOfDeletionsIsAConflictAndDeletesNothing() throws {
        let setup = newContext()
        for number in 0..<600 { insertTrail("Trail \(number)", into: setup) }
        try setup.save()
        let app = newContext()
        let trails = try app.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
        XCTAssertEqual(trails.count, 600)
        for trail in trails { _ = trail.value(forKey: "rating") }  // fired: each holds version 1
        let importer = newContext()
        try XCTUnwrap(trail("Trail 400", in: importer)).setValue(5.0, forKey: "rating")
        try importer.save()
        for trail in trails { app.delete(trail) }

        XCTAssertThrowsError(try app.save()) { error in
            let error = error as NSError
            XCTAssertEqual(error.code, NSManagedObjectMergeError)
            let list = error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict] ?? []
            XCTAssertEqual(list.map { $0.sourceObject.value(forKey: "name") as? String }, ["Trail 400"])
        }
        let stored = try storedTrails()
        XCTAssertEqual(stored.count, 600, "no deletion was written")
        XCTAssertEqual(stored["Trail 400"]?.rating, 5)
        XCTAssertTrue(trails.allSatisfy { $0.isDeleted && $0.managedObjectContext === app })
    }

    func testDeletingARowAnotherSaveDeletedIsNoConflict() throws {
        let setup = newContext()
        insertTrail("Ridge", into: setup)
        insertTrail("Coast", into: setup)
        try setup.save()
        let app = newContext(), importer = newContext()
        let ridge = try XCTUnwrap(trail("Ridge", in: app))
        try XCTUnwrap(trail("Coast", in: app)).setValue(2.0, forKey: "rating")
        app.delete(ridge)
        importer.delete(try XCTUnwrap(trail("Ridge", in: importer)))
        try importer.save()

        XCTAssertNoThrow(try app.save())
        let stored = try storedTrails()
        XCTAssertNil(stored["Ridge"])
        XCTAssertEqual(stored["Coast"]?.rating, 2)
    }
}
