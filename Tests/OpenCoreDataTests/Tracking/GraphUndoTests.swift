import Foundation
import XCTest
@testable import OpenCoreData

/// Undo and redo across the relationship kinds of the Graph model: ordered to-many,
/// many-to-many and one-to-one, saved to the store in between.
final class GraphUndoTests: GraphTestCase {
    func testOrderedManyToManyAndOneToOneChangesAreUndoneAndRedone() throws {
        let container = try openContainer()
        let context = container.viewContext
        let trail = GTrail(context: context)
        trail.name = "Routeburn"
        let names = ["Divide", "Key Summit", "Harris Saddle"]
        let waypoints = names.map { name -> GWaypoint in
            let waypoint = GWaypoint(context: context)
            waypoint.name = name
            trail.addToWaypoints(waypoint)
            return waypoint
        }
        let ana = GHiker(context: context), ben = GHiker(context: context)
        ana.name = "Ana"; ben.name = "Ben"
        let hike = GHike(context: context)
        hike.trail = trail
        let card = GMembershipCard(context: context)
        card.owner = ana
        try context.save()

        let undoManager = UndoManager()
        context.undoManager = undoManager
        func waypointNames() -> [String] { (trail.waypoints?.array as! [GWaypoint]).map { $0.name! } }

        undoManager.beginUndoGrouping()
        trail.mutableOrderedSetValue(forKey: "waypoints").moveObjects(at: IndexSet(integer: 2), to: 0)
        context.delete(waypoints[1])  // a waypoint needs its trail: removed means deleted
        hike.mutableSetValue(forKey: "hikers").add(ana)
        ben.mutableSetValue(forKey: "hikes").add(hike)
        card.owner = ben
        undoManager.endUndoGrouping()
        XCTAssertEqual(waypointNames(), ["Harris Saddle", "Divide"])
        XCTAssertTrue(waypoints[1].isDeleted)
        XCTAssertNil(waypoints[1].trail)
        XCTAssertNil(ana.card)

        context.undo()
        XCTAssertEqual(waypointNames(), names, "the order comes back too")
        XCTAssertFalse(waypoints[1].isDeleted)
        XCTAssertTrue(waypoints[1].trail === trail)
        XCTAssertEqual(hike.hikers, [])
        XCTAssertEqual(ana.hikes, [])
        XCTAssertEqual(ben.hikes, [])
        XCTAssertTrue(card.owner === ana && ana.card === card && ben.card == nil)

        context.redo()
        XCTAssertEqual(waypointNames(), ["Harris Saddle", "Divide"])
        XCTAssertEqual(hike.hikers, [ana, ben])
        XCTAssertEqual(ana.hikes, [hike])
        XCTAssertTrue(ben.card === card && ana.card == nil)
        try context.save()

        // What was saved is what the redo left.
        let reader = try openContainer().viewContext
        let stored = try fetch("Trail", in: reader, as: GTrail.self)[0]
        XCTAssertEqual((stored.waypoints?.array as! [GWaypoint]).map { $0.name! }, ["Harris Saddle", "Divide"])
        XCTAssertEqual(Set(try fetch("Hike", in: reader, sortedBy: "note", as: GHike.self)[0].hikers.map { $0.name! }), ["Ana", "Ben"])
    }

    func testUndoingACascadeAcrossSeveralEntitiesAfterSaving() throws {
        let container = try openContainer()
        let context = container.viewContext
        let trail = GTrail(context: context)
        trail.name = "Kepler"
        let hikes = (0..<3).map { index -> GHike in
            let hike = GHike(context: context)
            hike.note = "day \(index)"
            hike.trail = trail
            return hike
        }
        try context.save()
        let undoManager = UndoManager()
        context.undoManager = undoManager
        undoManager.beginUndoGrouping()
        context.delete(trail)
        undoManager.endUndoGrouping()
        try context.save()
        XCTAssertEqual(try count("Hike", in: context), 0)

        context.undo()  // the deletion was saved: the objects come back as inserts
        XCTAssertEqual(context.insertedObjects, Set(hikes + [trail]))
        try context.save()
        let reader = try openContainer().viewContext
        let stored = try fetch("Trail", in: reader, as: GTrail.self)
        XCTAssertEqual(stored.map { $0.name! }, ["Kepler"])
        XCTAssertEqual(Set(stored[0].hikes.map { $0.note! }), ["day 0", "day 1", "day 2"])
        XCTAssertEqual(stored[0].objectID, trail.objectID, "the same permanent ID as before")
    }
}
