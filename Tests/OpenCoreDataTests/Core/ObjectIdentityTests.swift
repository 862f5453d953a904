import Foundation
import XCTest
@testable import OpenCoreData

/// Object IDs and their URIs, uniquing, faults and object lookup.
final class ObjectIdentityTests: CoreTestCase {
    func testTemporaryIDsBecomePermanentAtSave() throws {
        let container = try openContainer()
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: container.viewContext)
        trail.setValue("Routeburn", forKey: "name")
        XCTAssertTrue(trail.objectID.isTemporaryID)
        XCTAssertTrue(trail.objectID.uriRepresentation().absoluteString.hasPrefix("x-coredata:///Trail/t"))
        try container.viewContext.save()
        XCTAssertFalse(trail.objectID.isTemporaryID)
        let store = try XCTUnwrap(container.persistentStoreCoordinator.persistentStores.first)
        XCTAssertEqual(trail.objectID.uriRepresentation().absoluteString, "x-coredata://\(store.identifier!)/Trail/p1")
        let again = try XCTUnwrap(container.persistentStoreCoordinator.managedObjectID(forURIRepresentation: trail.objectID.uriRepresentation()))
        XCTAssertEqual(again, trail.objectID)
        XCTAssertTrue(container.viewContext.object(with: again) === trail, "one object per ID per context")
    }

    /// Sets and dictionaries hash an object by its address (as Apple's `NSObject` does for
    /// an object equal only to itself) and an ID by its row, so that IDs of one row made
    /// apart (another context, a URI) land together.
    func testObjectsHashByAddressAndEqualIDsHashAlike() throws {
        let container = try openContainer()
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: container.viewContext)
        trail.setValue("Milford", forKey: "name")
        XCTAssertEqual(trail.hash, Int(bitPattern: UInt(bitPattern: ObjectIdentifier(trail))))
        let temporary = trail.objectID
        XCTAssertEqual(temporary.hash, temporary.hash)
        try container.viewContext.save()
        let other = container.newBackgroundContext()
        let elsewhere = try other.performAndWait { try other.existingObject(with: trail.objectID).objectID }
        let fromURI = try XCTUnwrap(container.persistentStoreCoordinator.managedObjectID(forURIRepresentation: trail.objectID.uriRepresentation()))
        XCTAssertEqual(elsewhere, trail.objectID)
        XCTAssertEqual(elsewhere.hash, trail.objectID.hash)
        XCTAssertFalse(fromURI === trail.objectID, "an ID made from the URI is another instance")
        XCTAssertEqual(fromURI.hash, trail.objectID.hash)
        XCTAssertEqual(Set([trail.objectID, elsewhere, fromURI]).count, 1)
        XCTAssertNotEqual(temporary, trail.objectID, "the temporary ID is another ID")
        let second = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: container.viewContext)
        second.setValue("Kepler", forKey: "name")
        try container.viewContext.save()
        XCTAssertEqual(Set([trail.objectID, second.objectID, elsewhere]).count, 2)
    }

    func testObtainPermanentIDsBeforeSaving() throws {
        let context = try openContainer().viewContext
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        trail.setValue("Early", forKey: "name")
        try context.obtainPermanentIDs(for: [trail])
        XCTAssertFalse(trail.objectID.isTemporaryID)
        XCTAssertTrue(trail.isInserted)
        let id = trail.objectID
        try context.save()
        XCTAssertEqual(trail.objectID, id, "the ID obtained early is the one saved")
    }

    func testFetchedObjectsAreUniquedFaultsOfTheirSubclass() throws {
        let writer = try openContainer()
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: writer.viewContext)
        trail.setValue("Kalalau", forKey: "name")
        try writer.viewContext.save()

        let context = try openContainer().viewContext
        let first = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
        let second = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
        XCTAssertTrue(first[0] === second[0])
        XCTAssertTrue(first[0].isFault)
        XCTAssertTrue(first[0].description.hasSuffix("data: <fault>)"), first[0].description)
        XCTAssertTrue(first[0] is TestTrail, "the model names TestTrail, so fetches return TestTrail")
        XCTAssertEqual((first[0] as? TestTrail)?.name, "Kalalau")
        XCTAssertFalse(first[0].isFault)
    }

    func testExistingObjectThrows133000ForAMissingRow() throws {
        let container = try openContainer()
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: container.viewContext)
        trail.setValue("Gone", forKey: "name")
        try container.viewContext.save()
        let id = trail.objectID
        container.viewContext.delete(trail)
        try container.viewContext.save()
        XCTAssertThrowsError(try container.viewContext.existingObject(with: id)) { error in
            XCTAssertEqual((error as NSError).code, NSManagedObjectReferentialIntegrityError)
            XCTAssertEqual((error as NSError).localizedDescription, "Attempt to access an object not found in store.")
        }
    }

    func testAFaultWhoseRowWasDeletedElsewhereReadsAsDeleted() throws {
        let container = try openContainer()
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: container.viewContext)
        trail.setValue("Washed out", forKey: "name")
        try container.viewContext.save()
        let other = container.newBackgroundContext()
        let fault = other.object(with: trail.objectID)
        container.viewContext.delete(trail)
        try container.viewContext.save()
        other.performAndWait {
            XCTAssertNil(fault.value(forKey: "name"))
            XCTAssertTrue(fault.isDeleted)
        }
    }
}
