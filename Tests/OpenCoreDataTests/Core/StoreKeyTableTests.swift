import XCTest
@testable import OpenCoreData

/// The store-key table behind the row cache and the object registry (StoreKeyTable.swift):
/// checked against a dictionary through long random runs, and on key sets chosen to make
/// the probe runs of several entities meet, where removal must shift entries back.
final class StoreKeyTableTests: XCTestCase {
    private func key(_ entity: Int, _ primaryKey: Int64) -> StoreKey { StoreKey(entityNumber: entity, primaryKey: primaryKey) }

    func testAgreesWithADictionaryThroughRandomChanges() {
        var table = StoreKeyTable<Int>()
        var model: [StoreKey: Int] = [:]
        var random = SeededGenerator(seed: 41)
        // Dense keys of three entities (runs meet), and a few far apart.
        func randomKey() -> StoreKey {
            if Int.random(in: 0..<10, using: &random) == 0 { return key(Int.random(in: 1...3, using: &random), Int64.random(in: 1...1 << 40, using: &random)) }
            return key(Int.random(in: 1...3, using: &random), Int64.random(in: 1...1_500, using: &random))
        }
        var sawCollisions = false
        for step in 0..<40_000 {
            let key = randomKey()
            switch Int.random(in: 0..<12, using: &random) {
            case 0..<4:
                let found = table.withValue(for: key, default: step) { $0 }
                XCTAssertEqual(found, model[key, default: step])
                model[key, default: step] = found
            case 4..<6:
                table.setValue(step, for: key)
                model[key] = step
            case 6..<8:
                XCTAssertEqual(table.removeValue(for: key), model.removeValue(forKey: key))
            case 8..<10:
                // Removed only if its value is even.
                let removed = table.removeValue(for: key, if: { $0 % 2 == 0 })
                if let value = model[key], value % 2 == 0 {
                    XCTAssertEqual(removed, value)
                    model[key] = nil
                } else {
                    XCTAssertNil(removed)
                }
            case 10:
                XCTAssertEqual(table[key], model[key])
            default:
                if step % 50 == 0 {
                    // A sweep: every entry seen once, some changed, some removed.
                    var seen = 0
                    table.removeAll { _, value in
                        seen += 1
                        if value % 7 == 0 { return true }
                        if value % 5 == 0 { value += 1 }
                        return false
                    }
                    XCTAssertEqual(seen, model.count)
                    model = model.filter { $0.value % 7 != 0 }.mapValues { $0 % 5 == 0 ? $0 + 1 : $0 }
                }
            }
            XCTAssertEqual(table.count, model.count)
            XCTAssertLessThanOrEqual(table.count * 2, table.capacity)
            if step % 4_000 == 0 {
                if table.longestDisplacement > 0 { sawCollisions = true }
                for (key, value) in model { XCTAssertEqual(table[key], value, "\(key)") }
            }
        }
        XCTAssertTrue(sawCollisions)
        for (key, value) in model { XCTAssertEqual(table[key], value, "\(key)") }
        var listed: [StoreKey: Int] = [:]
        table.forEach { key, value in XCTAssertNil(listed.updateValue(value, forKey: key)) }
        XCTAssertEqual(listed, model)
    }

