import XCTest
@testable import OpenCoreData

/// The context's table of objects with a temporary ID: entries listed without hashing
/// read the same as hashed ones, and a save empties it at once only when it holds exactly
/// the objects the save gives permanent IDs.
final class TemporaryObjectTableTests: CoreTestCase {
    private func key(_ object: NSManagedObject) -> ObjectIdentifier { ObjectIdentifier(object.objectID) }

    func testListedEntriesAreFoundCountedAndRemovedLikeHashedOnes() {
        let items = detachedObjects(4)
        var table = TemporaryObjectTable()
        for item in items.prefix(3) { table.addNew(item, for: item.objectID) }
        var cursor = 2
        XCTAssertTrue(table.lists(items[2], after: &cursor), "listed in order, nothing hashed yet")
        XCTAssertTrue(table[key(items[1])] === items[1])
        cursor = 1
        XCTAssertFalse(table.lists(items[1], after: &cursor), "a read hashes the listed entries")
        table.addNew(items[3], for: items[3].objectID)
        XCTAssertTrue(table[key(items[3])] === items[3], "added to the hashed table at once")
        XCTAssertEqual(table.count, 4)
        table[key(items[0])] = nil
        XCTAssertNil(table[key(items[0])])
        XCTAssertEqual(Set(table.objects.map(ObjectIdentifier.init)), Set(items.dropFirst().map(ObjectIdentifier.init)))
    }

    func testEmptiedAtOnceOnlyWhenItHoldsExactlyTheSavedObjects() {
        let items = detachedObjects(3)
        var table = TemporaryObjectTable()
        for item in items { table.addNew(item, for: item.objectID) }
        // Not the listed objects in order: nothing is removed by the listing, and hashed,
        // the table holds more entries than the two saved.
        var cursor = 0
        XCTAssertFalse(table.removeAll(ifExactly: 2, listedInOrder: table.lists(items[1], after: &cursor)))
        XCTAssertEqual(table.count, 3)
        XCTAssertTrue(table[key(items[2])] === items[2])
        // Hashed, with as many entries as saved objects: emptied.
        XCTAssertTrue(table.removeAll(ifExactly: 3, listedInOrder: false))
        XCTAssertEqual(table.count, 0)
        XCTAssertNil(table[key(items[0])])

        var listed = TemporaryObjectTable()
        for item in items { listed.addNew(item, for: item.objectID) }
        var position = 0
        let inOrder = items.allSatisfy { listed.lists($0, after: &position) }
        XCTAssertTrue(inOrder)
        XCTAssertTrue(listed.removeAll(ifExactly: 3, listedInOrder: inOrder))
        XCTAssertEqual(listed.count, 0)
        XCTAssertNil(listed[key(items[1])])
        XCTAssertFalse(listed.removeAll(ifExactly: 0, listedInOrder: true), "nothing saved, nothing emptied")
    }

    /// Objects removed before the save leave the listing in place, found by their IDs'
    /// creation sequence: nothing is hashed, the others still read as before, and a save
    /// of exactly the remaining ones, in order, empties the table at once.
    func testListedEntriesRemovedInPlaceLeaveTheOthersAsTheyWere() {
        let items = detachedObjects(5)
        var table = TemporaryObjectTable()
        for item in items { table.addNew(item, for: item.objectID) }
        table.remove(items[1].objectID)
        table.remove(items[3].objectID)
        table.remove(items[3].objectID)  // twice: the second finds no entry, and changes nothing
        var cursor = 0
        let remaining = [items[0], items[2], items[4]]
        XCTAssertTrue(remaining.allSatisfy { table.lists($0, after: &cursor) }, "still listed, the removed ones skipped")
        XCTAssertFalse(table.removeAll(ifExactly: 4, listedInOrder: true), "four saved objects are not the three left")
        XCTAssertEqual(table.count, 3)
        XCTAssertNil(table[key(items[1])])
        XCTAssertNil(table[key(items[3])])
        XCTAssertTrue(table[key(items[4])] === items[4])

        var listed = TemporaryObjectTable()
        for item in items { listed.addNew(item, for: item.objectID) }
        for item in items.prefix(2) { listed.remove(item.objectID) }
        var position = 0
        let inOrder = items.dropFirst(2).allSatisfy { listed.lists($0, after: &position) }
        XCTAssertTrue(inOrder)
        XCTAssertTrue(listed.removeAll(ifExactly: 3, listedInOrder: inOrder))
        XCTAssertEqual(listed.count, 0)

        var emptied = TemporaryObjectTable()
        for item in items.prefix(2) { emptied.addNew(item, for: item.objectID) }
        for item in items.prefix(2) { emptied.remove(item.objectID) }
        XCTAssertEqual(emptied.count, 0, "every listed entry removed: empty")
        emptied.addNew(items[4], for: items[4].objectID)
        XCTAssertTrue(emptied[key(items[4])] === items[4])
    }

    /// Objects listed out of the order their IDs were made in (made first, inserted
    /// later) cannot be found by sequence: removing one hashes the listing, as before.
    func testRemovalFromAListingOutOfSequenceOrderStillRemovesTheRightEntry() {
        let items = detachedObjects(4)
        var table = TemporaryObjectTable()
        for item in items.reversed() { table.addNew(item, for: item.objectID) }
        table.remove(items[2].objectID)
        var cursor = 0
        XCTAssertFalse(table.lists(items[3], after: &cursor), "the removal hashed the listing")
        XCTAssertEqual(table.count, 3)
        XCTAssertNil(table[key(items[2])])
        for item in [items[0], items[1], items[3]] { XCTAssertTrue(table[key(item)] === item) }
    }

    /// Through a context: objects found by their temporary IDs before and after others
    /// were inserted, one deleted before the save, and none of the temporary IDs known
    /// after it, while the permanent ones are.
    func testAContextFindsItsNewObjectsByTemporaryIDUntilTheyAreSaved() throws {
        let container = try openContainer()
        let context = container.viewContext
        let trails = (0..<4).map { index -> NSManagedObject in
            let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
            trail.setValue("Trail \(index)", forKey: "name")
            return trail
        }
        let temporaryIDs = trails.map(\.objectID)
        XCTAssertTrue(context.registeredObject(for: temporaryIDs[3]) === trails[3])
        let late = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        late.setValue("Late", forKey: "name")
        XCTAssertTrue(context.registeredObject(for: late.objectID) === late)
        context.delete(trails[1])
        XCTAssertNil(context.registeredObject(for: temporaryIDs[1]), "an unsaved object deleted leaves the context")
        XCTAssertEqual(context.registeredObjects.count, 4)
        try context.save()
        for id in temporaryIDs { XCTAssertNil(context.registeredObject(for: id)) }
        for trail in [trails[0], trails[2], trails[3], late] {
            XCTAssertFalse(trail.objectID.isTemporaryID)
            XCTAssertTrue(context.registeredObject(for: trail.objectID) === trail)
        }
    }
}
