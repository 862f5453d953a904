import Foundation
import XCTest

@testable import OpenCoreData

/// Composite attributes (`NSCompositeAttributeDescription`, iOS 17): a dictionary of named
/// elements in memory ("Model classes use dictionaries to represent those composites
/// in-memory, where each dictionary contains keys corresponding to the names of the
/// underlying attributes", Apple's documentation), one column per element in the store,
/// reachable in predicates with `composite.element` key paths.
final class CompositeAttributeTests: MigrationTestCase {
    private func huts() throws -> NSManagedObjectModel { try ModelFixtures.load("Huts.xcdatamodel") }

    private func hut(_ name: String, _ address: [String: Any]?, in context: NSManagedObjectContext) -> NSManagedObject {
        let hut = NSEntityDescription.insertNewObject(forEntityName: "Hut", into: context)
        hut.setValue(name, forKey: "name")
        hut.setValue(address, forKey: "address")
        return hut
    }

    private func names(_ format: String, _ arguments: [Any] = [], in context: NSManagedObjectContext) throws -> [String] {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Hut")
        request.predicate = NSPredicate(format: format, argumentArray: arguments)
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        return try context.fetch(request).compactMap { $0.value(forKey: "name") as? String }
    }

    func testTheModelFileDeclaresTheCompositeOnceAndEachAttributeGetsItsOwnElements() throws {
        let model = try huts()
        let hut = try XCTUnwrap(model.entitiesByName["Hut"])
        let address = try XCTUnwrap(hut.attributesByName["address"] as? NSCompositeAttributeDescription)
        let postal = try XCTUnwrap(hut.attributesByName["postal"] as? NSCompositeAttributeDescription)
        XCTAssertEqual(address.attributeType, .compositeAttributeType)
        XCTAssertEqual(address.attributeType.rawValue, 2100)
        XCTAssertEqual(address.attributeValueClassName, "NSDictionary")
        XCTAssertEqual(address.elements.map(\.name), ["altitude", "city", "postcode"])
        XCTAssertEqual(address.elements.map(\.attributeType), [.integer32AttributeType, .stringAttributeType, .stringAttributeType])
        XCTAssertFalse(address.elements[0] === postal.elements[0], "each composite attribute has elements of its own")
    }

    func testAValueIsADictionaryStoredInOneColumnPerElementAndReadBackAfterARelaunch() throws {
        let context = try open(huts())
        _ = hut("Hörnli", ["city": "Zermatt", "postcode": "3920", "altitude": 3260], in: context)
        _ = hut("Empty", nil, in: context)
        try context.save()
        XCTAssertEqual(try columns(storeURL(), "ZHUT"), ["Z_PK", "Z_ENT", "Z_OPT", "ZADDRESS_ALTITUDE", "ZPOSTAL_ALTITUDE", "ZADDRESS_CITY", "ZADDRESS_POSTCODE", "ZNAME", "ZPOSTAL_CITY", "ZPOSTAL_POSTCODE"])
        XCTAssertEqual(try query(storeURL(), "SELECT ZADDRESS_CITY, ZADDRESS_ALTITUDE FROM ZHUT WHERE ZNAME = 'Hörnli'").first?.compactMap { $0.map { "\($0)" } }, ["Zermatt", "3260"])

        let relaunched = try open(huts())
        let found = try all("Hut", in: relaunched)
        let address = try XCTUnwrap(found.first { $0.value(forKey: "name") as? String == "Hörnli" }?.value(forKey: "address") as? [String: Any])
        XCTAssertEqual(address["city"] as? String, "Zermatt")
        XCTAssertEqual(address["postcode"] as? String, "3920")
        XCTAssertEqual((address["altitude"] as? NSNumber)?.int32Value, 3260)
        XCTAssertNil(found.first { $0.value(forKey: "name") as? String == "Empty" }?.value(forKey: "address"))
    }

