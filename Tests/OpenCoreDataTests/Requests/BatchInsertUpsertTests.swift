import Foundation
import XCTest
@testable import OpenCoreData

/// `NSBatchInsertRequest` into entities with uniqueness constraints: SQLite finds the
/// stored duplicates itself, through the conflict clause Core Data's SQLite store puts on
/// its INSERT, chosen by the context's merge policy.
///
/// The statements follow Core Data's `_NSSQLGenerator prepareInsertStatementWithRow:
/// includeConstraints:includeOnConflict:onConflictKeys:` (decompiled in public
/// repositories): `INSERT OR IGNORE INTO` with constraints but no conflict clause, else
/// `INSERT INTO … ON CONFLICT(ZA , ZB) DO UPDATE SET Z_OPT = Z_OPT+1 , ZC = excluded.ZC`,
/// one `ON CONFLICT` per constraint, the `SET` list naming the request's keys (every
/// attribute when there are none) except the constraint's own. SQL debug output of both
/// forms, the error policy giving `INSERT OR IGNORE` and object trump `ON CONFLICT … DO
/// UPDATE`, is shown in fatbobman.com's "Batch Operations in Core Data" (2022).
final class BatchInsertUpsertTests: ConflictTestCase {
    private let trailColumns = "INSERT INTO ZTRAIL(Z_PK, Z_ENT, Z_OPT, ZLENGTHKM, ZRATING, ZCOUNTRY, ZNAME) VALUES(?, ?, ?, ?, ?, ?, ?)"

    /// The `CoreData: sql:` lines of `lines`, without the prefix or the key allocation.
    private func statements(_ lines: [String]) -> [String] {
        lines.filter { $0.hasPrefix("CoreData: sql: ") }.map { String($0.dropFirst("CoreData: sql: ".count)) }
            .filter { !$0.contains("Z_PRIMARYKEY") }
    }

    /// The rows `sql` reads from the store file at `url` (integers, doubles, text, nil).
    private func query(_ url: URL, _ sql: String) throws -> [[Any?]] {
        let database = try SQLiteDatabase(path: url.path)
        defer { database.close() }
        return try database.withStatement(sql) { statement in
            var rows: [[Any?]] = []
            while try statement.step() {
                rows.append((0..<statement.columnCount).map { column -> Any? in
                    switch statement.storageClass(column) {
                    case .integer: statement.int64(column)
                    case .real: statement.double(column)
                    case .text: statement.string(column)
                    case .blob: statement.data(column)
                    case .null: nil
                    }
                })
            }
            return rows
        }
    }

    /// Name → (Z_PK, Z_OPT, rating, country) as the store file holds them.
    private func rows() throws -> [String: (pk: Int64, opt: Int64, rating: Double, country: String?)] {
        var result: [String: (Int64, Int64, Double, String?)] = [:]
        for row in try query(directory.appendingPathComponent("Trails.sqlite"), "SELECT ZNAME, Z_PK, Z_OPT, ZRATING, ZCOUNTRY FROM ZTRAIL") {
            result[row[0] as! String] = (row[1] as! Int64, row[2] as! Int64, row[3] as! Double, row[4] as? String)
        }
        return result
    }

    /// Stores Ridge (rating 3, NO) and Lake (rating 1, NO), both at Z_OPT 1.
    private func seed() throws {
        let setup = newContext()
        insertTrail("Ridge", rating: 3, into: setup)
        insertTrail("Lake", rating: 1, into: setup)
        try setup.save()
    }

    private func importer(_ policy: NSMergePolicy) -> NSManagedObjectContext {
        let context = newContext()
        context.mergePolicy = policy
        return context
    }

