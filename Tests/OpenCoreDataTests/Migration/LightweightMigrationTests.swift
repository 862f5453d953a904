import Foundation
import XCTest

@testable import OpenCoreData

/// Each kind of change lightweight migration handles, on a store written by the old model.
final class LightweightMigrationTests: MigrationTestCase {
    func testAddedAttributesAreNilOrTheirDefault() throws {
        try writeStore(trailModelV1(), fillTrails)
        let v2 = trailModelV1 { trail in
            let rating = makeAttribute("rating", .doubleAttributeType)
            rating.isOptional = false
            rating.defaultValue = 3.0
            trail.properties += [makeAttribute("region", .stringAttributeType), rating]
        }
        let context = try open(v2)
        let trails = try all("Trail", in: context)
        XCTAssertEqual(values(trails, "name"), ["Alpha", "Beta", "Gamma"])
        XCTAssertEqual(values(trails, "region"), ["nil", "nil", "nil"])
        XCTAssertEqual(values(trails, "rating"), ["3.0", "3.0", "3.0"])
        XCTAssertEqual(values(trails, "lengthKm"), ["12.5", "3.0", "nil"])
        // The migrated store now opens with the new model without migrating again.
        _ = try open(trailModelV1 { trail in
            let rating = makeAttribute("rating", .doubleAttributeType)
            rating.isOptional = false
            rating.defaultValue = 3.0
            trail.properties += [makeAttribute("region", .stringAttributeType), rating]
        }, options: [:])
    }

    func testRemovedAttributeIsGoneAndTheRestStays() throws {
        try writeStore(trailModelV1(), fillTrails)
        let v2 = trailModelV1 { trail in trail.properties = trail.properties.filter { $0.name != "notes" } }
        let context = try open(v2)
        XCTAssertEqual(values(try all("Trail", in: context), "lengthKm"), ["12.5", "3.0", "nil"])
        XCTAssertFalse(try columns(storeURL(), "ZTRAIL").contains("ZNOTES"))
    }

    func testRenamedAttributeKeepsItsValuesThroughTheRenamingIdentifier() throws {
        try writeStore(trailModelV1(), fillTrails)
        let v2 = trailModelV1 { trail in
            let distance = trail.properties.first { $0.name == "lengthKm" }!
            distance.name = "distance"
            distance.renamingIdentifier = "lengthKm"
        }
        let context = try open(v2)
        XCTAssertEqual(values(try all("Trail", in: context), "distance"), ["12.5", "3.0", "nil"])
        XCTAssertEqual(try columns(storeURL(), "ZTRAIL").sorted(), ["ZDISTANCE", "ZNAME", "ZNOTES", "Z_ENT", "Z_OPT", "Z_PK"])
    }

    func testRenameWithoutIdentifierLosesTheValuesAsInCoreData() throws {
        try writeStore(trailModelV1(), fillTrails)
        let v2 = trailModelV1 { trail in trail.properties.first { $0.name == "lengthKm" }!.name = "distance" }
        let context = try open(v2)
        XCTAssertEqual(values(try all("Trail", in: context), "distance"), ["nil", "nil", "nil"])
    }

    func testOptionalBecomingMandatoryTakesTheDefaultWhereNil() throws {
        try writeStore(trailModelV1(), fillTrails)
        let v2 = trailModelV1 { trail in
            let notes = trail.attributesByName["notes"]!
            notes.isOptional = false
            notes.defaultValue = "none yet"
        }
        let context = try open(v2)
        XCTAssertEqual(values(try all("Trail", in: context), "notes"), ["steep", "flat", "none yet"])
    }

    func testWideningNumericTypesKeepsTheValues() throws {
        let v1 = trailModelV1 { trail in trail.properties += [makeAttribute("steps", .integer16AttributeType), makeAttribute("gain", .integer32AttributeType)] }
        try writeStore(v1) { context in
            fillTrails(context)
            let trail = try self.all("Trail", in: context).first { $0.value(forKey: "name") as? String == "Alpha" }!
            trail.setValue(Int16(1200), forKey: "steps")
            trail.setValue(Int32(640), forKey: "gain")
        }
        let v2 = trailModelV1 { trail in trail.properties += [makeAttribute("steps", .integer64AttributeType), makeAttribute("gain", .doubleAttributeType)] }
        let context = try open(v2)
        let trails = try all("Trail", in: context)
        XCTAssertEqual(trails[0].value(forKey: "steps") as? Int64, 1200)
        XCTAssertEqual(trails[0].value(forKey: "gain") as? Double, 640.0)
        XCTAssertEqual(values(trails, "gain"), ["640.0", "nil", "nil"])
    }

