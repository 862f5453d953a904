import Foundation
import XCTest

@testable import OpenCoreData

/// The SQL batch requests run, as SQL debug level 1 prints it, and the delete rules the
/// batch delete's triggers carry out.
///
/// Statement texts follow Core Data's SQLite store (its `NSSQLUpdateIntermediate`,
/// `NSSQLUpdateColumnsIntermediate` and `NSSQLiteAdapter` batch-delete code, as decompiled
/// in public repositories): `UPDATE OR FAIL ZX AS t0 SET … , Z_OPT = (Z_OPT + 1) WHERE …`,
/// `DELETE FROM ZX WHERE Z_PK IN (SELECT t0.Z_PK FROM ZX t0 WHERE …)`, and
/// `CREATE TEMPORARY TRIGGER IF NOT EXISTS ZQ_<TABLE>_TRIGGER AFTER DELETE ON …`.
final class BatchRequestSQLTests: RequestTestCase {
    /// The `CoreData: sql:` lines of `lines`, without the prefix.
    private func statements(_ lines: [String]) -> [String] {
        lines.filter { $0.hasPrefix("CoreData: sql: ") }.map { String($0.dropFirst("CoreData: sql: ".count)) }
    }

    private func scalar(_ sql: String) throws -> Int64 {
        try query(storeURL(), sql)[0][0] as! Int64
    }

    func testABatchUpdateIsOneUpdateStatement() throws {
        let context = try seededContainer().viewContext
        let request = NSBatchUpdateRequest(entityName: "Trail")
        request.predicate = NSPredicate(format: "rating >= 4.5")
        request.propertiesToUpdate = ["isFavorite": true]
        request.resultType = .updatedObjectsCountResultType
        let (result, lines) = try capturingSQL { try context.execute(request) as! NSBatchUpdateResult }
        XCTAssertEqual(result.result as? Int, 3)
        XCTAssertEqual(statements(lines), [
            "BEGIN EXCLUSIVE",
            "UPDATE OR FAIL ZTRAIL AS t0 SET ZISFAVORITE = ?, Z_OPT = (Z_OPT + 1) WHERE  t0.ZRATING >= ? ",
            "COMMIT",
        ])
        XCTAssertEqual(try scalar("SELECT COUNT(*) FROM ZTRAIL WHERE ZISFAVORITE = 1 AND Z_OPT = 2"), 3)
        XCTAssertEqual(try scalar("SELECT COUNT(*) FROM ZTRAIL WHERE ZISFAVORITE = 0 AND Z_OPT = 1"), 3)
    }

    func testObjectIDsAreReadFirstAndExpressionsRunInSQL() throws {
        let context = try seededContainer().viewContext
        let request = NSBatchUpdateRequest(entityName: "Trail")
        request.predicate = NSPredicate(format: "country.name == %@", "Iceland")
        request.propertiesToUpdate = ["lengthKm": NSExpression(format: "lengthKm * 2"), "rating": NSExpression(forKeyPath: "lengthKm")]
        request.resultType = .updatedObjectIDsResultType
        let (result, lines) = try capturingSQL { try context.execute(request) as! NSBatchUpdateResult }
        XCTAssertEqual((result.result as? [NSManagedObjectID])?.count, 2)
        XCTAssertEqual(statements(lines), [
            "BEGIN EXCLUSIVE",
            "SELECT 0, t0.Z_PK FROM ZTRAIL t0 LEFT OUTER JOIN ZCOUNTRY t1 ON t0.ZCOUNTRY = t1.Z_PK WHERE  t1.ZNAME = ? ORDER BY t0.Z_PK",
            "UPDATE OR FAIL ZTRAIL AS t0 SET ZLENGTHKM  = (ZLENGTHKM * ?), ZRATING = ZLENGTHKM, Z_OPT = (Z_OPT + 1) WHERE  t0.Z_PK IN "
                + "(SELECT t0.Z_PK FROM ZTRAIL t0 LEFT OUTER JOIN ZCOUNTRY t1 ON t0.ZCOUNTRY = t1.Z_PK WHERE  t1.ZNAME = ?) ",
            "COMMIT",
        ])
        // SET reads the row's values before the statement changes them.
        let rows = try query(storeURL(), "SELECT ZLENGTHKM, ZRATING FROM ZTRAIL WHERE ZNAME IN ('Laugavegur', 'Öræfajökull') ORDER BY ZNAME")
        XCTAssertEqual(rows.map { $0[0] as! Double }, [110, 44])
        XCTAssertEqual(rows.map { $0[1] as! Double }, [55, 22])
    }

