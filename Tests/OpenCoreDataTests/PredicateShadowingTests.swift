import Foundation
import XCTest
import OpenCoreData

// This file imports Foundation (and XCTest, which re-exports it) beside OpenCoreData, as
// Apple-style code does. Swift does not let OpenCoreData's types shadow Foundation's here,
// so these scoped imports choose them; without them `NSPredicate` in a type position is
// ambiguous. A file that imports OpenCoreData alone needs no scoped import (OpenCoreData
// re-exports Foundation). LinuxDifferences.md describes both.
import class OpenCoreData.NSPredicate
import class OpenCoreData.NSSortDescriptor

/// Client code as Apple's documentation writes it compiles against OpenCoreData.
final class PredicateShadowingTests: XCTestCase {
    func testAppleStyleClientCode() {
        let predicate: NSPredicate = NSPredicate(format: "name == %@", "x")
        let sort: NSSortDescriptor = NSSortDescriptor(key: "name", ascending: true)
        XCTAssertTrue(predicate.evaluate(with: ["name": "x"]))
        XCTAssertEqual(predicate.predicateFormat, "name == \"x\"")
        XCTAssertEqual(sort.key, "name")
        XCTAssertTrue(type(of: predicate) != Foundation.NSPredicate.self)
        let always: NSPredicate = NSPredicate(value: true)
        XCTAssertTrue(always.evaluate(with: nil))
    }

    func testCVarArgValuesStillCompile() {
        let values: [CVarArg] = [3, "x"]
        let predicate = NSPredicate(format: "rating > %d AND name == %@", values[0], values[1])
        XCTAssertEqual(predicate.predicateFormat, "rating > 3 AND name == \"x\"")
        let name: String? = nil
        XCTAssertEqual(NSPredicate(format: "name == %@", name).predicateFormat, "name == nil")
        XCTAssertEqual(NSPredicate(format: "tags IN %@", ["a", "b"]).predicateFormat, "tags IN {\"a\", \"b\"}")
    }
}