    func testAddedEntityAndRelationshipWork() throws {
        try writeStore(trailModelV1(), fillTrails)
        let trail = makeEntity("Trail")
        let name = makeAttribute("name", .stringAttributeType)
        name.isOptional = false
        let hike = makeEntity("Hike")
        let hikes = makeRelationship("hikes", to: hike, toMany: true)
        let hikeTrail = makeRelationship("trail", to: trail)
        makeInverses(hikes, hikeTrail)
        trail.properties = [name, makeAttribute("lengthKm", .doubleAttributeType), makeAttribute("notes", .stringAttributeType), hikes]
        hike.properties = [makeAttribute("date", .dateAttributeType), hikeTrail]
        let context = try open(makeModel([hike, trail]))
        let alpha = try all("Trail", in: context)[0]
        let outing = NSEntityDescription.insertNewObject(forEntityName: "Hike", into: context)
        outing.setValue(alpha, forKey: "trail")
        try context.save()
        XCTAssertEqual((alpha.value(forKey: "hikes") as? Set<NSManagedObject>)?.count, 1)
        // Entity numbers follow the new model: Hike 1, Trail 2; Trail's rows followed it.
        XCTAssertEqual(try query(storeURL(), "SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT").map { "\($0[0]!) \($0[1]!) \($0[2]!)" }, ["1 Hike 1", "2 Trail 3"])
        XCTAssertEqual(try query(storeURL(), "SELECT DISTINCT Z_ENT FROM ZTRAIL").map { "\($0[0]!)" }, ["2"])
    }

    func testRenamedEntityKeepsRowsRelationshipsAndItsOldZName() throws {
        func model(hikeName: String, renamedFrom: String?) -> NSManagedObjectModel {
            let trail = makeEntity("Trail")
            trail.properties = [makeAttribute("name", .stringAttributeType)]
            let hike = makeEntity(hikeName)
            hike.renamingIdentifier = renamedFrom
            let hikes = makeRelationship("hikes", to: hike, toMany: true)
            let back = makeRelationship("trail", to: trail)
            makeInverses(hikes, back)
            trail.properties += [hikes]
            hike.properties = [makeAttribute("name", .stringAttributeType), back]
            return makeModel([trail, hike])
        }
        try writeStore(model(hikeName: "Hike", renamedFrom: nil)) { context in
            let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
            trail.setValue("Alpha", forKey: "name")
            for name in ["morning", "evening"] {
                let hike = NSEntityDescription.insertNewObject(forEntityName: "Hike", into: context)
                hike.setValue(name, forKey: "name")
                hike.setValue(trail, forKey: "trail")
            }
        }
        let context = try open(model(hikeName: "Outing", renamedFrom: "Hike"))
        let outings = try all("Outing", in: context)
        XCTAssertEqual(values(outings, "name"), ["evening", "morning"])
        XCTAssertEqual(outings.map { ($0.value(forKey: "trail") as? NSManagedObject)?.value(forKey: "name") as? String }, ["Alpha", "Alpha"])
        XCTAssertEqual(try tableNames(storeURL()).filter { $0.hasPrefix("ZO") || $0.hasPrefix("ZH") }, ["ZOUTING"])
        // Entity 1 was Hike and is Outing now; Core Data keeps the old name in Z_NAME.
        XCTAssertEqual(try query(storeURL(), "SELECT Z_NAME FROM Z_PRIMARYKEY WHERE Z_ENT = 1").first?.first as? String, "Hike")
    }

    func testRemovedEntityAndRelationship() throws {
        let trail = makeEntity("Trail")
        trail.properties = [makeAttribute("name", .stringAttributeType)]
        let hike = makeEntity("Hike")
        let hikes = makeRelationship("hikes", to: hike, toMany: true)
        let back = makeRelationship("trail", to: trail)
        makeInverses(hikes, back)
        trail.properties += [hikes]
        hike.properties = [back]
        try writeStore(makeModel([trail, hike])) { context in
            let alpha = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
            alpha.setValue("Alpha", forKey: "name")
            NSEntityDescription.insertNewObject(forEntityName: "Hike", into: context).setValue(alpha, forKey: "trail")
        }
        let only = makeEntity("Trail")
        only.properties = [makeAttribute("name", .stringAttributeType)]
        let context = try open(makeModel([only]))
        XCTAssertEqual(values(try all("Trail", in: context), "name"), ["Alpha"])
        XCTAssertFalse(try tableNames(storeURL()).contains("ZHIKE"))
    }

