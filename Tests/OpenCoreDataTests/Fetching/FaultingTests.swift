import Foundation
import XCTest

import class OpenCoreData.NSPredicate
@testable import OpenCoreData

/// Faults, the row cache and refreshing, as a user of Core Data sees them: which values
/// an object shows and how many statements reach SQLite.
///
/// Behaviour as Apple documents it: `stalenessInterval` ("the maximum length of time that
/// may have elapsed since the store previously fetched data before fulfilling a fault
/// issues a new fetch rather than using the previously-fetched data"; negative, the
/// default, means infinite, 0 means no staleness acceptable), `shouldRefreshRefetchedObjects`
/// ("whether the fetch request causes property values of fetched objects to be updated
/// with the current values in the persistent store"), `refresh(_:mergeChanges:)`
/// (with `false` the object turns into a fault and unsaved changes are discarded; with
/// `true` the object's property values are reloaded and its unsaved changes reapplied),
/// `faultingState` ("0 if the object is fully initialized … and not transitioning").
final class FaultingTests: FetchTestCase {
    private var fixture: TrailheadFixture!
    private var context: NSManagedObjectContext { fixture.context }
    /// A second stack on the same file: another process, whose saves this one's row cache
    /// does not see.
    private var other: TrailheadFixture!

    override func setUpWithError() throws {
        try super.setUpWithError()
        fixture = try TrailheadFixture(directory: directory)
        for (name, length) in [("Laugavegur", 55.0), ("Kungsleden", 440.0), ("Malerweg", 116.0)] {
            let trail = fixture.insert("Trail", ["name": name, "lengthKm": length])
            let hike = fixture.insert("Hike", ["distance": length / 4])
            hike.setValue(trail, forKey: "trail")
        }
        try context.save()
        context.reset()
        other = try TrailheadFixture(directory: directory)
    }

    private func trail(_ name: String, in context: NSManagedObjectContext) throws -> NSManagedObject {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        request.predicate = NSPredicate(format: "name == %@", name)
        return try XCTUnwrap(context.fetch(request).first)
    }

    /// The other stack renames a trail and saves.
    private func renameElsewhere(_ name: String, to newName: String) throws {
        try trail(name, in: other.context).setValue(newName, forKey: "name")
        try other.context.save()
    }

    private func statements(_ lines: [String]) -> [String] { lines.filter { $0.hasPrefix("CoreData: sql:") } }

    /// A third stack on the same file, whose trails are objects of `trailClass`.
    private func stack(withTrailClass trailClass: NSManagedObject.Type) -> NSPersistentContainer {
        let model = makeTrailheadModel()
        model.entitiesByName["Trail"]!.managedObjectClassName = String(reflecting: trailClass)
        let stack = NSPersistentContainer(name: "Trailhead", managedObjectModel: model)
        stack.persistentStoreDescriptions = [NSPersistentStoreDescription(url: directory.appendingPathComponent("Trailhead.sqlite"))]
        stack.loadPersistentStores { _, error in XCTAssertNil(error) }
        return stack
    }

    func testAFaultFiresOnFirstAccessAndUniquingGivesOneObjectPerRow() throws {
        let fetched = try trail("Kungsleden", in: context)
        XCTAssertTrue(fetched.isFault)
        XCTAssertEqual(fetched.faultingState, 0)
        let again = try trail("Kungsleden", in: context)
        XCTAssertTrue(fetched === again, "one object per row per context")
        XCTAssertTrue(context.object(with: fetched.objectID) === fetched)
        XCTAssertEqual(fetched.value(forKey: "lengthKm") as? Double, 440)
        XCTAssertFalse(fetched.isFault)
        XCTAssertEqual(fetched.faultingState, 0)
    }

    func testStalenessIntervalDecidesBetweenTheRowCacheAndTheStore() throws {
        let laugavegur = try trail("Laugavegur", in: context)
        XCTAssertEqual(laugavegur.value(forKey: "name") as? String, "Laugavegur")
        try renameElsewhere("Laugavegur", to: "Laugavegur (closed)")

        // Default (-1): any cached data is good enough, so the fault fires from the cache.
        context.refresh(laugavegur, mergeChanges: false)
        XCTAssertTrue(laugavegur.isFault)
        let (cachedName, cachedLines) = capturingSQL { laugavegur.value(forKey: "name") as? String }
        XCTAssertEqual(cachedName, "Laugavegur")
        XCTAssertEqual(statements(cachedLines), [])

        // 0: no cached data is acceptable; the fault reads the row again.
        context.stalenessInterval = 0
        context.refresh(laugavegur, mergeChanges: false)
        let (freshName, freshLines) = capturingSQL { laugavegur.value(forKey: "name") as? String }
        XCTAssertEqual(freshName, "Laugavegur (closed)")
        XCTAssertEqual(statements(freshLines).count, 1)
        XCTAssertTrue(statements(freshLines)[0].hasSuffix("FROM ZTRAIL t0 WHERE t0.Z_PK = ?"), freshLines[0])
    }

