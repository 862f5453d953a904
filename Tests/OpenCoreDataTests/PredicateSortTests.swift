import Foundation
import XCTest

@testable import OpenCoreData

import class OpenCoreData.NSSortDescriptor

/// NSSortDescriptor with every selector, nil placement, key paths and several descriptors.
final class PredicateSortTests: XCTestCase {
    private func sortNames(_ names: [String?], _ descriptor: NSSortDescriptor) -> [String?] {
        sortedObjects(names.map { ["name": $0 as Any] }, using: [descriptor]).map { $0["name"] as? String }
    }

    func testSelectors() {
        let names: [String?] = ["zebra", "Zebra", "apple", "Apple", "été", "ete", "Eclair", "éclair", "file10", "file2"]
        XCTAssertEqual(sortNames(names, NSSortDescriptor(key: "name", ascending: true)),
                       ["Apple", "Eclair", "Zebra", "apple", "ete", "file10", "file2", "zebra", "éclair", "été"])
        XCTAssertEqual(sortNames(["b", "A", "a", "B"], NSSortDescriptor(key: "name", ascending: true, selector: Selector("caseInsensitiveCompare:"))),
                       ["A", "a", "b", "B"])
        XCTAssertEqual(sortNames(names, NSSortDescriptor(key: "name", ascending: true, selector: Selector("localizedCompare:"))),
                       ["apple", "Apple", "Eclair", "éclair", "ete", "été", "file10", "file2", "zebra", "Zebra"])
        XCTAssertEqual(sortNames(["b", "A", "a", "B", "É", "e"], NSSortDescriptor(key: "name", ascending: true, selector: Selector("localizedCaseInsensitiveCompare:"))),
                       ["A", "a", "b", "B", "e", "É"])
        XCTAssertEqual(sortNames(["file10", "File1", "file2", "file1.5", "Élan", "elan"], NSSortDescriptor(key: "name", ascending: true, selector: "localizedStandardCompare:")),
                       ["elan", "Élan", "File1", "file1.5", "file2", "file10"])
        // Non-Latin scripts order by their own alphabet.
        XCTAssertEqual(sortNames(["γάμμα", "άλφα", "βήτα"], NSSortDescriptor(key: "name", ascending: true, selector: Selector("localizedStandardCompare:"))),
                       ["άλφα", "βήτα", "γάμμα"])
    }

    func testNilSortsFirstAscendingLastDescending() {
        XCTAssertEqual(sortNames(["b", nil, "a"], NSSortDescriptor(key: "name", ascending: true)), [nil, "a", "b"])
        XCTAssertEqual(sortNames(["b", nil, "a"], NSSortDescriptor(key: "name", ascending: false)), ["b", "a", nil])
    }

    func testNumbersDatesAndSeveralDescriptors() {
        let trails = [
            PTrail(name: "b", rating: 3, length: 2), PTrail(name: "a", rating: 3, length: 1),
            PTrail(name: "c", rating: 5, length: 9), PTrail(name: "d", rating: 1, length: 4),
        ]
        let byRatingThenName = [NSSortDescriptor(key: "rating", ascending: false), NSSortDescriptor(key: "name", ascending: true)]
        XCTAssertEqual(sortedObjects(trails, using: byRatingThenName).map { $0.name }, ["c", "a", "b", "d"])
        XCTAssertEqual(trails.sortedArray(using: [NSSortDescriptor(key: "length", ascending: true)]).map { $0.name }, ["a", "b", "d", "c"])
        let mixed: [[String: Any]] = [["v": 2.5], ["v": Int16(2)], ["v": Decimal(3)], ["v": NSNumber(value: 1)]]
        XCTAssertEqual(sortedObjects(mixed, using: [NSSortDescriptor(key: "v", ascending: true)]).map { "\($0["v"]!)" }, ["1", "2", "2.5", "3"])
        let dates = [Date(timeIntervalSinceReferenceDate: 5), Date(timeIntervalSinceReferenceDate: 1)]
        XCTAssertEqual(sortedObjects(dates, using: [NSSortDescriptor(key: nil, ascending: true)]), dates.reversed())
        // Stable: equal keys keep their order.
        XCTAssertEqual(sortedObjects(trails, using: [NSSortDescriptor(key: "rating", ascending: true)]).map { $0.name }, ["d", "b", "a", "c"])
    }

    func testKeyPathsThroughToOneRelationships() {
        let trails = [PTrail(name: "x", region: PRegion(name: "Jura")), PTrail(name: "y", region: PRegion(name: "Alps")), PTrail(name: "z")]
        XCTAssertEqual(sortedObjects(trails, using: [NSSortDescriptor(key: "region.name", ascending: true)]).map { $0.name }, ["z", "y", "x"])
    }

    func testPropertiesCompareAndReversal() {
        let descriptor = NSSortDescriptor(key: "name", ascending: true, selector: Selector("localizedStandardCompare:"))
        XCTAssertEqual(descriptor.key, "name")
        XCTAssertTrue(descriptor.ascending)
        XCTAssertEqual(descriptor.selector, Selector("localizedStandardCompare:"))
        XCTAssertEqual(descriptor.description, "(name, ascending, localizedStandardCompare:)")
        XCTAssertEqual(NSSortDescriptor(key: "date", ascending: false).description, "(date, descending, compare:)")
        XCTAssertEqual(descriptor.compare(["name": "file2"], to: ["name": "file10"]), .orderedAscending)
        let reversed = descriptor.reversedSortDescriptor as! NSSortDescriptor
        XCTAssertFalse(reversed.ascending)
        XCTAssertEqual(reversed.selector, descriptor.selector)
        XCTAssertEqual(reversed.compare(["name": "file2"], to: ["name": "file10"]), .orderedDescending)
        let block = NSSortDescriptor(key: "n", ascending: true) { a, b in
            let x = a as! Int, y = b as! Int
            return x % 3 < y % 3 ? .orderedAscending : (x % 3 > y % 3 ? .orderedDescending : .orderedSame)
        }
        XCTAssertEqual(sortedObjects([["n": 5], ["n": 3], ["n": 4]], using: [block]).map { $0["n"] as! Int }, [3, 4, 5])
        XCTAssertEqual(block.comparator(1, 2), .orderedAscending)
        XCTAssertEqual(NSSortDescriptor(key: "name", ascending: true), NSSortDescriptor(key: "name", ascending: true))
    }

    func testSwiftKeyPaths() {
        struct Item { var name: String; var size: Int { name.count } }
        let stored = NSSortDescriptor(keyPath: \Item.name, ascending: true)
        XCTAssertEqual(stored.key, "name")
        XCTAssertEqual(sortedObjects([Item(name: "b"), Item(name: "a")], using: [stored]).map(\.name), ["a", "b"])
        // A computed property has no name on Linux, but the descriptor still sorts by it.
        let computed = NSSortDescriptor(keyPath: \Item.size, ascending: false)
        XCTAssertNil(computed.key)
        XCTAssertEqual(sortedObjects([Item(name: "b"), Item(name: "ccc"), Item(name: "aa")], using: [computed]).map(\.name), ["ccc", "aa", "b"])
        XCTAssertEqual((computed.reversedSortDescriptor as! NSSortDescriptor).ascending, true)
    }

    func testSelectorValue() {
        let selector: Selector = "compare:"
        XCTAssertEqual(selector, Selector("compare:"))
        XCTAssertEqual(NSStringFromSelector(NSSelectorFromString("localizedCompare:")), "localizedCompare:")
        XCTAssertEqual("\(Selector("caseInsensitiveCompare:"))", "caseInsensitiveCompare:")
    }
}