    func testManyToManyPairsSurviveAnEntityRenumbering() throws {
        func model(extra: Bool) -> NSManagedObjectModel {
            let hike = makeEntity("Hike")
            let hiker = makeEntity("Hiker")
            let hikers = makeRelationship("hikers", to: hiker, toMany: true)
            let hikes = makeRelationship("hikes", to: hike, toMany: true)
            makeInverses(hikers, hikes)
            hike.properties = [makeAttribute("name", .stringAttributeType), hikers]
            hiker.properties = [makeAttribute("name", .stringAttributeType), hikes]
            // An entity sorting first shifts every entity number by one.
            let badge = makeEntity("Badge")
            badge.properties = [makeAttribute("name", .stringAttributeType)]
            return makeModel(extra ? [badge, hike, hiker] : [hike, hiker])
        }
        try writeStore(model(extra: false)) { context in
            let ridge = NSEntityDescription.insertNewObject(forEntityName: "Hike", into: context)
            ridge.setValue("ridge", forKey: "name")
            for name in ["Ana", "Bo"] {
                let hiker = NSEntityDescription.insertNewObject(forEntityName: "Hiker", into: context)
                hiker.setValue(name, forKey: "name")
                hiker.setValue(NSSet(object: ridge), forKey: "hikes")
            }
        }
        let context = try open(model(extra: true))
        let ridge = try all("Hike", in: context)[0]
        let names = (ridge.value(forKey: "hikers") as? Set<NSManagedObject>)?.compactMap { $0.value(forKey: "name") as? String }.sorted()
        XCTAssertEqual(names, ["Ana", "Bo"])
        let tables = try tableNames(storeURL())
        XCTAssertTrue(tables.contains("Z_2HIKERS"), "\(tables)")
    }

    func testEntitiesMovingUnderANewParentShareItsTableWithUniqueKeys() throws {
        func roots() -> NSManagedObjectModel {
            let country = makeEntity("Country")
            let continent = makeEntity("Continent")
            let within = makeRelationship("continent", to: continent)
            let countries = makeRelationship("countries", to: country, toMany: true)
            makeInverses(within, countries)
            country.properties = [makeAttribute("name", .stringAttributeType), within]
            continent.properties = [makeAttribute("name", .stringAttributeType), countries]
            return makeModel([continent, country])
        }
        try writeStore(roots()) { context in
            let europe = NSEntityDescription.insertNewObject(forEntityName: "Continent", into: context)
            europe.setValue("Europe", forKey: "name")
            for name in ["Iceland", "Norway"] {
                let country = NSEntityDescription.insertNewObject(forEntityName: "Country", into: context)
                country.setValue(name, forKey: "name")
                country.setValue(europe, forKey: "continent")
            }
        }
        let region = makeEntity("Region", abstract: true)
        region.properties = [makeAttribute("name", .stringAttributeType)]
        let country = makeEntity("Country")
        let continent = makeEntity("Continent")
        region.subentities = [continent, country]
        let within = makeRelationship("continent", to: continent)
        let countries = makeRelationship("countries", to: country, toMany: true)
        makeInverses(within, countries)
        country.properties = region.properties + [within]
        continent.properties = region.properties + [countries]
        let context = try open(makeModel([region, continent, country]))
        let regions = try all("Region", in: context)
        XCTAssertEqual(values(regions, "name"), ["Europe", "Iceland", "Norway"])
        let europe = try all("Continent", in: context)[0]
        XCTAssertEqual((europe.value(forKey: "countries") as? Set<NSManagedObject>)?.compactMap { $0.value(forKey: "name") as? String }.sorted(), ["Iceland", "Norway"])
        XCTAssertEqual(Set(regions.map(\.objectID)).count, 3)
        XCTAssertEqual(try tableNames(storeURL()).filter { $0.hasPrefix("Z") && !$0.hasPrefix("Z_") }, ["ZREGION"])
        // A new object gets a key above every migrated one.
        let asia = NSEntityDescription.insertNewObject(forEntityName: "Continent", into: context)
        asia.setValue("Asia", forKey: "name")
        try context.save()
        XCTAssertEqual(try query(storeURL(), "SELECT count(DISTINCT Z_PK) FROM ZREGION").first?.first as? Int64, 4)
    }

