import Foundation
import XCTest
@testable import OpenCoreData

/// changedValuesForCurrentEvent(), objectIDs(forRelationshipNamed:) and the set-mutation
/// change notifications custom to-many accessors send.
final class CurrentEventTests: TrackingTestCase {
    func testChangedValuesForCurrentEventHoldsTheOldValuesUntilTheEventEnds() throws {
        let trail = try savedTrail("Routeburn")
        trail.setValue(3.0, forKey: "rating")
        trail.setValue(4.0, forKey: "rating")
        trail.setValue("Routeburn Track", forKey: "name")
        let current = trail.changedValuesForCurrentEvent()
        XCTAssertEqual(Set(current.keys), ["rating", "name"])
        XCTAssertTrue(current["rating"] is NSNull, "the value before the event: none")
        XCTAssertEqual(current["name"] as? String, "Routeburn")
        XCTAssertEqual(trail.changedValues()["rating"] as? Double, 4.0, "changedValues() holds the new values")

        context.processPendingChanges()
        XCTAssertTrue(trail.changedValuesForCurrentEvent().isEmpty, "a new event has begun")
        trail.setValue(5.0, forKey: "rating")
        XCTAssertEqual(trail.changedValuesForCurrentEvent()["rating"] as? Double, 4.0)
        XCTAssertEqual(Set(trail.changedValues().keys), ["rating", "name"], "changedValues() covers everything since the save")
    }

    func testAValueSetBackToItsOldValueIsNotAChangeOfTheEvent() throws {
        let trail = try savedTrail("Kepler")
        trail.setValue(2.0, forKey: "rating")
        trail.setValue(nil, forKey: "rating")
        XCTAssertTrue(trail.changedValuesForCurrentEvent().isEmpty)
        XCTAssertTrue(newTrail("New").changedValuesForCurrentEvent().isEmpty, "an insertion is not a change of values")
    }

    func testObjectIDsForRelationshipNamedDoesNotFireTheRelationshipFault() throws {
        let trail = try savedTrail("Milford", hikes: 3)
        let hikeIDs = Set((trail.value(forKey: "hikes") as! Set<NSManagedObject>).map(\.objectID))
        let hike = (trail.value(forKey: "hikes") as! Set<NSManagedObject>).first!
        context.reset()

        let fault = context.object(with: trail.objectID)
        XCTAssertTrue(fault.hasFault(forRelationshipNamed: "hikes"))
        XCTAssertEqual(Set(fault.objectIDs(forRelationshipNamed: "hikes")), hikeIDs)
        XCTAssertTrue(fault.hasFault(forRelationshipNamed: "hikes"), "the relationship is still a fault")
        XCTAssertEqual(context.registeredObjects.count, 1, "no object was registered for the IDs")

        let hikeFault = context.object(with: hike.objectID)
        XCTAssertEqual(hikeFault.objectIDs(forRelationshipNamed: "trail"), [trail.objectID])
        XCTAssertTrue(hikeFault.hasFault(forRelationshipNamed: "trail"))

        let unsaved = newTrail("Unsaved")
        let newHike = newHike(on: unsaved)
        XCTAssertEqual(unsaved.objectIDs(forRelationshipNamed: "hikes"), [newHike.objectID])
    }

    func testSetMutationNotificationsAroundAPrimitiveChangeMaintainTheInverse() throws {
        let trail = try savedTrail("Heaphy", hikes: 1)
        let old = (trail.value(forKey: "hikes") as! Set<NSManagedObject>).first!
        let added = newHike(on: nil)
        try context.save()
        let recorder = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, from: context)

        // What a hand-written addToHikes(_:) does with primitive values.
        trail.willChangeValue(forKey: "hikes", withSetMutation: .union, using: [added])
        var hikes = trail.primitiveValue(forKey: "hikes") as! Set<NSManagedObject>
        hikes.insert(added)
        trail.setPrimitiveValue(hikes, forKey: "hikes")
        trail.didChangeValue(forKey: "hikes", withSetMutation: .union, using: [added])
        XCTAssertTrue(added.value(forKey: "trail") as AnyObject? === trail, "the inverse follows")
        XCTAssertEqual(trail.changedValuesForCurrentEvent()["hikes"] as? Set<NSManagedObject>, [old])

        trail.willChangeValue(forKey: "hikes", withSetMutation: .minus, using: [old])
        trail.setPrimitiveValue((trail.primitiveValue(forKey: "hikes") as! Set<NSManagedObject>).subtracting([old]), forKey: "hikes")
        trail.didChangeValue(forKey: "hikes", withSetMutation: .minus, using: [old])
        XCTAssertNil(old.value(forKey: "trail"))

        context.processPendingChanges()
        XCTAssertEqual(recorder.objects(NSUpdatedObjectsKey), [trail, added, old])
        XCTAssertEqual(NSKeyValueSetMutationKind.union.rawValue, 1)
        XCTAssertEqual(NSKeyValueSetMutationKind.set.rawValue, 4)
    }
}
