import Foundation

/// Every way `value` breaks the model rules of `attribute`, as Core Data reports them:
/// a missing mandatory value (1570), a number too large or small (1610/1620), a string
/// too long or short (1660/1670) or not matching its pattern (1680), a date too late or
/// too soon (1630/1640).
///
/// Each error carries `NSValidationErrorObject` (`object`), `NSValidationErrorKey`, the
/// offending `NSValidationErrorValue` (absent when the value is missing) and Core Data's
/// `NSLocalizedDescription`, e.g. `rating is too large.`.
func attributeValidationErrors(value: Any?, attribute: NSAttributeDescription, object: AnyObject) -> [NSError] {
    let key = attribute.name
    func failure(_ code: Int, value: Any?) -> NSError {
        var info: [String: Any] = [NSValidationObjectErrorKey: object, NSValidationKeyErrorKey: key]
        if let value { info[NSValidationValueErrorKey] = value }
        return coreDataError(code, userInfo: info)
    }

    guard let present = CocoaFormatter.unwrap(value), !(present is NSNull) else {
        return attribute.isOptional ? [] : [failure(NSValidationMissingMandatoryPropertyError, value: nil)]
    }
    let rules = attribute.constraints
    guard !rules.isEmpty else { return [] }
    var errors: [NSError] = []

    switch attribute.attributeType {
    case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType,
        .decimalAttributeType, .doubleAttributeType, .floatAttributeType:
        guard let number = AttributeValidationNumber.decimal(present) else { break }
        if let maximum = rules.maximum, number > maximum { errors.append(failure(NSValidationNumberTooLargeError, value: present)) }
        if let minimum = rules.minimum, number < minimum { errors.append(failure(NSValidationNumberTooSmallError, value: present)) }
    case .stringAttributeType:
        guard let string = present as? String else { break }
        // Core Data measures NSString length: UTF-16 code units.
        let length = Decimal(string.utf16.count)
        if let maximum = rules.maximum, length > maximum { errors.append(failure(NSValidationStringTooLongError, value: present)) }
        if let minimum = rules.minimum, length < minimum { errors.append(failure(NSValidationStringTooShortError, value: present)) }
        if let pattern = rules.regularExpression, !wholeStringMatches(string, pattern: pattern) {
            errors.append(failure(NSValidationStringPatternMatchingError, value: present))
        }
    case .dateAttributeType:
        guard let date = present as? Date else { break }
        let seconds = date.timeIntervalSinceReferenceDate
        if let latest = rules.maximumDate, seconds > latest { errors.append(failure(NSValidationDateTooLateError, value: present)) }
        if let earliest = rules.minimumDate, seconds < earliest { errors.append(failure(NSValidationDateTooSoonError, value: present)) }
    default:
        break
    }
    return errors
}

/// Reads numbers of any Swift or Foundation type for comparison against model limits.
enum AttributeValidationNumber {
    /// The numeric value of any Swift or Foundation number, exactly where possible.
    static func decimal(_ value: Any) -> Decimal? {
        switch value {
        case let decimal as Decimal: return decimal
        case let number as NSNumber:
            let type = String(cString: number.objCType)
            return type == "d" || type == "f" ? Decimal(number.doubleValue) : Decimal(number.int64Value)
        case let flag as Bool: return flag ? 1 : 0
        case let number as Int: return Decimal(number)
        case let number as Int16: return Decimal(Int(number))
        case let number as Int32: return Decimal(Int(number))
        case let number as Int64: return Decimal(number)
        case let number as Double: return number.isFinite ? Decimal(number) : nil
        case let number as Float: return number.isFinite ? Decimal(Double(number)) : nil
        default: return nil
        }
    }
}

/// Whether `pattern` (ICU syntax, as the model editor stores it) matches all of `string`.
/// A pattern that does not compile matches nothing, so the value is reported, not saved.
private func wholeStringMatches(_ string: String, pattern: String) -> Bool {
    // Anchoring both ends makes alternatives like `a|ab` try every way to cover the string.
    guard let expression = try? NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z") else { return false }
    return expression.firstMatch(in: string, range: NSRange(location: 0, length: string.utf16.count)) != nil
}
