import Foundation
import XCTest

@testable import OpenCoreData

private final class Owner: CustomStringConvertible {
    var description: String { "<Trail: 0x1>" }
}

final class AttributeValidationTests: XCTestCase {
    private let owner = Owner()

    private func attribute(_ name: String, _ type: NSAttributeType, optional: Bool = true, _ configure: (inout AttributeConstraints) -> Void = { _ in }) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.isOptional = optional
        configure(&attribute.constraints)
        return attribute
    }

    private func codes(_ value: Any?, _ attribute: NSAttributeDescription) -> [Int] {
        attributeValidationErrors(value: value, attribute: attribute, object: owner).map(\.code)
    }

    func testMandatoryValue() throws {
        let name = attribute("name", .stringAttributeType, optional: false)
        let errors = attributeValidationErrors(value: nil, attribute: name, object: owner)
        XCTAssertEqual(errors.map(\.code), [1570])
        let error = try XCTUnwrap(errors.first)
        XCTAssertTrue(error.userInfo[NSValidationObjectErrorKey] as AnyObject === owner)
        XCTAssertEqual(error.userInfo[NSValidationKeyErrorKey] as? String, "name")
        XCTAssertNil(error.userInfo[NSValidationValueErrorKey])
        XCTAssertEqual(error.localizedDescription, "name is a required value.")
        XCTAssertEqual(codes(NSNull(), name), [1570])
        XCTAssertEqual(codes(Optional<String>.none as Any, name), [1570])
        XCTAssertEqual(codes("", name), [], "an empty string is a value")
        XCTAssertEqual(codes(nil, attribute("note", .stringAttributeType)), [])
    }

    func testNumberRange() throws {
        let rating = attribute("rating", .doubleAttributeType) { $0.minimum = 0; $0.maximum = 5 }
        let tooLarge = try XCTUnwrap(attributeValidationErrors(value: 6.0, attribute: rating, object: owner).first)
        XCTAssertEqual(tooLarge.code, NSValidationNumberTooLargeError)
        XCTAssertEqual(tooLarge.localizedDescription, "rating is too large.")
        XCTAssertEqual(tooLarge.userInfo[NSValidationValueErrorKey] as? Double, 6.0)
        XCTAssertEqual(
            tooLarge.description,
            "Error Domain=NSCocoaErrorDomain Code=1610 \"rating is too large.\" UserInfo={NSValidationErrorObject=<Trail: 0x1>, NSLocalizedDescription=rating is too large., NSValidationErrorKey=rating, NSValidationErrorValue=6}")
        XCTAssertEqual(codes(-0.5, rating), [NSValidationNumberTooSmallError])
        XCTAssertEqual(attributeValidationErrors(value: -1.0, attribute: rating, object: owner).first?.localizedDescription, "rating is too small.")
        XCTAssertEqual(codes(5.0, rating), [])
        XCTAssertEqual(codes(0.0, rating), [])
        XCTAssertEqual(codes(NSNumber(value: 7), rating), [1610])
        let count = attribute("count", .integer16AttributeType) { $0.maximum = 10 }
        XCTAssertEqual(codes(Int16(11), count), [1610])
        XCTAssertEqual(codes(Int16(10), count), [])
        let price = attribute("price", .decimalAttributeType) { $0.minimum = Decimal(string: "0.01") }
        XCTAssertEqual(codes(Decimal(0), price), [1620])
    }

    func testStringLengthAndPattern() {
        let name = attribute("name", .stringAttributeType) { $0.minimum = 2; $0.maximum = 5; $0.regularExpression = "[a-z]+" }
        XCTAssertEqual(codes("abcdef", name), [NSValidationStringTooLongError])
        XCTAssertEqual(codes("a", name), [NSValidationStringTooShortError])
        XCTAssertEqual(codes("ab1", name), [NSValidationStringPatternMatchingError])
        XCTAssertEqual(codes("A", name), [1670, 1680], "every broken rule is reported")
        XCTAssertEqual(codes("abc", name), [])
        XCTAssertEqual(attributeValidationErrors(value: "abcdef", attribute: name, object: owner).first?.localizedDescription, "name is too long.")
        XCTAssertEqual(attributeValidationErrors(value: "a", attribute: name, object: owner).first?.localizedDescription, "name is too short.")
        XCTAssertEqual(attributeValidationErrors(value: "ab1", attribute: name, object: owner).first?.localizedDescription, "name is not valid.")
        // The whole string must match, not a prefix, with any alternative.
        let choice = attribute("kind", .stringAttributeType) { $0.regularExpression = "a|ab" }
        XCTAssertEqual(codes("ab", choice), [])
        XCTAssertEqual(codes("abc", choice), [1680])
        // Length counts UTF-16 units, as NSString does.
        let short = attribute("emoji", .stringAttributeType) { $0.maximum = 1 }
        XCTAssertEqual(codes("😀", short), [1660])
    }

    func testDateRange() {
        let opened = attribute("opened", .dateAttributeType) { $0.minimumDate = 0; $0.maximumDate = 100 }
        XCTAssertEqual(codes(Date(timeIntervalSinceReferenceDate: 101), opened), [NSValidationDateTooLateError])
        XCTAssertEqual(codes(Date(timeIntervalSinceReferenceDate: -1), opened), [NSValidationDateTooSoonError])
        XCTAssertEqual(codes(Date(timeIntervalSinceReferenceDate: 50), opened), [])
        XCTAssertEqual(attributeValidationErrors(value: Date(timeIntervalSinceReferenceDate: 101), attribute: opened, object: owner).first?.localizedDescription, "opened is too late.")
        XCTAssertEqual(attributeValidationErrors(value: Date(timeIntervalSinceReferenceDate: -1), attribute: opened, object: owner).first?.localizedDescription, "opened is too soon.")
    }

    func testRulesFromAModelFile() throws {
        let model = try ModelFixtures.load("Trails.xcdatamodel")
        let name = try XCTUnwrap(model.entitiesByName["Trail"]?.attributesByName["name"])
        XCTAssertEqual(codes("Blue Ridge", name), [])
        XCTAssertEqual(codes("Route 66", name), [1680])
        XCTAssertEqual(codes(String(repeating: "a", count: 41), name), [1660])
        XCTAssertEqual(codes(nil, name), [1570])
    }
}