    func testInferredMappingModelDescribesTheChanges() throws {
        let v1 = trailModelV1()
        let v2 = trailModelV1 { trail in
            trail.properties = trail.properties.filter { $0.name != "notes" }
            let distance = trail.attributesByName["lengthKm"]!
            distance.name = "distance"
            distance.renamingIdentifier = "lengthKm"
        }
        let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
        let trail = try XCTUnwrap(mapping.entityMappingsByName["TrailToTrail"])
        XCTAssertEqual(trail.mappingType, .transformEntityMappingType)
        XCTAssertEqual(trail.sourceEntityVersionHash, v1.entitiesByName["Trail"]?.versionHash)
        XCTAssertEqual(trail.attributeMappings?.map { "\($0.name!) = \($0.valueExpression.map { "\($0)" } ?? "nil")" }, ["distance = $source.lengthKm", "name = $source.name"])
        let same = try NSMappingModel.inferredMappingModel(forSourceModel: trailModelV1(), destinationModel: trailModelV1())
        XCTAssertEqual(same.entityMappings.map(\.mappingType), [.copyEntityMappingType])
    }

    func testATableKeepingItsEntityNumbersIsAlteredInPlace() throws {
        let indexed = { (trail: NSEntityDescription) in trail.attributesByName["name"]!.isIndexed = true }
        try writeStore(trailModelV1(extra: indexed), fillTrails)
        let v2 = trailModelV1 { trail in
            indexed(trail)
            let distance = trail.attributesByName["lengthKm"]!
            distance.name = "distance"
            distance.renamingIdentifier = "lengthKm"
            trail.properties += [makeAttribute("steps", .integer32AttributeType)]
        }
        let lines = try capturingSQLLines { _ = try open(v2) }
        // ALTER TABLE appends the new column, where a new store would put integers first.
        XCTAssertEqual(try columns(storeURL(), "ZTRAIL"), ["Z_PK", "Z_ENT", "Z_OPT", "ZDISTANCE", "ZNAME", "ZNOTES", "ZSTEPS"])
        XCTAssertTrue(lines.contains { $0.contains("ALTER TABLE ZTRAIL RENAME COLUMN ZLENGTHKM TO ZDISTANCE") }, "\(lines)")
        XCTAssertFalse(lines.contains { $0.contains("INSERT INTO ZTRAIL") }, "no row is copied")
        // The unchanged index on name stays; nothing is rebuilt.
        XCTAssertFalse(lines.contains { $0.contains("CREATE INDEX") }, "\(lines)")
        XCTAssertTrue(try indexNames(storeURL()).contains("Z_Trail_name"))
    }

    func testTablesBesideTheStoreKeepTheirIndexes() throws {
        try writeStore(trailModelV1(), fillTrails)
        let database = try SQLiteDatabase(path: storeURL().path)
        try database.executeUncached("CREATE TABLE ATRANSACTION (Z_PK INTEGER PRIMARY KEY, ZTIMESTAMP FLOAT)")
        try database.executeUncached("CREATE INDEX Z_TRANSACTION_TIMESTAMP ON ATRANSACTION (ZTIMESTAMP)")
        database.close()
        let v2 = makeModel([makeEntity("Badge")] + trailModelV1().entities)
        v2.entities[0].properties = [makeAttribute("name", .stringAttributeType)]
        let context = try open(v2)
        XCTAssertEqual(values(try all("Trail", in: context), "name"), ["Alpha", "Beta", "Gamma"])
        XCTAssertTrue(try indexNames(storeURL()).contains("Z_TRANSACTION_TIMESTAMP"))
        XCTAssertTrue(try tableNames(storeURL()).contains("ATRANSACTION"))
    }

