import Foundation

/// Converts attribute values between what callers hand in, what objects and stores keep
/// (one Swift type per attribute type), and what key-value coding hands out
/// (`NSNumber` for numbers, as Core Data's `NSNumber`-backed attributes do).
enum AttributeValues {
    /// `value` in the stored Swift type of `attribute`'s type, or `nil`.
    ///
    /// Any number is accepted for a numeric or Boolean attribute; a value of another kind
    /// stops the program with Core Data's "Unacceptable type of value" message.
    static func stored(_ value: Any?, for attribute: NSAttributeDescription, object: NSManagedObject) -> Any? {
        guard let given = value else { return nil }
        let attributeType = attribute.attributeType
        // The usual case first: a value of the attribute's kind converts at once (a cast
        // looks through an Optional it holds). Neither NSNull nor an empty Optional converts
        // to a typed attribute, so they take the path below; transformable and undefined
        // attributes keep any value, so theirs must be unwrapped first.
        if let composite = attribute as? NSCompositeAttributeDescription {
            return storedComposite(given, for: composite, object: object)
        }
        if !attributeType.keepsAnyValue, let converted = convert(given, to: attributeType) { return converted }
        guard let value = unwrapped(given), !isNull(value) else { return nil }
        if let converted = convert(value, to: attributeType) { return converted }
        raiseCoreDataException(.invalidArgument,
            "Unacceptable type of value for attribute: property = \"\(attribute.name)\"; desired type = \(attribute.attributeValueClassName ?? "id"); given type = \(type(of: value)); value = \(cocoaPlainDescription(value)).")
    }

    /// A composite's dictionary with each element's value in the element's stored type; a
    /// key that names no element stops the program, as a value of the wrong type does.
    private static func storedComposite(_ given: Any, for composite: NSCompositeAttributeDescription, object: NSManagedObject) -> Any? {
        guard let value = unwrapped(given), !isNull(value) else { return nil }
        guard let dictionary = convert(value, to: .compositeAttributeType) as? [String: Any] else {
            raiseCoreDataException(.invalidArgument,
                "Unacceptable type of value for attribute: property = \"\(composite.name)\"; desired type = NSDictionary; given type = \(type(of: value)); value = \(cocoaPlainDescription(value)).")
        }
        var result: [String: Any] = [:]
        for (key, element) in dictionary {
            guard let description = composite.element(named: key) else {
                raiseCoreDataException(.invalidArgument,
                    "Unacceptable value for composite attribute \"\(composite.name)\": it has no element named \"\(key)\" (elements: \(composite.elements.map(\.name).joined(separator: ", "))).")
            }
            if let converted = stored(element, for: description, object: object) { result[key] = converted }
        }
        return result
    }

    /// `CocoaFormatter.unwrap(value)` (nested optionals flattened) without reflecting on a
    /// value whose type is not `Optional`, the usual case, which unwraps to itself.
    static func unwrapped(_ value: Any?) -> Any? {
        guard let value else { return nil }
        guard type(of: value) is OptionalValue.Type else { return value }
        return CocoaFormatter.unwrap(value)
    }

    /// `value is NSNull`, without bridging a Swift value (a string, a number) to a
    /// Foundation object to find out: only an object, or an `AnyHashable` or `Optional`
    /// holding one, can be `NSNull`.
    static func isNull(_ value: Any) -> Bool {
        let type = type(of: value)
        guard type is AnyObject.Type || type == AnyHashable.self || type is OptionalValue.Type else { return false }
        return value is NSNull
    }

    /// Whether `value` is already of the Swift type an attribute of `type` stores, so that
    /// ``convert(_:to:)`` would hand it back as it is: one comparison of types instead of
    /// a dynamic cast and a copy of the value.
    @inline(__always)
    static func isStoredAsGiven(_ value: Any, for type: NSAttributeType) -> Bool {
        isStoredAsGiven(type: Swift.type(of: value), for: type)
    }

