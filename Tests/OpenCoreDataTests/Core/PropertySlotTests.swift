import Foundation
import XCTest
@testable import OpenCoreData

/// Objects keep their values in slots (PropertyValues) laid out by their entity's property
/// table, and note changed properties as bits of a SlotSet; entities with more than 64
/// properties use its overflow words.
final class PropertySlotTests: CoreTestCase {
    func testInsertContainsAndAscendingIteration() {
        var set = SlotSet()
        XCTAssertTrue(set.isEmpty)
        for slot in [130, 3, 64, 0, 63, 65, 3] { set.insert(slot) }
        XCTAssertEqual(Array(set), [0, 3, 63, 64, 65, 130])
        XCTAssertFalse(set.insert(64), "already there")
        XCTAssertTrue(set.insert(200))
        XCTAssertTrue(set.contains(130))
        XCTAssertFalse(set.contains(129))
        XCTAssertFalse(set.contains(1_000))
        set.removeAll()
        XCTAssertTrue(set.isEmpty)
        XCTAssertEqual(Array(set), [])
    }

    /// Values share their slots until one side changes: a row's with the objects fired from
    /// it, the model's defaults with every new object. A change copies them first.
    func testSharedSlotsAreCopiedOnTheFirstChange() {
        let note = makeEntity("Note")
        let title = makeAttribute("title", .stringAttributeType)
        title.defaultValue = "untitled"
        note.properties = [title, makeAttribute("count", .integer32AttributeType)]
        let table = EntityPropertyTable(entity: note)

        var row = PropertyValues(table: table) { slots in slots.write(Int32(7), at: 1) }
        var object = row
        object[1] = Int32(8)
        XCTAssertEqual(row[1] as? Int32, 7, "the row keeps its value")
        XCTAssertEqual(object[1] as? Int32, 8)
        row["title"] = "row"
        XCTAssertNil(object["title"])
        XCTAssertEqual(row.named as? [String: AnyHashable], ["title": "row", "count": Int32(7)])

        var first = table.defaultValues
        let second = table.defaultValues
        first["title"] = "first"
        XCTAssertEqual(second["title"] as? String, "untitled")
        XCTAssertEqual(table.defaultValues["title"] as? String, "untitled", "the shared defaults are unchanged")
        XCTAssertEqual(first["title"] as? String, "first")

        var empty = PropertyValues(table: table)
        XCTAssertTrue(empty.isEmpty)
        empty[0] = nil
        XCTAssertTrue(empty.isEmpty)
        XCTAssertNil(empty[1])
        empty[1] = Int32(1)
        XCTAssertFalse(empty.isEmpty)
        XCTAssertEqual(empty.removeValue(forKey: "count") as? Int32, 1)
        XCTAssertTrue(empty.isEmpty)
    }

    /// `exchange` stores a value and hands back the one it replaced, copying shared slots
    /// first as a set does; `unsafeSlots` reads them where they lie.
    func testExchangeHandsBackTheReplacedValueAndLeavesSharedSlotsAlone() {
        let note = makeEntity("Note")
        note.properties = [makeAttribute("title", .stringAttributeType), makeAttribute("count", .integer32AttributeType)]
        let table = EntityPropertyTable(entity: note)

        let long = String(repeating: "a title on the heap ", count: 3)
        let row = PropertyValues(table: table) { slots in slots.write(long, at: 0) }
        var object = row
        XCTAssertEqual(object.exchange(0, with: "new") as? String, long)
        XCTAssertEqual(row[0] as? String, long, "the row keeps its value")
        XCTAssertEqual(object[0] as? String, "new")
        XCTAssertNil(object.exchange(1, with: Int32(3)))
        XCTAssertEqual(object.exchange(1, with: nil) as? Int32, 3)
        XCTAssertEqual(object.unsafeSlots.count, 2)
        XCTAssertNil(object.unsafeSlots[1])
        XCTAssertEqual(object.unsafeSlots[0] as? String, "new")

        var empty = PropertyValues(table: table)
        XCTAssertEqual(empty.unsafeSlots.count, 0)
        XCTAssertNil(empty.exchange(0, with: nil))
        XCTAssertTrue(empty.isEmpty, "exchanging nil for nothing makes no slots")
        XCTAssertNil(empty.exchange(0, with: "first"))
        XCTAssertEqual(empty[0] as? String, "first")
    }

    /// `setValue(_:forKey:)` moves a value of the attribute's own type into the slot and
    /// converts the others (another numeric type, an NSNumber, nil) as before; the caller's
    /// value is untouched.
    func testSetValueStoresExactValuesAsGivenAndConvertsTheOthers() throws {
        let note = makeEntity("Note")
        note.properties = [makeAttribute("title", .stringAttributeType), makeAttribute("count", .integer32AttributeType),
                           makeAttribute("weight", .doubleAttributeType)]
        let model = NSManagedObjectModel()
        model.entities = [note]
        let object = NSManagedObject(entity: note, insertInto: nil)
        let title: Any? = String(repeating: "a title on the heap ", count: 3)
        object.setValue(title, forKey: "title")
        XCTAssertEqual(title as? String, String(repeating: "a title on the heap ", count: 3), "the caller's value is its own")
        XCTAssertEqual(object.value(forKey: "title") as? String, title as? String)
        object.setValue(Int32(4), forKey: "count")
        XCTAssertEqual(object.state.values[1] as? Int32, 4)
        object.setValue(5, forKey: "count")  // an Int, converted
        XCTAssertEqual(object.state.values[1] as? Int32, 5)
        object.setValue(NSNumber(value: 2.5), forKey: "weight")
        XCTAssertEqual(object.state.values[2] as? Double, 2.5)
        object.setValue(1.5, forKey: "weight")
        XCTAssertEqual(object.state.values[2] as? Double, 1.5)
        object.setValue(nil, forKey: "title")
        XCTAssertNil(object.value(forKey: "title"))
        XCTAssertEqual(Array(object.state.changedSlots), [0, 1, 2], "each set recorded as a change")
    }