    func testPredicatesReachIntoACompositeInSQLAndInMemory() throws {
        let context = try open(huts())
        _ = hut("Hörnli", ["city": "Zermatt", "altitude": 3260], in: context)
        _ = hut("Monte Rosa", ["city": "Zermatt", "altitude": 2883], in: context)
        _ = hut("Gspaltenhorn", ["city": "Kiental", "altitude": 2455], in: context)
        _ = hut("Nowhere", nil, in: context)
        try context.save()
        let fresh = try open(huts())
        var sql: [String] = []
        SQLDebugLog.setLevelOverride(1)
        SQLDebugLog.setSink { sql.append($0) }
        XCTAssertEqual(try names("address.city == %@", ["Zermatt"], in: fresh), ["Hörnli", "Monte Rosa"])
        SQLDebugLog.setLevelOverride(nil)
        SQLDebugLog.setSink(nil)
        XCTAssertTrue(sql.contains { $0.contains("WHERE  t0.ZADDRESS_CITY = ?") || $0.contains("WHERE t0.ZADDRESS_CITY = ?") }, "filtered in SQL: \(sql)")
        XCTAssertEqual(try names("address.altitude > 2800", in: fresh), ["Hörnli", "Monte Rosa"])
        XCTAssertEqual(try names("address.city == nil", in: fresh), ["Nowhere"])
        let predicate = NSPredicate(format: "address.city BEGINSWITH[c] 'kien'")
        let matching = try all("Hut", in: fresh).filter { predicate.evaluate(with: $0) }
        XCTAssertEqual(matching.compactMap { $0.value(forKey: "name") as? String }, ["Gspaltenhorn"])
    }

    func testChangingOneElementIsSavedAndTheVersionHashFollowsTheElements() throws {
        let context = try open(huts())
        let hornli = hut("Hörnli", ["city": "Zermatt", "altitude": 3260], in: context)
        try context.save()
        var address = try XCTUnwrap(hornli.value(forKey: "address") as? [String: Any])
        address["altitude"] = 3261
        hornli.setValue(address, forKey: "address")
        XCTAssertEqual(Array(hornli.changedValues().keys), ["address"])
        try context.save()
        XCTAssertEqual(try query(storeURL(), "SELECT ZADDRESS_ALTITUDE FROM ZHUT").first?.first as? Int64, 3261)

        let before = try huts().entitiesByName["Hut"]!.versionHash
        let changed = try huts()
        let element = try XCTUnwrap((changed.entitiesByName["Hut"]?.attributesByName["address"] as? NSCompositeAttributeDescription)?.elements.first)
        element.attributeType = .integer64AttributeType
        XCTAssertNotEqual(changed.entitiesByName["Hut"]!.versionHash, before)
    }

    func testACompositeBuiltInCodeWorksInAnInMemoryStoreAndOneInsideItselfIsRefused() throws {
        let city = makeAttribute("city", .stringAttributeType)
        let height = makeAttribute("height", .doubleAttributeType)
        let place = NSCompositeAttributeDescription()
        place.name = "place"
        place.elements = [city, height]
        let summit = makeEntity("Summit")
        summit.properties = [makeAttribute("name", .stringAttributeType), place]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: makeModel([summit]))
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let object = NSEntityDescription.insertNewObject(forEntityName: "Summit", into: context)
        object.setValue(["city": "Chamonix", "height": 4807.8], forKey: "place")
        try context.save()
        context.refresh(object, mergeChanges: false)
        XCTAssertEqual((object.value(forKey: "place") as? [String: Any])?["height"] as? NSNumber, NSNumber(value: 4807.8))

