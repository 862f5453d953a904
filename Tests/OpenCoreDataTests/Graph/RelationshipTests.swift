import Foundation
import XCTest
@testable import OpenCoreData

/// Every kind of relationship, its inverse kept in memory before any save, and what a
/// fresh container reads back from the store.
final class RelationshipTests: GraphTestCase {
    // MARK: One-to-many

    func testSettingTheToOneFillsTheToManyAndMovingAnObjectUpdatesAllThree() throws {
        let context = try openContainer().viewContext
        let milford = GTrail(context: context), routeburn = GTrail(context: context)
        milford.name = "Milford"; routeburn.name = "Routeburn"
        let hike = GHike(context: context)
        hike.trail = milford
        XCTAssertEqual(milford.hikes, [hike], "setting the to-one fills the inverse to-many before any save")

        hike.trail = routeburn
        XCTAssertEqual(milford.hikes, [], "the old owner loses the object")
        XCTAssertEqual(routeburn.hikes, [hike], "the new owner gains it")
        XCTAssertTrue(hike.trail === routeburn)

        routeburn.mutableSetValue(forKey: "hikes").remove(hike)
        XCTAssertNil(hike.trail, "removing the object from the set clears its to-one")
        milford.addToHikes(hike)
        XCTAssertTrue(hike.trail === milford, "a generated-style accessor sets the inverse")
    }

    func testSettingTheToManyFillsEachToOneAndTakesObjectsFromTheirOldOwner() throws {
        let context = try openContainer().viewContext
        let milford = GTrail(context: context), routeburn = GTrail(context: context)
        let first = GHike(context: context), second = GHike(context: context)
        second.trail = routeburn
        milford.setValue(Set([first, second]), forKey: "hikes")
        XCTAssertTrue(first.trail === milford)
        XCTAssertTrue(second.trail === milford)
        XCTAssertEqual(routeburn.hikes, [], "the object left its old owner's set")
        milford.setValue(NSSet(object: first), forKey: "hikes")
        XCTAssertNil(second.trail, "replacing the set clears the to-one of the objects left out")
        XCTAssertEqual(milford.value(forKey: "hikes") as? Set<GHike>, [first])
    }

    func testOneToManyRoundTripsThroughAForeignKeyColumn() throws {
        let container = try openContainer()
        let context = container.viewContext
        let trail = GTrail(context: context)
        trail.name = "Kepler"
        for index in 0..<3 {
            let hike = GHike(context: context)
            hike.note = "hike \(index)"
            trail.addToHikes(hike)
        }
        try context.save()
        XCTAssertEqual(try sql("SELECT COUNT(*) FROM ZHIKE WHERE ZTRAIL = 1").first?.first as? Int64, 3)

        let reopened = try openContainer().viewContext
        let stored: GTrail = try XCTUnwrap(fetch("Trail", in: reopened).first)
        XCTAssertTrue(stored.hasFault(forRelationshipNamed: "hikes"), "a fetched object's to-many is a relationship fault")
        XCTAssertEqual(stored.hikes.compactMap(\.note).sorted(), ["hike 0", "hike 1", "hike 2"])
        XCTAssertFalse(stored.hasFault(forRelationshipNamed: "hikes"), "reading it loads it")
        for hike in stored.hikes { XCTAssertTrue(hike.trail === stored, "the inverse comes back uniqued") }
    }

    func testMutableSetValueIsALiveProxy() throws {
        let context = try openContainer().viewContext
        let trail = GTrail(context: context)
        let proxy = trail.mutableSetValue(forKey: "hikes")
        let a = GHike(context: context), b = GHike(context: context), c = GHike(context: context)
        proxy.add(a)
        proxy.addObjects(from: [b, c])
        XCTAssertEqual(proxy.count, 3)
        XCTAssertTrue(b.trail === trail)
        c.trail = nil
        XCTAssertEqual(proxy.count, 2, "a change made on the other side shows through the proxy")
        XCTAssertFalse(proxy.contains(c))
        XCTAssertEqual(Set(proxy.allObjects.map { ObjectIdentifier($0 as AnyObject) }), Set([a, b].map(ObjectIdentifier.init)))
        var seen = 0
        for case let hike as GHike in proxy {
            XCTAssertTrue(hike.trail === trail)
            seen += 1
        }
        XCTAssertEqual(seen, 2)
        proxy.removeAllObjects()
        XCTAssertNil(a.trail)
        XCTAssertEqual(trail.hikes, [])
    }

    func testTypedPropertiesReadAndWriteRelationships() throws {
        let context = try openContainer().viewContext
        let country = GCountry(context: context)
        country.name = "New Zealand"
        XCTAssertNil(country.trails?.anyObject(), "an empty to-many reads as an empty NSSet")
        let trail = GTrail(context: context)
        country.trails = NSSet(object: trail)
        XCTAssertTrue(trail.country === country, "an NSSet assigned through @Managed sets the inverse")
        XCTAssertEqual(country.trails?.count, 1)
        trail.country = nil
        XCTAssertEqual(country.trails?.count, 0)
    }

