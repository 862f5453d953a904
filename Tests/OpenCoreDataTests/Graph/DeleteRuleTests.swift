import Foundation
import XCTest
@testable import OpenCoreData

/// Nullify, cascade, deny and no action: applied when the context processes the deletion,
/// through chains and cycles, and what a fresh container finds afterwards.
final class DeleteRuleTests: GraphTestCase {
    /// A saved trail with two hikes (one with two hikers), three waypoints and a report.
    @discardableResult
    private func seed(in context: NSManagedObjectContext) throws -> GTrail {
        let trail = GTrail(context: context)
        trail.name = "Kepler"
        let ana = GHiker(context: context), ben = GHiker(context: context)
        ana.name = "Ana"; ben.name = "Ben"
        for note in ["day one", "day two"] {
            let hike = GHike(context: context)
            hike.note = note
            hike.trail = trail
        }
        trail.hikes.first { $0.note == "day one" }!.mutableSetValue(forKey: "hikers").addObjects(from: [ana, ben])
        for name in ["Car park", "Luxmore Hut", "Iris Burn"] {
            let waypoint = GWaypoint(context: context)
            waypoint.name = name
            trail.addToWaypoints(waypoint)
        }
        let report = GReport(context: context)
        report.text = "Slips after rain"
        report.trail = trail
        try context.save()
        return trail
    }

    // MARK: Nullify

    func testNullifyRemovesTheDeletedObjectFromEveryInverseWhenProcessed() throws {
        let context = try openContainer().viewContext
        let trail = try seed(in: context)
        let hike = trail.hikes.first { $0.note == "day one" }!
        let hikers = hike.hikers
        context.delete(hike)
        XCTAssertTrue(hike.isDeleted)
        XCTAssertTrue(context.deletedObjects.contains(hike))
        XCTAssertTrue(trail.hikes.contains(hike), "the rules have not run yet")
        context.processPendingChanges()
        XCTAssertFalse(trail.hikes.contains(hike), "nullify: the trail lets go")
        for hiker in hikers { XCTAssertEqual(hiker.hikes, [], "nullify through a many-to-many") }
        XCTAssertNil(hike.trail, "the deleted object's own side is torn down too")
        XCTAssertEqual(hike.hikers, [])
        XCTAssertTrue(trail.isUpdated)
        try context.save()

        let reopened = try openContainer().viewContext
        let storedTrail: GTrail = try XCTUnwrap(fetch("Trail", in: reopened).first)
        XCTAssertEqual(storedTrail.hikes.compactMap(\.note), ["day two"])
        XCTAssertEqual(try fetch("Hiker", in: reopened, as: GHiker.self).map(\.hikes.count), [0, 0])
        XCTAssertEqual(try sql("SELECT COUNT(*) FROM Z_1HIKERS").first?.first as? Int64, 0, "join rows of the deleted hike are gone")
    }

    // MARK: Cascade

    func testCascadeDeletesTheDestinationsAndTheirOwnRulesRun() throws {
        let context = try openContainer().viewContext
        let trail = try seed(in: context)
        let hikes = trail.hikes
        let waypoints = trail.waypoints!.array as! [GWaypoint]
        let report = trail.reports.first!
        context.delete(trail)
        context.processPendingChanges()
        for hike in hikes { XCTAssertTrue(hike.isDeleted, "cascade to the hikes") }
        for waypoint in waypoints { XCTAssertTrue(waypoint.isDeleted, "cascade through an ordered relationship") }
        XCTAssertEqual(context.deletedObjects.count, 1 + 2 + 3)
        let hikers: [GHiker] = try fetch("Hiker", in: context)
        XCTAssertEqual(hikers.map(\.hikes.count), [0, 0], "the cascaded hikes' nullify rules ran too")
        XCTAssertFalse(report.isDeleted, "no action does not delete")
        XCTAssertTrue(report.trail === trail, "no action leaves the reference in place")
        XCTAssertEqual(GTrail.preparedForDeletion, 1, "prepareForDeletion ran once")
        try context.save()

        let reopened = try openContainer().viewContext
        XCTAssertEqual(try count("Trail", in: reopened), 0)
        XCTAssertEqual(try count("Hike", in: reopened), 0)
        XCTAssertEqual(try count("Waypoint", in: reopened), 0)
        XCTAssertEqual(try count("Hiker", in: reopened), 2)
        XCTAssertEqual(try count("Report", in: reopened), 1)
    }

