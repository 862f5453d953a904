import Foundation
import XCTest

@testable import OpenCoreData

/// Answers `FUNCTION($entityPolicy, 'shout:', …)` and leaves out trails without a length.
final class ShoutingTrailPolicy: NSEntityMigrationPolicy {
    override func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        guard sInstance.value(forKey: "lengthKm") != nil else { return }
        try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
    }

    override func value(forFunction name: String, arguments: [Any?], manager: NSMigrationManager?) -> Any? {
        switch name {
        case "shout:": return (arguments.first as? String)?.uppercased()
        default: return super.value(forFunction: name, arguments: arguments, manager: manager)
        }
    }
}

/// Mapping models written in code, run object by object by NSMigrationManager.
final class CustomMigrationTests: MigrationTestCase {
    /// Version 2: `Trail { title: String; lengthMiles: Double? }`.
    private func v2() -> NSManagedObjectModel {
        let trail = makeEntity("Trail")
        let title = makeAttribute("title", .stringAttributeType)
        title.isOptional = false
        trail.properties = [title, makeAttribute("lengthMiles", .doubleAttributeType)]
        return makeModel([trail])
    }

    private func mapping(policy: String?, title: String = "FUNCTION($entityPolicy, 'shout:', $source.name)") -> NSMappingModel {
        let source = trailModelV1(), destination = v2()
        let entityMapping = NSEntityMapping()
        entityMapping.name = "TrailToTrail"
        entityMapping.mappingType = .customEntityMappingType
        entityMapping.sourceEntityName = "Trail"
        entityMapping.sourceEntityVersionHash = source.entitiesByName["Trail"]!.versionHash
        entityMapping.destinationEntityName = "Trail"
        entityMapping.destinationEntityVersionHash = destination.entitiesByName["Trail"]!.versionHash
        entityMapping.entityMigrationPolicyClassName = policy
        let titleMapping = NSPropertyMapping()
        titleMapping.name = "title"
        titleMapping.valueExpression = NSExpression(format: title)
        let miles = NSPropertyMapping()
        miles.name = "lengthMiles"
        miles.valueExpression = NSExpression(format: "multiply:by:($source.lengthKm, 0.5)")
        entityMapping.attributeMappings = [titleMapping, miles]
        let model = NSMappingModel()
        model.entityMappings = [entityMapping]
        return model
    }

    func testMigrationManagerRunsACustomPolicyIntoANewStore() throws {
        try writeStore(trailModelV1(), fillTrails)
        let manager = NSMigrationManager(sourceModel: trailModelV1(), destinationModel: v2())
        var progress: [Float] = []
        manager.progressObserver = { progress.append($0) }
        let destination = storeURL("V2.sqlite")
        try manager.migrateStore(from: storeURL(), type: .sqlite, options: nil, mapping: mapping(policy: String(reflecting: ShoutingTrailPolicy.self)),
                                 to: destination, type: .sqlite, options: nil)
        let context = try open(v2(), url: destination, options: [:])
        let trails = try all("Trail", in: context, by: "title")
        XCTAssertEqual(values(trails, "title"), ["ALPHA", "BETA"])
        XCTAssertEqual(values(trails, "lengthMiles"), ["6.25", "1.5"])
        XCTAssertEqual(progress.last, 1)
        XCTAssertEqual(progress, progress.sorted())
        XCTAssertGreaterThan(progress.count, 2)
        // The source store is untouched.
        let old = try open(trailModelV1(), options: [:])
        XCTAssertEqual(values(try all("Trail", in: old), "name"), ["Alpha", "Beta", "Gamma"])
    }

