import XCTest
@testable import OpenCoreData

/// A row's to-one keys (ToOneKeys.swift) behave as the `[String: StoreKey]` they replace:
/// set, replace, remove (the first key or a later one), and equality in any order.
final class ToOneKeysTests: XCTestCase {
    private let trail = StoreKey(entityNumber: 1, primaryKey: 7)
    private let author = StoreKey(entityNumber: 2, primaryKey: 9)
    private let folder = StoreKey(entityNumber: 3, primaryKey: 4)

    func testSetReplaceAndRemoveAgreeWithADictionary() {
        var keys = ToOneKeys()
        var model: [String: StoreKey] = [:]
        let steps: [(String, StoreKey?)] = [
            ("trail", trail), ("author", author), ("folder", folder), ("trail", folder),
            ("trail", nil), ("author", trail), ("missing", nil), ("folder", nil), ("author", nil),
            ("author", author), ("trail", trail),
        ]
        for (name, key) in steps {
            keys[name] = key
            model[name] = key
            XCTAssertEqual(keys.count, model.count, "after setting \(name)")
            for name in ["trail", "author", "folder", "missing"] {
                XCTAssertEqual(keys[name], model[name], "\(name)")
            }
        }
    }

    func testEqualityIgnoresOrder() {
        let one: ToOneKeys = ["trail": trail, "author": author]
        let other: ToOneKeys = ["author": author, "trail": trail]
        XCTAssertEqual(one, other)
        XCTAssertNotEqual(one, ["trail": trail])
        XCTAssertNotEqual(one, ["trail": trail, "author": folder])
        XCTAssertNotEqual(one, ["trail": trail, "folder": author])
        XCTAssertEqual(ToOneKeys(), [:])
    }
}
