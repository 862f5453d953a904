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
}
