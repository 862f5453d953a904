import Foundation

/// A value sorted into the kinds predicates compare, so that each value is classified once
/// per comparison (dynamic casts are the main cost of evaluating a predicate on Linux).
/// The common Swift types are recognized by their exact type, without casting cascades.
enum PredicateScalar {
    case null
    case string(String)
    case number(PredicateValues.Number)
    case date(Date)
    /// Anything else: collections, UUIDs, URLs, data, objects.
    case other(Any)

    @inline(__always)
    init(_ raw: Any?) {
        guard let value = raw else {
            self = .null
            return
        }
        switch ObjectIdentifier(type(of: value)) {
        case FastTypes.string: self = .string(value as! String)
        case FastTypes.int: self = .number(.int(Int64(value as! Int)))
        case FastTypes.int16: self = .number(.int(Int64(value as! Int16)))
        case FastTypes.int32: self = .number(.int(Int64(value as! Int32)))
        case FastTypes.int64: self = .number(.int(value as! Int64))
        case FastTypes.double: self = .number(.double(value as! Double))
        case FastTypes.float: self = .number(.double(Double(value as! Float)))
        case FastTypes.bool: self = .number(.int((value as! Bool) ? 1 : 0))
        case FastTypes.date: self = .date(value as! Date)
        case FastTypes.decimal: self = .number(.decimal(value as! Decimal))
        default: self = PredicateScalar.classify(value)
        }
    }

    /// The slow path: optionals, `NSNull`, Foundation objects, the other number types.
    private static func classify(_ value: Any) -> PredicateScalar {
        guard let value = unwrapAny(value), !(value is NSNull) else { return .null }
        if let string = PredicateValues.string(value) { return .string(string) }
        if let number = PredicateValues.number(value) { return .number(number) }
        if let date = PredicateValues.date(value) { return .date(date) }
        return .other(value)
    }

    /// The value as it was (strings, numbers and dates as Swift values).
    var raw: Any? {
        switch self {
        case .null: return nil
        case .string(let string): return string
        case .number(let number): return number.swiftValue
        case .date(let date): return date
        case .other(let value): return value
        }
    }

    var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    var string: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// Equality as `==` sees it: `nil` equals only `nil`.
    static func equal(_ lhs: PredicateScalar, _ rhs: PredicateScalar, options: NSComparisonPredicate.Options) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case let (.string(a), .string(b)): return PredicateStrings.equal(a, b, options: options)
        case let (.number(a), .number(b)): return PredicateValues.compare(a, b) == .orderedSame
        case let (.date(a), .date(b)): return a == b
        case let (.other(a), .other(b)): return PredicateValues.equalValues(a, b, options: options)
        default: return false
        }
    }

    /// Order for `<`, `>`, `BETWEEN` and sorting; `nil` when the values cannot be ordered.
    static func order(_ lhs: PredicateScalar, _ rhs: PredicateScalar, options: NSComparisonPredicate.Options) -> ComparisonResult? {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)): return PredicateStrings.order(a, b, options: options)
        case let (.number(a), .number(b)): return PredicateValues.compare(a, b)
        case let (.date(a), .date(b)): return a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
        case let (.other(a as UUID), .other(b as UUID)): return PredicateStrings.order(a.uuidString, b.uuidString, options: [])
        case let (.other(a as URL), .other(b as URL)): return PredicateStrings.order(a.absoluteString, b.absoluteString, options: [])
        default: return nil
        }
    }
}

/// Type identities of the values predicates meet most, for exact-type checks.
enum FastTypes {
    static let string = ObjectIdentifier(String.self)
    static let int = ObjectIdentifier(Int.self)
    static let int16 = ObjectIdentifier(Int16.self)
    static let int32 = ObjectIdentifier(Int32.self)
    static let int64 = ObjectIdentifier(Int64.self)
    static let double = ObjectIdentifier(Double.self)
    static let float = ObjectIdentifier(Float.self)
    static let bool = ObjectIdentifier(Bool.self)
    static let date = ObjectIdentifier(Date.self)
    static let decimal = ObjectIdentifier(Decimal.self)
    static let uuid = ObjectIdentifier(UUID.self)
    static let url = ObjectIdentifier(URL.self)
    static let data = ObjectIdentifier(Data.self)
    static let stringDictionary = ObjectIdentifier([String: Any].self)
    static let anyArray = ObjectIdentifier([Any].self)
    static let stringArray = ObjectIdentifier([String].self)

    /// Whether a value of `type` is certainly not an `Optional` or a collection: the common
    /// scalar types and classes.
    @inline(__always)
    static func isPlainScalar(_ type: Any.Type) -> Bool {
        switch ObjectIdentifier(type) {
        case string, int, int16, int32, int64, double, float, bool, date, decimal, uuid, url, data: return true
        default: return false
        }
    }
}