    func testObjectTrumpUpdatesTheStoredRowInTheInsertItself() throws {
        try seed()
        let before = try rows()
        let ridge = try XCTUnwrap(trail("Ridge", in: newContext())).objectID   // its row is cached now
        let request = NSBatchInsertRequest(entityName: "Trail", objects: [["name": "Ridge", "rating": 4.5], ["name": "Coast", "rating": 2.0]])
        request.resultType = .count
        let (result, lines) = try capturingSQL { try importer(.mergeByPropertyObjectTrump).execute(request) as! NSBatchInsertResult }
        let upsert = trailColumns + " ON CONFLICT(ZNAME) DO UPDATE SET Z_OPT = Z_OPT+1 , ZRATING = excluded.ZRATING"
        XCTAssertEqual(statements(lines), ["BEGIN EXCLUSIVE", upsert, upsert, "COMMIT"], "no SELECT looks for the stored duplicate")
        XCTAssertEqual(result.result as? Int, 2, "the updated row and the new one")
        let after = try rows()
        XCTAssertEqual(after.count, 3)
        XCTAssertEqual(after["Ridge"]?.pk, before["Ridge"]?.pk, "the stored row keeps its key")
        XCTAssertEqual(after["Ridge"]?.opt, 2)
        XCTAssertEqual(after["Ridge"]?.rating, 4.5, "the request's values win")
        XCTAssertEqual(after["Ridge"]?.country, "NO", "an attribute the dictionaries do not name stays")
        XCTAssertEqual(after["Lake"]?.opt, 1)
        XCTAssertEqual(after["Coast"]?.opt, 1)
        XCTAssertEqual(after["Coast"]?.rating, 2.0)
        let reader = newContext()
        XCTAssertEqual(reader.object(with: ridge).value(forKey: "rating") as? Double, 4.5,
                       "a fault fired after the batch does not get the row cached before it")
    }

    func testTheErrorPolicyKeepsTheStoredRowAndDropsTheDuplicate() throws {
        try seed()
        let request = NSBatchInsertRequest(entityName: "Trail", objects: [["name": "Ridge", "rating": 4.5], ["name": "Coast", "rating": 2.0]])
        request.resultType = .objectIDs
        let context = newContext()
        XCTAssertEqual((context.mergePolicy as? NSMergePolicy)?.mergeType, .errorMergePolicyType)
        let (result, lines) = try capturingSQL { try context.execute(request) as! NSBatchInsertResult }
        let ignore = "INSERT OR IGNORE INTO" + trailColumns.dropFirst("INSERT INTO".count) + " RETURNING Z_PK, Z_ENT"
        XCTAssertEqual(statements(lines), ["BEGIN EXCLUSIVE", ignore, ignore, "COMMIT"])
        let ids = try XCTUnwrap(result.result as? [NSManagedObjectID])
        XCTAssertEqual(ids.count, 1, "only the row written")
        XCTAssertEqual(try context.existingObject(with: ids[0]).value(forKey: "name") as? String, "Coast")
        let after = try rows()
        XCTAssertEqual(after["Ridge"]?.rating, 3, "the stored values win")
        XCTAssertEqual(after["Ridge"]?.opt, 1, "the stored row is not touched")
        XCTAssertEqual(after.count, 3)
    }

    func testObjectIDsNameTheStoredRowThatWasUpdated() throws {
        try seed()
        let ridge = try XCTUnwrap(trail("Ridge", in: newContext())).objectID
        let request = NSBatchInsertRequest(entityName: "Trail", objects: [["name": "Ridge", "rating": 5.0], ["name": "Coast"], ["name": "Coast", "rating": 1.5]])
        request.resultType = .objectIDs
        let (result, lines) = try capturingSQL { try importer(.mergeByPropertyStoreTrump).execute(request) as! NSBatchInsertResult }
        XCTAssertEqual(statements(lines)[1], trailColumns + " ON CONFLICT(ZNAME) DO UPDATE SET Z_OPT = Z_OPT+1 , ZRATING = excluded.ZRATING RETURNING Z_PK, Z_ENT",
                       "the first dictionary's keys make the SET list; store trump updates as object trump does")
        let ids = try XCTUnwrap(result.result as? [NSManagedObjectID])
        XCTAssertEqual(ids.count, 3)
        XCTAssertEqual(ids[0], ridge)
        XCTAssertEqual(ids[1], ids[2], "the batch's second Coast updates the row its first inserted")
        let after = try rows()
        XCTAssertEqual(after.count, 3)
        XCTAssertEqual(after["Coast"]?.opt, 2)
        XCTAssertEqual(after["Coast"]?.rating, 1.5)
        XCTAssertEqual(after["Ridge"]?.rating, 5.0)
    }