    /// `setValue(_:forKey:)` takes its value `consuming`; an override written as Core Data
    /// code writes it (`_ value: Any?`, no ownership keyword) still compiles, is called,
    /// and stores through `super`.
    func testASubclassOverridesSetValueWithoutAnOwnershipKeyword() {
        final class Counting: NSManagedObject {
            var keys: [String] = []
            override func setValue(_ value: Any?, forKey key: String) {
                keys.append(key)
                super.setValue(value, forKey: key)
            }
        }
        let note = makeEntity("Note")
        note.properties = [makeAttribute("title", .stringAttributeType)]
        let object = Counting(entity: note, insertInto: nil)
        object.setValue("kept", forKey: "title")
        XCTAssertEqual(object.keys, ["title"])
        XCTAssertEqual(object.value(forKey: "title") as? String, "kept")
    }

    /// A row's slots are written in any order; those not written, or not reached before a
    /// decoding error, are nil, and the values written before the error are freed with it.
    func testSlotsWrittenInAnyOrderAndAfterAnErrorAreComplete() {
        let wide = makeEntity("Wide")
        wide.properties = (0..<6).map { makeAttribute("field\($0)", .stringAttributeType) }
        let table = EntityPropertyTable(entity: wide)

        let values = PropertyValues(table: table) { slots in
            slots.write("four", at: 4)
            slots.write("one", at: 1)
            slots.write(nil, at: 2)
            slots.write("four again", at: 4)
        }
        XCTAssertEqual((0..<6).map { values[$0] as? String }, [nil, "one", nil, nil, "four again", nil])

        struct Unreadable: Error {}
        final class Tracked {}
        weak var written: Tracked?
        XCTAssertThrowsError(try PropertyValues(table: table) { slots in
            let tracked = Tracked()
            written = tracked
            slots.write(tracked, at: 2)
            throw Unreadable()
        })
        XCTAssertNil(written, "the value written before the error is freed")
    }

    func testAChangeToTheSeventiethPropertyIsSavedAsTheOnlyChangedColumn() throws {
        let wide = makeEntity("Wide")
        wide.properties = (0..<70).map { makeAttribute("field\($0)", .stringAttributeType) }
        model = makeModel([wide])

        let context = try openContainer().viewContext
        let object = NSEntityDescription.insertNewObject(forEntityName: "Wide", into: context)
        for index in 0..<70 { object.setValue("value \(index)", forKey: "field\(index)") }
        try context.save()

        object.setValue("changed", forKey: "field69")
        XCTAssertEqual(object.changedValues() as? [String: String], ["field69": "changed"])
        let (_, lines) = try capturingSQL { try context.save() }
        XCTAssertEqual(
            lines.filter { $0.hasPrefix("CoreData: sql: UPDATE") },
            ["CoreData: sql: UPDATE ZWIDE SET ZFIELD69 = ?, Z_OPT = ? WHERE Z_PK = ? AND Z_OPT = ?"])

        let reopened = try openContainer()
        let reread = try reopened.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Wide"))
        XCTAssertEqual(reread.first?.value(forKey: "field69") as? String, "changed")
        XCTAssertEqual(reread.first?.value(forKey: "field68") as? String, "value 68")
    }

    func testWillAndDidChangeAloneMarkASavedObjectChanged() throws {
        let context = try openContainer().viewContext
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        trail.setValue("Ridge", forKey: "name")
        try context.save()
        XCTAssertFalse(trail.isUpdated)

        // The "touch": nothing is stored, yet the object is saved again, as in Core Data.
        trail.willChangeValue(forKey: "name")
        trail.didChangeValue(forKey: "name")
        XCTAssertTrue(trail.isUpdated)
        XCTAssertTrue(context.updatedObjects.contains(trail))
        let (_, lines) = try capturingSQL { try context.save() }
        XCTAssertEqual(lines.filter { $0.hasPrefix("CoreData: sql: UPDATE ZTRAIL") }.count, 1, lines.joined(separator: "\n"))

        // A key the entity does not have marks nothing.
        trail.willChangeValue(forKey: "notModeled")
        trail.didChangeValue(forKey: "notModeled")
        XCTAssertFalse(trail.isUpdated)
    }

    func testAnObjectMadeBeforeTheModelWasEditedAdoptsTheNewLayoutWhenInserted() throws {
        let note = makeEntity("Note")
        let count = makeAttribute("count", .integer32AttributeType)
        note.properties = [count]
        model = makeModel([note])

        let early = NSManagedObject(entity: note, insertInto: nil)
        early.setValue(5, forKey: "count")
        // Still editable: a property is added in front of the one the object holds.
        note.properties = [makeAttribute("title", .stringAttributeType), count]

        let container = try openContainer()
        container.viewContext.insert(early)
        early.setValue("First", forKey: "title")
        XCTAssertEqual(early.value(forKey: "count") as? Int, 5)
        try container.viewContext.save()

        let reopened = try openContainer()
        let stored = try XCTUnwrap(reopened.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")).first)
        XCTAssertEqual(stored.value(forKey: "title") as? String, "First")
        XCTAssertEqual(stored.value(forKey: "count") as? Int, 5)
    }
}