    func testARegisteredMappingModelDrivesAutomaticMigration() throws {
        try writeStore(trailModelV1(), fillTrails)
        NSEntityMigrationPolicy.register(ShoutingTrailPolicy.self)
        NSMappingModel.register(mapping(policy: "ShoutingTrailPolicy"))
        defer { NSMappingModel.unregisterAll() }
        let context = try open(v2())
        XCTAssertEqual(values(try all("Trail", in: context, by: "title"), "title"), ["ALPHA", "BETA"])
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("migrationdestination") }
        XCTAssertEqual(leftovers, [])
    }

    func testAPolicyFailureCancelsAndLeavesNothingBehind() throws {
        try writeStore(trailModelV1(), fillTrails)
        let manager = NSMigrationManager(sourceModel: trailModelV1(), destinationModel: v2())
        let destination = storeURL("V2.sqlite")
        let failure = try XCTUnwrap(error {
            try manager.migrateStore(from: storeURL(), type: .sqlite, mapping: mapping(policy: nil, title: "FUNCTION($entityPolicy, 'whisper:', $source.name)"),
                                     to: destination, type: .sqlite)
        })
        XCTAssertEqual(failure.code, NSEntityMigrationPolicyError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
        let missingPolicy = try XCTUnwrap(error {
            try manager.migrateStore(from: storeURL(), type: .sqlite, mapping: mapping(policy: "NoSuchPolicy"), to: destination, type: .sqlite)
        })
        XCTAssertEqual(missingPolicy.code, NSEntityMigrationPolicyError)
        // A mandatory title left nil fails validation at the save: 134110.
        let unnamed = try XCTUnwrap(error {
            try manager.migrateStore(from: storeURL(), type: .sqlite, mapping: mapping(policy: nil, title: "$source.notes"), to: destination, type: .sqlite)
        })
        XCTAssertEqual(unnamed.code, NSMigrationError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
    }

    func testProgressiveMigrationStepsThroughEachVersion() throws {
        // Version 1 → 2 → 3 of the fixture, one inferred step at a time.
        let bundle = ModelFixtures.url("Trailhead.xcdatamodeld")
        let versions = ModelVersions.versionURLs(in: bundle).map { try! NSManagedObjectModel.load(contentsOf: $0) }
        try writeStore(versions[0]) { context in
            let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
            trail.setValue("Alpha", forKey: "name")
            trail.setValue(8.5, forKey: "lengthKm")
        }
        var url = storeURL()
        var metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        var index = try XCTUnwrap(versions.firstIndex { $0.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) })
        while index + 1 < versions.count {
            let next = storeURL("step\(index + 1).sqlite")
            let manager = NSMigrationManager(sourceModel: versions[index], destinationModel: versions[index + 1])
            let step = try NSMappingModel.inferredMappingModel(forSourceModel: versions[index], destinationModel: versions[index + 1])
            try manager.migrateStore(from: url, type: .sqlite, mapping: step, to: next, type: .sqlite)
            url = next
            index += 1
        }
        metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        XCTAssertEqual(metadata[NSStoreModelVersionIdentifiersKey] as? [String], ["3"])
        let context = try open(try ModelFixtures.load("Trailhead.xcdatamodeld"), url: url, options: [:])
        XCTAssertEqual(values(try all("Trail", in: context), "lengthInKm"), ["8.5"])
    }

    func testTheOlderSpellingInfersAMissingMapping() throws {
        try writeStore(trailModelV1(), fillTrails)
        let v2 = trailModelV1 { $0.properties += [makeAttribute("region", .stringAttributeType)] }
        let manager = NSMigrationManager(sourceModel: trailModelV1(), destinationModel: v2)
        let destination = storeURL("V2.sqlite")
        try manager.migrateStore(from: storeURL(), sourceType: NSSQLiteStoreType, options: nil, with: nil,
                                 toDestinationURL: destination, destinationType: NSSQLiteStoreType, destinationOptions: nil)
        let context = try open(v2, url: destination, options: [:])
        XCTAssertEqual(values(try all("Trail", in: context), "name"), ["Alpha", "Beta", "Gamma"])
        XCTAssertEqual(manager.mappingModel.entityMappings.map(\.name), ["TrailToTrail"])
    }
}
