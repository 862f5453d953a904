import Foundation
import XCTest
@testable import OpenCoreData

/// The coordinator's file-level methods with a registered incremental store type
/// (``JSONFileStore``): metadata read and written by the store class, a migration to and
/// from SQLite that copies every object, and replacing and destroying store files.
final class IncrementalStoreFileTests: CoreTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        NSPersistentStoreCoordinator.registerStoreClass(JSONFileStore.self, forStoreType: JSONFileStore.type)
    }

    private func open(_ file: String, type: String) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Trails", managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: directory.appendingPathComponent(file))
        description.type = type
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    /// Saves two trails, the first with two hikes, into a new store of `type`.
    private func seed(_ file: String, type: String) throws {
        let context = try open(file, type: type).viewContext
        for (name, hikes) in [("Tongariro", 2), ("Routeburn", 0)] {
            let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
            trail.setValue(name, forKey: "name")
            trail.setValue(4.5, forKey: "rating")
            for day in 0..<hikes {
                let hike = NSEntityDescription.insertNewObject(forEntityName: "Hike", into: context)
                hike.setValue(Date(timeIntervalSinceReferenceDate: Double(day) * 86_400), forKey: "date")
                hike.setValue(trail, forKey: "trail")
            }
        }
        try context.save()
    }

    /// Each trail's name with its number of hikes, sorted by name.
    private func trails(in context: NSManagedObjectContext) throws -> [String] {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        return try context.fetch(request).map { trail in
            "\(trail.value(forKey: "name") as? String ?? "?") \((trail.value(forKey: "hikes") as? Set<NSManagedObject>)?.count ?? -1)"
        }
    }

    func testTheStoreClassReadsAndWritesItsFilesMetadata() throws {
        try seed("Trails.json", type: JSONFileStore.type)
        let url = directory.appendingPathComponent("Trails.json")
        let before = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: JSONFileStore.type, at: url)
        XCTAssertEqual(before[NSStoreTypeKey] as? String, JSONFileStore.type)
        let uuid = try XCTUnwrap(before[NSStoreUUIDKey] as? String)

        try NSPersistentStoreCoordinator.setMetadata(["lastImport": "2026-11-26", NSStoreUUIDKey: "not mine"],
                                                     forPersistentStoreOfType: JSONFileStore.type, at: url)
        let after = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: JSONFileStore.type, at: url)
        XCTAssertEqual(after["lastImport"] as? String, "2026-11-26")
        XCTAssertEqual(after[NSStoreUUIDKey] as? String, uuid, "the UUID stays the store's")
        let store = try XCTUnwrap(open("Trails.json", type: JSONFileStore.type).persistentStoreCoordinator.persistentStores.first)
        XCTAssertEqual(store.metadata?["lastImport"] as? String, "2026-11-26", "the added store reads the key too")
        XCTAssertEqual(try trails(in: open("Trails.json", type: JSONFileStore.type).viewContext), ["Routeburn 0", "Tongariro 2"],
                       "writing metadata leaves the objects alone")

        XCTAssertThrowsError(try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: "Unregistered", at: url)) { error in
            XCTAssertEqual((error as NSError).code, NSPersistentStoreInvalidTypeError)
        }
    }

    /// A store class that does not override the file-metadata class methods gets an error
    /// naming the method, not a trap and not SQLite's answer for a file it cannot read.
    func testAStoreClassWithoutFileMethodsSaysWhichMethodIsMissing() throws {
        final class NoFileMethodsStore: NSIncrementalStore {}
        NSPersistentStoreCoordinator.registerStoreClass(NoFileMethodsStore.self, forStoreType: "NoFileMethods")
        defer { NSPersistentStoreCoordinator.registerStoreClass(nil, forStoreType: "NoFileMethods") }
        let url = directory.appendingPathComponent("Anything.store")
        XCTAssertThrowsError(try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: "NoFileMethods", at: url)) { error in
            XCTAssertEqual((error as NSError).code, NSPersistentStoreOperationError)
            XCTAssertTrue((error as NSError).localizedDescription.contains("does not override metadataForPersistentStore(with:)"),
                          (error as NSError).localizedDescription)
        }
        XCTAssertThrowsError(try NSPersistentStoreCoordinator.setMetadata([:], forPersistentStoreOfType: "NoFileMethods", at: url)) { error in
            XCTAssertTrue((error as NSError).localizedDescription.contains("setMetadata(_:forPersistentStoreAt:)"))
        }
    }

    func testMigratingBetweenTheIncrementalStoreAndSQLiteCopiesEveryObject() throws {
        try seed("Trails.json", type: JSONFileStore.type)
        let container = try open("Trails.json", type: JSONFileStore.type)
        let coordinator = container.persistentStoreCoordinator
        let json = try XCTUnwrap(coordinator.persistentStores.first)

        let sqliteURL = directory.appendingPathComponent("Trails.sqlite")
        let sqlite = try coordinator.migratePersistentStore(json, to: sqliteURL, options: nil, type: .sqlite)
        XCTAssertEqual(sqlite.type, NSSQLiteStoreType)
        XCTAssertEqual(coordinator.persistentStores.map(\.type), [NSSQLiteStoreType], "the copy replaced the JSON store")
        XCTAssertEqual(try trails(in: container.viewContext), ["Routeburn 0", "Tongariro 2"])
        XCTAssertEqual(try trails(in: open("Trails.sqlite", type: NSSQLiteStoreType).viewContext), ["Routeburn 0", "Tongariro 2"])

        let backURL = directory.appendingPathComponent("Back.json")
        _ = try coordinator.migratePersistentStore(sqlite, to: backURL, options: nil, withType: JSONFileStore.type)
        XCTAssertTrue(coordinator.persistentStores.first is JSONFileStore)
        XCTAssertEqual(try trails(in: open("Back.json", type: JSONFileStore.type).viewContext), ["Routeburn 0", "Tongariro 2"])
        XCTAssertEqual(try trails(in: open("Trails.json", type: JSONFileStore.type).viewContext), ["Routeburn 0", "Tongariro 2"],
                       "the original file stays")

        XCTAssertThrowsError(try coordinator.migratePersistentStore(try XCTUnwrap(coordinator.persistentStores.first), to: sqliteURL,
                                                                    options: nil, type: .sqlite)) { error in
            XCTAssertEqual((error as NSError).code, NSPersistentStoreOperationError, "a file is already there")
        }
        XCTAssertEqual(coordinator.persistentStores.count, 1, "a failed migration keeps the store")
    }

    func testReplacingAndDestroyingAnIncrementalStoresFile() throws {
        try seed("Source.json", type: JSONFileStore.type)
        try seed("Target.json", type: JSONFileStore.type)
        let target = try open("Target.json", type: JSONFileStore.type).viewContext
        let extra = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: target)
        extra.setValue("Kepler", forKey: "name")
        try target.save()

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let source = directory.appendingPathComponent("Source.json"), destination = directory.appendingPathComponent("Target.json")
        try coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: source, ofType: JSONFileStore.type)
        XCTAssertEqual(try trails(in: open("Target.json", type: JSONFileStore.type).viewContext), ["Routeburn 0", "Tongariro 2"],
                       "the target now holds the source's objects, not Kepler")

        try coordinator.destroyPersistentStore(at: destination, ofType: JSONFileStore.type)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: source.path))
    }
}
