import Foundation
import XCTest

@testable import OpenCoreData

private struct Route: Codable, Equatable {
    var waypoints: [String]
    var loop: Bool
}

/// Upper-cases strings; cannot go back.
private final class ShoutTransformer: ValueTransformer {
    override class func allowsReverseTransformation() -> Bool { false }
    override func transformedValue(_ value: Any?) -> Any? { (value as? String)?.uppercased() }
}

/// A custom archivable class, as apps store colors in Transformable attributes.
final class TintColor: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let name: String
    init(name: String) { self.name = name }
    func encode(with coder: NSCoder) { coder.encode(NSString(string: name), forKey: "name") }
    init?(coder: NSCoder) {
        guard let name = coder.decodeObject(of: NSString.self, forKey: "name") else { return nil }
        self.name = String(describing: name)
    }
}

/// Allows `TintColor` at the top of the archive, as Apple's documentation shows for UIColor.
final class TintColorTransformer: NSSecureUnarchiveFromDataTransformer {
    override class var allowedTopLevelClasses: [AnyClass] { [TintColor.self] }
}

final class TransformerTests: XCTestCase {
    func testSubclassAllowingACustomClassRoundTripsIt() throws {
        let transformer = TintColorTransformer()
        let data = try XCTUnwrap(transformer.reverseTransformedValue(TintColor(name: "red")) as? Data)
        XCTAssertEqual((transformer.transformedValue(data) as? TintColor)?.name, "red")
        XCTAssertNil(NSSecureUnarchiveFromDataTransformer().transformedValue(data), "the default list does not allow TintColor")
    }

    func testRegistrationByName() throws {
        let name = NSValueTransformerName("ShoutTransformer-\(UUID().uuidString)")
        XCTAssertNil(ValueTransformer(forName: name))
        ValueTransformer.setValueTransformer(ShoutTransformer(), forName: name)
        XCTAssertTrue(ValueTransformer.valueTransformerNames().contains(name))
        let found = try XCTUnwrap(ValueTransformer(forName: name))
        XCTAssertEqual(found.transformedValue("hey") as? String, "HEY")
        XCTAssertNil(found.reverseTransformedValue("HEY"), "ShoutTransformer does not allow reversing")
        ValueTransformer.setValueTransformer(nil, forName: name)
        XCTAssertNil(ValueTransformer(forName: name))
        XCTAssertFalse(ValueTransformer.valueTransformerNames().contains(name))
    }

    func testBuiltInTransformers() throws {
        XCTAssertTrue(ValueTransformer.valueTransformerNames().contains(.secureUnarchiveFromDataTransformerName))
        XCTAssertEqual(NSValueTransformerName.secureUnarchiveFromDataTransformerName.rawValue, "NSSecureUnarchiveFromData")
        // Older models name the keyed unarchiver; it reads what the secure one writes.
        let archived = try XCTUnwrap(NSSecureUnarchiveFromDataTransformer().reverseTransformedValue(["a"]) as? Data)
        XCTAssertEqual(ValueTransformer(forName: .keyedUnarchiveFromDataTransformerName)?.transformedValue(archived) as? [String], ["a"])
        let negate = try XCTUnwrap(ValueTransformer(forName: .negateBooleanTransformerName))
        XCTAssertEqual(negate.transformedValue(true) as? Bool, false)
        XCTAssertEqual(negate.reverseTransformedValue(false) as? Bool, true)
        let isNil = try XCTUnwrap(ValueTransformer(forName: .isNilTransformerName))
        XCTAssertEqual(isNil.transformedValue(nil) as? Bool, true)
        XCTAssertEqual(isNil.transformedValue(3) as? Bool, false)
        XCTAssertEqual(ValueTransformer(forName: .isNotNilTransformerName)?.transformedValue(3) as? Bool, true)
    }