    /// With the object handler there are no keys, so every attribute is written over the
    /// stored row, defaults included (a public Q&A, "How to avoid changing property values
    /// in an NSBatchInsertRequest?", reports exactly this).
    func testTheObjectHandlerWritesEveryAttribute() throws {
        try seed()
        var names = ["Ridge"]
        let request = NSBatchInsertRequest(entityName: "Trail") { (object: NSManagedObject) in
            guard let name = names.popLast() else { return true }
            object.setValue(name, forKey: "name")
            object.setValue(4.0, forKey: "rating")
            return false
        }
        let (_, lines) = try capturingSQL { try importer(.mergeByPropertyObjectTrump).execute(request) }
        XCTAssertEqual(statements(lines)[1], trailColumns + " ON CONFLICT(ZNAME) DO UPDATE SET Z_OPT = Z_OPT+1 , ZLENGTHKM = excluded.ZLENGTHKM"
                       + " , ZRATING = excluded.ZRATING , ZCOUNTRY = excluded.ZCOUNTRY")
        let ridge = try XCTUnwrap(try rows()["Ridge"])
        XCTAssertEqual(ridge.rating, 4.0)
        XCTAssertNil(ridge.country, "the handler did not set it, and the upsert wrote its nil")
        XCTAssertEqual(try storedTrails()["Ridge"]?.lengthKm, 0, "the attribute's default")
    }

    func testTheDictionaryHandlerUsesTheFirstDictionarysKeys() throws {
        try seed()
        var left = 2
        let request = NSBatchInsertRequest(entityName: "Trail") { (dictionary: NSMutableDictionary) in
            guard left > 0 else { return true }
            left -= 1
            dictionary["name"] = left == 1 ? "Ridge" : "Lake"
            dictionary["country"] = "SE"
            return false
        }
        request.resultType = .count
        let (result, lines) = try capturingSQL { try importer(.overwrite).execute(request) as! NSBatchInsertResult }
        XCTAssertEqual(statements(lines)[1], trailColumns + " ON CONFLICT(ZNAME) DO UPDATE SET Z_OPT = Z_OPT+1 , ZCOUNTRY = excluded.ZCOUNTRY")
        XCTAssertEqual(result.result as? Int, 2)
        let after = try rows()
        XCTAssertEqual(after.count, 2)
        XCTAssertEqual(after["Ridge"]?.country, "SE")
        XCTAssertEqual(after["Ridge"]?.rating, 3, "not named, so kept")
        XCTAssertEqual(after["Lake"]?.country, "SE")
    }

    func testACompoundConstraintIsOneConflictTarget() throws {
        let person = makeEntity("Person")
        let first = makeAttribute("firstName", .stringAttributeType)
        let last = makeAttribute("lastName", .stringAttributeType)
        let age = makeAttribute("age", .integer16AttributeType)
        person.properties = [first, last, age]
        person.uniquenessConstraints = [["firstName", "lastName"]]
        let url = directory.appendingPathComponent("People.sqlite")
        let people = try Self.openContainer(at: url, model: makeModel([person]))
        let context = people.newBackgroundContext()
        context.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
        try context.performAndWait {
            try context.execute(NSBatchInsertRequest(entityName: "Person", objects: [["firstName": "Ada", "lastName": "Byron", "age": 27]]))
        }
        let request = NSBatchInsertRequest(entityName: "Person", objects: [
            ["firstName": "Ada", "lastName": "Byron", "age": 28], ["firstName": "Ada", "lastName": "King", "age": 30],
        ])
        let (_, lines) = try capturingSQL { try context.performAndWait { try context.execute(request) } }
        XCTAssertEqual(statements(lines)[1], "INSERT INTO ZPERSON(Z_PK, Z_ENT, Z_OPT, ZAGE, ZFIRSTNAME, ZLASTNAME) VALUES(?, ?, ?, ?, ?, ?)"
                       + " ON CONFLICT(ZFIRSTNAME , ZLASTNAME) DO UPDATE SET Z_OPT = Z_OPT+1 , ZAGE = excluded.ZAGE")
        let stored = try query(url, "SELECT ZFIRSTNAME, ZLASTNAME, ZAGE, Z_OPT FROM ZPERSON ORDER BY ZLASTNAME")
        XCTAssertEqual(stored.count, 2, "one name in common is no duplicate")
        XCTAssertEqual(stored[0][2] as? Int64, 28)
        XCTAssertEqual(stored[0][3] as? Int64, 2)
        XCTAssertEqual(stored[1][1] as? String, "King")
    }

