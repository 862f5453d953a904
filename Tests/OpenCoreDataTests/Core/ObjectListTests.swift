import XCTest
@testable import OpenCoreData

/// The context's lists of objects: order, membership and removal, whether an object came
/// in through `append` (which checks membership) or `appendNew` (which defers it).
final class ObjectListTests: XCTestCase {
    func testAppendNewKeepsOrderAndCountWithoutAskingMembership() {
        let items = detachedObjects(5)
        var list = ObjectList()
        for item in items { list.appendNew(item) }
        XCTAssertEqual(list.count, 5)
        XCTAssertFalse(list.isEmpty)
        XCTAssertEqual(list.objects.map(ObjectIdentifier.init), items.map(ObjectIdentifier.init))
        var walked: [ObjectIdentifier] = []
        list.forEach { walked.append(ObjectIdentifier($0)) }
        XCTAssertEqual(walked, items.map(ObjectIdentifier.init))
    }

    func testObjectsAddedEitherWayAreMembersAndCanBeRemoved() {
        let items = detachedObjects(6)
        var list = ObjectList()
        list.appendNew(items[0])
        list.append(items[1])
        list.appendNew(items[2])
        list.append(items[1])  // already there: stays where it was
        list.appendNew(items[3])
        XCTAssertEqual(list.count, 4)
        XCTAssertTrue(list.contains(items[0]))
        XCTAssertTrue(list.contains(items[3]))
        XCTAssertFalse(list.contains(items[4]))
        XCTAssertTrue(list.remove(items[2]))
        XCTAssertFalse(list.remove(items[2]))
        list.appendNew(items[4])
        XCTAssertTrue(list.remove(items[4]), "an object added after the table was made is found too")
        list.append(items[5])
        XCTAssertEqual(list.objects.map(ObjectIdentifier.init), [items[0], items[1], items[3], items[5]].map(ObjectIdentifier.init))
        XCTAssertEqual(list.count, 4)
    }

    func testAnObjectAppendedNewTwiceKeepsItsFirstPlace() {
        let items = detachedObjects(2)
        var list = ObjectList()
        list.appendNew(items[0])
        list.appendNew(items[1])
        list.appendNew(items[0])
        XCTAssertTrue(list.contains(items[0]))
        XCTAssertEqual(list.count, 2)
        XCTAssertEqual(list.objects.map(ObjectIdentifier.init), items.map(ObjectIdentifier.init))
    }

    func testPopFirstTakesObjectsInOrderWhicheverWayTheyCame() {
        let items = detachedObjects(4)
        var list = ObjectList()
        list.append(items[0])
        list.appendNew(items[1])
        list.append(items[2])  // makes the table, with items[1] in it
        list.appendNew(items[3])
        XCTAssertTrue(list.popFirst() === items[0])
        XCTAssertTrue(list.popFirst() === items[1])
        XCTAssertFalse(list.contains(items[1]))
        XCTAssertTrue(list.contains(items[3]))
        XCTAssertTrue(list.popFirst() === items[2])
        XCTAssertTrue(list.popFirst() === items[3])
        XCTAssertNil(list.popFirst())
        XCTAssertTrue(list.isEmpty)
        list.appendNew(items[2])
        XCTAssertEqual(list.count, 1)
        XCTAssertTrue(list.contains(items[2]))
        XCTAssertFalse(list.contains(items[3]))
    }

    func testRemovingMostObjectsCompactsWithoutLosingAny() {
        let items = detachedObjects(100)
        var list = ObjectList()
        for item in items { list.appendNew(item) }
        for item in items.prefix(80) { XCTAssertTrue(list.remove(item)) }
        XCTAssertEqual(list.count, 20)
        for item in items.suffix(20) { XCTAssertTrue(list.contains(item)) }
        XCTAssertEqual(list.objects.map(ObjectIdentifier.init), items.suffix(20).map(ObjectIdentifier.init))
        for item in items.suffix(20) { XCTAssertTrue(list.remove(item)) }
        XCTAssertTrue(list.isEmpty)
    }

    func testRemovingTheFirstObjectTakesItWithoutLosingTheOthers() {
        // A queue: filled partly through the table, partly not, emptied from the front
        // (no look-up), with one object from the middle removed by look-up.
        let items = detachedObjects(100)
        var list = ObjectList()
        for item in items.prefix(10) { list.append(item) }
        for item in items.dropFirst(10) { list.appendNew(item) }
        for item in items.prefix(60) { XCTAssertTrue(list.remove(item)) }  // compacts from the front
        XCTAssertFalse(list.remove(items[0]))
        XCTAssertFalse(list.contains(items[59]))
        XCTAssertTrue(list.remove(items[80]), "not the first: found by look-up")
        XCTAssertFalse(list.contains(items[80]))
        XCTAssertTrue(list.contains(items[99]))
        XCTAssertEqual(list.count, 39)
        let rest = items[60...].filter { $0 !== items[80] }
        XCTAssertEqual(list.objects.map(ObjectIdentifier.init), rest.map(ObjectIdentifier.init))
        for item in rest { XCTAssertTrue(list.remove(item)) }
        XCTAssertTrue(list.isEmpty)
    }

    func testCompactingAroundAHoleInTheMiddleKeepsObjectsNotYetInTheTable() {
        let items = detachedObjects(50)
        var list = ObjectList()
        for item in items.prefix(40) { list.appendNew(item) }
        XCTAssertTrue(list.remove(items[39]))  // by look-up: a hole past the front
        for item in items[40...] { list.appendNew(item) }  // not in the table yet
        for item in items.prefix(26) { XCTAssertTrue(list.remove(item)) }  // one compacts around the hole
        XCTAssertEqual(list.count, 23)
        XCTAssertTrue(list.contains(items[45]))
        XCTAssertFalse(list.contains(items[39]))
        XCTAssertTrue(list.remove(items[49]))
        let rest = Array(items[26..<39]) + Array(items[40..<49])
        XCTAssertEqual(list.objects.map(ObjectIdentifier.init), rest.map(ObjectIdentifier.init))
        for item in rest.reversed() { XCTAssertTrue(list.remove(item)) }
        XCTAssertTrue(list.isEmpty)
    }
}
