import XCTest
@testable import OpenCoreData

/// Walking arrays and lists of objects without retaining each one (UnretainedIteration.swift):
/// every object in order, `nil` slots skipped, and a copy of a list keeping its objects alive
/// while the list it was copied from lets them go.
final class BorrowedIterationTests: XCTestCase {
    private final class Probe {
        let number: Int
        init(_ number: Int) { self.number = number }
    }

    func testArraysOfObjectsAreWalkedInOrder() {
        let probes = (0..<5).map(Probe.init)
        var seen: [Int] = []
        probes.forEachBorrowed { seen.append($0.number) }
        XCTAssertEqual(seen, [0, 1, 2, 3, 4])
        var none: [Int] = []
        [Probe]().forEachBorrowed { none.append($0.number) }
        XCTAssertEqual(none, [])
    }

    func testOptionalSlotsSkipTheEmptyOnes() {
        let slots: [Probe?] = [nil, Probe(1), nil, nil, Probe(4), nil]
        var seen: [Int] = []
        slots.forEachBorrowed { (probe: Probe) in seen.append(probe.number) }
        XCTAssertEqual(seen, [1, 4])
    }

    func testPairsAreWalkedTogether() {
        let pairs = (0..<3).map { (Probe($0), Probe($0 * 10)) }
        var seen: [String] = []
        pairs.forEachBorrowedPair { first, second in seen.append("\(first.number)/\(second.number)") }
        XCTAssertEqual(seen, ["0/0", "1/10", "2/20"])
    }

    func testErrorsStopTheWalk() {
        struct Stop: Error {}
        var seen: [Int] = []
        XCTAssertThrowsError(try (0..<5).map(Probe.init).forEachBorrowed { probe in
            if probe.number == 2 { throw Stop() }
            seen.append(probe.number)
        })
        XCTAssertEqual(seen, [0, 1])
    }

    /// What the save relies on: the objects of a copied list stay alive while a body called
    /// with them makes the original list drop them (the copy's slots still hold them).
    func testACopiedListKeepsItsObjectsWhileTheOriginalDropsThem() {
        var list = ObjectList()
        weak var firstObject: NSManagedObject?
        do {
            let objects = detachedObjects(3)
            firstObject = objects[0]
            for object in objects { list.append(object) }
        }
        let copy = list
        var walked = 0
        copy.forEachBorrowed { object in
            _ = list.remove(object)
            XCTAssertNotNil(object.entity)  // still a live object
            walked += 1
        }
        XCTAssertEqual(walked, 3)
        XCTAssertEqual(list.count, 0)
        XCTAssertNotNil(firstObject, "the copy still holds it")
        _ = copy
    }
}
