import Foundation
@_implementationOnly import CSQLite

/// The SQLite functions and collations that let a fetch filter and sort in SQL with the
/// same answers as `NSPredicate.evaluate(with:)` and `NSSortDescriptor` in memory.
///
/// Each one calls the very Swift code that in-memory evaluation uses
/// (``PredicateComparison/compare(_:_:_:options:prepared:)`` and ``SortMethod``), so
/// Unicode case and diacritic folding, canonical equivalence, `LIKE` wildcards and ICU
/// regular expressions behave identically in both places. Names follow Core Data's where
/// Core Data registers a function of that name:
///
/// | SQL | Predicate |
/// |---|---|
/// | `NSCoreDataStringSearch(text, needle, flags, locale)` | `BEGINSWITH`, `ENDSWITH`, `CONTAINS` (flags as Core Data's: 1 or 0x101 `[c]`, 0x180 `[d]`, 8 anchored = `BEGINSWITH`, 12 anchored backwards = `ENDSWITH`, 2 literal = `[n]`) |
/// | `NSCoreDataLike(text, pattern, options)` | `LIKE` (options: 1 `[c]`, 2 `[d]`) |
/// | `NSCoreDataMatches(text, pattern, options)` | `MATCHES` |
/// | `NSCoreDataStringCompare(left, right, operator, options, locale)` | `==`, `!=`, `<`, `<=`, `>`, `>=` on strings with `[c]`/`[d]` (without them, plain SQL operators) (operator: `NSPredicateOperatorType` raw value) |
///
/// Collations for `ORDER BY`: `NSCollateNoCase` (`caseInsensitiveCompare:`),
/// `NSCollateLocaleSensitive` (`localizedCompare:`), `NSCollateLocaleSensitiveNoCase`
/// (`localizedCaseInsensitiveCompare:`), `NSCollateFinderlike`
/// (`localizedStandardCompare:`), as Core Data names them, and `NSCollateCanonical`
/// (`compare:`: Swift's `String` order, in which canonically equivalent strings are equal;
/// Core Data sorts `compare:` with SQLite's byte order, which differs for decomposed text).
///
/// Every function returns 0 or 1, or NULL when the compared value or the pattern is NULL:
/// a comparison with a NULL operand is unknown in SQL, as SQLite's own `LIKE` and `instr`
/// answer, so `NOT (name BEGINSWITH "R")` leaves out a nil `name` as `name <> ?` does.
enum SQLFunctions {
    /// Registers the functions and collations on `handle`; called once per connection.
    ///
    /// `reports` collects the rows whose derived values the store's triggers wrote (the
    /// engine's; `nil` on a migration's connection).
    static func register(on handle: OpaquePointer, derivedValueReports reports: DerivedValueReports? = nil) {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        sqlite3_create_function_v2(handle, "NSCoreDataStringSearch", 4, flags, nil, { context, count, values in
            SQLFunctions.stringSearch(context, count, values)
        }, nil, nil, nil)
        sqlite3_create_function_v2(handle, "NSCoreDataLike", 3, flags, nil, { context, count, values in
            SQLFunctions.compareCall(context, values, op: .like, optionsArgument: 2)
        }, nil, nil, nil)
        sqlite3_create_function_v2(handle, "NSCoreDataMatches", 3, flags, nil, { context, count, values in
            SQLFunctions.compareCall(context, values, op: .matches, optionsArgument: 2)
        }, nil, nil, nil)
        sqlite3_create_function_v2(handle, "NSCoreDataStringCompare", 5, flags, nil, { context, count, values in
            SQLFunctions.stringCompare(context, count, values)
        }, nil, nil, nil)
        Derivation.StringFunction.register(on: handle)
        DerivedValueReports.register(on: handle, reports: reports)
        for method in SortMethod.allCases {
            let box = Unmanaged.passRetained(CollationBox(method))
            sqlite3_create_collation_v2(handle, collationName(method), SQLITE_UTF8, box.toOpaque(), { pointer, leftCount, left, rightCount, right in
                let method = Unmanaged<CollationBox>.fromOpaque(pointer!).takeUnretainedValue().method
                return SQLFunctions.collate(method, left, leftCount, right, rightCount)
            }, { pointer in
                if let pointer { Unmanaged<CollationBox>.fromOpaque(pointer).release() }
            })
        }
    }