    func testCascadeThroughACycleEndsAndDeletesEveryObjectOnce() throws {
        let container = try openCodeModelContainer()
        let context = container.viewContext
        // A ring: each segment's next is the following one, the last's next the first.
        let segments = (0..<5).map { index -> NSManagedObject in
            let segment = NSEntityDescription.insertNewObject(forEntityName: "Segment", into: context)
            segment.setValue("s\(index)", forKey: "name")
            return segment
        }
        for (index, segment) in segments.enumerated() { segment.setValue(segments[(index + 1) % 5], forKey: "next") }
        XCTAssertTrue(segments[0].value(forKey: "previous") as? NSManagedObject === segments[4], "the inverse closes the ring")
        try context.save()
        context.delete(segments[2])
        context.processPendingChanges()
        XCTAssertEqual(context.deletedObjects.count, 5, "cascading both ways round the ring reaches everything once")
        try context.save()
        XCTAssertEqual(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Segment")), 0)
    }

    func testCascadeUpAndDownATreeFromALeafDeletesTheWholeTree() throws {
        let container = try openCodeModelContainer()
        let context = container.viewContext
        func node(_ name: String, parent: NSManagedObject?) -> NSManagedObject {
            let node = NSEntityDescription.insertNewObject(forEntityName: "Node", into: context)
            node.setValue(name, forKey: "name")
            node.setValue(parent, forKey: "parent")
            return node
        }
        let root = node("root", parent: nil)
        let left = node("left", parent: root), right = node("right", parent: root)
        let leaf = node("leaf", parent: left)
        _ = node("other leaf", parent: right)
        try context.save()
        context.delete(leaf)
        try context.save()
        XCTAssertEqual(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Node")), 0)
        XCTAssertEqual(try openCodeModelContainer().viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Node")), 0)
    }

    func testLongCascadeChainsNeitherRecurseNorLoop() throws {
        let container = try openCodeModelContainer()
        let context = container.viewContext
        func chain(_ length: Int) -> [NSManagedObject] {
            var previous: NSManagedObject?
            return (0..<length).map { index in
                let segment = NSEntityDescription.insertNewObject(forEntityName: "Segment", into: context)
                segment.setValue("c\(index)", forKey: "name")
                segment.setValue(previous, forKey: "previous")
                previous = segment
                return segment
            }
        }
        let unsaved = chain(10_000)
        context.delete(unsaved[5_000])
        XCTAssertFalse(context.hasChanges, "a chain of unsaved objects goes away entirely, at once")
        XCTAssertTrue(unsaved.allSatisfy { $0.managedObjectContext == nil })

        let saved = chain(5_000)
        try context.save()
        context.delete(saved[0])
        try context.save()
        XCTAssertEqual(try openCodeModelContainer().viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Segment")), 0)
    }

    // MARK: Deny

    func testDenyFailsTheSaveWith1600WhileTheRelationshipHoldsObjects() throws {
        let context = try openContainer().viewContext
        let country = GCountry(context: context)
        country.name = "New Zealand"
        let kepler = GTrail(context: context), milford = GTrail(context: context)
        kepler.name = "Kepler"; milford.name = "Milford"
        kepler.country = country; milford.country = country
        try context.save()

        context.delete(country)
        context.processPendingChanges()
        XCTAssertTrue(kepler.country === country, "deny leaves the relationship alone")
        XCTAssertThrowsError(try context.save()) { error in
            let error = error as NSError
            XCTAssertEqual(error.domain, NSCocoaErrorDomain)
            XCTAssertEqual(error.code, NSValidationRelationshipDeniedDeleteError)
            XCTAssertEqual(error.userInfo[NSValidationKeyErrorKey] as? String, "trails")
            XCTAssertTrue(error.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === country)
        }
        XCTAssertEqual(try count("Region", in: try openContainer().viewContext), 1, "nothing was written")

        kepler.country = nil
        milford.country = nil
        try context.save()
        XCTAssertEqual(try count("Region", in: try openContainer().viewContext), 0)
    }

    func testPrepareForDeletionRemovesTheCountryWithItsLastTrail() throws {
        let context = try openContainer().viewContext
        let country = GCountry(context: context)
        country.name = "Iceland"
        let laugavegur = GTrail(context: context), fimmvorduhals = GTrail(context: context)
        laugavegur.name = "Laugavegur"; fimmvorduhals.name = "Fimmvörðuháls"
        laugavegur.country = country; fimmvorduhals.country = country
        try context.save()

        context.delete(fimmvorduhals)
        try context.save()
        XCTAssertFalse(country.isDeleted, "another trail is left")
        context.delete(laugavegur)
        try context.save()
        XCTAssertNil(country.managedObjectContext, "the country went with its last trail")
        let reopened = try openContainer().viewContext
        XCTAssertEqual(try count("Country", in: reopened), 0)
        XCTAssertEqual(try count("Trail", in: reopened), 0)
    }

    // MARK: No action

    func testNoActionLeavesADanglingReferenceThatReadsAsDeleted() throws {
        let context = try openContainer().viewContext
        let trail = try seed(in: context)
        let report = trail.reports.first!
        context.delete(trail)
        try context.save()
        XCTAssertTrue(report.trail === trail, "the report still points at the deleted trail")
        let trailKey = try sql("SELECT ZTRAIL FROM ZREPORT").first?.first as? Int64
        XCTAssertEqual(trailKey, 1, "the store keeps the foreign key of a row that is gone")
        XCTAssertEqual(try sql("SELECT COUNT(*) FROM ZTRAIL").first?.first as? Int64, 0)

        let reopened = try openContainer().viewContext
        let storedReport: GReport = try XCTUnwrap(fetch("Report", in: reopened, sortedBy: "text").first)
        let dangling = try XCTUnwrap(storedReport.trail, "the reference comes back as a fault")
        XCTAssertTrue(dangling.isFault)
        XCTAssertNil(dangling.name, "an inaccessible fault reads as nil (shouldDeleteInaccessibleFaults)")
        XCTAssertTrue(dangling.isDeleted)
        XCTAssertTrue(reopened.deletedObjects.contains(dangling))
        XCTAssertThrowsError(try reopened.existingObject(with: dangling.objectID)) { error in
            XCTAssertEqual((error as NSError).code, NSManagedObjectReferentialIntegrityError)
        }
        try reopened.save()
        XCTAssertFalse(reopened.hasChanges, "the save discarded the inaccessible object")
    }

    // MARK: Unsaved objects

    func testDeletingAnUnsavedObjectAppliesItsRulesAtOnce() throws {
        let context = try openContainer().viewContext
        let trail = GTrail(context: context)
        let hike = GHike(context: context), waypoint = GWaypoint(context: context)
        hike.trail = trail
        waypoint.trail = trail
        let report = GReport(context: context)
        report.trail = trail
        context.delete(trail)
        XCTAssertNil(hike.managedObjectContext, "cascade")
        XCTAssertNil(waypoint.managedObjectContext, "cascade")
        XCTAssertTrue(report.trail === trail, "no action")
        XCTAssertEqual(context.insertedObjects, [report])
    }

    // MARK: A model built in code

    /// `Segment` (next and previous, both cascading, inverses of each other) and `Node`
    /// (parent and children, both cascading).
    private func openCodeModelContainer() throws -> NSPersistentContainer {
        func attribute(_ name: String) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = .stringAttributeType
            return attribute
        }
        func relationship(_ name: String, to entity: NSEntityDescription, toMany: Bool) -> NSRelationshipDescription {
            let relationship = NSRelationshipDescription()
            relationship.name = name
            relationship.destinationEntity = entity
            relationship.maxCount = toMany ? 0 : 1
            relationship.deleteRule = .cascadeDeleteRule
            return relationship
        }
        let segment = NSEntityDescription()
        segment.name = "Segment"
        let next = relationship("next", to: segment, toMany: false), previous = relationship("previous", to: segment, toMany: false)
        next.inverseRelationship = previous
        previous.inverseRelationship = next
        segment.properties = [attribute("name"), next, previous]
        let node = NSEntityDescription()
        node.name = "Node"
        let parent = relationship("parent", to: node, toMany: false), children = relationship("children", to: node, toMany: true)
        parent.inverseRelationship = children
        children.inverseRelationship = parent
        node.properties = [attribute("name"), parent, children]
        let model = NSManagedObjectModel()
        model.entities = [segment, node]
        codeModel = codeModel ?? model
        let container = NSPersistentContainer(name: "Cycles", managedObjectModel: codeModel!)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: directory.appendingPathComponent("Cycles.sqlite"))]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    private var codeModel: NSManagedObjectModel?
}
