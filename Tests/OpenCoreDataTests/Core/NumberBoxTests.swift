import Foundation
import XCTest

@testable import OpenCoreData

/// The numbers `value(forKey:)` hands out: small integers and the Booleans are shared
/// boxes, as Apple's tagged pointers and `kCFBooleanTrue`/`False` cost no allocation; each
/// keeps its integer type; other values are boxed anew with the same answers.
final class NumberBoxTests: CoreTestCase {
    func testSmallIntegersAndBooleansAreSharedAndKeepTheirType() {
        XCTAssertTrue(NumberBox.of(Int32(7)) === NumberBox.of(Int32(7)))
        XCTAssertTrue(NumberBox.of(Int64(-128)) === NumberBox.of(Int64(-128)))
        XCTAssertTrue(NumberBox.of(Int16(1_023)) === NumberBox.of(Int16(1_023)))
        XCTAssertTrue(NumberBox.of(true) === NumberBox.of(true))
        XCTAssertFalse(NumberBox.of(true) === NumberBox.of(false))
        // The same value of each integer type is its own number, with its own type.
        XCTAssertEqual(String(cString: NumberBox.of(Int16(7)).objCType), String(cString: NSNumber(value: Int16(7)).objCType))
        XCTAssertEqual(String(cString: NumberBox.of(Int32(7)).objCType), String(cString: NSNumber(value: Int32(7)).objCType))
        XCTAssertEqual(String(cString: NumberBox.of(Int64(7)).objCType), String(cString: NSNumber(value: Int64(7)).objCType))
        XCTAssertEqual(String(cString: NumberBox.of(true).objCType), String(cString: NSNumber(value: true).objCType))
    }

    func testValuesOutsideTheSharedRangeAreBoxedWithTheSameAnswers() {
        for value in [Int64(-129), 1_024, Int64.max, Int64.min] {
            let box = NumberBox.of(value)
            XCTAssertEqual(box.int64Value, value)
            XCTAssertEqual(box, NSNumber(value: value))
        }
        XCTAssertEqual(NumberBox.of(Int32(-129)).int32Value, -129)
        XCTAssertEqual(NumberBox.of(Int16.max).int16Value, .max)
        XCTAssertEqual(NumberBox.of(2.5).doubleValue, 2.5)
        XCTAssertEqual(NumberBox.of(Float(0.25)).floatValue, 0.25)
    }

    func testValueForKeyHandsOutNumbersThatCastBackToTheStoredType() throws {
        let container = try openContainer()
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: container.viewContext)
        for steps in [Int16(0), 3, 1_023, 1_024, -129] {
            trail.setValue(steps, forKey: "steps")
            let read = try XCTUnwrap(trail.value(forKey: "steps") as? NSNumber)
            XCTAssertEqual(read.int16Value, steps)
            XCTAssertEqual(trail.value(forKey: "steps") as? Int16, steps)
        }
        trail.setValue(false, forKey: "isFavorite")
        XCTAssertEqual(trail.value(forKey: "isFavorite") as? Bool, false)
        XCTAssertTrue((trail.value(forKey: "isFavorite") as? NSNumber) === NumberBox.of(false))
    }
}
