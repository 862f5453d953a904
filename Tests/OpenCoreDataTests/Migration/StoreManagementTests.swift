import Foundation
import XCTest

@testable import OpenCoreData

/// The coordinator's store management: metadata, copying, replacing and deleting store files.
final class StoreManagementTests: MigrationTestCase {
    func testMetadataCanBeReadAndExtendedAndSurvivesAMigration() throws {
        try writeStore(trailModelV1(), fillTrails)
        XCTAssertThrowsError(try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSInMemoryStoreType, at: storeURL())) { error in
            XCTAssertEqual((error as NSError).code, NSPersistentStoreInvalidTypeError)
        }
        XCTAssertThrowsError(try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: storeURL("none.sqlite"))) { error in
            XCTAssertEqual((error as NSError).code, NSFileReadNoSuchFileError)
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: trailModelV1())
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL())
        var metadata = coordinator.metadata(for: store)
        let uuid = metadata[NSStoreUUIDKey] as? String
        metadata["lastImport"] = "2026-11-26"
        metadata[NSStoreUUIDKey] = "replaced?"
        coordinator.setMetadata(metadata, for: store)
        try coordinator.remove(store)
        var onDisk = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: storeURL())
        XCTAssertEqual(onDisk["lastImport"] as? String, "2026-11-26")
        XCTAssertEqual(onDisk[NSStoreUUIDKey] as? String, uuid)
        onDisk["seedVersion"] = 7
        try NSPersistentStoreCoordinator.setMetadata(onDisk, forPersistentStoreOfType: NSSQLiteStoreType, at: storeURL())
        _ = try open(trailModelV1 { $0.properties += [makeAttribute("region", .stringAttributeType)] })
        let migrated = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: storeURL())
        XCTAssertEqual(migrated["lastImport"] as? String, "2026-11-26")
        XCTAssertEqual(migrated["seedVersion"] as? Int, 7)
    }

    func testMigratePersistentStoreCopiesAndSwapsTheStore() throws {
        try writeStore(trailModelV1(), fillTrails)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: trailModelV1())
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL())
        let copyURL = storeURL("Backup/Copy.sqlite")
        let copy = try coordinator.migratePersistentStore(store, to: copyURL, options: nil, withType: NSSQLiteStoreType)
        XCTAssertEqual(coordinator.persistentStores.map(\.url), [copyURL])
        XCTAssertTrue(copy !== store)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        XCTAssertEqual(values(try all("Trail", in: context), "name"), ["Alpha", "Beta", "Gamma"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: storeURL().path))
        XCTAssertThrowsError(try coordinator.migratePersistentStore(copy, to: storeURL(), options: nil, type: .sqlite)) { error in
            XCTAssertEqual((error as NSError).code, NSPersistentStoreOperationError)
        }
    }

    func testReplaceAndDestroyPersistentStore() throws {
        try writeStore(trailModelV1(), fillTrails)
        let other = storeURL("Other.sqlite")
        try writeStore(trailModelV1(), url: other) { context in
            NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context).setValue("Solo", forKey: "name")
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: trailModelV1())
        try coordinator.replacePersistentStore(at: storeURL(), destinationOptions: nil, withPersistentStoreFrom: other, sourceOptions: nil, ofType: NSSQLiteStoreType)
        let replaced = try open(trailModelV1(), options: [:])
        XCTAssertEqual(values(try all("Trail", in: replaced), "name"), ["Solo"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: other.path))

        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: other)
        try coordinator.destroyPersistentStore(at: other, ofType: NSSQLiteStoreType, options: nil)
        XCTAssertFalse(coordinator.persistentStores.contains { $0 === store })
        XCTAssertFalse(FileManager.default.fileExists(atPath: other.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: other.path + "-wal"))
        try coordinator.destroyPersistentStore(at: other, ofType: NSSQLiteStoreType, options: nil)
    }
}