    func testAToOneIntoARenumberedHierarchyKeepsPointingAtTheSameObjects() throws {
        // Hike keeps entity number 1 (its table is altered in place); a new sub-entity of
        // Place renumbers Camp and Hut, so Hike's entity column (Z2_PLACE) is rewritten.
        func model(cabin: Bool) -> NSManagedObjectModel {
            let hike = makeEntity("Hike")
            let place = makeEntity("Place", abstract: true)
            let camp = makeEntity("Camp"), hut = makeEntity("Hut"), extra = makeEntity("Cabin")
            place.subentities = cabin ? [extra, camp, hut] : [camp, hut]
            place.properties = [makeAttribute("name", .stringAttributeType)]
            let at = makeRelationship("place", to: place)
            let visits = makeRelationship("hikes", to: hike, toMany: true)
            makeInverses(at, visits)
            place.properties += [visits]
            hike.properties = [makeAttribute("name", .stringAttributeType), at]
            return makeModel([hike, place, camp, hut] + (cabin ? [extra] : []))
        }
        try writeStore(model(cabin: false)) { context in
            for (hikeName, entity, placeName) in [("dawn", "Hut", "Routeburn Falls Hut"), ("dusk", "Camp", "Lake Howden Camp")] {
                let place = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
                place.setValue(placeName, forKey: "name")
                let hike = NSEntityDescription.insertNewObject(forEntityName: "Hike", into: context)
                hike.setValue(hikeName, forKey: "name")
                hike.setValue(place, forKey: "place")
            }
        }
        XCTAssertEqual(try query(storeURL(), "SELECT Z2_PLACE FROM ZHIKE ORDER BY ZNAME").map { "\($0[0]!)" }, ["4", "3"])
        let lines = try capturingSQLLines { _ = try open(model(cabin: true)) }
        XCTAssertFalse(lines.contains { $0.contains("INSERT INTO ZHIKE") }, "ZHIKE is altered in place")
        XCTAssertEqual(try query(storeURL(), "SELECT Z2_PLACE FROM ZHIKE ORDER BY ZNAME").map { "\($0[0]!)" }, ["5", "4"])
        let context = try open(model(cabin: true), options: [:])
        let hikes = try all("Hike", in: context)
        XCTAssertEqual(hikes.map { ($0.value(forKey: "place") as? NSManagedObject)?.entity.name ?? "nil" }, ["Hut", "Camp"])
        XCTAssertEqual(hikes.map { ($0.value(forKey: "place") as? NSManagedObject)?.value(forKey: "name") as? String ?? "nil" },
                       ["Routeburn Falls Hut", "Lake Howden Camp"])
    }

    func testOrderedAndInverseLessToManysSurviveATableRebuild() throws {
        func model(badge: Bool) -> NSManagedObjectModel {
            let trail = makeEntity("Trail")
            let waypoint = makeEntity("Waypoint")
            let photo = makeEntity("Photo")
            let waypoints = makeRelationship("waypoints", to: waypoint, toMany: true, ordered: true)
            let onTrail = makeRelationship("trail", to: trail)
            makeInverses(waypoints, onTrail)
            let photos = makeRelationship("photos", to: photo, toMany: true)
            trail.properties = [makeAttribute("name", .stringAttributeType), waypoints, photos]
            waypoint.properties = [makeAttribute("name", .stringAttributeType), onTrail]
            photo.properties = [makeAttribute("name", .stringAttributeType)]
            let first = makeEntity("Badge")
            first.properties = [makeAttribute("name", .stringAttributeType)]
            return makeModel((badge ? [first] : []) + [trail, waypoint, photo])
        }
        try writeStore(model(badge: false)) { context in
            let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
            trail.setValue("Routeburn", forKey: "name")
            let stops = ["Divide", "Lake Mackenzie", "Harris Saddle", "Falls"].map { name -> NSManagedObject in
                let stop = NSEntityDescription.insertNewObject(forEntityName: "Waypoint", into: context)
                stop.setValue(name, forKey: "name")
                return stop
            }
            trail.setValue(NSOrderedSet(array: stops), forKey: "waypoints")
            let photos = ["ridge", "lake"].map { name -> NSManagedObject in
                let photo = NSEntityDescription.insertNewObject(forEntityName: "Photo", into: context)
                photo.setValue(name, forKey: "name")
                return photo
            }
            trail.setValue(Set(photos), forKey: "photos")
        }
        let context = try open(model(badge: true))
        let trail = try all("Trail", in: context)[0]
        let order = (trail.value(forKey: "waypoints") as? NSOrderedSet)?.array.compactMap { ($0 as? NSManagedObject)?.value(forKey: "name") as? String }
        XCTAssertEqual(order, ["Divide", "Lake Mackenzie", "Harris Saddle", "Falls"])
        let photos = (trail.value(forKey: "photos") as? Set<NSManagedObject>)?.compactMap { $0.value(forKey: "name") as? String }.sorted()
        XCTAssertEqual(photos, ["lake", "ridge"])
    }

    /// The SQL debug lines (level 1) `body` logs.
    private func capturingSQLLines(_ body: () throws -> Void) throws -> [String] {
        var lines: [String] = []
        SQLDebugLog.setLevelOverride(1)
        SQLDebugLog.setSink { lines.append($0) }
        defer {
            SQLDebugLog.setLevelOverride(nil)
            SQLDebugLog.setSink(nil)
        }
        try body()
        return lines
    }
}
