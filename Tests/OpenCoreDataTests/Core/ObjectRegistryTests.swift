import Foundation
import XCTest
@testable import OpenCoreData

/// The registry behind uniquing keeps an object only while something else holds it.
final class ObjectRegistryTests: CoreTestCase {
    private func key(_ primaryKey: Int64, in store: NSPersistentStore) -> PermanentKey {
        PermanentKey(store: store, key: StoreKey(entityNumber: 1, primaryKey: primaryKey))
    }

    private func trail() -> NSManagedObject {
        NSManagedObject(entity: model.entitiesByName["Trail"]!, insertInto: nil)
    }

    func testAnObjectOnlyTheRegistryHoldsIsGoneWhenLookedUp() throws {
        let container = try openContainer()
        let store = try XCTUnwrap(container.persistentStoreCoordinator.persistentStores.first)
        var registry = ObjectRegistry()
        var held: NSManagedObject? = trail()
        registry.insert(held!, for: key(1, in: store))
        XCTAssertTrue(registry.object(for: key(1, in: store)) === held)
        weak var released = held
        held = nil
        XCTAssertNotNil(released, "the registry still holds it")
        XCTAssertNil(registry.object(for: key(1, in: store)), "nobody else does: it counts as gone")
        XCTAssertNil(released, "and the registry let go of it")
    }

    func testASweepDropsReleasedObjectsAndKeepsHeldOnes() throws {
        let container = try openContainer()
        let store = try XCTUnwrap(container.persistentStoreCoordinator.persistentStores.first)
        var registry = ObjectRegistry()
        var kept: [NSManagedObject] = []
        weak var firstReleased: NSManagedObject?
        for primaryKey in Int64(1)...3000 {
            let object = trail()
            if primaryKey % 100 == 0 { kept.append(object) }
            if primaryKey == 1 { firstReleased = object }
            registry.insert(object, for: key(primaryKey, in: store))
        }
        // Sweeps ran as the registry grew past 1,024 and 2,048 entries.
        XCTAssertNil(firstReleased, "released objects do not wait for a lookup to be freed")
        let live = registry.liveObjects()
        XCTAssertEqual(Set(live.map(ObjectIdentifier.init)), Set(kept.map(ObjectIdentifier.init)))
        XCTAssertTrue(registry.object(for: key(200, in: store)) === kept[1])
        XCTAssertNil(registry.object(for: key(201, in: store)))
    }

    func testFetchedObjectsStayUniqueWhileHeldAndAreFetchedAnewOnceReleased() throws {
        let writer = try openContainer()
        let saved = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: writer.viewContext)
        saved.setValue("Ridge", forKey: "name")
        try writer.viewContext.save()

        let context = try openContainer().viewContext
        let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        var first: NSManagedObject? = try context.fetch(request).first
        XCTAssertTrue(try context.fetch(request).first === first, "one object per row while it is held")
        weak var released = first
        first = nil
        XCTAssertTrue(context.registeredObjects.isEmpty)
        XCTAssertNil(released)
        XCTAssertEqual(try context.fetch(request).first?.value(forKey: "name") as? String, "Ridge")
    }
}
