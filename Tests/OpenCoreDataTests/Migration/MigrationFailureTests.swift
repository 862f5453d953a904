import Foundation
import XCTest

@testable import OpenCoreData

/// Each way a migration fails, with Core Data's error, and the old store left intact:
/// it still opens with the old model and holds the same rows.
final class MigrationFailureTests: MigrationTestCase {
    /// The store opens with version 1 and holds the three trails of `fillTrails`.
    private func assertStoreIntact(file: StaticString = #filePath, line: UInt = #line) throws {
        let context = try open(trailModelV1(), options: [:])
        XCTAssertEqual(values(try all("Trail", in: context), "notes"), ["steep", "flat", "nil"], file: file, line: line)
        XCTAssertEqual(values(try all("Trail", in: context), "lengthKm"), ["12.5", "3.0", "nil"], file: file, line: line)
    }

    func testMandatoryWithoutDefaultFailsWith134110NamingEntityAndAttribute() throws {
        try writeStore(trailModelV1(), fillTrails)
        let v2 = trailModelV1 { trail in
            trail.attributesByName["notes"]!.isOptional = false
            trail.properties += [makeAttribute("region", .stringAttributeType)]
        }
        let error = try XCTUnwrap(error { _ = try open(v2) })
        XCTAssertEqual(error.code, NSMigrationError)
        XCTAssertEqual(error.localizedDescription, "An error occurred during persistent store migration.")
        XCTAssertEqual(error.userInfo["reason"] as? String, "Cannot migrate store in-place: Validation error missing attribute values on mandatory destination attribute")
        XCTAssertEqual(error.userInfo["sourceURL"] as? URL, storeURL())
        let inner = try XCTUnwrap(error.userInfo[NSUnderlyingErrorKey] as? NSError)
        XCTAssertEqual(inner.code, NSMigrationError)
        XCTAssertEqual(inner.userInfo["entity"] as? String, "Trail")
        XCTAssertEqual(inner.userInfo["attribute"] as? String, "notes")
        try assertStoreIntact()
    }

    func testTypeChangeThatCannotBeInferredIs134140AndLeavesTheStore() throws {
        try writeStore(trailModelV1(), fillTrails)
        let v2 = trailModelV1 { trail in trail.attributesByName["notes"]!.attributeType = .dateAttributeType }
        let error = try XCTUnwrap(error { _ = try open(v2) })
        XCTAssertEqual(error.code, NSMigrationMissingMappingModelError)
        XCTAssertEqual(error.localizedDescription, "Persistent store migration failed, missing mapping model.")
        XCTAssertEqual(error.userInfo["reason"] as? String, "Can't find or automatically infer mapping model for migration")
        let inner = try XCTUnwrap(error.userInfo[NSUnderlyingErrorKey] as? NSError)
        XCTAssertEqual(inner.code, NSInferredMappingModelError)
        XCTAssertEqual(inner.userInfo["property"] as? String, "notes")
        try assertStoreIntact()
    }

    func testInferenceTurnedOffIs134140() throws {
        try writeStore(trailModelV1(), fillTrails)
        let v2 = trailModelV1 { trail in trail.properties += [makeAttribute("region", .stringAttributeType)] }
        let error = try XCTUnwrap(error { _ = try open(v2, options: [NSMigratePersistentStoresAutomaticallyOption: true]) })
        XCTAssertEqual(error.code, NSMigrationMissingMappingModelError)
        try assertStoreIntact()
    }

    func testMigrationTurnedOffIs134100() throws {
        try writeStore(trailModelV1(), fillTrails)
        let v2 = trailModelV1 { trail in trail.properties += [makeAttribute("region", .stringAttributeType)] }
        let error = try XCTUnwrap(error { _ = try open(v2, options: [:]) })
        XCTAssertEqual(error.code, NSPersistentStoreIncompatibleVersionHashError)
        try assertStoreIntact()
    }

    func testNoModelForTheStoreIs134130() throws {
        let other = makeEntity("Stranger")
        other.properties = [makeAttribute("name", .stringAttributeType)]
        try writeStore(makeModel([other])) { context in
            NSEntityDescription.insertNewObject(forEntityName: "Stranger", into: context).setValue("x", forKey: "name")
        }
        NSPersistentStoreCoordinator.extraSourceModels = []
        let error = try XCTUnwrap(error { _ = try open(trailModelV1()) })
        XCTAssertEqual(error.code, NSMigrationMissingSourceModelError)
        XCTAssertEqual(error.userInfo["reason"] as? String, "Can't find model for source store")
        XCTAssertNotNil(error.userInfo["metadata"] as? [String: Any])
    }

    func testAFailureHalfwayThroughRollsEverythingBack() throws {
        // Rebuilt tables and a failing check in one migration: the entity renumbering
        // rebuilds ZTRAIL before the mandatory check fails.
        try writeStore(trailModelV1(), fillTrails)
        let badge = makeEntity("Badge")
        badge.properties = [makeAttribute("name", .stringAttributeType)]
        let v2 = trailModelV1 { trail in trail.attributesByName["notes"]!.isOptional = false }
        v2.entities = [badge] + v2.entities
        let error = try XCTUnwrap(error { _ = try open(v2) })
        XCTAssertEqual(error.code, NSMigrationError)
        XCTAssertEqual(try tableNames(storeURL()).filter { !$0.hasPrefix("Z_") && !$0.hasPrefix("sqlite") }, ["ZTRAIL"])
        try assertStoreIntact()
    }

    func testAReadOnlyStoreIsNotMigrated() throws {
        try writeStore(trailModelV1(), fillTrails)
        let v2 = trailModelV1 { trail in trail.properties += [makeAttribute("region", .stringAttributeType)] }
        var options = migrating
        options[NSReadOnlyPersistentStoreOption] = true
        let error = try XCTUnwrap(error { _ = try open(v2, options: options) })
        XCTAssertEqual(error.code, NSPersistentStoreIncompatibleVersionHashError)
        try assertStoreIntact()
    }

    func testAStoreMigratedMeanwhileIsLeftAsItIs() throws {
        try writeStore(trailModelV1(), fillTrails)
        let v2 = { trailModelV1 { trail in trail.properties += [makeAttribute("region", .stringAttributeType)] } }
        let plan = try XCTUnwrap(SQLiteMigrationPlan(mapping: try NSMappingModel.inferredMappingModel(forSourceModel: trailModelV1(), destinationModel: v2()),
                                                     source: trailModelV1(), destination: v2(), configurationName: nil))
        try SQLiteStoreMigration(url: storeURL(), plan: plan, configurationName: nil).run()
        // A second run, as from a process that read the old metadata before the first committed.
        try SQLiteStoreMigration(url: storeURL(), plan: plan, configurationName: nil).run()
        let context = try open(v2(), options: [:])
        XCTAssertEqual(values(try all("Trail", in: context), "region"), ["nil", "nil", "nil"])
    }
}