    /// Whether a value of the Swift type `given` is already of the type an attribute of
    /// `type` stores (see ``isStoredAsGiven(_:for:)``).
    @inline(__always)
    static func isStoredAsGiven(type given: Any.Type, for type: NSAttributeType) -> Bool {
        switch type {
        case .integer16AttributeType: return given == Int16.self
        case .integer32AttributeType: return given == Int32.self
        case .integer64AttributeType: return given == Int64.self
        case .doubleAttributeType: return given == Double.self
        case .floatAttributeType: return given == Float.self
        case .booleanAttributeType: return given == Bool.self
        case .decimalAttributeType: return given == Decimal.self
        case .stringAttributeType: return given == String.self
        case .dateAttributeType: return given == Date.self
        case .binaryDataAttributeType: return given == Data.self
        case .UUIDAttributeType: return given == UUID.self
        case .URIAttributeType: return given == URL.self
        case .transformableAttributeType, .undefinedAttributeType, .objectIDAttributeType, .compositeAttributeType:
            return false
        }
    }

    /// `value` converted to the stored type of `type`; `nil` when it is of the wrong kind.
    /// Transformable and undefined attributes keep any value.
    static func convert(_ value: Any, to type: NSAttributeType) -> Any? {
        switch type {
        case .integer16AttributeType:
            // The usual values first, one cast each: the attribute's own type, then `Int`
            // (a literal). Either gives what the general path gives; anything else takes it.
            if let number = value as? Int16 { return number }
            if let number = value as? Int { return Int16(truncatingIfNeeded: number) }
            return integer(value).map { Int16(truncatingIfNeeded: $0) }
        case .integer32AttributeType:
            if let number = value as? Int32 { return number }
            if let number = value as? Int { return Int32(truncatingIfNeeded: number) }
            return integer(value).map { Int32(truncatingIfNeeded: $0) }
        case .integer64AttributeType: return integer(value)
        case .doubleAttributeType: return double(value)
        case .floatAttributeType: return double(value).map { Float($0) }
        case .booleanAttributeType:
            if let flag = value as? Bool { return flag }
            return integer(value).map { $0 != 0 }
        case .decimalAttributeType:
            switch value {
            case let decimal as Decimal: return decimal
            case let number as NSDecimalNumber: return number.decimalValue
            default: return AttributeValidationNumber.decimal(value)
            }
        case .stringAttributeType:
            if let string = value as? String { return string }
            return (value as? NSString).map { String($0) }
        case .dateAttributeType:
            if let date = value as? Date { return date }
            return (value as? NSDate).map { Date(timeIntervalSinceReferenceDate: $0.timeIntervalSinceReferenceDate) }
        case .binaryDataAttributeType:
            if let data = value as? Data { return data }
            return (value as? NSData).map { Data($0) }
        case .UUIDAttributeType:
            if let uuid = value as? UUID { return uuid }
            return (value as? NSUUID).map { UUID(uuidString: $0.uuidString)! }
        case .URIAttributeType:
            if let url = value as? URL { return url }
            return (value as? NSURL).flatMap { $0.absoluteURL }
        case .transformableAttributeType, .undefinedAttributeType, .objectIDAttributeType:
            return value
        case .compositeAttributeType:
            if let dictionary = value as? [String: Any] { return dictionary }
            guard let dictionary = value as? NSDictionary else { return nil }
            var result: [String: Any] = [:]
            for (key, element) in dictionary {
                guard let key = key as? String else { return nil }
                result[key] = element
            }
            return result
        }
    }

    /// The stored value as `value(forKey:)` returns it: numbers and Booleans as `NSNumber`,
    /// decimals as `NSDecimalNumber`, everything else as stored.
    ///
    /// The attribute's type says which Swift type it stores, so one cast is tried, not a
    /// chain of them (a failed dynamic cast costs more than the boxing).
    static func `public`(_ stored: Any, for attribute: NSAttributeDescription) -> Any {
        switch attribute.attributeType {
        case .integer16AttributeType: if let number = stored as? Int16 { return NumberBox.of(number) }
        case .integer32AttributeType: if let number = stored as? Int32 { return NumberBox.of(number) }
        case .integer64AttributeType: if let number = stored as? Int64 { return NumberBox.of(number) }
        case .doubleAttributeType: if let number = stored as? Double { return NumberBox.of(number) }
        case .floatAttributeType: if let number = stored as? Float { return NumberBox.of(number) }
        case .booleanAttributeType: if let flag = stored as? Bool { return NumberBox.of(flag) }
        case .decimalAttributeType: if let decimal = stored as? Decimal { return NSDecimalNumber(decimal: decimal) }
        case .stringAttributeType, .dateAttributeType, .binaryDataAttributeType, .UUIDAttributeType, .URIAttributeType:
            return stored
        case .transformableAttributeType, .undefinedAttributeType, .objectIDAttributeType:
            break
        case .compositeAttributeType:
            // Each element as value(forKey:) would hand it out (numbers as NSNumber).
            guard let composite = attribute as? NSCompositeAttributeDescription, let values = stored as? [String: Any] else { break }
            var result: [String: Any] = [:]
            for (key, value) in values {
                result[key] = composite.element(named: key).map { `public`(value, for: $0) } ?? value
            }
            return result
        }
        // Transformable and undefined attributes keep what they were given.
        return boxed(stored)
    }