    func testExistingObjectReadsAnUnregisteredRowOnceAndRegistersOneObject() throws {
        let id = try trail("Malerweg", in: context).objectID
        context.reset()
        XCTAssertNil(context.registeredObject(for: id))
        // One statement for the row, an object fired from it that carries the ID itself.
        let (object, lines) = try capturingSQL { try context.existingObject(with: id) }
        XCTAssertEqual(statements(lines).count, 1, lines.joined(separator: "\n"))
        XCTAssertTrue(statements(lines)[0].hasSuffix("FROM ZTRAIL t0 WHERE t0.Z_PK = ?"), lines[0])
        XCTAssertFalse(object.isFault)
        XCTAssertTrue(object.objectID === id)
        XCTAssertTrue(context.registeredObject(for: id) === object, "registered once, under its ID")
        XCTAssertTrue(context.object(with: id) === object)
        // Registered and fired: asked again, the same object without SQL.
        let (again, againLines) = try capturingSQL { try context.existingObject(with: id) }
        XCTAssertTrue(again === object)
        XCTAssertEqual(statements(againLines), [])
        XCTAssertEqual(object.value(forKey: "name") as? String, "Malerweg")
    }

    func testALongStalenessIntervalStillAcceptsRecentRows() throws {
        let malerweg = try trail("Malerweg", in: context)
        _ = malerweg.value(forKey: "name")
        try renameElsewhere("Malerweg", to: "Malerweg Nord")
        context.stalenessInterval = 3600
        context.refresh(malerweg, mergeChanges: false)
        let (name, lines) = capturingSQL { malerweg.value(forKey: "name") as? String }
        XCTAssertEqual(name, "Malerweg", "the cached row is seconds old, well inside an hour")
        XCTAssertEqual(statements(lines), [])
    }

    func testResetReleasesObjectsThatHoldEachOther() throws {
        weak var released: NSManagedObject?
        do {
            let trail = try trail("Malerweg", in: context)
            let hikes = trail.value(forKey: "hikes") as? Set<NSManagedObject> ?? []
            XCTAssertEqual(hikes.first?.value(forKey: "trail") as? NSManagedObject, trail, "a cycle: trail ↔ hike")
            released = trail
        }
        context.reset()
        XCTAssertNil(released, "reset() lets go of objects even when related objects hold each other")
    }

    func testRefetchingUpdatesValuesOnlyWithShouldRefreshRefetchedObjects() throws {
        let kungsleden = try trail("Kungsleden", in: context)
        XCTAssertEqual(kungsleden.value(forKey: "name") as? String, "Kungsleden")
        let id = kungsleden.objectID
        let otherTrail = other.context.object(with: id)
        otherTrail.setValue(450.0, forKey: "lengthKm")
        try other.context.save()

        let plain = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        plain.predicate = NSPredicate(format: "lengthKm > 400")
        let refetched = try context.fetch(plain)
        XCTAssertTrue(refetched.first === kungsleden)
        XCTAssertEqual(kungsleden.value(forKey: "lengthKm") as? Double, 440, "the object keeps the values it has")

        plain.shouldRefreshRefetchedObjects = true
        _ = try context.fetch(plain)
        XCTAssertEqual(kungsleden.value(forKey: "lengthKm") as? Double, 450)
    }

    func testRefreshWithoutMergingDiscardsChangesAndMergingKeepsThem() throws {
        let laugavegur = try trail("Laugavegur", in: context)
        laugavegur.setValue(56.0, forKey: "lengthKm")
        context.refresh(laugavegur, mergeChanges: false)
        XCTAssertTrue(laugavegur.isFault)
        XCTAssertFalse(context.hasChanges)
        XCTAssertEqual(laugavegur.value(forKey: "lengthKm") as? Double, 55)

        try renameElsewhere("Laugavegur", to: "Laugavegur Trail")
        laugavegur.setValue(57.0, forKey: "lengthKm")
        context.stalenessInterval = 0
        context.refresh(laugavegur, mergeChanges: true)
        XCTAssertFalse(laugavegur.isFault)
        XCTAssertEqual(laugavegur.value(forKey: "name") as? String, "Laugavegur Trail", "saved values reloaded")
        XCTAssertEqual(laugavegur.value(forKey: "lengthKm") as? Double, 57, "the unsaved change reapplied")
        XCTAssertTrue(laugavegur.hasChanges)
    }

    func testRefreshAllObjectsKeepsUnsavedChangesAndFaultsTheRest() throws {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        request.returnsObjectsAsFaults = false
        let trails = try context.fetch(request)
        XCTAssertTrue(trails.allSatisfy { !$0.isFault })
        trails[0].setValue("Renamed", forKey: "name")
        context.refreshAllObjects()
        XCTAssertEqual(trails.map(\.isFault), [false, true, true])
        XCTAssertEqual(trails[0].value(forKey: "name") as? String, "Renamed")
        XCTAssertEqual(context.registeredObjects.count, 3)
    }

