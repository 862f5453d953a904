import Foundation

/// Core Data's `NSLocalizedDescription` for an error code, naming the property `key`
/// where the message does.
///
/// Verified against printed Core Data output: 1560, 1570, 1610. 1620 and 1660 appear in
/// public reports quoted without their final period ("duration is too small", "summary is
/// too long"); the rest follow the same pattern and are marked *unverified* beside each.
func coreDataLocalizedDescription(code: Int, key: String?) -> String? {
    if code == NSValidationMultipleErrorsError { return "Multiple validation errors occurred." }
    if code == NSManagedObjectReferentialIntegrityError { return "Attempt to access an object not found in store." }
    guard let key else { return nil }
    switch code {
    case NSValidationMissingMandatoryPropertyError: return "\(key) is a required value."
    case NSValidationNumberTooLargeError: return "\(key) is too large."
    case NSValidationNumberTooSmallError: return "\(key) is too small."  // seen quoted as "duration is too small"
    case NSValidationStringTooLongError: return "\(key) is too long."  // seen quoted as "summary is too long"
    case NSValidationStringTooShortError: return "\(key) is too short."  // unverified
    case NSValidationStringPatternMatchingError: return "\(key) is not valid."  // unverified
    case NSValidationDateTooLateError: return "\(key) is too late."  // unverified
    case NSValidationDateTooSoonError: return "\(key) is too soon."  // unverified
    case NSValidationRelationshipLacksMinimumCountError: return "Too few items in \(key)."  // unverified
    case NSValidationRelationshipExceedsMaximumCountError: return "Too many items in \(key)."  // unverified
    case NSValidationRelationshipDeniedDeleteError: return "\(key) is not valid."  // unverified
    case NSManagedObjectValidationError: return "\(key) is not valid."  // unverified
    default: return nil
    }
}