    /// History, when the store records it, is written in the batch's own transaction: an
    /// insert for a new row, an update of the request's attributes for a stored one.
    func testHistoryRecordsInsertsAndUpdatesInTheSameTransaction() throws {
        let url = directory.appendingPathComponent("History.sqlite")
        let tracked = NSPersistentContainer(name: "Trails", managedObjectModel: Self.trailModel())
        let description = NSPersistentStoreDescription(url: url)
        description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
        tracked.persistentStoreDescriptions = [description]
        tracked.loadPersistentStores { _, error in XCTAssertNil(error) }
        let context = tracked.viewContext
        context.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
        try context.execute(NSBatchInsertRequest(entityName: "Trail", objects: [["name": "Ridge", "rating": 3.0]]))
        let token = tracked.persistentStoreCoordinator.currentPersistentHistoryToken(fromStores: nil)
        let request = NSBatchInsertRequest(entityName: "Trail", objects: [["name": "Ridge", "rating": 4.0], ["name": "Coast", "rating": 1.0]])
        let (_, lines) = try capturingSQL { try context.execute(request) }
        let sql = statements(lines)
        XCTAssertEqual(sql.first, "BEGIN EXCLUSIVE")
        XCTAssertEqual(sql.last, "COMMIT")
        XCTAssertEqual(sql.filter { $0.hasSuffix(" RETURNING Z_PK, Z_ENT") }.count, 2, "the keys of updated rows are needed for history")
        let history = try XCTUnwrap(try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: token)) as? NSPersistentHistoryResult)
        let transactions = try XCTUnwrap(history.result as? [NSPersistentHistoryTransaction])
        XCTAssertEqual(transactions.count, 1, "one transaction for the whole batch")
        let changes = transactions[0].changes ?? []
        XCTAssertEqual(changes.map(\.changeType), [.update, .insert])
        XCTAssertEqual(changes[0].updatedProperties?.map(\.name), ["rating"])
        XCTAssertEqual(try context.existingObject(with: changes[0].changedObjectID).value(forKey: "name") as? String, "Ridge")
    }

    /// A constraint declared on a sub-entity has no `UNIQUE` index in the shared table,
    /// so SQLite cannot find its duplicates: each row's is looked up with a SELECT.
    func testASubEntitysConstraintIsLookedUpRowByRow() throws {
        let place = makeEntity("Place")
        let name = makeAttribute("name", .stringAttributeType)
        place.properties = [name]
        let hut = makeEntity("Hut")
        hut.properties = [makeAttribute("beds", .integer16AttributeType)]
        place.subentities = [hut]
        hut.uniquenessConstraints = [["name"]]
        let url = directory.appendingPathComponent("Huts.sqlite")
        let huts = try Self.openContainer(at: url, model: makeModel([place, hut]))
        let context = huts.viewContext
        context.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
        try context.execute(NSBatchInsertRequest(entityName: "Hut", objects: [["name": "Skarvheim", "beds": 8]]))
        let (_, lines) = try capturingSQL {
            try context.execute(NSBatchInsertRequest(entityName: "Hut", objects: [["name": "Skarvheim", "beds": 10], ["name": "Krækja", "beds": 4]]))
        }
        XCTAssertEqual(statements(lines).filter { $0.hasPrefix("SELECT") }.count, 2, "one lookup per row")
        let stored = try query(url, "SELECT ZNAME, ZBEDS, Z_OPT FROM ZPLACE ORDER BY ZNAME")
        XCTAssertEqual(stored.count, 2)
        XCTAssertEqual(stored[1][0] as? String, "Skarvheim")
        XCTAssertEqual(stored[1][1] as? Int64, 10)
        XCTAssertEqual(stored[1][2] as? Int64, 2)
    }
}