        let looping = NSCompositeAttributeDescription()
        looping.name = "looping"
        looping.elements = [looping]
        let odd = makeEntity("Odd")
        odd.properties = [looping]
        let refusing = NSPersistentStoreCoordinator(managedObjectModel: makeModel([odd]))
        XCTAssertThrowsError(try refusing.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)) { error in
            XCTAssertEqual((error as NSError).code, NSPersistentStoreIncompatibleSchemaError)
            XCTAssertEqual((error as NSError).localizedDescription, "The composite attribute looping contains itself.")
        }
    }

    func testNestedCompositesFromAModelFileAreStoredFlatAndQueriedByTheirPath() throws {
        let url = directory.appendingPathComponent("Nested.xcdatamodel")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try Data("""
            <model>
                <entity name="Hut" representedClassName="Hut" syncable="YES">
                    <attribute name="name" optional="YES" attributeType="String"/>
                    <attribute name="place" optional="YES" attributeType="Composite" composite="Place"/>
                </entity>
                <composite name="Place">
                    <attribute name="geo" optional="YES" attributeType="Composite" composite="Geo"/>
                    <attribute name="town" optional="YES" attributeType="String"/>
                </composite>
                <composite name="Geo">
                    <attribute name="lat" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
                    <attribute name="lon" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
                </composite>
            </model>
            """.utf8).write(to: url.appendingPathComponent("contents"))
        let model = try NSManagedObjectModel.load(contentsOf: url)
        let context = try open(model)
        let hut = NSEntityDescription.insertNewObject(forEntityName: "Hut", into: context)
        hut.setValue("Hörnli", forKey: "name")
        hut.setValue(["town": "Zermatt", "geo": ["lat": 45.98, "lon": 7.68]], forKey: "place")
        try context.save()
        XCTAssertEqual(try columns(storeURL(), "ZHUT"), ["Z_PK", "Z_ENT", "Z_OPT", "ZPLACE_GEO_LAT", "ZPLACE_GEO_LON", "ZNAME", "ZPLACE_TOWN"])
        let fresh = try open(model)
        XCTAssertEqual(try names("place.geo.lat > 45.5 AND place.town == 'Zermatt'", in: fresh), ["Hörnli"])
        let place = try XCTUnwrap(try all("Hut", in: fresh).first?.value(forKey: "place") as? [String: Any])
        XCTAssertEqual(((place["geo"] as? [String: Any])?["lon"] as? NSNumber)?.doubleValue, 7.68)
    }

    func testAModelFileNamingAnUndeclaredCompositeFailsWithItsLine() throws {
        let url = directory.appendingPathComponent("Bad.xcdatamodel")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try Data("""
            <model>
                <entity name="Hut">
                    <attribute name="address" optional="YES" attributeType="Composite" composite="Adress"/>
                </entity>
            </model>
            """.utf8).write(to: url.appendingPathComponent("contents"))
        XCTAssertThrowsError(try NSManagedObjectModel.load(contentsOf: url)) { error in
            XCTAssertTrue((error as NSError).localizedDescription.contains("composite attribute address refers to composite Adress, which the model does not declare"), "\(error)")
        }
    }

    func testALightweightMigrationCarriesEachElementAndFillsANewOne() throws {
        let v1 = try huts()
        try writeStore(v1) { context in
            _ = self.hut("Hörnli", ["city": "Zermatt", "postcode": "3920", "altitude": 3260], in: context)
            _ = self.hut("Empty", nil, in: context)
        }
        let v2 = try huts()
        let hutEntity = try XCTUnwrap(v2.entitiesByName["Hut"])
        let address = try XCTUnwrap(hutEntity.attributesByName["address"] as? NSCompositeAttributeDescription)
        let country = makeAttribute("country", .stringAttributeType)
        address.elements += [country]
        hutEntity.properties += [makeAttribute("beds", .integer16AttributeType)]
        XCTAssertNotEqual(v1.entitiesByName["Hut"]!.versionHash, hutEntity.versionHash, "a new element changes the hash")
        let migrated = try open(v2)
        XCTAssertTrue(try columns(storeURL(), "ZHUT").contains("ZADDRESS_COUNTRY"))
        let found = try all("Hut", in: migrated)
        let hornli = try XCTUnwrap(found.first { $0.value(forKey: "name") as? String == "Hörnli" }?.value(forKey: "address") as? [String: Any])
        XCTAssertEqual(hornli["city"] as? String, "Zermatt")
        XCTAssertEqual((hornli["altitude"] as? NSNumber)?.intValue, 3260)
        XCTAssertNil(hornli["country"])
        XCTAssertEqual(try names("address.postcode == '3920'", in: migrated), ["Hörnli"])
    }
}
