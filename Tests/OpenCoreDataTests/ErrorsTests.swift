import Foundation
import XCTest

@testable import OpenCoreData

/// Stands in for a managed object: prints a fixed description.
private final class PrintedObject: CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

final class ErrorsTests: XCTestCase {
    func testExportedCodesAndKeysMatchCoreData() {
        let codes: [(Int, Int)] = [
            (NSManagedObjectValidationError, 1550), (NSManagedObjectConstraintValidationError, 1551),
            (NSValidationMultipleErrorsError, 1560), (NSValidationMissingMandatoryPropertyError, 1570),
            (NSValidationRelationshipLacksMinimumCountError, 1580), (NSValidationRelationshipExceedsMaximumCountError, 1590),
            (NSValidationRelationshipDeniedDeleteError, 1600), (NSValidationNumberTooLargeError, 1610),
            (NSValidationNumberTooSmallError, 1620), (NSValidationDateTooLateError, 1630), (NSValidationDateTooSoonError, 1640),
            (NSValidationInvalidDateError, 1650), (NSValidationStringTooLongError, 1660), (NSValidationStringTooShortError, 1670),
            (NSValidationStringPatternMatchingError, 1680), (NSValidationInvalidURIError, 1690),
            (NSManagedObjectContextLockingError, 132000), (NSPersistentStoreCoordinatorLockingError, 132010),
            (NSManagedObjectReferentialIntegrityError, 133000), (NSManagedObjectExternalRelationshipError, 133010),
            (NSManagedObjectMergeError, 133020), (NSManagedObjectConstraintMergeError, 133021),
            (NSPersistentStoreInvalidTypeError, 134000), (NSPersistentStoreTypeMismatchError, 134010),
            (NSPersistentStoreIncompatibleSchemaError, 134020), (NSPersistentStoreSaveError, 134030),
            (NSPersistentStoreIncompleteSaveError, 134040), (NSPersistentStoreSaveConflictsError, 134050),
            (NSCoreDataError, 134060), (NSPersistentStoreOperationError, 134070), (NSPersistentStoreOpenError, 134080),
            (NSPersistentStoreTimeoutError, 134090), (NSPersistentStoreUnsupportedRequestTypeError, 134091),
            (NSPersistentStoreIncompatibleVersionHashError, 134100), (NSMigrationError, 134110),
            (NSMigrationConstraintViolationError, 134111), (NSMigrationCancelledError, 134120),
            (NSMigrationMissingSourceModelError, 134130), (NSMigrationMissingMappingModelError, 134140),
            (NSMigrationManagerSourceStoreError, 134150), (NSMigrationManagerDestinationStoreError, 134160),
            (NSEntityMigrationPolicyError, 134170), (NSSQLiteError, 134180), (NSInferredMappingModelError, 134190),
            (NSExternalRecordImportError, 134200), (NSPersistentHistoryTokenExpiredError, 134301),
        ]
        for (constant, value) in codes { XCTAssertEqual(constant, value) }
        XCTAssertEqual(NSValidationObjectErrorKey, "NSValidationErrorObject")
        XCTAssertEqual(NSValidationKeyErrorKey, "NSValidationErrorKey")
        XCTAssertEqual(NSValidationValueErrorKey, "NSValidationErrorValue")
        XCTAssertEqual(NSValidationPredicateErrorKey, "NSValidationErrorPredicate")
        XCTAssertEqual(NSDetailedErrorsKey, "NSDetailedErrors")
        XCTAssertEqual(NSSQLiteErrorDomain, "NSSQLiteErrorDomain")
    }

    func testValueErrorPrintsAsCoreDataDoes() {
        let object = PrintedObject("<BowTie: 0x6000038c2da0> (entity: BowTie; id: 0xac775ff23f190c42 <x-coredata://S/BowTie/p3>; data: {\n    rating = 6;\n})")
        let error = coreDataError(NSValidationNumberTooLargeError, userInfo: [
            NSValidationObjectErrorKey: object, NSValidationKeyErrorKey: "rating", NSValidationValueErrorKey: 6.0,
        ])
        let expected = "Error Domain=NSCocoaErrorDomain Code=1610 \"rating is too large.\" UserInfo={NSValidationErrorObject=\(object.description), NSLocalizedDescription=rating is too large., NSValidationErrorKey=rating, NSValidationErrorValue=6}"
        XCTAssertEqual(error.description, expected)
        XCTAssertEqual(error.debugDescription, expected)
        XCTAssertEqual("\(error)", expected)
        XCTAssertEqual(error.localizedDescription, "rating is too large.")
        XCTAssertEqual(error.domain, NSCocoaErrorDomain)
        XCTAssertEqual(error.code, 1610)

        // What a user sees after catching the thrown error.
        var printed = ""
        do { throw error } catch { print(error, terminator: "", to: &printed) }
        XCTAssertEqual(printed, expected)
        do { throw error } catch { XCTAssertEqual(error.localizedDescription, "rating is too large.") }
    }