    /// The collation `ORDER BY` uses for strings sorted with `method`.
    static func collationName(_ method: SortMethod) -> String {
        switch method {
        case .compare: return "NSCollateCanonical"
        case .caseInsensitiveCompare: return "NSCollateNoCase"
        case .localizedCompare: return "NSCollateLocaleSensitive"
        case .localizedCaseInsensitiveCompare: return "NSCollateLocaleSensitiveNoCase"
        case .localizedStandardCompare: return "NSCollateFinderlike"
        }
    }

    // MARK: Flags

    /// Core Data's `NSCoreDataStringSearch` flags for a substring operator with `options`:
    /// `NSCaseInsensitiveSearch | NSWidthInsensitiveSearch` (0x101) for `[c]`,
    /// `NSDiacriticInsensitiveSearch | NSWidthInsensitiveSearch` (0x180) for `[d]`,
    /// `NSLiteralSearch` (2) for `[n]`, plus `NSAnchoredSearch` (8) for `BEGINSWITH` and
    /// `NSAnchoredSearch | NSBackwardsSearch` (12) for `ENDSWITH`.
    static func searchFlags(_ op: NSComparisonPredicate.Operator, _ options: NSComparisonPredicate.Options) -> Int {
        var flags = 0
        // Core Data lets [n] replace the others; in-memory evaluation still folds for a [c]
        // or [d] given with [n], so those bits stay.
        if options.contains(.normalized) { flags |= 2 }
        if options.contains(.caseInsensitive) { flags |= 0x101 }
        if options.contains(.diacriticInsensitive) { flags |= 0x180 }
        switch op {
        case .beginsWith: flags |= 8
        case .endsWith: flags |= 12
        default: break
        }
        return flags
    }

    /// The operator and options that ``searchFlags(_:_:)`` encoded.
    static func decodeSearchFlags(_ flags: Int) -> (NSComparisonPredicate.Operator, NSComparisonPredicate.Options) {
        var options: NSComparisonPredicate.Options = []
        if flags & 2 != 0 { options.insert(.normalized) }
        if flags & 1 != 0 { options.insert(.caseInsensitive) }
        if flags & 0x80 != 0 { options.insert(.diacriticInsensitive) }
        let op: NSComparisonPredicate.Operator = flags & 12 == 12 ? .endsWith : (flags & 8 != 0 ? .beginsWith : .contains)
        return (op, options)
    }

    /// The `[c]`/`[d]` bits passed to the other functions.
    static func optionBits(_ options: NSComparisonPredicate.Options) -> Int {
        Int(options.intersection([.caseInsensitive, .diacriticInsensitive, .normalized]).rawValue)
    }

    // MARK: Implementations

    private static func stringSearch(_ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
        guard let values else { return sqlite3_result_int(context, 0) }
        if hasNullOperand(values) { return sqlite3_result_null(context) }
        let (op, options) = decodeSearchFlags(Int(sqlite3_value_int64(values[2])))
        let prepared = preparedBox(context, values, op: op, options: options)
        if let needle = prepared.asciiNeedle, let found = asciiSearch(values[0], needle, op, foldCase: options.contains(.caseInsensitive)) {
            return sqlite3_result_int(context, found ? 1 : 0)
        }
        let result = PredicateComparison.compare(scalar(values[0]), op, prepared.right, options: options, prepared: prepared.prepared)
        sqlite3_result_int(context, result ? 1 : 0)
    }

