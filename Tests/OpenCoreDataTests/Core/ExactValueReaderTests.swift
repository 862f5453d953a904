import Foundation
import XCTest

@testable import OpenCoreData

/// The in-place reader of `Any?` slots that a save binds values with.
final class ExactValueReaderTests: XCTestCase {
    /// Reads `slot`'s value as `T` where it lies.
    private func read<T: InlineExistentialValue>(_ value: Any?, as type: T.Type) -> T? {
        var slot = value
        return withUnsafePointer(to: &slot) { ExactValueReader.read($0, as: type) }
    }

    func testTheLayoutCheckPassesOnThisPlatform() {
        // If this fails, saves still work (every value goes through `as?`) but slower.
        XCTAssertTrue(ExactValueReader.layoutHolds)
    }

    func testValuesOfTheExactTypeReadBack() {
        XCTAssertEqual(read(Int16.min, as: Int16.self), Int16.min)
        XCTAssertEqual(read(Int32(-99), as: Int32.self), -99)
        XCTAssertEqual(read(Int64.max, as: Int64.self), Int64.max)
        XCTAssertEqual(read(true, as: Bool.self), true)
        XCTAssertEqual(read(false, as: Bool.self), false)
        XCTAssertEqual(read(-0.125, as: Double.self), -0.125)
        XCTAssertEqual(read(Float.infinity, as: Float.self), .infinity)
        XCTAssertEqual(read(Date(timeIntervalSinceReferenceDate: 42.5), as: Date.self), Date(timeIntervalSinceReferenceDate: 42.5))
        XCTAssertEqual(read("Grüße 👋🏽", as: String.self), "Grüße 👋🏽")
        let long = String(repeating: "a string stored on the heap ", count: 10)
        XCTAssertEqual(read(long, as: String.self), long)
    }

    func testOtherTypesAndNilAreLeftToTheCaller() {
        XCTAssertNil(read(nil, as: Int32.self))
        XCTAssertNil(read(Int(5), as: Int32.self), "Int is not Int32")
        XCTAssertNil(read(NSNumber(value: 5), as: Int64.self), "a bridged number is cast by the caller")
        XCTAssertNil(read(Float(1), as: Double.self))
        XCTAssertNil(read(Substring("text"), as: String.self))
        XCTAssertNil(read(NSString(string: "text"), as: String.self))
        XCTAssertNil(read(1.0, as: Date.self))
    }

    func testAStringReadOutlivesItsSlot() {
        var slot: Any? = String(repeating: "kept ", count: 20)
        let text = withUnsafePointer(to: &slot) { ExactValueReader.read($0, as: String.self) }
        slot = nil
        XCTAssertEqual(text, String(repeating: "kept ", count: 20))
    }

    /// `copy` hands back the same value and type as copying the `Any?` would: the types it
    /// copies as themselves, nil, and the others through the generic copy; and the copy
    /// outlives the slot it came from.
    func testACopyIsTheSameValueOfTheSameType() {
        func copied(_ value: Any?) -> Any? {
            var slot = value
            return withUnsafePointer(to: &slot) { ExactValueReader.copy($0) }
        }
        XCTAssertNil(copied(nil))
        XCTAssertEqual(copied(Int16(-7)) as? Int16, -7)
        XCTAssertEqual(copied(Int32.max) as? Int32, .max)
        XCTAssertEqual(copied(Int64.min) as? Int64, .min)
        XCTAssertEqual(copied(true) as? Bool, true)
        XCTAssertEqual(copied(2.5) as? Double, 2.5)
        XCTAssertEqual(copied(Date(timeIntervalSinceReferenceDate: 9)) as? Date, Date(timeIntervalSinceReferenceDate: 9))
        XCTAssertEqual(copied(Float(1.5)) as? Float, 1.5, "not copied as itself: the generic copy")
        XCTAssertEqual(copied(Decimal(string: "1.25")) as? Decimal, Decimal(string: "1.25"))
        XCTAssertTrue(type(of: copied(Int32(1))!) == Int32.self, "an Int32 stays an Int32, not an Int")
        let data = Data([1, 2, 3])
        XCTAssertEqual(copied(data) as? Data, data)
        let object = NSObject()
        XCTAssertTrue(copied(object) as AnyObject === object)
        var kept: Any?
        do {
            var slot: Any? = String(repeating: "heap ", count: 20)
            kept = withUnsafePointer(to: &slot) { ExactValueReader.copy($0) }
            slot = nil
        }
        XCTAssertEqual(kept as? String, String(repeating: "heap ", count: 20))
    }

    /// `storedType` names a value type's own type without copying it, and nil for nil.
    func testTheStoredTypeOfAValueIsItsOwnType() {
        func stored(_ value: Any?) -> Any.Type? {
            var slot = value
            return withUnsafePointer(to: &slot) { ExactValueReader.storedType($0) }
        }
        XCTAssertNil(stored(nil))
        XCTAssertTrue(stored(Int16(1)) == Int16.self)
        XCTAssertTrue(stored("text") == String.self)
        XCTAssertTrue(stored(Decimal(1)) == Decimal.self)
        XCTAssertTrue(stored(URL(string: "https://example.com")!) == URL.self)
        XCTAssertTrue(stored(UUID()) == UUID.self)
    }
}
