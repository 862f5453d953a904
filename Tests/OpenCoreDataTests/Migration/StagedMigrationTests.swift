import Foundation
import XCTest

@testable import OpenCoreData

/// Staged migration: a custom stage whose handler fills a new attribute from an old one,
/// then a lightweight stage that drops the old one.
final class StagedMigrationTests: MigrationTestCase {
    private func model(notes: Bool, isSteep: Bool) -> NSManagedObjectModel {
        trailModelV1 { trail in
            if !notes { trail.properties = trail.properties.filter { $0.name != "notes" } }
            if isSteep { trail.properties += [makeAttribute("isSteep", .booleanAttributeType)] }
        }
    }

    func testACustomStageThenALightweightStage() throws {
        let a = model(notes: true, isSteep: false), b = model(notes: true, isSteep: true), c = model(notes: false, isSteep: true)
        try writeStore(a) { context in
            fillTrails(context)
            try self.all("Trail", in: context)[0].setValue("a steep climb", forKey: "notes")
        }
        NSPersistentStoreCoordinator.extraSourceModels += [b]
        var seen: [String] = []
        let custom = NSCustomMigrationStage(migratingFrom: NSManagedObjectModelReference(model: a, versionChecksum: a.versionChecksum),
                                            to: NSManagedObjectModelReference(model: b, versionChecksum: b.versionChecksum))
        custom.willMigrateHandler = { manager, _ in
            seen.append("will: \(try manager.container!.viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Trail"))) trails")
        }
        custom.didMigrateHandler = { manager, _ in
            let context = manager.container!.viewContext
            for trail in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")) {
                let notes = trail.value(forKey: "notes") as? String ?? ""
                trail.setValue(notes.contains("steep"), forKey: "isSteep")
            }
            try context.save()
            seen.append("did")
        }
        let stages = NSStagedMigrationManager([custom, NSLightweightMigrationStage([b.versionChecksum, c.versionChecksum])])
        var options = migrating
        options[NSPersistentStoreStagedMigrationManagerOptionKey] = stages
        let context = try open(c, options: options)
        XCTAssertEqual(seen, ["will: 3 trails", "did"])
        XCTAssertEqual(values(try all("Trail", in: context), "isSteep"), ["1", "0", "0"])
        XCTAssertNil(stages.container)
    }

    func testAStoreOfNoStageVersionIsRefused() throws {
        let a = model(notes: true, isSteep: false), b = model(notes: true, isSteep: true)
        try writeStore(a, fillTrails)
        NSPersistentStoreCoordinator.extraSourceModels = [b]
        var options = migrating
        options[NSPersistentStoreStagedMigrationManagerOptionKey] = NSStagedMigrationManager([NSLightweightMigrationStage([b.versionChecksum])])
        let failure = try XCTUnwrap(error { _ = try open(model(notes: false, isSteep: true), options: options) })
        XCTAssertEqual(failure.code, 134504)
        XCTAssertEqual(failure.localizedDescription, "Cannot use staged migration with an unknown model version.")
    }
}
