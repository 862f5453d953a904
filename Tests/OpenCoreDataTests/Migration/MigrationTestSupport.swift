import Foundation
import XCTest

@testable import OpenCoreData

/// A store file per test, written with one model and opened with another.
class MigrationTestCase: StoreTestCase {
    /// Automatic lightweight migration, as `NSPersistentStoreDescription` asks for it.
    let migrating: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]

    override func tearDownWithError() throws {
        NSPersistentStoreCoordinator.extraSourceModels = []
        try super.tearDownWithError()
    }

    /// Writes a store with `model`, filled by `fill`, and closes it. Automatic migration
    /// finds `model` as a source, as it finds an app's earlier model versions.
    func writeStore(_ model: NSManagedObjectModel, url: URL? = nil, _ fill: (NSManagedObjectContext) throws -> Void) throws {
        NSPersistentStoreCoordinator.extraSourceModels.append(model)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url ?? storeURL())
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try fill(context)
        try context.save()
        context.reset()
        try coordinator.remove(store)
    }

    /// Opens the store with `model`, migrating with `options`; returns a context on it.
    func open(_ model: NSManagedObjectModel, url: URL? = nil, options: [AnyHashable: Any]? = nil) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url ?? storeURL(), options: options ?? migrating)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Every object of `entity`, sorted by `key`.
    func all(_ entity: String, in context: NSManagedObjectContext, by key: String = "name") throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)]
        return try context.fetch(request)
    }

    /// `key` of each object, `nil` shown as `"nil"`.
    func values(_ objects: [NSManagedObject], _ key: String) -> [String] {
        objects.map { object in object.value(forKey: key).map { "\($0)" } ?? "nil" }
    }

    /// The error `body` throws, failing the test when it throws none.
    func error(file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void) -> NSError? {
        do {
            try body()
            XCTFail("expected an error", file: file, line: line)
            return nil
        } catch {
            return error as NSError
        }
    }
}

/// The Trail model of the matrix, version 1: `Trail { name; lengthKm: Double?; notes: String? }`.
func trailModelV1(extra: (NSEntityDescription) -> Void = { _ in }) -> NSManagedObjectModel {
    let trail = makeEntity("Trail")
    let name = makeAttribute("name", .stringAttributeType)
    name.isOptional = false
    trail.properties = [name, makeAttribute("lengthKm", .doubleAttributeType), makeAttribute("notes", .stringAttributeType)]
    extra(trail)
    return makeModel([trail])
}

/// Three trails, one of them without length or notes.
func fillTrails(_ context: NSManagedObjectContext) {
    for (name, length, notes) in [("Alpha", 12.5, "steep"), ("Beta", 3.0, "flat")] as [(String, Double, String)] {
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        trail.setValue(name, forKey: "name")
        trail.setValue(length, forKey: "lengthKm")
        trail.setValue(notes, forKey: "notes")
    }
    let bare = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
    bare.setValue("Gamma", forKey: "name")
}
