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
        XCTAssertEqual(coordinator.metadata(for: store)["lastImport"] as? String, "2026-11-26", "seen at once")
        XCTAssertEqual(coordinator.metadata(for: store)[NSStoreUUIDKey] as? String, uuid)
        // Core Data: "Sets the metadata stored in the persistent store during the next save
        // operation executed on it": the file has it only after a save.
        XCTAssertNil(try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: storeURL())["lastImport"])
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context).setValue("Delta", forKey: "name")
        try context.save()
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

    func testMigratePersistentStoreIntoMemoryCopiesRowsAndMetadataAndLeavesTheFile() throws {
        try writeStore(trailModelV1(), fillTrails)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: trailModelV1())
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL())
        coordinator.setMetadata(coordinator.metadata(for: store).merging(["seedVersion": 3]) { $1 }, for: store)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context).setValue("Delta", forKey: "name")
        try context.save()
        let memory = try coordinator.migratePersistentStore(store, to: URL(fileURLWithPath: "/dev/null"), options: nil, type: .inMemory)
        XCTAssertEqual(memory.type, NSInMemoryStoreType)
        XCTAssertEqual(coordinator.persistentStores.count, 1)
        XCTAssertTrue(coordinator.persistentStores.first === memory)
        XCTAssertEqual(coordinator.metadata(for: memory)["seedVersion"] as? Int, 3)
        XCTAssertEqual(coordinator.metadata(for: memory)[NSStoreUUIDKey] as? String, memory.identifier)
        let reader = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        reader.persistentStoreCoordinator = coordinator
        XCTAssertEqual(values(try all("Trail", in: reader), "name"), ["Alpha", "Beta", "Delta", "Gamma"])
        // Changes now go to memory only; the file keeps what it had.
        NSEntityDescription.insertNewObject(forEntityName: "Trail", into: reader).setValue("Epsilon", forKey: "name")
        try reader.save()
        XCTAssertEqual(try all("Trail", in: reader).count, 5)
        let file = try open(trailModelV1(), options: [:])
        XCTAssertEqual(values(try all("Trail", in: file), "name"), ["Alpha", "Beta", "Delta", "Gamma"])
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