    /// `BEGINSWITH`/`ENDSWITH`/`CONTAINS` on an ASCII value without carriage returns, byte
    /// by byte: what `PredicateStrings.substring` answers for such text (ASCII folding is
    /// lower-casing, and every ASCII character but `\r\n` is a character of its own), without
    /// making a `String`. `nil` when the value is not such text.
    private static func asciiSearch(_ value: OpaquePointer?, _ needle: [UInt8], _ op: NSComparisonPredicate.Operator, foldCase: Bool) -> Bool? {
        guard sqlite3_value_type(value) == SQLITE_TEXT, let text = sqlite3_value_text(value) else { return nil }
        let count = Int(sqlite3_value_bytes(value))
        for index in 0..<count where text[index] >= 0x80 || text[index] == 0x0D { return nil }
        guard needle.count <= count else { return false }
        @inline(__always) func byte(_ index: Int) -> UInt8 {
            let raw = text[index]
            return foldCase && raw >= 65 && raw <= 90 ? raw + 32 : raw
        }
        func matches(at start: Int) -> Bool {
            for offset in 0..<needle.count where byte(start + offset) != needle[offset] { return false }
            return true
        }
        switch op {
        case .beginsWith: return matches(at: 0)
        case .endsWith: return matches(at: count - needle.count)
        default:
            for start in 0...(count - needle.count) where matches(at: start) { return true }
            return false
        }
    }

    private static func compareCall(_ context: OpaquePointer?, _ values: UnsafeMutablePointer<OpaquePointer?>?, op: NSComparisonPredicate.Operator, optionsArgument: Int) {
        guard let values else { return sqlite3_result_int(context, 0) }
        if hasNullOperand(values) { return sqlite3_result_null(context) }
        let options = NSComparisonPredicate.Options(rawValue: UInt(max(0, sqlite3_value_int64(values[optionsArgument]))))
        evaluate(context, values, op: op, options: options)
    }

    private static func stringCompare(_ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
        guard let values, let op = NSComparisonPredicate.Operator(rawValue: UInt(max(0, sqlite3_value_int64(values[2])))) else {
            return sqlite3_result_int(context, 0)
        }
        if hasNullOperand(values) { return sqlite3_result_null(context) }
        let options = NSComparisonPredicate.Options(rawValue: UInt(max(0, sqlite3_value_int64(values[3]))))
        evaluate(context, values, op: op, options: options)
    }

    /// Whether the compared value (argument 0) or the other operand (argument 1) is NULL.
    private static func hasNullOperand(_ values: UnsafeMutablePointer<OpaquePointer?>) -> Bool {
        sqlite3_value_type(values[0]) == SQLITE_NULL || sqlite3_value_type(values[1]) == SQLITE_NULL
    }

    /// `PredicateComparison.compare(values[0], op, values[1])`, with what can be prepared
    /// once from the right-hand value kept on that argument (SQLite's auxiliary data) for
    /// as long as it stays the same.
    private static func evaluate(_ context: OpaquePointer?, _ values: UnsafeMutablePointer<OpaquePointer?>, op: NSComparisonPredicate.Operator, options: NSComparisonPredicate.Options) {
        let left = scalar(values[0])
        let prepared = preparedBox(context, values, op: op, options: options)
        let result = PredicateComparison.compare(left, op, prepared.right, options: options, prepared: prepared.prepared)
        sqlite3_result_int(context, result ? 1 : 0)
    }

    /// The right-hand value prepared once and kept on argument 1 while it stays the same.
    private static func preparedBox(_ context: OpaquePointer?, _ values: UnsafeMutablePointer<OpaquePointer?>, op: NSComparisonPredicate.Operator, options: NSComparisonPredicate.Options) -> PreparedBox {
        if let pointer = sqlite3_get_auxdata(context, 1) {
            return Unmanaged<PreparedBox>.fromOpaque(pointer).takeUnretainedValue()
        }
        let prepared = PreparedBox(right: swiftValue(values[1]), op: op, options: options)
        sqlite3_set_auxdata(context, 1, Unmanaged.passRetained(prepared).toOpaque()) { pointer in
            if let pointer { Unmanaged<PreparedBox>.fromOpaque(pointer).release() }
        }
        return prepared
    }

