import Foundation
import XCTest
@testable import OpenCoreData

/// Objects every managed object's work retains and releases (the context, its store and
/// coordinator, its entity) are never the target of a Swift weak reference: a weak reference gives its
/// target a side table, and every retain and release of it then takes the runtime's slow
/// path (TargetHandle). Not a timing test: it reads whether the runtime made a side table.
final class SideTableTests: CoreTestCase {
    func testTheProbeSeesASideTableAWeakReferenceMakes() {
        let object = NSObject()
        XCTAssertFalse(hasSideTable(object))
        weak var weakly = object
        XCTAssertTrue(hasSideTable(object))
        XCTAssertNotNil(weakly)
    }

    func testAContextItsStoreAndCoordinatorGetNoSideTableFromWritesAndFetches() throws {
        let container = try openContainer()
        let context = container.viewContext
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        trail.setValue("Laugavegur", forKey: "name")
        try context.save()
        let fetched = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
        fetched[0].setValue(4.5, forKey: "rating")
        try context.save()
        context.delete(fetched[0])
        try context.save()
        XCTAssertTrue(trail.managedObjectContext == nil)
        let store = try XCTUnwrap(container.persistentStoreCoordinator.persistentStores.first)
        XCTAssertFalse(hasSideTable(context), "context")
        XCTAssertFalse(hasSideTable(store), "store")
        XCTAssertFalse(hasSideTable(container.persistentStoreCoordinator), "coordinator")
        XCTAssertFalse(hasSideTable(trail.entity), "entity")
    }

    /// What the handles replace still reads nil once its target is gone, as the weak
    /// references did: an object's context, an ID's store, a store's coordinator.
    func testReferencesReadNilOnceTheirTargetIsGone() throws {
        var object: NSManagedObject?
        var id: NSManagedObjectID?
        var store: NSPersistentStore?
        try {
            let container = try openContainer()
            let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: container.viewContext)
            trail.setValue("Laugavegur", forKey: "name")
            try container.viewContext.save()
            XCTAssertTrue(trail.managedObjectContext === container.viewContext)
            XCTAssertNotNil(trail.objectID.persistentStore)
            object = trail
            id = trail.objectID
            store = container.persistentStoreCoordinator.persistentStores.first
        }()
        XCTAssertNil(object?.managedObjectContext, "the context is gone")
        XCTAssertNil(store?.persistentStoreCoordinator, "the coordinator is gone")
        store = nil
        XCTAssertNil(id?.persistentStore, "the store is gone")
        XCTAssertEqual(object?.entity.properties.first?.entity === object?.entity, true)
    }

    /// `isStored(in:)` tells an ID's store by its handle (a save checks it per object
    /// without taking a reference to the store): true only for the ID's own store, false
    /// for a temporary ID and for another store.
    func testAnIDTellsItsStoreByItsHandle() throws {
        let container = try openContainer()
        let coordinator = container.persistentStoreCoordinator
        let store = try XCTUnwrap(coordinator.persistentStores.first)
        let other = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: container.viewContext)
        trail.setValue("Laugavegur", forKey: "name")
        XCTAssertFalse(trail.objectID.isStored(in: store), "a temporary ID")
        try container.viewContext.save()
        XCTAssertTrue(trail.objectID.persistentStore === store)
        XCTAssertTrue(trail.objectID.isStored(in: store))
        XCTAssertFalse(trail.objectID.isStored(in: other))
    }
}

/// Whether the Swift runtime gave `object` a side table. Reads the reference-count word that
/// follows the object's metadata pointer: on 64-bit platforms its two top bits (UseSlowRC
/// and SideTableMark, swift/RefCount.h) are both set when the word points at a side table.
func hasSideTable(_ object: AnyObject) -> Bool {
    let word = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
        .load(fromByteOffset: MemoryLayout<UInt>.size, as: UInt64.self)
    return word >> 62 == 0b11
}
