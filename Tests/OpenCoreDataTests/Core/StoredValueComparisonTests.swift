import Foundation
import XCTest
@testable import OpenCoreData

/// `valueEquals` and `hashableValue` take Swift strings on a fast path; every answer must
/// be the one the general path (`AnyHashable`) gives.
final class StoredValueComparisonTests: XCTestCase {
    private let values: [Any] = [
        "Ridge", "ridge", "Café", "Cafe\u{301}", NSString(string: "Ridge"), NSString(string: "Café"),
        4.5, 4.5 as Float, 4, Int64(4), NSNumber(value: 4.5), NSNumber(value: 4), true,
        Date(timeIntervalSinceReferenceDate: 0), Data([1, 2]), "",
    ]

    func testStringsCompareAsAnyHashableComparesThem() {
        for a in values {
            for b in values {
                let expected = (a as? AnyHashable).flatMap { x in (b as? AnyHashable).map { x == $0 } }
                XCTAssertEqual(valueEquals(a, b), expected ?? false, "\(a) (\(type(of: a))) vs \(b) (\(type(of: b)))")
            }
        }
        XCTAssertTrue(valueEquals("Café", "Cafe\u{301}"), "canonically equivalent strings are equal, as String's == says")
        XCTAssertFalse(valueEquals("Ridge", nil))
        XCTAssertTrue(valueEquals(nil, nil))
    }

    func testHashableValueIsTheCastToAnyHashable() {
        for value in values {
            XCTAssertEqual(hashableValue(value), value as? AnyHashable, "\(value) (\(type(of: value)))")
        }
        XCTAssertNil(hashableValue(nil))
    }
}