    func testABatchDeleteIsOneDeleteWithTriggersForTheRules() throws {
        let context = try seededContainer().viewContext
        let countries = NSFetchRequest<NSFetchRequestResult>(entityName: "Country")
        countries.predicate = NSPredicate(format: "name == %@", "Iceland")
        let request = NSBatchDeleteRequest(fetchRequest: countries)
        request.resultType = .resultTypeCount
        let (result, lines) = try capturingSQL { try context.execute(request) as! NSBatchDeleteResult }
        XCTAssertEqual(result.result as? Int, 1, "the count is of the request's own entity, not of the rows the rules deleted")
        XCTAssertEqual(statements(lines), [
            "BEGIN EXCLUSIVE",
            "CREATE TEMPORARY TRIGGER IF NOT EXISTS ZQ_ZHIKE_TRIGGER AFTER DELETE ON ZHIKE FOR EACH ROW BEGIN "
                + "UPDATE OR FAIL ZTRAIL SET Z_OPT = (Z_OPT + 1) WHERE Z_PK = OLD.ZTRAIL;  END",
            "CREATE TEMPORARY TRIGGER IF NOT EXISTS ZQ_Z_3TRAILS_TRIGGER AFTER DELETE ON Z_3TRAILS FOR EACH ROW BEGIN "
                + "UPDATE OR FAIL ZTRAIL SET Z_OPT = (Z_OPT + 1) WHERE Z_PK = OLD.Z_4TRAILS ; "
                + "UPDATE OR FAIL ZTAG SET Z_OPT = (Z_OPT + 1) WHERE Z_PK = OLD.Z_3TAGS ;  END",
            "CREATE TEMPORARY TRIGGER IF NOT EXISTS ZQ_ZTRAIL_TRIGGER AFTER DELETE ON ZTRAIL FOR EACH ROW BEGIN "
                + "DELETE FROM ZHIKE WHERE ZTRAIL = OLD.Z_PK; "
                + "UPDATE OR FAIL ZCOUNTRY SET Z_OPT = (Z_OPT + 1) WHERE Z_PK = OLD.ZCOUNTRY; "
                + "DELETE FROM Z_3TRAILS WHERE Z_4TRAILS = OLD.Z_PK;  END",
            "CREATE TEMPORARY TRIGGER IF NOT EXISTS ZQ_ZCOUNTRY_TRIGGER AFTER DELETE ON ZCOUNTRY FOR EACH ROW BEGIN "
                + "DELETE FROM ZTRAIL WHERE ZCOUNTRY = OLD.Z_PK;  END",
            "DELETE FROM ZCOUNTRY WHERE Z_PK IN (SELECT t0.Z_PK FROM ZCOUNTRY t0 WHERE  t0.ZNAME = ?)",
            "DROP TRIGGER IF EXISTS ZQ_ZHIKE_TRIGGER",
            "DROP TRIGGER IF EXISTS ZQ_Z_3TRAILS_TRIGGER",
            "DROP TRIGGER IF EXISTS ZQ_ZTRAIL_TRIGGER",
            "DROP TRIGGER IF EXISTS ZQ_ZCOUNTRY_TRIGGER",
            "COMMIT",
        ])
        // Cascade: Iceland's trails and Laugavegur's hikes went; nullify: their tag rows went
        // and the tag's version went up once per removed join row.
        XCTAssertEqual(try storedTrailNames(), ["Kungsleden", "Nakasendō", "富士山 吉田ルート", "熊野古道 中辺路"])
        XCTAssertEqual(try scalar("SELECT COUNT(*) FROM ZHIKE"), 0)
        XCTAssertEqual(try scalar("SELECT COUNT(*) FROM Z_3TRAILS"), 3)
        XCTAssertEqual(try scalar("SELECT Z_OPT FROM ZTAG"), 3)
        XCTAssertEqual(try scalar("SELECT COUNT(*) FROM ZCOUNTRY"), 2)
        // The temporary triggers are gone.
        let context2 = try openContainer().viewContext
        XCTAssertEqual(try context2.count(for: NSFetchRequest<NSManagedObject>(entityName: "Trail")), 4)
    }

