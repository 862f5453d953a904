import Foundation

// Core Data's exported error codes (CoreDataErrors.h), all in NSCocoaErrorDomain.

// MARK: Validation

/// Generic validation error.
public let NSManagedObjectValidationError: Int = 1550
/// A uniqueness constraint was violated.
public let NSManagedObjectConstraintValidationError: Int = 1551
/// Several validation errors; the individual ones are under `NSDetailedErrorsKey`.
public let NSValidationMultipleErrorsError: Int = 1560
/// A non-optional property has no value.
public let NSValidationMissingMandatoryPropertyError: Int = 1570
/// A to-many relationship holds fewer objects than its minimum count.
public let NSValidationRelationshipLacksMinimumCountError: Int = 1580
/// A relationship holds more objects than its maximum count.
public let NSValidationRelationshipExceedsMaximumCountError: Int = 1590
/// A Deny delete rule refused a deletion.
public let NSValidationRelationshipDeniedDeleteError: Int = 1600
/// A number is above the attribute's maximum.
public let NSValidationNumberTooLargeError: Int = 1610
/// A number is below the attribute's minimum.
public let NSValidationNumberTooSmallError: Int = 1620
/// A date is after the attribute's latest date.
public let NSValidationDateTooLateError: Int = 1630
/// A date is before the attribute's earliest date.
public let NSValidationDateTooSoonError: Int = 1640
/// A value that should be a date is not one.
public let NSValidationInvalidDateError: Int = 1650
/// A string is longer than the attribute's maximum length.
public let NSValidationStringTooLongError: Int = 1660
/// A string is shorter than the attribute's minimum length.
public let NSValidationStringTooShortError: Int = 1670
/// A string does not match the attribute's regular expression.
public let NSValidationStringPatternMatchingError: Int = 1680
/// A value that should be a URI is not one.
public let NSValidationInvalidURIError: Int = 1690

// MARK: Locking

/// A context could not be locked.
public let NSManagedObjectContextLockingError: Int = 132000
/// A coordinator could not be locked.
public let NSPersistentStoreCoordinatorLockingError: Int = 132010

// MARK: Objects and merging

/// An object's row is gone from the store.
public let NSManagedObjectReferentialIntegrityError: Int = 133000
/// An object refers to one in a store that is not reachable.
public let NSManagedObjectExternalRelationshipError: Int = 133010
/// A save found optimistic-locking conflicts (`NSPersistentStoreSaveConflictsErrorKey`).
public let NSManagedObjectMergeError: Int = 133020
/// A save found uniqueness-constraint conflicts.
public let NSManagedObjectConstraintMergeError: Int = 133021

// MARK: Stores

/// Unknown persistent store type.
public let NSPersistentStoreInvalidTypeError: Int = 134000
/// The store's type does not match the one requested.
public let NSPersistentStoreTypeMismatchError: Int = 134010
/// The store's schema does not match the model.
public let NSPersistentStoreIncompatibleSchemaError: Int = 134020
/// A save to the store failed.
public let NSPersistentStoreSaveError: Int = 134030
/// Only part of a save reached the stores.
public let NSPersistentStoreIncompleteSaveError: Int = 134040
/// A save found conflicts with the store.
public let NSPersistentStoreSaveConflictsError: Int = 134050
/// A general Core Data error.
public let NSCoreDataError: Int = 134060
/// A store operation failed.
public let NSPersistentStoreOperationError: Int = 134070
/// A store could not be opened.
public let NSPersistentStoreOpenError: Int = 134080
/// A store operation timed out.
public let NSPersistentStoreTimeoutError: Int = 134090
/// The store does not support the request's type.
public let NSPersistentStoreUnsupportedRequestTypeError: Int = 134091
/// The store was written with a model whose version hashes differ.
public let NSPersistentStoreIncompatibleVersionHashError: Int = 134100

// MARK: Migration

/// A migration failed.
public let NSMigrationError: Int = 134110
/// A migration broke a uniqueness constraint.
public let NSMigrationConstraintViolationError: Int = 134111
/// A migration was cancelled.
public let NSMigrationCancelledError: Int = 134120
/// The store's source model was not found.
public let NSMigrationMissingSourceModelError: Int = 134130
/// No mapping model was found.
public let NSMigrationMissingMappingModelError: Int = 134140
/// The migration's source store failed.
public let NSMigrationManagerSourceStoreError: Int = 134150
/// The migration's destination store failed.
public let NSMigrationManagerDestinationStoreError: Int = 134160
/// An entity migration policy failed.
public let NSEntityMigrationPolicyError: Int = 134170

// MARK: Other

/// SQLite reported an error; its code is under `NSSQLiteErrorDomain`.
public let NSSQLiteError: Int = 134180
/// No mapping model could be inferred.
public let NSInferredMappingModelError: Int = 134190
/// An external record could not be imported.
public let NSExternalRecordImportError: Int = 134200
/// A persistent history token has expired.
public let NSPersistentHistoryTokenExpiredError: Int = 134301

// MARK: userInfo keys

/// The object that failed validation.
public let NSValidationObjectErrorKey: String = "NSValidationErrorObject"
/// The key of the property that failed validation.
public let NSValidationKeyErrorKey: String = "NSValidationErrorKey"
/// The value that failed validation.
public let NSValidationValueErrorKey: String = "NSValidationErrorValue"
/// The predicate that failed validation.
public let NSValidationPredicateErrorKey: String = "NSValidationErrorPredicate"
/// The individual errors of an `NSValidationMultipleErrorsError`.
public let NSDetailedErrorsKey: String = "NSDetailedErrors"
/// The objects an error concerns.
public let NSAffectedObjectsErrorKey: String = "NSAffectedObjectsErrorKey"
/// The stores an error concerns.
public let NSAffectedStoresErrorKey: String = "NSAffectedStoresErrorKey"
/// The conflicts (`NSMergeConflict`, `NSConstraintConflict`) of a failed save.
public let NSPersistentStoreSaveConflictsErrorKey: String = "conflictList"
/// The domain of SQLite's own result codes.
public let NSSQLiteErrorDomain: String = "NSSQLiteErrorDomain"
