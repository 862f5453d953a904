import Foundation
import XCTest
@testable import OpenCoreData

/// The context holds unchanged objects weakly, as Core Data does: one object per row while
/// the program holds it, gone the moment it lets go (a weak reference to it is nil at
/// once, and memory is given back without waiting for the context to look).
final class RegistryLifetimeTests: CoreTestCase {
    func testFetchedObjectsStayUniqueWhileHeldAndAreFreedOnRelease() throws {
        let writer = try openContainer()
        let saved = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: writer.viewContext)
        saved.setValue("Ridge", forKey: "name")
        try writer.viewContext.save()

        let container = try openContainer()
        let context = container.viewContext
        let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        var first: NSManagedObject? = try context.fetch(request).first
        XCTAssertTrue(try context.fetch(request).first === first, "one object per row while it is held")
        weak var released = first
        first = nil
        XCTAssertNil(released, "freed as soon as the program lets go")
        XCTAssertTrue(context.registeredObjects.isEmpty)
        XCTAssertEqual(try context.fetch(request).first?.value(forKey: "name") as? String, "Ridge")
    }

    func testAnObjectHeldOnlyByAReleasedObjectIsFreedToo() throws {
        let writer = try openContainer()
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: writer.viewContext)
        trail.setValue("Ridge", forKey: "name")
        for _ in 0..<2 {
            NSEntityDescription.insertNewObject(forEntityName: "Hike", into: writer.viewContext).setValue(trail, forKey: "trail")
        }
        try writer.viewContext.save()

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
}