    func testNullifyOfAToOneBumpsTheOwnerOncePerDeletedRow() throws {
        let context = try seededContainer().viewContext
        let (_, lines) = try capturingSQL { try context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Hike"))) }
        XCTAssertEqual(statements(lines), [
            "BEGIN EXCLUSIVE",
            "CREATE TEMPORARY TRIGGER IF NOT EXISTS ZQ_ZHIKE_TRIGGER AFTER DELETE ON ZHIKE FOR EACH ROW BEGIN "
                + "UPDATE OR FAIL ZTRAIL SET Z_OPT = (Z_OPT + 1) WHERE Z_PK = OLD.ZTRAIL;  END",
            "DELETE FROM ZHIKE WHERE Z_PK IN (SELECT t0.Z_PK FROM ZHIKE t0)",
            "DROP TRIGGER IF EXISTS ZQ_ZHIKE_TRIGGER",
            "COMMIT",
        ])
        XCTAssertEqual(try scalar("SELECT Z_OPT FROM ZTRAIL WHERE ZNAME = 'Laugavegur'"), 3, "two hikes deleted, two version bumps")
    }

    func testObjectIDResultsReadTheKeysFirst() throws {
        let context = try seededContainer().viewContext
        let japan = NSFetchRequest<NSFetchRequestResult>(entityName: "Trail")
        japan.predicate = NSPredicate(format: "lengthKm < 40")
        let request = NSBatchDeleteRequest(fetchRequest: japan)
        request.resultType = .resultTypeObjectIDs
        let (result, lines) = try capturingSQL { try context.execute(request) as! NSBatchDeleteResult }
        let ids = try XCTUnwrap(result.result as? [NSManagedObjectID])
        XCTAssertEqual(ids.map { $0.uriRepresentation().lastPathComponent }, ["p2", "p4", "p5"])
        let sql = statements(lines)
        XCTAssertEqual(sql[1], "SELECT 0, t0.Z_PK FROM ZTRAIL t0 WHERE  t0.ZLENGTHKM < ? ORDER BY t0.Z_PK")
        XCTAssertTrue(sql.contains("DELETE FROM ZTRAIL WHERE Z_PK IN (SELECT t0.Z_PK FROM ZTRAIL t0 WHERE  t0.ZLENGTHKM < ?)"))
        XCTAssertEqual(try storedTrailNames(), ["Kungsleden", "Laugavegur", "Nakasendō"])
    }

    func testFetchLimitChoosesRowsInSortOrder() throws {
        let context = try seededContainer().viewContext
        let longest = NSFetchRequest<NSFetchRequestResult>(entityName: "Trail")
        longest.sortDescriptors = [NSSortDescriptor(key: "lengthKm", ascending: false)]
        longest.fetchLimit = 2
        let request = NSBatchDeleteRequest(fetchRequest: longest)
        request.resultType = .resultTypeCount
        XCTAssertEqual((try context.execute(request) as! NSBatchDeleteResult).result as? Int, 2)
        XCTAssertEqual(try storedTrailNames(), ["Laugavegur", "Öræfajökull", "富士山 吉田ルート", "熊野古道 中辺路"])
    }

    func testAManyToManyWithNoActionOnTheOtherSideIsRefused() throws {
        model.entitiesByName["Tag"]!.relationshipsByName["trails"]!.deleteRule = .noActionDeleteRule
        try seededContainer()
        let context = try openContainer().viewContext
        XCTAssertThrowsError(try context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Trail")))) { error in
            let error = error as NSError
            XCTAssertEqual(error.code, NSCoreDataError)
            XCTAssertEqual(error.userInfo["Reason"] as? String, "Delete rule is not supported for batch deletes")
            XCTAssertEqual(error.userInfo["Relationship"] as? String, "Tag.trails")
        }
        XCTAssertEqual(try scalar("SELECT COUNT(*) FROM ZTRAIL"), 6, "nothing was deleted")
    }

    func testAPredicateSQLCannotExpressRaisesAsCoreDataDoes() throws {
        // Raising stops the process, as on Apple platforms, so a child process runs it. A
        // block predicate meets the where-clause generation fetches use, so the reason is
        // the one a fetch raises for it.
        try CrashTests.assertWriterRaises(store: storeURL("Raise.sqlite"), mode: "batch-block-predicate",
                                          exception: "NSInvalidArgumentException", reason: "Unknown predicate type for predicate: BLOCKPREDICATE(0x")
    }

    func testBatchInsertPreparesOneInsertForEveryRowInOneTransaction() throws {
        let context = try seededContainer().viewContext
        let request = NSBatchInsertRequest(entityName: "Hike", objects: [["minutes": 60], ["minutes": 90]])
        let (_, lines) = try capturingSQL { try context.execute(request) }
        XCTAssertEqual(statements(lines), [
            "BEGIN EXCLUSIVE",
            "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?",
            "UPDATE OR FAIL Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ? AND Z_MAX = ?",
            "INSERT INTO ZHIKE(Z_PK, Z_ENT, Z_OPT, ZMINUTES, ZTRAIL) VALUES(?, ?, ?, ?, ?)",
            "INSERT INTO ZHIKE(Z_PK, Z_ENT, Z_OPT, ZMINUTES, ZTRAIL) VALUES(?, ?, ?, ?, ?)",
            "COMMIT",
        ])
        XCTAssertEqual(try scalar("SELECT COUNT(*) FROM ZHIKE"), 4)
    }
}

/// Delete rules on models of their own: a one-to-one, a tree whose children cascade, and a
/// mandatory many-to-many.
final class BatchDeleteRuleTests: StoreTestCase {
    private func container(_ entities: [NSEntityDescription]) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Rules", managedObjectModel: makeModel(entities))
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: storeURL())]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    private func rows(_ sql: String) throws -> [[Any?]] { try query(storeURL(), sql) }

    private func statements(_ lines: [String]) -> [String] {
        lines.filter { $0.hasPrefix("CoreData: sql: ") }.map { String($0.dropFirst("CoreData: sql: ".count)) }
    }

    func testNullifyOfAOneToOneClearsTheOtherSidesKey() throws {
        let person = makeEntity("Person")
        let passport = makeEntity("Passport")
        let holds = makeRelationship("passport", to: passport)
        holds.deleteRule = .nullifyDeleteRule
        let owner = makeRelationship("owner", to: person)
        owner.deleteRule = .nullifyDeleteRule
        makeInverses(holds, owner)
        person.properties = [makeAttribute("name", .stringAttributeType), holds]
        passport.properties = [makeAttribute("number", .stringAttributeType), owner]
        let context = try container([passport, person]).viewContext
        for name in ["Ada", "Grace"] {
            let p = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            p.setValue(name, forKey: "name")
            let document = NSEntityDescription.insertNewObject(forEntityName: "Passport", into: context)
            document.setValue("N-\(name)", forKey: "number")
            p.setValue(document, forKey: "passport")
        }
        try context.save()
        let ada = NSFetchRequest<NSFetchRequestResult>(entityName: "Person")
        ada.predicate = NSPredicate(format: "name == %@", "Ada")
        let (_, lines) = try capturingSQL { try context.execute(NSBatchDeleteRequest(fetchRequest: ada)) }
        XCTAssertEqual(statements(lines)[1], "CREATE TEMPORARY TRIGGER IF NOT EXISTS ZQ_ZPERSON_TRIGGER AFTER DELETE ON ZPERSON FOR EACH ROW BEGIN "
            + "UPDATE OR FAIL ZPASSPORT SET ZOWNER = NULL, Z_OPT = (Z_OPT + 1) WHERE ZOWNER = OLD.Z_PK;  END")
        let passports = try rows("SELECT ZNUMBER, ZOWNER, Z_OPT FROM ZPASSPORT ORDER BY ZNUMBER")
        XCTAssertEqual(passports.map { $0[0] as? String }, ["N-Ada", "N-Grace"])
        XCTAssertNil(passports[0][1], "Ada's passport no longer names her")
        XCTAssertEqual(passports[0][2] as? Int64, 2)
        XCTAssertNotNil(passports[1][1])
        XCTAssertEqual(passports[1][2] as? Int64, 1)
    }

    func testACascadeBackIntoItsOwnTableDeletesTheWholeTree() throws {
        let node = makeEntity("Node")
        let children = makeRelationship("children", to: node, toMany: true)
        children.deleteRule = .cascadeDeleteRule
        let parent = makeRelationship("parent", to: node)
        parent.deleteRule = .nullifyDeleteRule
        makeInverses(children, parent)
        node.properties = [makeAttribute("depth", .integer64AttributeType), children, parent]
        let context = try container([node]).viewContext
        var level = [NSEntityDescription.insertNewObject(forEntityName: "Node", into: context)]
        level[0].setValue(Int64(0), forKey: "depth")
        for depth in 1...3 {
            level = level.flatMap { up in
                (0..<2).map { _ in
                    let child = NSEntityDescription.insertNewObject(forEntityName: "Node", into: context)
                    child.setValue(Int64(depth), forKey: "depth")
                    child.setValue(up, forKey: "parent")
                    return child
                }
            }
        }
        try context.save()
        XCTAssertEqual(try rows("SELECT COUNT(*) FROM ZNODE")[0][0] as? Int64, 15)
        let root = NSFetchRequest<NSFetchRequestResult>(entityName: "Node")
        root.predicate = NSPredicate(format: "depth == 0")
        let request = NSBatchDeleteRequest(fetchRequest: root)
        request.resultType = .resultTypeCount
        let (result, lines) = try capturingSQL { try context.execute(request) as! NSBatchDeleteResult }
        XCTAssertEqual(result.result as? Int, 1)
        XCTAssertEqual(try rows("SELECT COUNT(*) FROM ZNODE")[0][0] as? Int64, 0, "every descendant went, not only the first level")
        XCTAssertFalse(statements(lines).contains { $0.hasPrefix("CREATE TEMPORARY TRIGGER") },
                       "SQLite's triggers do not fire themselves, so this delete goes row by row")
    }

    func testAMandatoryManyToManyFailsWhenARowWouldLoseItsLastPartner() throws {
        let note = makeEntity("Note")
        let tag = makeEntity("Tag")
        let tags = makeRelationship("tags", to: tag, toMany: true)
        tags.deleteRule = .nullifyDeleteRule
        let notes = makeRelationship("notes", to: note, toMany: true)
        notes.deleteRule = .nullifyDeleteRule
        makeInverses(tags, notes)
        note.properties = [makeAttribute("title", .stringAttributeType), tags]
        tag.properties = [makeAttribute("label", .stringAttributeType), notes]
        let context = try container([note, tag]).viewContext
        let shared = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
        let lonely = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
        let first = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
        let second = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
        first.setValue("first", forKey: "title")
        second.setValue("second", forKey: "title")
        first.setValue(Set([shared, lonely]), forKey: "tags")
        second.setValue(Set([shared]), forKey: "tags")
        try context.save()
        notes.isOptional = false  // a tag must keep at least one note

        let firstOnly = NSFetchRequest<NSFetchRequestResult>(entityName: "Note")
        firstOnly.predicate = NSPredicate(format: "title == %@", "first")
        XCTAssertThrowsError(try context.execute(NSBatchDeleteRequest(fetchRequest: firstOnly))) { error in
            XCTAssertEqual((error as NSError).code, NSPersistentStoreSaveConflictsError)
            XCTAssertEqual((error as NSError).localizedDescription,
                           "Constraint trigger violation: Batch delete failed due to mandatory MTM nullify inverse on Note/tags")
        }
        XCTAssertEqual(try rows("SELECT COUNT(*) FROM ZNOTE")[0][0] as? Int64, 2, "nothing was deleted")

        lonely.setValue(Set([first, second]), forKey: "notes")
        try context.save()
        try context.execute(NSBatchDeleteRequest(fetchRequest: firstOnly))
        XCTAssertEqual(try rows("SELECT COUNT(*) FROM ZNOTE")[0][0] as? Int64, 1)
    }
}