    /// Many entities' dense keys in a small table collide; removing each key in turn (from
    /// the middle of the probe runs) must leave every other key found.
    func testRemovalFromCollidingRunsOfSeveralEntities() {
        let keys = (1...6).flatMap { entity in (1...20).map { key(entity, Int64($0)) } }
        var full = StoreKeyTable<Int>()
        for (index, key) in keys.enumerated() { full.setValue(index, for: key) }
        XCTAssertGreaterThan(full.longestDisplacement, 0, "the keys should collide")
        for (removedIndex, removedKey) in keys.enumerated() {
            var table = full
            XCTAssertEqual(table.removeValue(for: removedKey), removedIndex)
            XCTAssertNil(table[removedKey])
            XCTAssertNil(table.removeValue(for: removedKey))
            for (index, key) in keys.enumerated() where index != removedIndex { XCTAssertEqual(table[key], index, "\(key) after removing \(removedKey)") }
        }
        // Removing them all in a scrambled order empties it.
        var table = full
        var random = SeededGenerator(seed: 5)
        var remaining = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) })
        for key in keys.shuffled(using: &random) {
            XCTAssertEqual(table.removeValue(for: key), remaining.removeValue(forKey: key))
            for (other, index) in remaining { XCTAssertEqual(table[other], index) }
        }
        XCTAssertTrue(table.isEmpty)
        for key in keys { XCTAssertNil(table[key]) }
        XCTAssertEqual(full.count, keys.count, "copies are independent")
    }

    /// A sweep that removes entries inside probe runs (every other one, or one entity's)
    /// sees each entry once and leaves the rest found.
    func testRemoveAllWhereInsideProbeRuns() {
        let keys = (1...4).flatMap { entity in (0..<200).map { key(entity, Int64($0 * 3)) } }
        for removesEntity in [true, false] {
            var table = StoreKeyTable<Int>()
            for (index, key) in keys.enumerated() { table.setValue(index, for: key) }
            XCTAssertGreaterThan(table.longestDisplacement, 0)
            var seen = Set<StoreKey>()
            table.removeAll { key, value in
                XCTAssertTrue(seen.insert(key).inserted, "\(key) seen twice")
                return removesEntity ? key.entityNumber == 2 : value % 2 == 0
            }
            XCTAssertEqual(seen.count, keys.count)
            for (index, key) in keys.enumerated() {
                let removed = removesEntity ? key.entityNumber == 2 : index % 2 == 0
                XCTAssertEqual(table[key], removed ? nil : index, "\(key)")
            }
            XCTAssertEqual(table.count, removesEntity ? 600 : 400)
        }
    }

    /// Growing (by insertion and by reservation) and shrinking keep every entry; the same
    /// primary key in different entities and far-apart keys of one entity stay distinct.
    func testGrowReserveAndShrink() {
        var table = StoreKeyTable<Int64>()
        XCTAssertNil(table[key(1, 1)])
        XCTAssertNil(table.removeValue(for: key(1, 1)))
        table.reserveCapacity(1_000)
        let reserved = table.capacity
        XCTAssertGreaterThanOrEqual(reserved, 2_000)
        for primaryKey in Int64(1)...1_000 { table.setValue(primaryKey, for: key(1, primaryKey)) }
        XCTAssertEqual(table.capacity, reserved, "a reservation grows once")
        for primaryKey in Int64(1)...5_000 { table.setValue(-primaryKey, for: key(2, primaryKey)) }
        // Keys a power of two apart, beyond the table's span.
        for power in 20...40 { table.setValue(Int64(power), for: key(1, 1 << power)) }
        XCTAssertEqual(table.count, 6_000 + 21)
        for primaryKey in Int64(1)...1_000 { XCTAssertEqual(table[key(1, primaryKey)], primaryKey) }
        for primaryKey in Int64(1)...5_000 { XCTAssertEqual(table[key(2, primaryKey)], -primaryKey) }
        for power in 20...40 { XCTAssertEqual(table[key(1, 1 << power)], Int64(power)) }
        table.removeAll { key, _ in key.entityNumber == 2 || key.primaryKey > 10 }
        XCTAssertEqual(table.count, 10)
        table.shrink(toHold: 4)
        XCTAssertEqual(table.capacity, 32)
        for primaryKey in Int64(1)...10 { XCTAssertEqual(table[key(1, primaryKey)], primaryKey) }
        XCTAssertNil(table[key(2, 1)])
        table.removeAll()
        XCTAssertTrue(table.isEmpty)
        XCTAssertNil(table[key(1, 1)])
        table.setValue(3, for: key(1, 1))
        XCTAssertEqual(table[key(1, 1)], 3)
    }

    /// The sweep's use: values held elsewhere survive a pass that removes the unshared ones.
    func testSweepKeepsValuesHeldElsewhere() {
        final class Box {}
        var table = StoreKeyTable<Box>()
        var held: [Box] = []
        for primaryKey in Int64(1)...300 {
            let box = Box()
            if primaryKey % 3 == 0 { held.append(box) }
            table.setValue(box, for: key(7, primaryKey))
        }
        table.removeAll { _, box in isKnownUniquelyReferenced(&box) }
        XCTAssertEqual(table.count, 100)
        for (index, box) in held.enumerated() { XCTAssertTrue(table[key(7, Int64(index + 1) * 3)] === box) }
    }
}