    func testRelationshipFaultsFireOnAccess() throws {
        let malerweg = try trail("Malerweg", in: context)
        XCTAssertTrue(malerweg.hasFault(forRelationshipNamed: "hikes"))
        _ = malerweg.value(forKey: "name")
        XCTAssertTrue(malerweg.hasFault(forRelationshipNamed: "hikes"), "firing the object leaves its to-many a fault")
        let (hikes, lines) = capturingSQL { malerweg.value(forKey: "hikes") as? Set<NSManagedObject> ?? [] }
        XCTAssertEqual(hikes.count, 1)
        XCTAssertFalse(malerweg.hasFault(forRelationshipNamed: "hikes"))
        XCTAssertEqual(statements(lines).count, 1, lines.joined(separator: "\n"))
        XCTAssertTrue(hikes.first!.isFault, "the destinations arrive as faults")
        XCTAssertFalse(malerweg.hasFault(forRelationshipNamed: "name"), "not a relationship")
    }

    func testObjectIDsThenSelfInFetchesTheChosenObjectsInOneStatement() throws {
        let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Trail")
        ids.resultType = .managedObjectIDResultType
        ids.sortDescriptors = [NSSortDescriptor(key: "lengthKm", ascending: false)]
        let (allIDs, idLines) = try capturingSQL { try context.fetch(ids) }
        XCTAssertEqual(allIDs.count, 3)
        XCTAssertTrue(statements(idLines)[0].hasPrefix("CoreData: sql: SELECT 0, t0.Z_PK FROM ZTRAIL t0"), idLines[0])
        XCTAssertTrue(context.registeredObjects.isEmpty, "object IDs register no objects")

        let page = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        page.predicate = NSPredicate(format: "self IN %@", Array(allIDs.prefix(2)))
        page.sortDescriptors = ids.sortDescriptors
        let (objects, lines) = try capturingSQL(level: 3) { try context.fetch(page) }
        XCTAssertEqual(objects.map { $0.value(forKey: "name") as? String }, ["Kungsleden", "Malerweg"])
        XCTAssertEqual(statements(lines).count, 1)
        XCTAssertTrue(statements(lines)[0].contains("t0.Z_PK IN (?, ?)"), statements(lines)[0])
    }

    func testFaultingStateIsNonZeroOnlyWhileTheObjectChangesState() throws {
        FaultWatchedTrail.seen = []
        let stack = stack(withTrailClass: FaultWatchedTrail.self)
        let watched = try trail("Laugavegur", in: stack.viewContext)
        _ = watched.value(forKey: "name")
        stack.viewContext.refresh(watched, mergeChanges: false)
        XCTAssertEqual(FaultWatchedTrail.seen, ["awakeFromFetch true", "willTurnIntoFault true", "didTurnIntoFault true"])
        XCTAssertEqual(watched.faultingState, 0)
    }

    /// `value(forKey:)` on a fault reads the value after the fault fires, as the object is
    /// once `awakeFromFetch` has run: here a class that sets a primitive value there, and
    /// whose `willAccessValue(forKey:)` does not call super, so that the read itself fires
    /// the fault (the library reads the values in place, after firing).
    func testValueForKeyOnAFaultReadsWhatAwakeFromFetchLeft() throws {
        let stack = stack(withTrailClass: ShoutingTrail.self)
        let shouting = try trail("Malerweg", in: stack.viewContext)
        XCTAssertTrue(shouting.isFault)
        XCTAssertEqual(shouting.value(forKey: "name") as? String, "MALERWEG")
        XCTAssertEqual(shouting.value(forKey: "lengthKm") as? Double, 116)
        XCTAssertFalse(shouting.isFault)
        let typed = try XCTUnwrap(shouting as? ShoutingTrail)
        XCTAssertEqual(typed.accessed, ["name", "lengthKm"])
        // The same through a @Managed property, whose getter reads the stored value itself.
        stack.viewContext.refresh(typed, mergeChanges: false)
        XCTAssertTrue(typed.isFault)
        XCTAssertEqual(typed.name, "MALERWEG")
        XCTAssertEqual(typed.lengthKm, 116)
        XCTAssertEqual(typed.accessed, ["name", "lengthKm", "name", "lengthKm"])
    }
}

/// Upper-cases its name when it is fetched, and records the keys read without letting the
/// base class fire the fault first.
final class ShoutingTrail: NSManagedObject {
    @Managed var name: String?
    @Managed var lengthKm: Double
    var accessed: [String] = []
    override func awakeFromFetch() {
        super.awakeFromFetch()
        setPrimitiveValue((primitiveValue(forKey: "name") as? String)?.uppercased(), forKey: "name")
    }
    override func willAccessValue(forKey key: String?) { accessed.append(key ?? "") }
}

/// Records its faulting state in the three moments an object changes between fault and
/// realized object.
final class FaultWatchedTrail: NSManagedObject {
    static var seen: [String] = []
    override func awakeFromFetch() {
        super.awakeFromFetch()
        Self.seen.append("awakeFromFetch \(faultingState != 0)")
    }
    override func willTurnIntoFault() { Self.seen.append("willTurnIntoFault \(faultingState != 0)") }
    override func didTurnIntoFault() { Self.seen.append("didTurnIntoFault \(faultingState != 0)") }
}
