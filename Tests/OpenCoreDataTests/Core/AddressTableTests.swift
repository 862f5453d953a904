import XCTest
@testable import OpenCoreData

/// The address-keyed table behind ObjectList's positions (AddressTable.swift): checked
/// against a dictionary through long random runs of insertions, replacements and removals,
/// which exercise growth, probe runs that wrap around the end, and backward-shift removal.
final class AddressTableTests: XCTestCase {
    private final class Box {}

    func testAgreesWithADictionaryThroughRandomChanges() {
        let boxes = (0..<3_000).map { _ in Box() }
        var table = AddressTable()
        var model: [ObjectIdentifier: Int] = [:]
        var random = SeededGenerator(seed: 16)
        for step in 0..<60_000 {
            let id = ObjectIdentifier(boxes[Int.random(in: 0..<boxes.count, using: &random)])
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                XCTAssertEqual(table.insertIfAbsent(step, for: id), model[id])
                if model[id] == nil { model[id] = step }
            case 1:
                table.setValue(step, for: id)
                model[id] = step
            default:
                XCTAssertEqual(table.removeValue(for: id), model.removeValue(forKey: id))
            }
            XCTAssertEqual(table.count, model.count)
            if step % 5_000 == 0 {
                for box in boxes { XCTAssertEqual(table.value(for: ObjectIdentifier(box)), model[ObjectIdentifier(box)]) }
            }
        }
        for box in boxes { XCTAssertEqual(table.value(for: ObjectIdentifier(box)), model[ObjectIdentifier(box)]) }
    }

    func testCopiesAreIndependentAndRemoveAllEmpties() {
        let boxes = (0..<100).map { _ in Box() }
        var table = AddressTable()
        for (index, box) in boxes.enumerated() { XCTAssertNil(table.insertIfAbsent(index, for: ObjectIdentifier(box))) }
        var copy = table
        for box in boxes.prefix(50) { copy.removeValue(for: ObjectIdentifier(box)) }
        XCTAssertEqual(copy.count, 50)
        XCTAssertEqual(table.count, 100)
        XCTAssertEqual(table.value(for: ObjectIdentifier(boxes[0])), 0)
        XCTAssertNil(copy.value(for: ObjectIdentifier(boxes[0])))
        XCTAssertEqual(copy.value(for: ObjectIdentifier(boxes[99])), 99)
        table.removeAll()
        XCTAssertTrue(table.isEmpty)
        XCTAssertNil(table.value(for: ObjectIdentifier(boxes[99])))
        XCTAssertNil(table.insertIfAbsent(7, for: ObjectIdentifier(boxes[99])))
        XCTAssertEqual(table.value(for: ObjectIdentifier(boxes[99])), 7)
        XCTAssertEqual(copy.count, 50)
    }

    /// Addresses that share their low bits (objects a power of two apart) still spread.
    func testKeysAPowerOfTwoApartAllFound() {
        let stride = 1 << 20
        let base = 0x7f00_0000_0000
        var table = AddressTable()
        // Made from numbers, never dereferenced (no object lives there).
        let ids = (1...2_000).map { unsafeBitCast(UInt(base + $0 * stride), to: ObjectIdentifier.self) }
        for (index, id) in ids.enumerated() { XCTAssertNil(table.insertIfAbsent(index, for: id)) }
        for (index, id) in ids.enumerated() { XCTAssertEqual(table.value(for: id), index) }
        for id in ids.prefix(1_000) { XCTAssertNotNil(table.removeValue(for: id)) }
        for (index, id) in ids.enumerated() { XCTAssertEqual(table.value(for: id), index < 1_000 ? nil : index) }
    }
}

/// ObjectList (the context's change-tracking lists) against an array through random
/// appends, removals and pops, including lists emptied from the front, which compact by
/// dropping their leading empty slots without rewriting positions.
final class ObjectListRandomTests: XCTestCase {
    func testAgreesWithAnArrayThroughRandomChanges() {
        let entity = NSEntityDescription()
        entity.name = "Item"
        let objects = (0..<400).map { _ in NSManagedObject(entity: entity, insertInto: nil) }
        var list = ObjectList()
        var model: [NSManagedObject] = []
        var random = SeededGenerator(seed: 27)
        for step in 0..<40_000 {
            let object = objects.randomElement(using: &random)!
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4:
                list.append(object)
                if !model.contains(where: { $0 === object }) { model.append(object) }
            case 4..<6:
                // From the front, as the delete rules' queue empties.
                if let first = model.first {
                    XCTAssertTrue(list.remove(first))
                    model.removeFirst()
                }
            case 6..<8:
                let index = model.firstIndex(where: { $0 === object })
                XCTAssertEqual(list.remove(object), index != nil)
                if let index { model.remove(at: index) }
            default:
                let popped = list.popFirst()
                XCTAssertTrue(popped === model.first)
                if !model.isEmpty { model.removeFirst() }
            }
            XCTAssertEqual(list.count, model.count)
            XCTAssertEqual(list.contains(object), model.contains(where: { $0 === object }))
            if step % 1_000 == 0 {
                XCTAssertTrue(list.objects.elementsEqual(model, by: ===))
                var walked: [NSManagedObject] = []
                list.forEach { walked.append($0) }
                XCTAssertTrue(walked.elementsEqual(model, by: ===))
            }
        }
        XCTAssertTrue(list.objects.elementsEqual(model, by: ===))
    }
}