    func testSecureUnarchiveRoundTripsFoundationValues() throws {
        let transformer = NSSecureUnarchiveFromDataTransformer()
        let value: [String: Any] = ["tags": ["a", "b c"], "count": 3, "ratio": 0.25, "on": true, "when": Date(timeIntervalSinceReferenceDate: 10)]
        let data = try XCTUnwrap(transformer.reverseTransformedValue(value) as? Data)
        let back = try XCTUnwrap(transformer.transformedValue(data) as? [AnyHashable: Any])
        XCTAssertEqual(back["tags"] as? [String], ["a", "b c"])
        XCTAssertEqual(back["count"] as? Int, 3)
        XCTAssertEqual(back["ratio"] as? Double, 0.25)
        XCTAssertEqual(back["on"] as? Bool, true)
        XCTAssertEqual(back["when"] as? Date, Date(timeIntervalSinceReferenceDate: 10))
        XCTAssertNil(transformer.transformedValue(Data("not an archive".utf8)))
    }

    func testSecureUnarchiveRejectsClassesNotAllowed() throws {
        final class OnlyStrings: NSSecureUnarchiveFromDataTransformer {
            override class var allowedTopLevelClasses: [AnyClass] { [NSString.self] }
        }
        let transformer = OnlyStrings()
        let array = try XCTUnwrap(transformer.reverseTransformedValue([1, 2]) as? Data)
        XCTAssertNil(transformer.transformedValue(array))
        let string = try XCTUnwrap(transformer.reverseTransformedValue("ok") as? Data)
        XCTAssertEqual(transformer.transformedValue(string) as? String, "ok")
    }

    func testCodableTransformerStoresJSON() throws {
        let transformer = CodableValueTransformer<Route>()
        let route = Route(waypoints: ["Gate", "Peak"], loop: true)
        let data = try XCTUnwrap(transformer.transformedValue(route) as? Data)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), #"{"loop":true,"waypoints":["Gate","Peak"]}"#)
        XCTAssertEqual(transformer.reverseTransformedValue(data) as? Route, route)
        XCTAssertNil(transformer.transformedValue("not a route"))
        XCTAssertNil(transformer.reverseTransformedValue(Data("{}".utf8)))
        XCTAssertTrue(CodableValueTransformer<Route>.transformedValueClass() == NSData.self)
    }

    func testTransformableStorageUsesTheAttributesTransformer() throws {
        let name = NSValueTransformerName("RouteTransformer-\(UUID().uuidString)")
        ValueTransformer.setValueTransformer(CodableValueTransformer<Route>(), forName: name)
        defer { ValueTransformer.setValueTransformer(nil, forName: name) }
        let attribute = NSAttributeDescription()
        attribute.name = "route"
        attribute.attributeType = .transformableAttributeType
        attribute.valueTransformerName = name.rawValue
        let route = Route(waypoints: ["A"], loop: false)
        let data = try XCTUnwrap(try TransformableStorage.storedData(for: route, attribute: attribute))
        XCTAssertEqual(try TransformableStorage.value(from: data, attribute: attribute) as? Route, route)
        XCTAssertNil(try TransformableStorage.storedData(for: nil, attribute: attribute))

        // No name: Core Data's default, secure unarchiving, used in reverse to archive.
        let tags = NSAttributeDescription()
        tags.name = "tags"
        tags.attributeType = .transformableAttributeType
        let stored = try XCTUnwrap(try TransformableStorage.storedData(for: ["x", "y"], attribute: tags))
        XCTAssertEqual(try TransformableStorage.value(from: stored, attribute: tags) as? [String], ["x", "y"])

        attribute.valueTransformerName = "Missing-\(UUID().uuidString)"
        XCTAssertThrowsError(try TransformableStorage.storedData(for: route, attribute: attribute)) { error in
            XCTAssertTrue((error as NSError).localizedDescription.contains("No value transformer is registered"))
        }
        attribute.valueTransformerName = name.rawValue
        XCTAssertThrowsError(try TransformableStorage.storedData(for: "wrong type", attribute: attribute))
        XCTAssertThrowsError(try TransformableStorage.value(from: Data("garbage".utf8), attribute: attribute))
    }
}