    /// A SQLite value as the Swift value in-memory evaluation would see: TEXT as `String`,
    /// INTEGER as `Int64`, REAL as `Double`, BLOB as `Data`, NULL as `nil`.
    static func swiftValue(_ value: OpaquePointer?) -> Any? {
        switch sqlite3_value_type(value) {
        case SQLITE_TEXT:
            guard let text = sqlite3_value_text(value) else { return "" }
            return String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value))), as: UTF8.self)
        case SQLITE_INTEGER: return sqlite3_value_int64(value)
        case SQLITE_FLOAT: return sqlite3_value_double(value)
        case SQLITE_BLOB:
            guard let bytes = sqlite3_value_blob(value) else { return Data() }
            return Data(bytes: bytes, count: Int(sqlite3_value_bytes(value)))
        default: return nil
        }
    }

    /// A SQLite value classified as in-memory evaluation classifies the Swift value.
    static func scalar(_ value: OpaquePointer?) -> PredicateScalar {
        switch sqlite3_value_type(value) {
        case SQLITE_TEXT:
            guard let text = sqlite3_value_text(value) else { return .string("") }
            return .string(String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value))), as: UTF8.self))
        case SQLITE_INTEGER: return .number(.int(sqlite3_value_int64(value)))
        case SQLITE_FLOAT: return .number(.double(sqlite3_value_double(value)))
        case SQLITE_NULL: return .null
        default: return PredicateScalar(swiftValue(value))
        }
    }

    /// Orders two TEXT values as `method` orders strings. ASCII on both sides orders by
    /// bytes for `compare:`, which is what Swift's `String` order gives for ASCII.
    private static func collate(_ method: SortMethod, _ left: UnsafeRawPointer?, _ leftCount: Int32, _ right: UnsafeRawPointer?, _ rightCount: Int32) -> Int32 {
        let a = UnsafeRawBufferPointer(start: left, count: Int(leftCount))
        let b = UnsafeRawBufferPointer(start: right, count: Int(rightCount))
        if method == .compare, isASCII(a), isASCII(b) {
            let common = min(a.count, b.count)
            if common > 0 {
                let order = memcmp(a.baseAddress!, b.baseAddress!, common)
                if order != 0 { return order < 0 ? -1 : 1 }
            }
            return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
        }
        let x = String(decoding: a, as: UTF8.self), y = String(decoding: b, as: UTF8.self)
        switch method.compare(x, y) {
        case .orderedAscending: return -1
        case .orderedSame: return 0
        case .orderedDescending: return 1
        }
    }

    private static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        for byte in bytes where byte >= 0x80 { return false }
        return true
    }
}

/// A sort method kept alive for SQLite as a collation's context.
private final class CollationBox {
    let method: SortMethod
    init(_ method: SortMethod) { self.method = method }
}

/// The right-hand value of a comparison and what was prepared from it.
private final class PreparedBox {
    let right: PredicateScalar
    let prepared: PreparedComparison
    /// The folded needle of a substring test, when it is non-empty ASCII without `\r`.
    let asciiNeedle: [UInt8]?

    init(right: Any?, op: NSComparisonPredicate.Operator, options: NSComparisonPredicate.Options) {
        self.right = PredicateScalar(right)
        prepared = PreparedComparison(operator: op, right: NSExpression(forConstantValue: right), options: options)
        if [.beginsWith, .endsWith, .contains].contains(op), let needle = prepared.foldedString.map({ Array($0.utf8) }),
            !needle.isEmpty, needle.allSatisfy({ $0 < 0x80 && $0 != 0x0D })
        {
            asciiNeedle = needle
        } else {
            asciiNeedle = nil
        }
    }
}