    func testMandatoryErrorHasNoValueAndPrintsKeyBeforeDescription() {
        let error = coreDataError(NSValidationMissingMandatoryPropertyError, userInfo: [
            NSValidationObjectErrorKey: PrintedObject("<Task: 0x1>"), NSValidationKeyErrorKey: "createdAt",
        ])
        XCTAssertNil(error.userInfo[NSValidationValueErrorKey])
        XCTAssertEqual(
            error.description,
            "Error Domain=NSCocoaErrorDomain Code=1570 \"createdAt is a required value.\" UserInfo={NSValidationErrorObject=<Task: 0x1>, NSValidationErrorKey=createdAt, NSLocalizedDescription=createdAt is a required value.}")
    }

    func testMultipleErrorsListEachOneQuoted() throws {
        let object = PrintedObject("<Task: 0x1> (data: {\n    a = 1;\n})")
        let first = coreDataError(1570, userInfo: [NSValidationObjectErrorKey: object, NSValidationKeyErrorKey: "name"])
        let second = coreDataError(1660, userInfo: [NSValidationObjectErrorKey: object, NSValidationKeyErrorKey: "note", NSValidationValueErrorKey: "abcdef"])
        let combined = try XCTUnwrap(combinedValidationError([first, second]))
        XCTAssertEqual(combined.code, NSValidationMultipleErrorsError)
        XCTAssertEqual((combined.userInfo[NSDetailedErrorsKey] as? [NSError])?.map(\.code), [1570, 1660])
        XCTAssertEqual(combined.localizedDescription, "Multiple validation errors occurred.")
        let expected = """
            Error Domain=NSCocoaErrorDomain Code=1560 "Multiple validation errors occurred." UserInfo={NSDetailedErrors=(
                "Error Domain=NSCocoaErrorDomain Code=1570 \\"name is a required value.\\" UserInfo={NSValidationErrorObject=<Task: 0x1> (data: {\\n    a = 1;\\n}), NSValidationErrorKey=name, NSLocalizedDescription=name is a required value.}",
                "Error Domain=NSCocoaErrorDomain Code=1660 \\"note is too long.\\" UserInfo={NSValidationErrorObject=<Task: 0x1> (data: {\\n    a = 1;\\n}), NSLocalizedDescription=note is too long., NSValidationErrorKey=note, NSValidationErrorValue=abcdef}"
            ), NSLocalizedDescription=Multiple validation errors occurred.}
            """
        XCTAssertEqual(combined.description, expected)
    }

    func testCombiningNoneOneAndNestedErrors() throws {
        XCTAssertNil(combinedValidationError([]))
        let single = coreDataError(1620, userInfo: [NSValidationKeyErrorKey: "rating"])
        XCTAssertTrue(combinedValidationError([single]) === single)
        let pair = try XCTUnwrap(combinedValidationError([single, single]))
        let flat = try XCTUnwrap(combinedValidationError([pair, single]))
        XCTAssertEqual((flat.userInfo[NSDetailedErrorsKey] as? [NSError])?.count, 3, "nested 1560s are flattened")
    }

    func testErrorsWithoutMessagesPrintNull() {
        let error = coreDataError(NSPersistentStoreOpenError)
        XCTAssertEqual(error.description, "Error Domain=NSCocoaErrorDomain Code=134080 \"(null)\"")
        XCTAssertEqual(error.localizedDescription, "The operation couldn’t be completed. (NSCocoaErrorDomain error 134080.)")
        let custom = coreDataError(NSPersistentStoreIncompatibleVersionHashError, userInfo: [NSLocalizedDescriptionKey: "The model used to open the store is incompatible with the one used to create the store", "zeta": 1, "alpha": "x y"])
        XCTAssertEqual(custom.description, "Error Domain=NSCocoaErrorDomain Code=134100 \"The model used to open the store is incompatible with the one used to create the store\" UserInfo={NSLocalizedDescription=The model used to open the store is incompatible with the one used to create the store, alpha=x y, zeta=1}")
    }

    func testLocalizedDescriptionForEachValidationCode() {
        let messages: [Int: String] = [
            1570: "rating is a required value.", 1610: "rating is too large.", 1620: "rating is too small.",
            1630: "rating is too late.", 1640: "rating is too soon.", 1660: "rating is too long.",
            1670: "rating is too short.", 1680: "rating is not valid.", 1580: "Too few items in rating.",
            1590: "Too many items in rating.",
        ]
        for (code, message) in messages {
            XCTAssertEqual(coreDataError(code, userInfo: [NSValidationKeyErrorKey: "rating"]).localizedDescription, message, "code \(code)")
        }
        XCTAssertEqual(coreDataError(133000).localizedDescription, "Attempt to access an object not found in store.")
    }
}
