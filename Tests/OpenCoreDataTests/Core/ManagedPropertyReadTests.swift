import Foundation
import XCTest
@testable import OpenCoreData

/// Reading through `@Managed` properties, as Core Data's `@NSManaged` accessors read: the
/// stored value between willAccessValue(forKey:) and didAccessValue(forKey:), faults fired
/// on first access, each type as declared.
final class ManagedPropertyReadTests: CoreTestCase {
    private func saveTypedTrail() throws {
        let writer = try openContainer()
        let trail = TestTrail(context: writer.viewContext)
        trail.name = "Routeburn"
        trail.rating = 4.5
        trail.elevation = 1255
        trail.isFavorite = true
        trail.fee = Decimal(string: "12.50")
        try writer.viewContext.save()
    }

    func testTypedGettersFireTheFaultAndReturnTheSavedValues() throws {
        try saveTypedTrail()
        let context = try openContainer().viewContext
        let trail = try XCTUnwrap(context.fetch(NSFetchRequest<TestTrail>(entityName: "Trail")).first)
        XCTAssertTrue(trail.isFault, "a fetch returns faults by default here: the row is cached, not yet in the object")
        trail.recordsAccess = true
        XCTAssertEqual(trail.elevation, 1255)
        XCTAssertFalse(trail.isFault, "reading a typed property fires the fault")
        XCTAssertEqual(trail.name, "Routeburn")
        XCTAssertEqual(trail.rating, 4.5)
        XCTAssertTrue(trail.isFavorite)
        XCTAssertEqual(trail.fee, Decimal(string: "12.50"))
        XCTAssertNil(trail.lastHiked, "an optional without a value reads as nil")
        XCTAssertEqual(trail.accessedKeys, ["elevation", "name", "rating", "isFavorite", "fee", "lastHiked"],
                       "each getter announces its key once, as @NSManaged accessors call willAccessValueForKey:")
        XCTAssertFalse(context.hasChanges, "reading changes nothing")
    }

    func testTypedGettersSeeUnsavedValuesAndZeroForMissingScalars() throws {
        let context = try openContainer().viewContext
        let trail = TestTrail(context: context)
        XCTAssertEqual(trail.rating, 0, "a scalar without a value reads as zero")
        XCTAssertFalse(trail.isFavorite, "a Boolean without a value reads as false")
        trail.setValue(NSNumber(value: 812), forKey: "elevation")
        XCTAssertEqual(trail.elevation, 812, "a number set through key-value coding reads back typed")
        trail.setValue(3, forKey: "rating")
        XCTAssertEqual(trail.rating, 3.0)
    }

    func testTypedGettersOfARefreshedObjectReadTheStoreAgain() throws {
        try saveTypedTrail()
        let container = try openContainer()
        let trail = try XCTUnwrap(container.viewContext.fetch(NSFetchRequest<TestTrail>(entityName: "Trail")).first)
        XCTAssertEqual(trail.elevation, 1255)
        let other = container.newBackgroundContext()
        try other.performAndWait {
            let same = try XCTUnwrap(other.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first)
            same.setValue(1300, forKey: "elevation")
            try other.save()
        }
        XCTAssertEqual(trail.elevation, 1255, "the context keeps its snapshot until refreshed")
        container.viewContext.refresh(trail, mergeChanges: false)
        XCTAssertEqual(trail.elevation, 1300, "a refreshed object reads the saved row")
    }
}
