import Foundation
import XCTest

@testable import OpenCoreData

final class BatchUpdateTests: RequestTestCase {
    /// Z_OPT of each stored trail by name.
    private func versions() throws -> [String: Int64] {
        Dictionary(uniqueKeysWithValues: try query(storeURL(), "SELECT ZNAME, Z_OPT FROM ZTRAIL").map { ($0[0] as! String, $0[1] as! Int64) })
    }

    private func favouriteRequest() -> NSBatchUpdateRequest {
        let request = NSBatchUpdateRequest(entityName: "Trail")
        request.predicate = NSPredicate(format: "rating >= 4.5")
        request.propertiesToUpdate = ["isFavorite": true]
        return request
    }

    func testResultTypesAndTheStoreEffect() throws {
        let container = try seededContainer()
        let context = container.viewContext
        XCTAssertEqual(Set(try versions().values), [1])

        let status = try XCTUnwrap(try context.execute(favouriteRequest()) as? NSBatchUpdateResult)
        XCTAssertEqual(status.resultType, .statusOnlyResultType)
        XCTAssertEqual(status.result as? Bool, true)
        XCTAssertEqual(favouriteRequest().requestType, .batchUpdateRequestType)

        let counting = favouriteRequest()
        counting.resultType = .updatedObjectsCountResultType
        XCTAssertEqual((try context.execute(counting) as! NSBatchUpdateResult).result as? Int, 3)

        let identifying = favouriteRequest()
        identifying.resultType = .updatedObjectIDsResultType
        let ids = try XCTUnwrap((try context.execute(identifying) as! NSBatchUpdateResult).result as? [NSManagedObjectID])
        XCTAssertEqual(Set(ids.map { try! context.existingObject(with: $0).value(forKey: "name") as! String }),
                       ["Laugavegur", "Kungsleden", "熊野古道 中辺路"])

        // Three updates of the same three rows: Z_OPT 1 + 3; the others untouched.
        XCTAssertEqual(try versions(), ["Laugavegur": 4, "Kungsleden": 4, "熊野古道 中辺路": 4, "Öræfajökull": 1, "富士山 吉田ルート": 1, "Nakasendō": 1])
        let favourites = try query(storeURL(), "SELECT ZNAME FROM ZTRAIL WHERE ZISFAVORITE = 1 ORDER BY ZNAME").map { $0[0] as! String }
        XCTAssertEqual(favourites, ["Kungsleden", "Laugavegur", "熊野古道 中辺路"])

        // A fresh container (a relaunch) reads the new values.
        let relaunched = try openContainer()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        request.predicate = NSPredicate(format: "isFavorite == YES")
        XCTAssertEqual(try relaunched.viewContext.count(for: request), 3)
    }

    func testExpressionsAndNoValidation() throws {
        let container = try seededContainer()
        let request = NSBatchUpdateRequest(entityName: "Trail")
        request.predicate = NSPredicate(format: "country.name == %@", "Iceland")
        request.propertiesToUpdate = ["lengthKm": NSExpression(format: "lengthKm * 2"), "rating": 9.0, "difficulty": NSExpression(forConstantValue: 5)]
        request.resultType = .updatedObjectsCountResultType
        XCTAssertEqual((try container.viewContext.execute(request) as! NSBatchUpdateResult).result as? Int, 2)
        let rows = try query(storeURL(), "SELECT ZNAME, ZLENGTHKM, ZRATING, ZDIFFICULTY FROM ZTRAIL WHERE ZRATING > 5 ORDER BY ZNAME")
        XCTAssertEqual(rows.map { $0[0] as! String }, ["Laugavegur", "Öræfajökull"])
        XCTAssertEqual(rows.map { $0[1] as! Double }, [110, 44])
        XCTAssertEqual(rows.map { $0[2] as! Double }, [9, 9], "rating's maximum of 5 is not checked: batch updates skip validation")
        XCTAssertEqual(rows.map { $0[3] as! Int64 }, [5, 5])
    }

