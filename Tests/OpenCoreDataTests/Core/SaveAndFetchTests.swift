import Foundation
import XCTest
@testable import OpenCoreData

/// Every attribute type survives a save and a fresh container exactly; saves are atomic.
final class SaveAndFetchTests: CoreTestCase {
    func testEveryAttributeTypeRoundTripsThroughAFreshContainer() throws {
        let writer = try openContainer()
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: writer.viewContext)
        let date = Date(timeIntervalSinceReferenceDate: 123_456_789.125)
        let id = UUID()
        let photo = Data((0..<300_000).map { UInt8($0 % 251) })
        trail.setValue("Laugavegur ✓ 火山", forKey: "name")
        trail.setValue(4.5, forKey: "rating")
        trail.setValue(photo, forKey: "photo")
        trail.setValue(["volcano", "river"], forKey: "tags")
        trail.setValue(Int32.max, forKey: "elevation")
        trail.setValue(Int16.min, forKey: "steps")
        trail.setValue(Int64.max, forKey: "visits")
        trail.setValue(Float(0.25), forKey: "grade")
        trail.setValue(Decimal(string: "19.99"), forKey: "fee")
        trail.setValue(true, forKey: "isFavorite")
        trail.setValue(date, forKey: "lastHiked")
        trail.setValue(id, forKey: "id")
        trail.setValue(URL(string: "https://example.org/laugavegur")!, forKey: "url")
        trail.setValue("not saved", forKey: "scratch")
        try writer.viewContext.save()

        let reader = try openContainer()
        let fetched = try XCTUnwrap(reader.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first)
        XCTAssertEqual(fetched.value(forKey: "name") as? String, "Laugavegur ✓ 火山")
        XCTAssertEqual(fetched.value(forKey: "rating") as? Double, 4.5)
        XCTAssertEqual(fetched.value(forKey: "photo") as? Data, photo)
        XCTAssertEqual(fetched.value(forKey: "tags") as? [String], ["volcano", "river"])
        XCTAssertEqual(fetched.value(forKey: "elevation") as? Int32, .max)
        XCTAssertEqual(fetched.value(forKey: "steps") as? Int16, .min)
        XCTAssertEqual(fetched.value(forKey: "visits") as? Int64, .max)
        XCTAssertEqual(fetched.value(forKey: "grade") as? Float, 0.25)
        XCTAssertEqual(fetched.value(forKey: "fee") as? Decimal, Decimal(string: "19.99"))
        XCTAssertEqual(fetched.value(forKey: "isFavorite") as? Bool, true)
        XCTAssertEqual(fetched.value(forKey: "lastHiked") as? Date, date)
        XCTAssertEqual(fetched.value(forKey: "id") as? UUID, id)
        XCTAssertEqual(fetched.value(forKey: "url") as? URL, URL(string: "https://example.org/laugavegur"))
        XCTAssertNil(fetched.value(forKey: "scratch"), "transient values are not saved")
    }

    func testNilValuesRoundTripAsNil() throws {
        let writer = try openContainer()
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: writer.viewContext)
        trail.setValue("Empty", forKey: "name")
        try writer.viewContext.save()
        let reader = try openContainer()
        let fetched = try XCTUnwrap(reader.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first)
        XCTAssertEqual(fetched.value(forKey: "name") as? String, "Empty", "the row was read")
        for key in ["rating", "photo", "tags", "elevation", "fee", "isFavorite", "lastHiked", "id", "url"] {
            XCTAssertNil(fetched.value(forKey: key), key)
        }
    }

    func testNumbersComeBackAsNSNumberThatCastsToAnySwiftNumber() throws {
        let context = try openContainer().viewContext
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        trail.setValue(7, forKey: "elevation")
        XCTAssertTrue(trail.value(forKey: "elevation") is NSNumber)
        XCTAssertEqual(trail.value(forKey: "elevation") as? Int, 7)
        XCTAssertEqual(trail.value(forKey: "elevation") as? Double, 7)
        trail.setValue(3, forKey: "rating")
        XCTAssertEqual(trail.value(forKey: "rating") as? Double, 3.0)
    }

    func testAFailedSaveWritesNothing() throws {
        let container = try openContainer()
        let good = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: container.viewContext)
        good.setValue("Good", forKey: "name")
        let bad = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: container.viewContext)
        bad.setValue("Bad", forKey: "name")
        bad.setValue(6.0, forKey: "rating")
        XCTAssertThrowsError(try container.viewContext.save())
        XCTAssertTrue(container.viewContext.hasChanges)
        XCTAssertEqual(try trailCount(in: openContainer()), 0, "a save that fails validation writes nothing")
        bad.setValue(5.0, forKey: "rating")
        try container.viewContext.save()
        XCTAssertEqual(try trailCount(in: openContainer()), 2)
    }

    func testFetchSortsLimitsAndSeesPendingChanges() throws {
        let context = try openContainer().viewContext
        for (name, rating) in [("b", 2.0), ("a", 4.0), ("c", 3.0)] {
            let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
            trail.setValue(name, forKey: "name")
            trail.setValue(rating, forKey: "rating")
        }
        try context.save()
        let unsaved = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        unsaved.setValue("d", forKey: "name")
        let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        XCTAssertEqual(try context.count(for: request), 4, "an unsaved insert is counted")
        request.includesPendingChanges = false
        XCTAssertEqual(try context.count(for: request), 3)
        let idRequest = NSFetchRequest<NSManagedObjectID>(entityName: "Trail")
        idRequest.resultType = .managedObjectIDResultType
        let ids = try context.fetch(idRequest)
        XCTAssertEqual(ids.count, 4)
        let counted = NSFetchRequest<NSNumber>(entityName: "Trail")
        counted.resultType = .countResultType
        XCTAssertEqual(try context.fetch(counted).first?.intValue, 4)
    }

    func testUnknownStoreModelIsRefusedWith134100() throws {
        let container = try openContainer()
        NSEntityDescription.insertNewObject(forEntityName: "Trail", into: container.viewContext).setValue("x", forKey: "name")
        try container.viewContext.save()
        let other = NSManagedObjectModel()
        let entity = NSEntityDescription()
        entity.name = "Trail"
        let name = NSAttributeDescription()
        name.name = "title"
        name.attributeType = .stringAttributeType
        entity.properties = [name]
        other.entities = [entity]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: other)
        XCTAssertThrowsError(try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL)) { error in
            XCTAssertEqual((error as NSError).domain, NSCocoaErrorDomain)
            XCTAssertEqual((error as NSError).code, NSPersistentStoreIncompatibleVersionHashError)
        }
    }

    func testInMemoryStoreKeepsNothingOnDisk() throws {
        let container = NSPersistentContainer(name: "Memory", managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: URL(fileURLWithPath: "/dev/null"))
        description.type = NSInMemoryStoreType
        container.persistentStoreDescriptions = [description]
        container.loadPersistentStores { _, error in XCTAssertNil(error) }
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: container.viewContext)
        trail.setValue("Memory", forKey: "name")
        try container.viewContext.save()
        XCTAssertEqual(try trailCount(in: container), 1)
        XCTAssertEqual(container.persistentStoreCoordinator.persistentStores.first?.type, NSInMemoryStoreType)
    }
}
