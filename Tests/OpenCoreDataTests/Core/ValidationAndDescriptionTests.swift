import Foundation
import XCTest
@testable import OpenCoreData

/// Validation at save, with Core Data's codes, messages and printed form; object descriptions.
final class ValidationAndDescriptionTests: CoreTestCase {
    func testARatingAboveTheMaximumFailsWith1610AndPrintsLikeCoreData() throws {
        let context = try openContainer().viewContext
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        trail.setValue("Overrated", forKey: "name")
        trail.setValue(6.0, forKey: "rating")
        XCTAssertThrowsError(try context.save()) { error in
            let error = error as NSError
            XCTAssertEqual(error.domain, NSCocoaErrorDomain)
            XCTAssertEqual(error.code, NSValidationNumberTooLargeError)
            XCTAssertEqual(error.localizedDescription, "rating is too large.")
            XCTAssertEqual(error.userInfo[NSValidationKeyErrorKey] as? String, "rating")
            XCTAssertTrue(error.userInfo[NSValidationObjectErrorKey] as AnyObject === trail)
            let printed = "\(error)"
            XCTAssertTrue(printed.hasPrefix("Error Domain=NSCocoaErrorDomain Code=1610 \"rating is too large.\" UserInfo={NSValidationErrorObject=<TestTrail: 0x"), printed)
            XCTAssertTrue(printed.contains("(entity: Trail; id: 0x"), printed)
            XCTAssertTrue(printed.contains("<x-coredata:///Trail/t"), printed)
            XCTAssertTrue(printed.contains("    rating = 6;\n"), printed)
            XCTAssertTrue(printed.hasSuffix("}), NSLocalizedDescription=rating is too large., NSValidationErrorKey=rating, NSValidationErrorValue=6}"), printed)
        }
    }

    func testSeveralBrokenRulesBecome1560WithDetailedErrors() throws {
        let context = try openContainer().viewContext
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        trail.setValue(-1.0, forKey: "rating")
        XCTAssertThrowsError(try context.save()) { error in
            let error = error as NSError
            XCTAssertEqual(error.code, NSValidationMultipleErrorsError)
            let details = error.userInfo[NSDetailedErrorsKey] as? [NSError] ?? []
            XCTAssertEqual(Set(details.map(\.code)), [NSValidationMissingMandatoryPropertyError, NSValidationNumberTooSmallError])
            XCTAssertEqual(details.first { $0.code == NSValidationMissingMandatoryPropertyError }?.localizedDescription, "name is a required value.")
        }
    }

    func testCustomValidateValueOverridesRunAtSave() throws {
        final class Strict: NSManagedObject {
            override func validateValue(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>, forKey key: String) throws {
                try super.validateValue(value, forKey: key)
                if key == "name", let name = value.pointee as? String, name.hasPrefix(" ") {
                    throw NSError(domain: "Trailhead", code: 1, userInfo: [NSLocalizedDescriptionKey: "Names cannot start with a space."])
                }
            }
        }
        let context = try openContainer().viewContext
        let strict = Strict(entity: model.entitiesByName["Trail"]!, insertInto: context)
        strict.setValue(" padded", forKey: "name")
        XCTAssertThrowsError(try context.save()) { error in
            XCTAssertEqual((error as NSError).domain, "Trailhead")
        }
    }

    func testLoadedObjectDescriptionListsPropertiesSortedWithRelationshipFaults() throws {
        let writer = try openContainer()
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: writer.viewContext)
        trail.setValue("Red Trail", forKey: "name")
        trail.setValue(Data(repeating: 7, count: 30), forKey: "photo")
        trail.setValue(true, forKey: "isFavorite")
        try writer.viewContext.save()
        let reader = try openContainer()  // kept alive: objects do not retain their context
        let fetched = try XCTUnwrap(reader.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first)
        _ = fetched.value(forKey: "name")
        let text = fetched.description
        XCTAssertTrue(text.contains("/Trail/p1>; data: {\n"), text)
        XCTAssertTrue(text.contains("    hikes = \"<relationship fault: 0x"), text)
        XCTAssertTrue(text.contains("    isFavorite = 1;\n"), text)
        XCTAssertTrue(text.contains("    name = \"Red Trail\";\n"), text)
        XCTAssertTrue(text.contains("    photo = \"{length = 30, bytes = 0x07070707 07070707 07070707 07070707 ... 07070707 07070707 }\";\n"), text)
        XCTAssertTrue(text.contains("    rating = nil;\n"), text)
        let names = text.split(separator: "\n").dropFirst().dropLast().map { $0.trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init) ?? "" }
        XCTAssertEqual(names, names.sorted(), "keys print sorted")
    }
}