    func testTheContextSeesTheChangeOnlyAfterMerging() throws {
        let container = try seededContainer()
        let context = container.viewContext
        let laugavegur = try trail("Laugavegur", in: context)
        XCTAssertEqual(laugavegur.value(forKey: "isFavorite") as? Bool, false)
        laugavegur.setValue(Int16(3), forKey: "difficulty")  // an unsaved change of our own

        let request = favouriteRequest()
        request.resultType = .updatedObjectIDsResultType
        let ids = (try context.execute(request) as! NSBatchUpdateResult).result as! [NSManagedObjectID]
        XCTAssertEqual(laugavegur.value(forKey: "isFavorite") as? Bool, false, "the context does not know yet")

        var notified: Set<NSManagedObject>?
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil) { note in
            notified = note.userInfo?[NSUpdatedObjectsKey] as? Set<NSManagedObject>
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: ids], into: [context])
        XCTAssertEqual(laugavegur.value(forKey: "isFavorite") as? Bool, true)
        XCTAssertEqual(laugavegur.value(forKey: "difficulty") as? Int16, 3, "unsaved changes survive the merge")
        XCTAssertTrue(notified?.contains(laugavegur) == true)
        try context.save()  // no conflict: the merge brought the new version in
        XCTAssertEqual(try query(storeURL(), "SELECT ZDIFFICULTY, ZISFAVORITE FROM ZTRAIL WHERE ZNAME = 'Laugavegur'")[0].map { $0 as! Int64 }, [3, 1])
    }

    func testTheRequestSeesTheStoreNotTheContextsUnsavedChanges() throws {
        let container = try seededContainer()
        let context = container.viewContext
        try trail("富士山 吉田ルート", in: context).setValue(4.9, forKey: "rating")  // unsaved: not matched
        try trail("Laugavegur", in: context).setValue(1.0, forKey: "rating")  // unsaved: still matched
        let request = favouriteRequest()
        request.resultType = .updatedObjectIDsResultType
        let ids = (try context.execute(request) as! NSBatchUpdateResult).result as! [NSManagedObjectID]
        XCTAssertEqual(Set(ids.map { $0.uriRepresentation().lastPathComponent }), ["p1", "p3", "p4"])
        XCTAssertTrue(context.hasChanges, "the context's own changes are left as they were")
    }

    func testMergeAcceptsURIsAndIDsOfAnotherCoordinator() throws {
        let container = try seededContainer()
        let other = try openContainer()
        let kungsleden = try trail("Kungsleden", in: container.viewContext)
        _ = kungsleden.value(forKey: "name")
        let request = favouriteRequest()
        request.resultType = .updatedObjectIDsResultType
        let ids = (try other.viewContext.execute(request) as! NSBatchUpdateResult).result as! [NSManagedObjectID]
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectIDsKey: ids.map { $0.uriRepresentation() }], into: [container.viewContext])
        XCTAssertEqual(kungsleden.value(forKey: "isFavorite") as? Bool, true)
    }
}

final class BatchDeleteTests: RequestTestCase {
    private func count(_ table: String) throws -> Int64 {
        try query(storeURL(), "SELECT COUNT(*) FROM \(table)")[0][0] as! Int64
    }

    func testDeletesWhatTheFetchRequestMatchesWithResultTypes() throws {
        let container = try seededContainer()
        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "Trail")
        fetch.predicate = NSPredicate(format: "country.name == %@", "Japan")
        let request = NSBatchDeleteRequest(fetchRequest: fetch)
        XCTAssertEqual(request.requestType, .batchDeleteRequestType)
        request.resultType = .resultTypeCount
        let result = try XCTUnwrap(try container.viewContext.execute(request) as? NSBatchDeleteResult)
        XCTAssertEqual(result.resultType, .resultTypeCount)
        XCTAssertEqual(result.result as? Int, 3)
        XCTAssertEqual(try storedTrailNames(), ["Kungsleden", "Laugavegur", "Öræfajökull"])
        XCTAssertEqual(try count("Z_3TRAILS"), 2, "the deleted trails' join-table rows went with them")

