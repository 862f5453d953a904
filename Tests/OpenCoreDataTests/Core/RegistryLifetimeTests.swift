import Foundation
import XCTest
@testable import OpenCoreData

/// The context does not own unchanged objects, as Core Data does not: one object per row
/// while the program holds it, gone the moment it lets go (a weak reference to it is nil at
/// once, and memory is given back without waiting for the context to look). The registry
/// holds unretained entries that objects remove as they are freed (ObjectRegistry), so
/// these tests also release objects on other threads, after a reset and after the context.
final class RegistryLifetimeTests: CoreTestCase {
    func testFetchedObjectsStayUniqueWhileHeldAndAreFreedOnRelease() throws {
        try saveTrails(1)
        let container = try openContainer()
        let context = container.viewContext
        let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        var first: NSManagedObject? = try context.fetch(request).first
        XCTAssertTrue(try context.fetch(request).first === first, "one object per row while it is held")
        weak var released = first
        first = nil
        XCTAssertNil(released, "freed as soon as the program lets go")
        XCTAssertTrue(context.registeredObjects.isEmpty)
        XCTAssertEqual(try context.fetch(request).first?.value(forKey: "name") as? String, "Trail 0")
    }

    func testAnObjectHeldOnlyByAReleasedObjectIsFreedToo() throws {
        try saveTrails(1, hikesEach: 2)
        let container = try openContainer()
        let context = container.viewContext
        weak var hike: NSManagedObject?
        try {
            let hikes = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Hike"))
            let trail = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))[0]
            XCTAssertEqual((trail.value(forKey: "hikes") as? Set<NSManagedObject>)?.count, 2)
            hike = hikes[0]
        }()
        XCTAssertNil(hike)
        XCTAssertTrue(context.registeredObjects.isEmpty)
    }

    func testObjectsReleasedOnAnotherThreadWhileTheContextLooksThemUp() throws {
        let uris = try saveTrails(500)
        let container = try openContainer()
        let context = container.viewContext
        let ids = uris.map { container.persistentStoreCoordinator.managedObjectID(forURIRepresentation: $0)! }
        // Each object lingers in its deinit, still registered, so that lookups meet objects
        // that are being freed: the registry must not hand those out.
        TestTrail.deinitPause = 100
        defer { TestTrail.deinitPause = 0 }
        var found = 0
        for round in 0..<3 {
            // The only references are in `held`, which another thread empties in random order.
            var held: [NSManagedObject]? = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
            XCTAssertEqual(held?.count, ids.count)
            let released = DispatchSemaphore(value: 0)
            let box = UncheckedBox(held!.shuffled())
            held = nil
            DispatchQueue.global().async {
                while !box.value.isEmpty { box.value.removeLast() }
                released.signal()
            }
            while released.wait(timeout: .now()) == .timedOut {
                for id in ids.shuffled().prefix(50) {
                    // Either the live object of that very row, or nothing: never one being freed.
                    guard let object = context.registeredObject(for: id) else { continue }
                    XCTAssertEqual(object.objectID, id, "round \(round)")
                    XCTAssertFalse((object as! TestTrail).isBeingFreed, "round \(round): handed out an object being freed")
                    found += 1
                }
            }
            XCTAssertTrue(context.registeredObjects.isEmpty, "round \(round): every object left as it was freed")
        }
        XCTAssertGreaterThan(found, 0, "the lookups ran while objects were still alive")
    }

    func testObjectsOutliveAResetAndTheirContext() throws {
        let uris = try saveTrails(3)
        var container: NSPersistentContainer? = try openContainer()
        var kept = try container!.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
        container!.viewContext.reset()
        XCTAssertTrue(kept.allSatisfy { $0.managedObjectContext == nil })
        XCTAssertTrue(container!.viewContext.registeredObjects.isEmpty)
        kept.removeAll()

        weak var context: NSManagedObjectContext?
        try {
            context = container!.viewContext
            kept = try container!.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
        }()
        XCTAssertEqual(kept.count, uris.count)
        container = nil
        XCTAssertNil(context, "the context is gone; its objects are not")
        XCTAssertTrue(kept.allSatisfy { $0.managedObjectContext == nil })
        // Freeing the objects after their context must not touch freed memory.
        kept.removeAll()
    }
}

/// Hands a value to another thread in a test that knows only one thread uses it at a time.
private final class UncheckedBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
