import Foundation

/// How predicates compare values: numbers by value across types, strings by Unicode
/// comparison with optional case and diacritic folding, dates, UUIDs, URLs and data by
/// value, objects by `isEqual(_:)` or identity.
enum PredicateValues {
    // MARK: Classification

    /// A number of any Swift or Foundation type, kept exact where possible.
    enum Number {
        case int(Int64)
        case uint(UInt64)
        case double(Double)
        case decimal(Decimal)

        var doubleValue: Double {
            switch self {
            case .int(let value): return Double(value)
            case .uint(let value): return Double(value)
            case .double(let value): return value
            case .decimal(let value): return NSDecimalNumber(decimal: value).doubleValue
            }
        }

        var decimalValue: Decimal {
            switch self {
            case .int(let value): return Decimal(value)
            case .uint(let value): return Decimal(value)
            case .double(let value): return Decimal(value)
            case .decimal(let value): return value
            }
        }

        /// The value as a Swift number: `Int` when it fits, else `Int64`/`UInt64`, `Double`, `Decimal`.
        var swiftValue: Any {
            switch self {
            case .int(let value): return Int(value)
            case .uint(let value): return value <= UInt64(Int.max) ? Int(value) : value
            case .double(let value): return value
            case .decimal(let value): return value
            }
        }

        var isIntegral: Bool {
            switch self {
            case .int, .uint: return true
            default: return false
            }
        }
    }

    /// The number in `value`, or `nil` when it is not one. `Bool` counts as 0 or 1, as
    /// `NSNumber` does.
    static func number(_ value: Any) -> Number? {
        switch value {
        case let number as Int: return .int(Int64(number))
        case let number as Double: return .double(number)
        case let flag as Bool: return .int(flag ? 1 : 0)
        case let number as Int64: return .int(number)
        case let number as Int32: return .int(Int64(number))
        case let number as Int16: return .int(Int64(number))
        case let number as Int8: return .int(Int64(number))
        case let number as UInt: return .uint(UInt64(number))
        case let number as UInt64: return .uint(number)
        case let number as UInt32: return .int(Int64(number))
        case let number as UInt16: return .int(Int64(number))
        case let number as UInt8: return .int(Int64(number))
        case let number as Float: return .double(Double(number))
        case let number as Decimal: return .decimal(number)
        case let number as NSDecimalNumber: return .decimal(number.decimalValue)
        case let number as NSNumber:
            switch String(cString: number.objCType) {
            case "d", "f": return .double(number.doubleValue)
            case "Q", "L": return .uint(number.uint64Value)
            default: return .int(number.int64Value)
            }
        default: return nil
        }
    }

    /// The string in `value` (`String`, `Substring`, `NSString`, `Character`), or `nil`.
    @inline(__always)
    static func string(_ value: Any) -> String? {
        switch value {
        case let string as String: return string
        case let string as Substring: return String(string)
        case let string as NSString: return string as String
        case let character as Character: return String(character)
        default: return nil
        }
    }

    @inline(__always)
    static func date(_ value: Any) -> Date? {
        switch value {
        case let date as Date: return date
        case let date as NSDate: return date as Date
        default: return nil
        }
    }

    // MARK: Comparing

    /// Compares two numbers by value.
    static func compare(_ lhs: Number, _ rhs: Number) -> ComparisonResult {
        func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
            a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
        }
        switch (lhs, rhs) {
        case let (.int(a), .int(b)): return order(a, b)
        case let (.uint(a), .uint(b)): return order(a, b)
        case let (.int(a), .uint(b)): return a < 0 ? .orderedAscending : order(UInt64(a), b)
        case let (.uint(a), .int(b)): return b < 0 ? .orderedDescending : order(a, UInt64(b))
        case (.decimal, _), (_, .decimal):
            let a = lhs.decimalValue, b = rhs.decimalValue
            return a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
        default:
            return order(lhs.doubleValue, rhs.doubleValue)
        }
    }

    /// Whether `lhs` equals `rhs` as the `==` operator sees it. `nil` and `NSNull` are
    /// equal to each other and to nothing else.
    static func equal(_ lhs: Any?, _ rhs: Any?, options: NSComparisonPredicate.Options) -> Bool {
        PredicateScalar.equal(PredicateScalar(lhs), PredicateScalar(rhs), options: options)
    }

    /// Equality of two values that are neither strings, numbers, dates nor `nil`.
    static func equalValues(_ left: Any, _ right: Any, options: NSComparisonPredicate.Options) -> Bool {
        if type(of: left) is AnyClass, type(of: right) is AnyClass {
            // Objects: managed objects, object IDs, Foundation objects. A managed object
            // equals its object ID, so that `SELF == %@` with an ID gives the same answer
            // in memory as in the store's SQL.
            if let object = left as? NSManagedObject, let id = right as? NSManagedObjectID { return object.objectID.isEqual(id) }
            if let id = left as? NSManagedObjectID, let object = right as? NSManagedObject { return object.objectID.isEqual(id) }
            if let a = left as? NSObject, let b = right as? NSObject { return a.isEqual(b) }
            return (left as AnyObject) === (right as AnyObject)
        }
        switch (left, right) {
        case let (a as UUID, b as UUID): return a == b
        case let (a as URL, b as URL): return a == b
        case let (a as Data, b as Data): return a == b
        case let (a as NSUUID, b as NSUUID): return a.isEqual(b)
        case let (a as NSURL, b as NSURL): return a.isEqual(b)
        case let (a as NSData, b as NSData): return a.isEqual(b)
        case let (a as UUID, b as NSUUID): return a == (b as UUID)
        case let (a as NSUUID, b as UUID): return (a as UUID) == b
        case let (a as URL, b as NSURL): return a == (b as URL)
        case let (a as NSURL, b as URL): return (a as URL) == b
        default: break
        }
        if let a = collectionElements(left), let b = collectionElements(right) {
            return a.count == b.count && zip(a, b).allSatisfy { equal($0, $1, options: options) }
        }
        if let a = left as? NSObject, let b = right as? NSObject { return a.isEqual(b) }
        if let a = left as? AnyObject, let b = right as? AnyObject, type(of: left) is AnyClass, type(of: right) is AnyClass {
            return a === b
        }
        if let a = left as? AnyHashable, let b = right as? AnyHashable { return a == b }
        return false
    }

    /// The order of two values for `<`, `<=`, `>`, `>=`, `BETWEEN` and sorting: numbers,
    /// strings, dates, UUIDs (by their text) and URLs (by their text). `nil` when the
    /// values cannot be ordered against each other.
    static func order(_ lhs: Any?, _ rhs: Any?, options: NSComparisonPredicate.Options) -> ComparisonResult? {
        PredicateScalar.order(PredicateScalar(lhs), PredicateScalar(rhs), options: options)
    }
}