        let again = NSBatchDeleteRequest(fetchRequest: fetch)
        XCTAssertEqual((try container.viewContext.execute(again) as! NSBatchDeleteResult).result as? Bool, true)
    }

    func testCascadeAndNullifyAtTheStore() throws {
        let container = try seededContainer()
        // Deleting Iceland cascades to its trails, and Laugavegur's hikes cascade after them.
        let countries = NSFetchRequest<NSFetchRequestResult>(entityName: "Country")
        countries.predicate = NSPredicate(format: "name == %@", "Iceland")
        let request = NSBatchDeleteRequest(fetchRequest: countries)
        request.resultType = .resultTypeObjectIDs
        let ids = (try container.viewContext.execute(request) as! NSBatchDeleteResult).result as! [NSManagedObjectID]
        XCTAssertEqual(ids.map(\.entity.name), ["Country"], "the result lists the objects the request matched")
        XCTAssertEqual(try storedTrailNames(), ["Kungsleden", "Nakasendō", "富士山 吉田ルート", "熊野古道 中辺路"])
        XCTAssertEqual(try count("ZHIKE"), 0)
        XCTAssertEqual(try count("ZCOUNTRY"), 2)

        // Deleting a tag (nullify, many-to-many) removes only join rows.
        let tags = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Tag"))
        try container.viewContext.execute(tags)
        XCTAssertEqual(try count("ZTAG"), 0)
        XCTAssertEqual(try count("Z_3TRAILS"), 0)
        XCTAssertEqual(try count("ZTRAIL"), 4)
    }

    func testNullifyThroughAToOneBumpsTheOtherSidesVersion() throws {
        let container = try seededContainer()
        let hikes = NSFetchRequest<NSFetchRequestResult>(entityName: "Hike")
        hikes.predicate = NSPredicate(format: "minutes > 400")
        try container.viewContext.execute(NSBatchDeleteRequest(fetchRequest: hikes))
        XCTAssertEqual(try count("ZHIKE"), 1)
        XCTAssertEqual(try query(storeURL(), "SELECT Z_OPT FROM ZTRAIL WHERE ZNAME = 'Laugavegur'")[0][0] as? Int64, 2,
                       "the trail's to-many changed, so its version goes up")
        XCTAssertEqual(try query(storeURL(), "SELECT Z_OPT FROM ZTRAIL WHERE ZNAME = 'Kungsleden'")[0][0] as? Int64, 1)

        // Deleting trails clears the hikes' references where the rule is nullify.
        let trailHikes = model.entitiesByName["Trail"]!.relationshipsByName["hikes"]!
        XCTAssertEqual(trailHikes.deleteRule, .cascadeDeleteRule)
    }

    func testObjectIDsAndMergingDeletionsIntoALiveContext() throws {
        let container = try seededContainer()
        let context = container.viewContext
        let fuji = try trail("富士山 吉田ルート", in: context)
        let nakasendo = try trail("Nakasendō", in: context)
        _ = fuji.value(forKey: "name")
        let request = NSBatchDeleteRequest(objectIDs: [fuji.objectID, nakasendo.objectID])
        request.resultType = .resultTypeObjectIDs
        let ids = (try context.execute(request) as! NSBatchDeleteResult).result as! [NSManagedObjectID]
        XCTAssertEqual(Set(ids), [fuji.objectID, nakasendo.objectID])
        XCTAssertEqual(try count("ZTRAIL"), 4)
        XCTAssertTrue(context.registeredObjects.contains(fuji), "the context still holds the deleted objects")

        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: ids], into: [context])
        XCTAssertFalse(context.registeredObjects.contains(fuji))
        XCTAssertNil(fuji.managedObjectContext)
        XCTAssertNil(context.registeredObject(for: ids[0]))
        XCTAssertEqual(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Trail")), 4)
        XCTAssertThrowsError(try context.existingObject(with: fuji.objectID)) { error in
            XCTAssertEqual((error as NSError).code, NSManagedObjectReferentialIntegrityError)
        }
    }

    func testADenyRuleMakesTheRequestFailBeforeAnythingIsDeleted() throws {
        model.entitiesByName["Country"]!.relationshipsByName["trails"]!.deleteRule = .denyDeleteRule
        let container = try seededContainer()
        let request = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Country"))
        XCTAssertThrowsError(try container.viewContext.execute(request)) { error in
            let error = error as NSError
            XCTAssertEqual(error.domain, NSCocoaErrorDomain)
            XCTAssertEqual(error.code, NSCoreDataError)
            XCTAssertEqual(error.userInfo["Reason"] as? String, "Delete rule is not supported for batch deletes")
            XCTAssertEqual(error.userInfo["Relationship"] as? String, "Country.trails")
        }
        XCTAssertEqual(try count("ZCOUNTRY"), 3)
    }

    func testAMandatoryInverseMakesANullifyFailAndRollsBack() throws {
        let container = try seededContainer()
        // Made mandatory after the seed was saved, so the seed itself is valid.
        model.entitiesByName["Trail"]!.relationshipsByName["hikes"]!.isOptional = false
        let request = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Hike"))
        XCTAssertThrowsError(try container.viewContext.execute(request)) { error in
            XCTAssertEqual((error as NSError).code, NSPersistentStoreSaveConflictsError)
            XCTAssertEqual((error as NSError).localizedDescription,
                           "Constraint trigger violation: Batch delete failed due to mandatory OTO nullify inverse on Hike/trail")
        }
        XCTAssertEqual(try count("ZHIKE"), 2, "nothing was deleted")
    }
}

