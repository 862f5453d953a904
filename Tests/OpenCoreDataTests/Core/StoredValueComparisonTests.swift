import Foundation
import XCTest
@testable import OpenCoreData

/// `valueEquals` and `hashableValue` take Swift strings (and `valueEquals` the common
/// scalars) on a fast path; every answer must
/// be the one the general path (`AnyHashable`) gives.
final class StoredValueComparisonTests: XCTestCase {
    private let values: [Any] = [
        "Ridge", "ridge", "Café", "Cafe\u{301}", NSString(string: "Ridge"), NSString(string: "Café"),
        4.5, 4.5 as Float, 4, Int64(4), NSNumber(value: 4.5), NSNumber(value: 4), true,
        Date(timeIntervalSinceReferenceDate: 0), Data([1, 2]), "",
        // The scalar fast path: each type against itself and the others.
        Double.nan, -0.0, 0.0, 4.0, Int16(4), Int32(4), Int64(5), Int16(-1), Int32(-1), false,
        Date(timeIntervalSinceReferenceDate: 1), Date(timeIntervalSinceReferenceDate: 0.5), Float.nan,
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
            let expected = value as? AnyHashable
            if let expected, expected != expected {
                // NaN is not equal to itself: compare what was made instead.
                XCTAssertEqual(hashableValue(value).map { "\(type(of: $0.base)) \($0)" }, "\(type(of: expected.base)) \(expected)")
                continue
            }
            XCTAssertEqual(hashableValue(value), expected, "\(value) (\(type(of: value)))")
        }
        XCTAssertNil(hashableValue(nil))
    }
}
