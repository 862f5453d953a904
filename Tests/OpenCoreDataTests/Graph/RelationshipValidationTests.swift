import Foundation
import XCTest
@testable import OpenCoreData

/// Relationship rules checked at save: a missing mandatory to-one (1570), too few (1580)
/// or too many (1590) objects in a to-many, and several broken rules at once (1560).
final class RelationshipValidationTests: GraphTestCase {
    private func waypoint(_ name: String, on trail: GTrail?, in context: NSManagedObjectContext) -> GWaypoint {
        let waypoint = GWaypoint(context: context)
        waypoint.name = name
        waypoint.trail = trail
        return waypoint
    }

    func testAMandatoryToOneMissingIs1570() throws {
        let context = try openContainer().viewContext
        let orphan = waypoint("Nowhere", on: nil, in: context)
        XCTAssertThrowsError(try context.save()) { error in
            let error = error as NSError
            XCTAssertEqual(error.code, NSValidationMissingMandatoryPropertyError)
            XCTAssertEqual(error.userInfo[NSValidationKeyErrorKey] as? String, "trail")
            XCTAssertTrue(error.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === orphan)
            XCTAssertEqual(error.localizedDescription, "trail is a required value.")
        }
    }

    func testTooFewObjectsIs1580AndNoneAtAllIsFineWhenOptional() throws {
        let context = try openContainer().viewContext
        let trail = GTrail(context: context)
        trail.name = "Short"
        try context.save()  // no waypoints: optional, so the minimum does not apply
        _ = waypoint("Only one", on: trail, in: context)
        XCTAssertThrowsError(try context.save()) { error in
            let error = error as NSError
            XCTAssertEqual(error.code, NSValidationRelationshipLacksMinimumCountError)
            XCTAssertEqual(error.userInfo[NSValidationKeyErrorKey] as? String, "waypoints")
            XCTAssertTrue(error.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === trail)
            XCTAssertEqual((error.userInfo[NSValidationValueErrorKey] as? NSOrderedSet)?.count, 1)
        }
        _ = waypoint("Second", on: trail, in: context)
        try context.save()
    }

    func testTooManyObjectsIs1590() throws {
        let context = try openContainer().viewContext
        let hike = GHike(context: context)
        let hikers = (0..<5).map { index -> GHiker in
            let hiker = GHiker(context: context)
            hiker.name = "Hiker \(index)"
            return hiker
        }
        hike.mutableSetValue(forKey: "hikers").addObjects(from: hikers)
        XCTAssertThrowsError(try context.save()) { error in
            let error = error as NSError
            XCTAssertEqual(error.code, NSValidationRelationshipExceedsMaximumCountError)
            XCTAssertEqual(error.userInfo[NSValidationKeyErrorKey] as? String, "hikers")
        }
        hike.mutableSetValue(forKey: "hikers").remove(hikers[0])
        try context.save()
    }

    func testSeveralBrokenRulesInOneSaveAre1560WithEachError() throws {
        let context = try openContainer().viewContext
        let trail = GTrail(context: context)
        trail.name = "Broken"
        _ = waypoint("Lonely", on: trail, in: context)
        _ = waypoint("Lost", on: nil, in: context)
        let unnamed = GTrail(context: context)
        _ = unnamed
        XCTAssertThrowsError(try context.save()) { error in
            let error = error as NSError
            XCTAssertEqual(error.code, NSValidationMultipleErrorsError)
            let details = (error.userInfo[NSDetailedErrorsKey] as? [NSError]) ?? []
            XCTAssertEqual(details.map(\.code).sorted(), [1570, 1570, 1580])
            XCTAssertEqual(Set(details.compactMap { $0.userInfo[NSValidationKeyErrorKey] as? String }), ["name", "trail", "waypoints"])
        }
    }

    func testAReferenceToAnObjectDeletedBeforeItWasSavedIsADanglingReference() throws {
        let context = try openContainer().viewContext
        let trail = GTrail(context: context)
        trail.name = "Kepler"
        try context.save()
        let country = GCountry(context: context)
        country.name = "Nowhere"
        trail.country = country
        // Country.trails is Deny, so deleting the unsaved country leaves trail.country alone.
        context.delete(country)
        XCTAssertTrue(trail.country === country)
        XCTAssertNil(country.managedObjectContext)
        XCTAssertThrowsError(try context.save()) { error in
            let error = error as NSError
            XCTAssertEqual(error.code, NSManagedObjectValidationError)
            XCTAssertEqual(error.localizedDescription, "Dangling reference to an invalid object.")
            XCTAssertEqual(error.userInfo[NSValidationKeyErrorKey] as? String, "country")
            XCTAssertTrue(error.userInfo[NSValidationValueErrorKey] as? NSManagedObject === country)
        }
        trail.country = nil
        try context.save()
    }

    func testDeletedObjectsDoNotCountAndAreNotValidated() throws {
        let context = try openContainer().viewContext
        let trail = GTrail(context: context)
        trail.name = "Pair"
        let first = waypoint("A", on: trail, in: context), second = waypoint("B", on: trail, in: context)
        _ = first
        try context.save()
        context.delete(second)
        XCTAssertThrowsError(try context.save(), "one waypoint left is too few") { error in
            XCTAssertEqual((error as NSError).code, NSValidationRelationshipLacksMinimumCountError)
        }
    }
}