final class BatchInsertTests: RequestTestCase {
    func testArrayOfDictionariesDefaultsKeysAndResultTypes() throws {
        let container = try seededContainer()
        XCTAssertEqual(try query(storeURL(), "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Trail'")[0][0] as? Int64, 6)
        let request = NSBatchInsertRequest(entityName: "Trail", objects: [
            ["name": "West Highland Way", "lengthKm": 154.0, "rating": 4.5],
            ["name": "Camino Primitivo", "lengthKm": 321, "difficulty": 3],
        ])
        XCTAssertEqual(request.requestType, .batchInsertRequestType)
        request.resultType = .objectIDs
        let ids = try XCTUnwrap((try container.viewContext.execute(request) as! NSBatchInsertResult).result as? [NSManagedObjectID])
        XCTAssertEqual(ids.map { $0.uriRepresentation().lastPathComponent }, ["p7", "p8"])
        XCTAssertEqual(try query(storeURL(), "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Trail'")[0][0] as? Int64, 8)
        let rows = try query(storeURL(), "SELECT Z_PK, Z_ENT, Z_OPT, ZNAME, ZLENGTHKM, ZDIFFICULTY, ZISFAVORITE, ZRATING FROM ZTRAIL WHERE Z_PK > 6 ORDER BY Z_PK")
        XCTAssertEqual(rows[0][0] as? Int64, 7)
        XCTAssertEqual(rows[0][1] as? Int64, 4)
        XCTAssertEqual(rows[0][2] as? Int64, 1)
        XCTAssertEqual(rows[0][5] as? Int64, 1, "difficulty gets the model's default")
        XCTAssertEqual(rows[0][6] as? Int64, 0)
        XCTAssertEqual(rows[1][3] as? String, "Camino Primitivo")
        XCTAssertEqual(rows[1][4] as? Double, 321, "an integer for a Double attribute is converted")
        XCTAssertEqual(rows[1][5] as? Int64, 3)
        XCTAssertNil(rows[1][7] ?? nil)

        let relaunched = try openContainer()
        XCTAssertEqual(try relaunched.viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Trail")), 8)
        let counting = NSBatchInsertRequest(entityName: "Tag", objects: [["label": "coastal"]])
        counting.resultType = .count
        XCTAssertEqual((try container.viewContext.execute(counting) as! NSBatchInsertResult).result as? Int, 1)
    }

    /// Values of another Swift or Foundation type than the attribute stores are converted
    /// as `setValue(_:forKey:)` converts them (an `NSNumber` or `Int` for a Double, a
    /// Double for an Int16, truncated as `NSNumber.shortValue` truncates); an empty
    /// `Optional` and `NSNull` store NULL; a value of the wrong kind fails the whole
    /// request before any row is written, naming the attribute.
    func testForeignTypesOptionalsNullAndAWrongType() throws {
        let container = try seededContainer()
        let noRating: Double? = nil
        let request = NSBatchInsertRequest(entityName: "Trail", objects: [
            ["name": NSString(string: "Foreign"), "lengthKm": 12, "elevationGain": Int64(300), "difficulty": NSNumber(value: 2),
             "rating": noRating as Any, "isFavorite": NSNumber(value: true), "lastHiked": NSDate(timeIntervalSinceReferenceDate: 100.5)],
            ["name": Optional("Wrapped") as Any, "lengthKm": Float(2.5), "elevationGain": NSNumber(value: 7.9), "difficulty": 3.9,
             "rating": NSNull(), "isFavorite": 1, "lastHiked": NSNull()],
        ])
        _ = try container.viewContext.execute(request)
        let rows = try query(storeURL(), "SELECT ZNAME, ZLENGTHKM, ZELEVATIONGAIN, ZDIFFICULTY, ZRATING, ZISFAVORITE, ZLASTHIKED FROM ZTRAIL WHERE Z_PK > 6 ORDER BY Z_PK")
        XCTAssertEqual(rows.count, 2)
        XCTAssertEqual(rows[0][0] as? String, "Foreign")
        XCTAssertEqual(rows[0][1] as? Double, 12, "an Int for a Double attribute")
        XCTAssertEqual(rows[0][2] as? Int64, 300)
        XCTAssertEqual(rows[0][3] as? Int64, 2, "an NSNumber for an Int16 attribute")
        XCTAssertNil(rows[0][4] ?? nil, "an empty Optional stores NULL")
        XCTAssertEqual(rows[0][5] as? Int64, 1)
        XCTAssertEqual(rows[0][6] as? Double, 100.5, "an NSDate is stored as its reference-date seconds")
        XCTAssertEqual(rows[1][0] as? String, "Wrapped", "an Optional holding a string is the string")
        XCTAssertEqual(rows[1][1] as? Double, 2.5)
        XCTAssertEqual(rows[1][2] as? Int64, 7, "a fractional NSNumber for an Int32 is truncated")
        XCTAssertEqual(rows[1][3] as? Int64, 3, "a Double for an Int16 is truncated")
        XCTAssertNil(rows[1][4] ?? nil, "NSNull stores NULL")
        XCTAssertEqual(rows[1][5] as? Int64, 1, "an Int for a Boolean")
        XCTAssertNil(rows[1][6] ?? nil)

        let wrong = NSBatchInsertRequest(entityName: "Trail", objects: [
            ["name": "Fine", "lengthKm": 3.0],
            ["name": "Wrong", "lengthKm": "long"],
        ])
        XCTAssertThrowsError(try container.viewContext.execute(wrong)) { error in
            let error = error as NSError
            XCTAssertEqual(error.domain, NSCocoaErrorDomain)
            XCTAssertEqual(error.code, NSManagedObjectValidationError)
            XCTAssertTrue(error.localizedDescription.contains("Unacceptable type of value for attribute: property = \"lengthKm\"; desired type = NSNumber"),
                          error.localizedDescription)
            XCTAssertEqual(error.userInfo[NSValidationKeyErrorKey] as? String, "lengthKm")
        }
        XCTAssertEqual(try query(storeURL(), "SELECT COUNT(*) FROM ZTRAIL")[0][0] as? Int64, 8, "the request wrote no row")
    }

    func testHandlersStopWhenTheyReturnTrue() throws {
        let container = try seededContainer()
        let trail = model.entitiesByName["Trail"]!
        var index = 0
        let names = ["A", "B", "C"]
        let byDictionary = NSBatchInsertRequest(entity: trail) { (dictionary: NSMutableDictionary) in
            guard index < names.count else { return true }
            dictionary["name"] = names[index]
            dictionary["lengthKm"] = Double(index + 1)
            index += 1
            return false
        }
        XCTAssertEqual((try container.viewContext.execute(byDictionary) as! NSBatchInsertResult).result as? Bool, true)
        var made = 0
        let byObject = NSBatchInsertRequest(entity: trail) { (object: NSManagedObject) in
            guard made < 2 else { return true }
            made += 1
            object.setValue("Object \(made)", forKey: "name")
            object.setValue(Double(made) * 10, forKey: "lengthKm")
            return false
        }
        byObject.resultType = .count
        XCTAssertEqual((try container.viewContext.execute(byObject) as! NSBatchInsertResult).result as? Int, 2)
        XCTAssertEqual(try query(storeURL(), "SELECT ZNAME FROM ZTRAIL WHERE Z_PK > 6 ORDER BY Z_PK").map { $0[0] as! String },
                       ["A", "B", "C", "Object 1", "Object 2"], "the call that returned true added nothing")

        // Contexts find the new objects at their next fetch; a merge announces them.
        var inserted: Set<NSManagedObject>?
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: container.viewContext, queue: nil) { note in
            inserted = note.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject>
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let ids = try container.viewContext.fetch({ () -> NSFetchRequest<NSManagedObjectID> in
            let request = NSFetchRequest<NSManagedObjectID>(entityName: "Trail")
            request.resultType = .managedObjectIDResultType
            request.predicate = NSPredicate(format: "name BEGINSWITH 'Object'")
            return request
        }())
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSInsertedObjectsKey: ids], into: [container.viewContext])
        XCTAssertEqual(inserted?.count, 2)
    }
}
