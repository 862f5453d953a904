import Foundation
import XCTest

@testable import OpenCoreData

/// An entity's slots by name (`EntityPropertyTable.slotByName`), which key-value coding
/// looks up at every call: the answers a `[String: Int]` gives, found through a byte hash.
final class PropertySlotIndexTests: XCTestCase {
    func testEveryNameFindsItsSlotAndOthersNone() {
        // More names than the smallest table holds, so buckets collide and the table grows.
        let names = (0..<40).map { "property\($0)" } + ["name", "quantity", "a", "", "Grüße 👋🏽"]
        let index = PropertySlotIndex(names)
        XCTAssertEqual(index.count, names.count)
        for (slot, name) in names.enumerated() { XCTAssertEqual(index[name], slot, name) }
        XCTAssertNil(index["property40"])
        XCTAssertNil(index["Name"])
        XCTAssertNil(index["nam"])
    }

    func testARepeatedNameKeepsItsLastSlot() {
        let index = PropertySlotIndex(["name", "code", "name"])
        XCTAssertEqual(index.count, 2)
        XCTAssertEqual(index["name"], 2)
        XCTAssertEqual(index["code"], 1)
    }

    func testCanonicallyEquivalentKeysFindTheSlotAsADictionaryDoes() {
        // U+212A KELVIN SIGN is canonically equivalent to "K"; é precomposed to e + U+0301.
        let index = PropertySlotIndex(["\u{212A}elvin", "caf\u{E9}"])
        XCTAssertEqual(index["Kelvin"], 0)
        XCTAssertEqual(index["cafe\u{301}"], 1)
        XCTAssertEqual(index["caf\u{E9}"], 1)
    }

    func testKeysMadeAtRunTimeAndLongKeysAreFound() {
        let long = String(repeating: "aVeryLongPropertyName", count: 3)
        let index = PropertySlotIndex(["name", long])
        XCTAssertEqual(index[String(decoding: Array("name".utf8), as: UTF8.self)], 0)
        XCTAssertEqual(index[String(long.reversed().reversed())], 1)
        XCTAssertEqual(index[String(NSString(string: "name"))], 0)
    }
}