    // MARK: Ordered

    func testOrderedRelationshipKeepsItsOrderThroughSaveAndReload() throws {
        let container = try openContainer()
        let context = container.viewContext
        let trail = GTrail(context: context)
        trail.name = "Tongariro"
        let names = ["Mangatepopo", "Soda Springs", "Red Crater", "Emerald Lakes", "Ketetahi"]
        let waypoints = names.map { name -> GWaypoint in
            let waypoint = GWaypoint(context: context)
            waypoint.name = name
            return waypoint
        }
        for waypoint in waypoints.reversed() { trail.insertIntoWaypoints(waypoint, at: 0) }
        XCTAssertTrue(waypoints[2].trail === trail, "inserting sets the inverse")
        XCTAssertEqual(waypointNames(trail), names)
        try context.save()
        // Order lives in the to-one side's Z_FOK column, 1024 apart.
        XCTAssertEqual(try columns("ZWAYPOINT"), ["Z_PK", "Z_ENT", "Z_OPT", "ZTRAIL", "Z_FOK_TRAIL", "ZNAME"])
        XCTAssertEqual(try sql("SELECT ZNAME FROM ZWAYPOINT ORDER BY Z_FOK_TRAIL").map { $0[0] as? String }, names)

        let reopened = try openContainer().viewContext
        let stored: GTrail = try XCTUnwrap(fetch("Trail", in: reopened).first)
        XCTAssertEqual(waypointNames(stored), names)

        // Reorder through the ordered-set proxy, save, and read the new order back.
        let proxy = stored.mutableOrderedSetValue(forKey: "waypoints")
        proxy.moveObjects(at: IndexSet(integer: 4), to: 0)
        proxy.exchangeObject(at: 1, withObjectAt: 2)
        stored.removeFromWaypoints(at: 3)
        XCTAssertEqual(waypointNames(stored), ["Ketetahi", "Soda Springs", "Mangatepopo", "Emerald Lakes"])
        XCTAssertEqual(proxy.count, 4, "the proxy follows changes made through another accessor")
        XCTAssertEqual((proxy.array as! [GWaypoint]).map(\.name!), ["Ketetahi", "Soda Springs", "Mangatepopo", "Emerald Lakes"])
        let dropped: GWaypoint = try XCTUnwrap(fetch("Waypoint", in: reopened).first { $0.name == "Red Crater" })
        XCTAssertNil(dropped.trail, "removing by index clears the removed object's to-one")
        reopened.delete(dropped)
        try reopened.save()

        let third = try openContainer().viewContext
        XCTAssertEqual(waypointNames(try XCTUnwrap(fetch("Trail", in: third).first as GTrail?)), ["Ketetahi", "Soda Springs", "Mangatepopo", "Emerald Lakes"])
    }

    func testSettingTheToOneOfAnOrderedRelationshipAppendsAtTheEnd() throws {
        let context = try openContainer().viewContext
        let trail = GTrail(context: context)
        let first = GWaypoint(context: context), second = GWaypoint(context: context)
        first.name = "start"; second.name = "end"
        second.trail = trail
        first.trail = trail
        XCTAssertEqual(waypointNames(trail), ["end", "start"])
        trail.replaceWaypoints(at: 0, with: first)
        XCTAssertEqual(waypointNames(trail), ["start"], "replacing with an object already present keeps one copy")
        XCTAssertNil(second.trail)
    }

    func testAnOrderedProxyFollowsRollbackAndRefresh() throws {
        let context = try openContainer().viewContext
        let trail = GTrail(context: context)
        trail.name = "Tongariro"
        for name in ["A", "B", "C"] {
            let waypoint = GWaypoint(context: context)
            waypoint.name = name
            trail.addToWaypoints(waypoint)
        }
        try context.save()
        let proxy = trail.mutableOrderedSetValue(forKey: "waypoints")
        trail.removeFromWaypoints(at: 0)
        XCTAssertEqual((proxy.array as! [GWaypoint]).map(\.name!), ["B", "C"], "iteration sees a change made elsewhere")
        context.rollback()
        XCTAssertEqual((proxy.array as! [GWaypoint]).map(\.name!), ["A", "B", "C"], "and a rollback")
        context.refresh(trail, mergeChanges: false)
        XCTAssertTrue(trail.isFault, "the proxy does not fire the fault")
        XCTAssertEqual(proxy.count, 3)
        XCTAssertEqual((proxy.array as! [GWaypoint]).map(\.name!), ["A", "B", "C"])
        proxy.removeObject(at: 1)
        XCTAssertEqual(waypointNames(trail), ["A", "C"])
    }

