import Foundation
import XCTest
@testable import OpenCoreData

/// The shortcuts key-value coding takes for the usual values (a value of the attribute's own
/// kind, a plain NSManagedObject without validateValue overrides) must give the same
/// results as the general path: wrapped optionals, NSNull, conversions, model rules.
final class KeyValueCodingPathTests: CoreTestCase {
    /// A model whose entity has no class of its own, so objects are plain NSManagedObjects.
    private func plainModel() -> NSManagedObjectModel {
        let entity = makeEntity("Item")
        let title = makeAttribute("title", .stringAttributeType)
        title.isOptional = false
        let count = makeAttribute("count", .integer32AttributeType)
        count.constraints.maximum = 10
        entity.properties = [
            title, count, makeAttribute("price", .doubleAttributeType), makeAttribute("when", .dateAttributeType),
            makeAttribute("anything", .transformableAttributeType, transformer: "TestTagsTransformer"),
        ]
        ValueTransformer.setValueTransformer(CodableValueTransformer<[String]>(), forName: NSValueTransformerName("TestTagsTransformer"))
        return makeModel([entity])
    }

    private func plainContext() throws -> NSManagedObjectContext {
        let container = NSPersistentContainer(name: "Plain", managedObjectModel: plainModel())
        container.persistentStoreDescriptions[0].url = directory.appendingPathComponent("Plain.sqlite")
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container.viewContext
    }

    func testWrappedOptionalsAndNSNullAreUnwrappedOrCleared() throws {
        let context = try plainContext()
        let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
        XCTAssertTrue(type(of: item) == NSManagedObject.self)

        let wrapped: Any = Optional<String>.some("Lantern")
        item.setValue(wrapped, forKey: "title")
        XCTAssertEqual(item.value(forKey: "title") as? String, "Lantern")

        let doublyWrapped: Any = Optional<Any>.some(Optional<Int>.some(7) as Any)
        item.setValue(doublyWrapped, forKey: "count")
        XCTAssertEqual(item.value(forKey: "count") as? NSNumber, NSNumber(value: Int32(7)))

        let empty: Any = Optional<Double>.none as Any
        item.setValue(3.5, forKey: "price")
        item.setValue(empty, forKey: "price")
        XCTAssertNil(item.value(forKey: "price"))

        item.setValue(Date(timeIntervalSinceReferenceDate: 60), forKey: "when")
        item.setValue(NSNull(), forKey: "when")
        XCTAssertNil(item.value(forKey: "when"))

        // A transformable attribute keeps what it is given, but not a wrapper or NSNull.
        let tags: Any = Optional<[String]>.some(["a", "b"])
        item.setValue(tags, forKey: "anything")
        XCTAssertEqual(item.value(forKey: "anything") as? [String], ["a", "b"])
        item.setValue(NSNull(), forKey: "anything")
        XCTAssertNil(item.value(forKey: "anything"))
    }

    func testNumbersOfAnotherTypeAreConvertedToTheAttributeType() throws {
        let context = try plainContext()
        let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
        item.setValue(NSNumber(value: 4), forKey: "count")
        item.setValue(2, forKey: "price")
        XCTAssertEqual(item.primitiveValue(forKey: "count") as? Int32, 4)
        XCTAssertEqual(item.primitiveValue(forKey: "price") as? Double, 2.0)
        XCTAssertEqual(item.value(forKey: "price") as? Double, 2.0)
    }

    /// The Int16 and Int32 shortcuts (the attribute's own type, then `Int`) give what the
    /// general conversion gives, out-of-range values included, and still refuse a value of
    /// another kind (which `setValue` turns into Core Data's "Unacceptable type" exception).
    func testIntegerShortcutsGiveWhatTheGeneralConversionGives() throws {
        let givens: [Any] = [
            Int16(-7), Int32(123_456), Int(70_000), Int(-1), Int.max, Int64(40_000), UInt16(65_535),
            NSNumber(value: 300), NSNumber(value: 4.0), NSNumber(value: 2.9), 2.9, true, Decimal(12),
        ]
        for given in givens {
            let wide = AttributeValues.convert(given, to: .integer64AttributeType) as? Int64
            XCTAssertNotNil(wide, "\(given)")
            XCTAssertEqual(AttributeValues.convert(given, to: .integer16AttributeType) as? Int16, wide.map { Int16(truncatingIfNeeded: $0) }, "\(given)")
            XCTAssertEqual(AttributeValues.convert(given, to: .integer32AttributeType) as? Int32, wide.map { Int32(truncatingIfNeeded: $0) }, "\(given)")
        }
        for type in [NSAttributeType.integer16AttributeType, .integer32AttributeType] {
            XCTAssertNil(AttributeValues.convert("12", to: type))
            XCTAssertNil(AttributeValues.convert(Date(), to: type))
        }
    }

    /// An Int too large for the attribute's range: stored as the general path stores it,
    /// and the model's maximum still fails the save with Core Data's error.
    func testAnIntIntoAnInt32AttributeKeepsTheModelsRangeCheck() throws {
        let context = try plainContext()
        let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
        item.setValue("Lantern", forKey: "title")
        item.setValue(Int32(9), forKey: "count")
        XCTAssertEqual(item.primitiveValue(forKey: "count") as? Int32, 9)
        item.setValue(Int(4_294_967_307), forKey: "count")  // 2^32 + 11
        XCTAssertEqual(item.primitiveValue(forKey: "count") as? Int32, 11)
        XCTAssertThrowsError(try context.save()) { error in
            XCTAssertEqual((error as NSError).code, NSValidationNumberTooLargeError)
        }
        item.setValue(10, forKey: "count")
        XCTAssertNoThrow(try context.save())
    }

    func testPlainObjectsStillBreakTheModelsRulesAtSave() throws {
        let context = try plainContext()
        let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
        item.setValue(11, forKey: "count")
        XCTAssertThrowsError(try context.save()) { error in
            let error = error as NSError
            XCTAssertEqual(error.code, NSValidationMultipleErrorsError)
            let details = error.userInfo[NSDetailedErrorsKey] as? [NSError] ?? []
            XCTAssertEqual(Set(details.map(\.code)), [NSValidationMissingMandatoryPropertyError, NSValidationNumberTooLargeError])
            let tooLarge = details.first { $0.code == NSValidationNumberTooLargeError }
            XCTAssertEqual(tooLarge?.userInfo[NSValidationValueErrorKey] as? NSNumber, NSNumber(value: Int32(11)))
        }
        item.setValue("Lantern", forKey: "title")
        item.setValue(10, forKey: "count")
        XCTAssertNoThrow(try context.save())
    }
}
