import Foundation
import XCTest

@testable import OpenCoreData

/// Versioned models: every version of an `.xcdatamodeld` can be found from a store's metadata.
final class ModelVersionTests: MigrationTestCase {
    private var bundle: URL { ModelFixtures.url("Trailhead.xcdatamodeld") }

    func testTheCurrentVersionIsTheOneXccurrentversionNames() throws {
        let model = try ModelFixtures.load("Trailhead.xcdatamodeld")
        XCTAssertEqual(model.versionIdentifiers, ["3"])
        XCTAssertEqual(model.siblingVersions.map { $0.versionIdentifiers.first as? String }, ["1", "2", "3"])
    }

    func testMergedModelForStoreMetadataFindsTheVersionThatWroteTheStore() throws {
        let v1 = try NSManagedObjectModel.load(contentsOf: bundle.appendingPathComponent("Trailhead.xcdatamodel"))
        try writeStore(v1) { context in NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context).setValue("Alpha", forKey: "name") }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: storeURL())
        XCTAssertEqual(metadata[NSStoreModelVersionIdentifiersKey] as? [String], ["1"])
        let found = try XCTUnwrap(ModelVersions.compatibleModel(in: [bundle], metadata: metadata))
        XCTAssertEqual(found.versionIdentifiers, ["1"])
        let current = try ModelFixtures.load("Trailhead.xcdatamodeld")
        XCTAssertFalse(current.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        XCTAssertTrue(v1.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        XCTAssertNil(NSManagedObjectModel.mergedModel(from: [Bundle(path: directory.path)!], forStoreMetadata: metadata))
        try FileManager.default.copyItem(at: bundle, to: directory.appendingPathComponent("Trailhead.xcdatamodeld"))
        XCTAssertEqual(NSManagedObjectModel.mergedModel(from: [Bundle(path: directory.path)!], forStoreMetadata: metadata)?.versionIdentifiers, ["1"])
    }

    func testAStoreOfVersionOneMigratesToTheCurrentVersionThroughVersionTwosRenames() throws {
        // Version 1 → 3 in one step: 3 renames version 2's names, so what version 1 called
        // lengthKm is not found (Core Data matches renaming identifiers one step back).
        let v1 = try NSManagedObjectModel.load(contentsOf: bundle.appendingPathComponent("Trailhead.xcdatamodel"))
        try writeStore(v1) { context in
            let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
            trail.setValue("Alpha", forKey: "name")
            trail.setValue(8.5, forKey: "lengthKm")
        }
        let v2 = try NSManagedObjectModel.load(contentsOf: bundle.appendingPathComponent("Trailhead 2.xcdatamodel"))
        let context2 = try open(v2)
        XCTAssertEqual(values(try all("Trail", in: context2), "distance"), ["8.5"])
        XCTAssertEqual(values(try all("Trail", in: context2), "rating"), ["3.0"])
        context2.persistentStoreCoordinator.map { coordinator in coordinator.persistentStores.forEach { try? coordinator.remove($0) } }
        let current = try ModelFixtures.load("Trailhead.xcdatamodeld")
        let context3 = try open(current)
        XCTAssertEqual(values(try all("Trail", in: context3), "lengthInKm"), ["8.5"])
    }

    func testVersionHashModifierForcesAMigration() throws {
        try writeStore(trailModelV1(), fillTrails)
        let v2 = trailModelV1 { trail in trail.attributesByName["notes"]!.versionHashModifier = "plain text now" }
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: storeURL())
        XCTAssertFalse(v2.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        let context = try open(v2)
        XCTAssertEqual(values(try all("Trail", in: context), "notes"), ["steep", "flat", "nil"])
        let after = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: storeURL())
        XCTAssertEqual(after[NSStoreUUIDKey] as? String, metadata[NSStoreUUIDKey] as? String)
        XCTAssertTrue(trailModelV1 { trail in trail.attributesByName["notes"]!.versionHashModifier = "plain text now" }.isConfiguration(withName: nil, compatibleWithStoreMetadata: after))
    }
}