    private func waypointNames(_ trail: GTrail) -> [String] {
        (trail.waypoints?.array as? [GWaypoint] ?? []).map { $0.name ?? "?" }
    }

    // MARK: Many-to-many

    func testManyToManyKeepsBothSidesAndRoundTripsThroughAJoinTable() throws {
        let context = try openContainer().viewContext
        let ana = GHiker(context: context), ben = GHiker(context: context)
        ana.name = "Ana"; ben.name = "Ben"
        let morning = GHike(context: context), evening = GHike(context: context)
        morning.note = "morning"; evening.note = "evening"
        morning.mutableSetValue(forKey: "hikers").addObjects(from: [ana, ben])
        ben.mutableSetValue(forKey: "hikes").add(evening)
        XCTAssertEqual(ana.hikes, [morning])
        XCTAssertEqual(ben.hikes, [morning, evening])
        XCTAssertEqual(evening.hikers, [ben])
        try context.save()
        // Z_<n>HIKERS: named by the side with the smaller entity number (Hike, 1).
        let table = try sql("SELECT name FROM sqlite_master WHERE name LIKE 'Z\\_%HIKERS' ESCAPE '\\'").map { $0[0] as! String }
        XCTAssertEqual(table, ["Z_1HIKERS"])
        XCTAssertEqual(try sql("SELECT COUNT(*) FROM Z_1HIKERS").first?.first as? Int64, 3)

        let reopened = try openContainer().viewContext
        let hikers: [GHiker] = try fetch("Hiker", in: reopened)
        XCTAssertEqual(hikers.map { $0.hikes.compactMap(\.note).sorted() }, [["morning"], ["evening", "morning"]])
        let storedBen = hikers[1]
        let storedMorning = try XCTUnwrap(storedBen.hikes.first { $0.note == "morning" })
        storedMorning.mutableSetValue(forKey: "hikers").remove(storedBen)
        XCTAssertEqual(storedBen.hikes.compactMap(\.note), ["evening"], "removing on one side removes on the other")
        try reopened.save()
        XCTAssertEqual(try sql("SELECT COUNT(*) FROM Z_1HIKERS").first?.first as? Int64, 2)
    }

    // MARK: Self-referential

    func testSelfReferentialOneToManyAndReflexiveManyToMany() throws {
        let context = try openContainer().viewContext
        let guide = GHiker(context: context), ana = GHiker(context: context), ben = GHiker(context: context)
        guide.name = "Guide"; ana.name = "Ana"; ben.name = "Ben"
        ana.mentor = guide
        guide.mutableSetValue(forKey: "mentees").add(ben)
        XCTAssertEqual(guide.mentees, [ana, ben])
        XCTAssertTrue(ben.mentor === guide)
        // friends is its own inverse: befriending is mutual.
        ana.mutableSetValue(forKey: "friends").add(ben)
        XCTAssertEqual(ben.friends, [ana])
        try context.save()
        XCTAssertEqual(try columns("Z_2FRIENDS"), ["Z_2FRIENDS", "REFLEXIVE"])

        let reopened = try openContainer().viewContext
        let hikers: [GHiker] = try fetch("Hiker", in: reopened)
        let (storedAna, storedBen, storedGuide) = (hikers[0], hikers[1], hikers[2])
        XCTAssertEqual(names(storedGuide.mentees), ["Ana", "Ben"])
        XCTAssertTrue(storedAna.mentor === storedGuide)
        XCTAssertEqual(names(storedAna.friends), ["Ben"])
        XCTAssertEqual(names(storedBen.friends), ["Ana"])
        storedBen.mutableSetValue(forKey: "friends").remove(storedAna)
        XCTAssertEqual(storedAna.friends, [])
        try reopened.save()
        let thirdContext = try openContainer().viewContext  // objects do not keep their context alive
        let third: [GHiker] = try fetch("Hiker", in: thirdContext)
        XCTAssertEqual(third.map(\.friends.count), [0, 0, 0])
    }

    // MARK: One-to-one

    func testOneToOneTakesTheObjectFromItsPreviousOwner() throws {
        let context = try openContainer().viewContext
        let ana = GHiker(context: context), ben = GHiker(context: context)
        ana.name = "Ana"; ben.name = "Ben"
        let card = GMembershipCard(context: context)
        card.number = 7
        ana.card = card
        XCTAssertTrue(card.owner === ana)
        card.owner = ben
        XCTAssertNil(ana.card, "the previous owner lets go")
        XCTAssertTrue(ben.card === card)
        try context.save()
        let reopened = try openContainer().viewContext
        let hikers: [GHiker] = try fetch("Hiker", in: reopened)
        XCTAssertNil(hikers[0].card)
        XCTAssertEqual(hikers[1].card?.number, 7)
        XCTAssertTrue(hikers[1].card?.owner === hikers[1])
    }