    /// ``public(_:for:)`` of the value in `slot` (nil for an empty slot), read where it
    /// lies: a value of the attribute's own Swift type is read without copying the `Any?`
    /// out and casting it (``ExactValueReader``), a number boxed, a string or date handed
    /// out as it is. Any other value takes ``public(_:for:)``, which answers the same.
    static func publicValue(in slot: UnsafePointer<Any?>, for attribute: NSAttributeDescription) -> Any? {
        if let scalar = StoredScalar.read(slot, for: attribute.attributeType) { return scalar.public }
        return slot.pointee.map { `public`($0, for: attribute) }
    }

    /// A Swift number or Boolean as the Foundation object key-value coding hands out
    /// (`NSNumber`, `NSDecimalNumber` for a decimal); any other value as it is.
    static func boxed(_ stored: Any) -> Any {
        switch stored {
        case let number as Int16: return NumberBox.of(number)
        case let number as Int32: return NumberBox.of(number)
        case let number as Int64: return NumberBox.of(number)
        case let number as Double: return NumberBox.of(number)
        case let number as Float: return NumberBox.of(number)
        case let flag as Bool: return NumberBox.of(flag)
        case let decimal as Decimal: return NSDecimalNumber(decimal: decimal)
        default: return stored
        }
    }

    /// An integer from any Swift or Foundation number (floating point truncated, as
    /// `NSNumber.longLongValue` does); `nil` for anything else.
    private static func integer(_ value: Any) -> Int64? {
        switch value {
        case let number as Int64: return number
        case let number as Int: return Int64(number)
        case let number as Int32: return Int64(number)
        case let number as Int16: return Int64(number)
        case let number as Int8: return Int64(number)
        case let number as UInt: return Int64(truncatingIfNeeded: number)
        case let number as UInt64: return Int64(truncatingIfNeeded: number)
        case let number as UInt32: return Int64(number)
        case let number as UInt16: return Int64(number)
        case let number as UInt8: return Int64(number)
        case let flag as Bool: return flag ? 1 : 0
        case let number as Double: return number.isFinite ? Int64(number) : nil
        case let number as Float: return number.isFinite ? Int64(number) : nil
        case let decimal as Decimal: return NSDecimalNumber(decimal: decimal).int64Value
        case let number as NSNumber: return number.int64Value
        default: return nil
        }
    }

    /// A Double from any Swift or Foundation number; `nil` for anything else.
    private static func double(_ value: Any) -> Double? {
        // A plain NSNumber (what value(forKey:) hands out, and so what a merge policy sets)
        // without the bridging casts below: they end in its doubleValue either way (a cast
        // to Double succeeds only when doubleValue is exact, and then gives it).
        if Swift.type(of: value) == NSNumber.self { return (value as! NSNumber).doubleValue }
        switch value {
        case let number as Double: return number
        case let number as Float: return Double(number)
        case let decimal as Decimal: return NSDecimalNumber(decimal: decimal).doubleValue
        case let number as NSNumber: return number.doubleValue
        default: return integer(value).map(Double.init)
        }
    }
}

extension NSAttributeType {
    /// Whether attributes of this type store whatever they are given, unconverted.
    var keepsAnyValue: Bool {
        switch self {
        case .transformableAttributeType, .undefinedAttributeType, .objectIDAttributeType: return true
        default: return false
        }
    }
}

/// Marks `Optional`, so that ``AttributeValues/unwrapped(_:)`` can tell one by its type.
private protocol OptionalValue {}
extension Optional: OptionalValue {}
