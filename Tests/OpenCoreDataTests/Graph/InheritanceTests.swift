import Foundation
import XCTest
@testable import OpenCoreData

/// Sub-entities and abstract entities: one table per tree told apart by Z_ENT, parent
/// fetches that return sub-entity instances, inherited properties, subclass chains.
final class InheritanceTests: GraphTestCase {
    private func seedRegions(in context: NSManagedObjectContext) throws {
        let europe = GContinent(context: context)
        europe.name = "Europe"
        for (name, code) in [("Iceland", "IS"), ("Norway", "NO")] {
            let country = GCountry(context: context)
            country.name = name
            country.code = code
            country.continent = europe
        }
        try context.save()
    }

    func testEveryEntityOfATreeLivesInTheRootTableToldApartByZENT() throws {
        try seedRegions(in: try openContainer().viewContext)
        XCTAssertEqual(try sql("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z%' AND name NOT LIKE 'Z\\_%' ESCAPE '\\' ORDER BY name").map { $0[0] as! String },
                       ["ZHIKE", "ZHIKER", "ZMEMBERSHIPCARD", "ZREGION", "ZREPORT", "ZTRAIL", "ZWAYPOINT"])
        XCTAssertEqual(try columns("ZREGION"), ["Z_PK", "Z_ENT", "Z_OPT", "ZCONTINENT", "ZCODE", "ZNAME"])
        let rows = try sql("SELECT Z_ENT, ZNAME, ZCODE FROM ZREGION ORDER BY Z_PK")
        XCTAssertEqual(rows.map { $0[0] as? Int64 }, [5, 6, 6], "Continent is 5, Country 6")
        XCTAssertEqual(rows.map { $0[1] as? String }, ["Europe", "Iceland", "Norway"])
        XCTAssertEqual(try sql("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT BETWEEN 4 AND 6").map { "\($0[0]!) \($0[1]!) \($0[2]!)" },
                       ["4 Region 0", "5 Continent 4", "6 Country 4"])
    }

    func testFetchingTheParentReturnsSubEntityInstancesOfTheirClasses() throws {
        try seedRegions(in: try openContainer().viewContext)
        let context = try openContainer().viewContext
        let regions: [GRegion] = try fetch("Region", in: context)
        XCTAssertEqual(regions.map { $0.entity.name }, ["Continent", "Country", "Country"])
        XCTAssertTrue(regions[0] is GContinent)
        XCTAssertTrue(regions[1] is GCountry)
        XCTAssertEqual(regions.map(\.name), ["Europe", "Iceland", "Norway"], "an inherited attribute through the parent class's @Managed property")
        XCTAssertEqual((regions[2] as? GCountry)?.continent?.name, "Europe")

        let onlyParent = NSFetchRequest<NSManagedObject>(entityName: "Region")
        onlyParent.includesSubentities = false
        XCTAssertEqual(try context.count(for: onlyParent), 0, "an abstract entity has no instances of its own")
        XCTAssertTrue(NSFetchRequest<NSManagedObject>(entityName: "Region").includesSubentities, "true by default")

        let countries = NSFetchRequest<GCountry>(entityName: "Country")
        countries.predicate = NSPredicate(format: "continent.name == %@ AND name BEGINSWITH %@", "Europe", "N")
        XCTAssertEqual(try context.fetch(countries).map(\.code), ["NO"])
        let byName = NSFetchRequest<GRegion>(entityName: "Region")
        byName.predicate = NSPredicate(format: "name == %@", "Iceland")
        XCTAssertTrue(try context.fetch(byName).first is GCountry, "a predicate on an inherited attribute")
    }

    func testPendingInsertsOfSubEntitiesAppearInParentFetches() throws {
        let context = try openContainer().viewContext
        let asia = GContinent(context: context)
        asia.name = "Asia"
        let nepal = GCountry(context: context)
        nepal.name = "Nepal"
        let all = try context.fetch(NSFetchRequest<GRegion>(entityName: "Region"))
        XCTAssertEqual(Set(all.map(ObjectIdentifier.init)), Set([asia, nepal].map(ObjectIdentifier.init)))
        let onlyParent = NSFetchRequest<NSManagedObject>(entityName: "Region")
        onlyParent.includesSubentities = false
        XCTAssertEqual(try context.fetch(onlyParent).count, 0)
    }

    func testSubEntitiesHaveTheirParentsPropertiesAndTheirOwn() throws {
        let country = try XCTUnwrap(model.entitiesByName["Country"])
        XCTAssertEqual(country.properties.map(\.name), ["name", "highlights", "code", "continent", "trails"], "inherited first, in model order")
        XCTAssertNil(model.entitiesByName["Continent"]?.propertiesByName["code"])
        XCTAssertTrue(country.isKindOf(entity: try XCTUnwrap(model.entitiesByName["Region"])))
        XCTAssertEqual(model.entitiesByName["Region"]?.subentities.map(\.name), ["Continent", "Country"])
        XCTAssertTrue(ManagedObjectClasses.objectClass(for: country) == GCountry.self)
    }

    func testAKeyOnlyASiblingHasIsUnknown() throws {
        let context = try openContainer().viewContext
        let continent = GContinent(context: context)
        XCTAssertNil(continent.entity.propertiesByName["code"])
        XCTAssertTrue(continent.entity.relationshipsByName["countries"]?.inverseRelationship?.entity === model.entitiesByName["Country"])
    }
}