    // MARK: Across an inheritance tree

    func testToOneIntoAnInheritanceTreeStoresTheDestinationEntity() throws {
        let context = try openContainer().viewContext
        let oceania = GContinent(context: context), zealand = GCountry(context: context)
        oceania.name = "Oceania"; zealand.name = "New Zealand"
        let kepler = GTrail(context: context), milford = GTrail(context: context)
        kepler.name = "Kepler"; milford.name = "Milford"
        kepler.featuredIn = oceania
        zealand.mutableSetValue(forKey: "highlights").add(milford)
        XCTAssertEqual(oceania.highlights, [kepler])
        XCTAssertTrue(milford.featuredIn === zealand, "an inherited relationship keeps its inverse")
        try context.save()
        // The to-one carries the destination's Z_ENT beside its key: Continent 5, Country 6.
        // The column is named by the destination entity's number (Region, 4), as in stores
        // Apple's Core Data writes.
        XCTAssertEqual(try columns("ZTRAIL"), ["Z_PK", "Z_ENT", "Z_OPT", "ZCOUNTRY", "ZFEATUREDIN", "Z4_FEATUREDIN", "ZNAME"])
        XCTAssertEqual(try sql("SELECT ZNAME, Z4_FEATUREDIN FROM ZTRAIL ORDER BY ZNAME").map { [$0[0] as? String, ($0[1] as? Int64).map(String.init)] }, [["Kepler", "5"], ["Milford", "6"]])

        let reopened = try openContainer().viewContext
        let trails: [GTrail] = try fetch("Trail", in: reopened)
        XCTAssertTrue(trails[0].featuredIn is GContinent)
        XCTAssertTrue(trails[1].featuredIn is GCountry)
        XCTAssertEqual(trails[1].featuredIn?.name, "New Zealand")
        XCTAssertEqual(trails[1].featuredIn?.highlights.map(\.name), ["Milford"])
    }

    // MARK: Checks and descriptions

    func testDescriptionsPrintRelationshipFaultsAndObjectIDs() throws {
        let context = try openContainer().viewContext
        let trail = GTrail(context: context), country = GCountry(context: context)
        trail.name = "Kepler"; country.name = "New Zealand"
        trail.country = country
        let hike = GHike(context: context)
        hike.trail = trail
        XCTAssertTrue(trail.description.contains("hikes =     (\n        \"0x"), trail.description)
        try context.save()

        let reopened = try openContainer().viewContext
        let stored: GTrail = try XCTUnwrap(fetch("Trail", in: reopened).first)
        _ = stored.name
        let text = stored.description
        XCTAssertTrue(text.contains("    country = \"0x"), text)
        XCTAssertTrue(text.contains("/Country/p1>\";"), text)
        XCTAssertTrue(text.contains("    hikes = \"<relationship fault: 0x"), text)
        XCTAssertTrue(text.contains(" 'hikes'>\";"), text)
        XCTAssertTrue(text.contains("    featuredIn = nil;"), text)
    }

    func testRelationshipDescriptionDefaultsAndModelFileAttributes() throws {
        let fresh = NSRelationshipDescription()
        XCTAssertEqual(fresh.maxCount, 0, "Core Data documents 0 (no limit) as the default")
        XCTAssertTrue(fresh.isToMany)
        XCTAssertEqual(fresh.deleteRule, .nullifyDeleteRule)

        let trail = try XCTUnwrap(model.entitiesByName["Trail"])
        let waypoints = try XCTUnwrap(trail.relationshipsByName["waypoints"])
        XCTAssertTrue(waypoints.isToMany && waypoints.isOrdered)
        XCTAssertEqual(waypoints.minCount, 2)
        XCTAssertEqual(waypoints.deleteRule, .cascadeDeleteRule)
        XCTAssertTrue(waypoints.inverseRelationship === model.entitiesByName["Waypoint"]?.relationshipsByName["trail"])
        XCTAssertEqual(trail.relationshipsByName["reports"]?.deleteRule, .noActionDeleteRule)
        XCTAssertEqual(model.entitiesByName["Country"]?.relationshipsByName["trails"]?.deleteRule, .denyDeleteRule)
        let hikers = try XCTUnwrap(model.entitiesByName["Hike"]?.relationshipsByName["hikers"])
        XCTAssertEqual(hikers.maxCount, 4)
        XCTAssertFalse(try XCTUnwrap(trail.relationshipsByName["country"]).isToMany)
        let country = try XCTUnwrap(model.entitiesByName["Country"])
        XCTAssertTrue(country.superentity === model.entitiesByName["Region"])
        XCTAssertNotNil(country.relationshipsByName["highlights"], "inherited relationships are listed")
        XCTAssertTrue(try XCTUnwrap(model.entitiesByName["Region"]).isAbstract)
    }
}
