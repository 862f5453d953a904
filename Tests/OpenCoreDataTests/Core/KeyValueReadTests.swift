import Foundation
import XCTest

@testable import OpenCoreData

/// A Hike class whose initializer makes another object of its entity before its own
/// initialization, as a stored property's default value could.
final class InitializingHike: NSManagedObject {
    nonisolated(unsafe) static var madeInside: [NSManagedObject] = []
    required init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        Self.madeInside.append(NSManagedObject(entity: entity, insertInto: nil))
        super.init(entity: entity, insertInto: context)
    }
}

/// A Hike class whose initializer makes another object of its own class first, which
/// takes the fault hand-off (ID and context) meant for the outer one: the outer object
/// must still be made a fault of its row, in its context.
final class NestingHike: NSManagedObject {
    nonisolated(unsafe) static var isNesting = false
    nonisolated(unsafe) static var madeInside: [NSManagedObject] = []
    required init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        if !Self.isNesting {
            Self.isNesting = true
            Self.madeInside.append(NestingHike(entity: entity, insertInto: nil))
            Self.isNesting = false
        }
        super.init(entity: entity, insertInto: context)
    }
}

/// `value(forKey:)` of attributes, which reads a value of the attribute's own type where
/// its slot holds it, and fetched objects' IDs, which their faults get as they are made.
final class KeyValueReadTests: CoreTestCase {
    /// Every attribute read through `value(forKey:)` equals, in type and value, the stored
    /// value converted as key-value coding hands values out (`AttributeValues.public`).
    private func assertReadsAsPublished(_ object: NSManagedObject, file: StaticString = #filePath, line: UInt = #line) {
        for case let attribute as NSAttributeDescription in object.entity.properties where !attribute.isTransient {
            let read = object.value(forKey: attribute.name)
            let expected = object.primitiveValue(forKey: attribute.name).map { AttributeValues.public($0, for: attribute) }
            XCTAssertEqual(read.map { "\(type(of: $0))" }, expected.map { "\(type(of: $0))" }, attribute.name, file: file, line: line)
            XCTAssertEqual(read.map { "\($0)" }, expected.map { "\($0)" }, attribute.name, file: file, line: line)
        }
    }

    func testFetchedAttributesOfEveryTypeReadAsKeyValueCodingHandsThemOut() throws {
        let writer = try openContainer()
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: writer.viewContext)
        let values: [String: Any] = [
            "name": "Milford", "rating": 4.5, "tags": ["lake", "fjord"], "elevation": Int32(-12), "steps": Int16(7),
            "visits": Int64.max, "grade": Float(0.25), "fee": Decimal(string: "3.10")!, "isFavorite": true,
            "lastHiked": Date(timeIntervalSinceReferenceDate: 1000.5), "id": UUID(), "url": URL(string: "https://example.com/a")!,
            "photo": Data([1, 2, 3]),
        ]
        for (key, value) in values { trail.setValue(value, forKey: key) }
        assertReadsAsPublished(trail)
        try writer.viewContext.save()

