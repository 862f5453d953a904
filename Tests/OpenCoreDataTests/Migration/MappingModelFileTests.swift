import Foundation
import XCTest

@testable import OpenCoreData

/// Shouts `FUNCTION($entityPolicy, "shout:", …)` for the Walks mapping model file.
final class WalkPolicy: NSEntityMigrationPolicy {
    override func value(forFunction name: String, arguments: [Any?], manager: NSMigrationManager?) -> Any? {
        if name == "shout:" { return (arguments.first as? String)?.uppercased() }
        return super.value(forFunction: name, arguments: arguments, manager: manager)
    }
}

/// `.xcmappingmodel` files as Xcode's mapping model editor writes them (an `xcmapping.xml`
/// holding XDDEVMAPPINGMODEL, XDDEVENTITYMAPPING, XDDEVATTRIBUTEMAPPING and
/// XDDEVRELATIONSHIPMAPPING objects; written value expressions as keyed archives of
/// NSExpression). The fixture is written for these tests in that format: no mapping model
/// file with a license allowing reuse and written expressions was found.
final class MappingModelFileTests: MigrationTestCase {
    private var fixtures: URL { ModelFixtures.directory.deletingLastPathComponent().appendingPathComponent("mapping") }
    private func version(_ name: String) throws -> NSManagedObjectModel {
        try NSManagedObjectModel.load(contentsOf: fixtures.appendingPathComponent("Walks.xcdatamodeld/\(name).xcdatamodel"))
    }
    private var mappingURL: URL { fixtures.appendingPathComponent("Walks.xcmappingmodel") }

    func testTheFileBecomesEntityAndPropertyMappingsWithTheirExpressions() throws {
        let mapping = try XCTUnwrap(NSMappingModel(contentsOf: mappingURL))
        XCTAssertEqual(mapping.entityMappings.map(\.name), ["RegionToRegion", "WalkToWalk"])
        let region = mapping.entityMappings[0], walk = mapping.entityMappings[1]
        XCTAssertEqual(region.mappingType, .copyEntityMappingType, "Region is the same in both versions")
        XCTAssertEqual(walk.mappingType, .customEntityMappingType)
        XCTAssertEqual(walk.entityMigrationPolicyClassName, "WalkPolicy")
        XCTAssertEqual(walk.sourceEntityVersionHash, try version("Walks").entitiesByName["Walk"]?.versionHash)
        XCTAssertEqual(walk.destinationEntityVersionHash, try version("Walks 2").entitiesByName["Walk"]?.versionHash)
        let expressions = Dictionary(uniqueKeysWithValues: (walk.attributeMappings ?? []).map { ($0.name ?? "", $0.valueExpression?.description ?? "nil") })
        XCTAssertEqual(expressions["km"], "$source.km")
        XCTAssertEqual(expressions["title"], "$source.name")
        XCTAssertEqual(expressions["loudTitle"], "FUNCTION($entityPolicy, \"shout:\", $source.name)")
        XCTAssertEqual(walk.relationshipMappings?.first?.valueExpression?.description,
                       "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"RegionToRegion\", $source.region)")
    }

    func testAMigrationDrivenByTheFileRenamesFiltersAndRunsThePolicy() throws {
        NSEntityMigrationPolicy.register(WalkPolicy.self)
        let v1 = try version("Walks"), v2 = try version("Walks 2")
        try writeStore(v1) { context in
            let region = NSEntityDescription.insertNewObject(forEntityName: "Region", into: context)
            region.setValue("Highlands", forKey: "name")
            for (name, km) in [("Glen Coe", 12.0), ("Ben Nevis", 17.5), ("Unmeasured", nil)] as [(String, Double?)] {
                let walk = NSEntityDescription.insertNewObject(forEntityName: "Walk", into: context)
                walk.setValue(name, forKey: "name")
                walk.setValue(km, forKey: "km")
                walk.setValue(region, forKey: "region")
            }
        }
        let mapping = try XCTUnwrap(NSMappingModel(contentsOf: mappingURL))
        let manager = NSMigrationManager(sourceModel: v1, destinationModel: v2)
        let destination = storeURL("Walks2.sqlite")
        try manager.migrateStore(from: storeURL(), type: .sqlite, options: nil, mapping: mapping, to: destination, type: .sqlite, options: nil)
        let context = try open(v2, url: destination, options: [:])
        let walks = try all("Walk", in: context, by: "title")
        XCTAssertEqual(values(walks, "title"), ["Ben Nevis", "Glen Coe"], "the filter predicate leaves out the walk without a length")
        XCTAssertEqual(values(walks, "loudTitle"), ["BEN NEVIS", "GLEN COE"])
        XCTAssertEqual(walks.compactMap { ($0.value(forKey: "region") as? NSManagedObject)?.value(forKey: "name") as? String }, ["Highlands", "Highlands"])
    }

    func testTheFileIsFoundInABundleForItsOwnModelsOnly() throws {
        let bundle = try XCTUnwrap(Bundle(path: fixtures.path))
        let v1 = try version("Walks"), v2 = try version("Walks 2")
        let found = NSMappingModel(from: [bundle], forSourceModel: v1, destinationModel: v2)
        XCTAssertEqual(found?.entityMappings.map(\.name), ["RegionToRegion", "WalkToWalk"])
        XCTAssertNil(NSMappingModel(from: [bundle], forSourceModel: v2, destinationModel: v1))
    }

    func testAValueExpressionThatIsNotAnExpressionArchiveMakesTheFileUnreadable() throws {
        let copy = directory.appendingPathComponent("Broken.xcmappingmodel")
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        let text = try String(contentsOf: mappingURL.appendingPathComponent("xcmapping.xml"), encoding: .utf8)
        let broken = text.replacingOccurrences(of: #"(<attribute name="valueexpressiondata" type="binary">)[^<]*"#, with: "$1bm90IGFuIGFyY2hpdmU=", options: .regularExpression)
        try broken.write(to: copy.appendingPathComponent("xcmapping.xml"), atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try MappingModelFile.load(copy)) { error in
            XCTAssertTrue("\(error)".contains("the value expression of WalkToWalk.title is an archive that cannot be read"), "\(error)")
        }
        XCTAssertNil(NSMappingModel(contentsOf: copy))
    }
}