        let reader = try openContainer()
        let fetched = try XCTUnwrap(reader.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first)
        XCTAssertTrue(fetched.isFault)
        XCTAssertEqual(fetched.value(forKey: "elevation") as? NSNumber, NSNumber(value: Int32(-12)))
        XCTAssertFalse(fetched.isFault, "reading fires the fault")
        XCTAssertEqual(fetched.value(forKey: "name") as? String, "Milford")
        XCTAssertEqual(fetched.value(forKey: "steps") as? Int16, 7)
        XCTAssertEqual(fetched.value(forKey: "visits") as? Int64, Int64.max)
        XCTAssertEqual(fetched.value(forKey: "isFavorite") as? Bool, true)
        XCTAssertEqual(fetched.value(forKey: "lastHiked") as? Date, Date(timeIntervalSinceReferenceDate: 1000.5))
        XCTAssertTrue(fetched.value(forKey: "rating") is NSNumber)
        XCTAssertNil(fetched.value(forKey: "scratch"), "a transient without a value")
        assertReadsAsPublished(fetched)
    }

    func testAValueOfAnotherTypeInASlotReadsAsBefore() throws {
        let context = try openContainer().viewContext
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        // Primitive values are stored as given, unconverted.
        trail.setPrimitiveValue(Int(5), forKey: "elevation")
        trail.setPrimitiveValue(NSNumber(value: 2.5), forKey: "rating")
        trail.setPrimitiveValue(NSString(string: "bridged"), forKey: "name")
        trail.setPrimitiveValue(Int32(9), forKey: "tags")
        XCTAssertTrue(trail.value(forKey: "elevation") is Int, "an Int in an Integer 32 attribute is handed out as it is")
        XCTAssertTrue(trail.value(forKey: "tags") is NSNumber, "a number in a transformable is boxed")
        assertReadsAsPublished(trail)
    }

    func testFetchedObjectsCarryTheirPermanentIDsAndObjectsMadeMeanwhileTemporaryOnes() throws {
        model.entitiesByName["Hike"]!.managedObjectClassName = NSStringFromClass(InitializingHike.self)
        let writer = try openContainer()
        for _ in 0..<3 { NSEntityDescription.insertNewObject(forEntityName: "Hike", into: writer.viewContext) }
        try writer.viewContext.save()
        let saved = try writer.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Hike")).map { $0.objectID.uriRepresentation() }
        InitializingHike.madeInside = []

        let reader = try openContainer()
        let hikes = try reader.viewContext.fetch(NSFetchRequest<InitializingHike>(entityName: "Hike"))
        XCTAssertEqual(hikes.map { $0.objectID.uriRepresentation() }.sorted { $0.absoluteString < $1.absoluteString },
                       saved.sorted { $0.absoluteString < $1.absoluteString })
        XCTAssertTrue(hikes.allSatisfy { !$0.objectID.isTemporaryID && $0.isFault })
        XCTAssertEqual(InitializingHike.madeInside.count, 3)
        XCTAssertTrue(InitializingHike.madeInside.allSatisfy { $0.objectID.isTemporaryID && !($0 is InitializingHike) },
                      "an object made inside a fault's initializer is not given the fault's ID")
        let id = try XCTUnwrap(reader.persistentStoreCoordinator.managedObjectID(forURIRepresentation: saved[0]))
        let other = reader.newBackgroundContext()
        let looked = try other.performAndWait { try other.existingObject(with: id).objectID }
        XCTAssertEqual(looked, id)
        XCTAssertFalse(looked.isTemporaryID)
        let inserted = InitializingHike(context: reader.viewContext)
        XCTAssertTrue(inserted.objectID.isTemporaryID, "an inserted object's ID is temporary")
        InitializingHike.madeInside = []
    }

    func testAFaultWhoseHandOffAnotherObjectTookIsStillMadeInItsContext() throws {
        model.entitiesByName["Hike"]!.managedObjectClassName = NSStringFromClass(NestingHike.self)
        let writer = try openContainer()
        let date = Date(timeIntervalSinceReferenceDate: 500)
        for _ in 0..<2 { NSEntityDescription.insertNewObject(forEntityName: "Hike", into: writer.viewContext).setValue(date, forKey: "date") }
        try writer.viewContext.save()
        NestingHike.madeInside = []

        let reader = try openContainer()
        let hikes = try reader.viewContext.fetch(NSFetchRequest<NestingHike>(entityName: "Hike"))
        XCTAssertEqual(hikes.count, 2)
        XCTAssertEqual(NestingHike.madeInside.count, 2)
        for hike in hikes {
            XCTAssertTrue(hike.isFault)
            XCTAssertFalse(hike.objectID.isTemporaryID)
            XCTAssertTrue(hike.managedObjectContext === reader.viewContext)
            XCTAssertEqual(hike.value(forKey: "date") as? Date, date, "the fault fires with its row's values")
        }
        NestingHike.madeInside = []
    }
}
