import Foundation

/// How Foundation's `description` prints `value` as an element of an array or dictionary:
/// numbers as `NSNumber` prints them (`6.0` → `6`, `true` → `1`), strings quoted only when
/// they hold anything but letters, digits and `_`, data as `{length = …, bytes = 0x… }`,
/// dates as `2019-07-28 04:08:02 +0000`, `nil` as `nil`, collections spread over lines.
///
/// ```swift
/// cocoaDescription("Red Bow Tie")  // "\"Red Bow Tie\""
/// cocoaDescription(6.0)            // "6"
/// ```
func cocoaDescription(_ value: Any?) -> String {
    CocoaFormatter.element(value, level: 0)
}

/// How Foundation's `description` prints `value` on its own (strings unquoted), as in an
/// `NSError`'s `UserInfo={…}`.
func cocoaPlainDescription(_ value: Any?) -> String {
    CocoaFormatter.plain(value, level: 0)
}

/// The `data: {…}` body of a managed object's description: one `key = value;` line per
/// pair, keys sorted, values as ``cocoaDescription(_:)`` prints them.
func cocoaPropertyListBody(_ pairs: [(key: String, value: Any?)]) -> String {
    CocoaFormatter.dictionary(pairs.map { ($0.key, $0.value) }, level: 0)
}

/// The pieces of Foundation's old-style property-list description.
enum CocoaFormatter {
    /// Four spaces per nesting level, as `descriptionWithLocale:indent:` writes.
    static func indent(_ level: Int) -> String { String(repeating: "    ", count: level) }

    /// A value inside a collection at nesting `level`.
    static func element(_ value: Any?, level: Int) -> String {
        guard let value = unwrap(value) else { return "nil" }
        if let collection = collectionDescription(value, level: level) { return collection }
        return quotedIfNeeded(scalarDescription(value))
    }

    /// A value on its own: collections as in ``element(_:level:)``, anything else unquoted.
    static func plain(_ value: Any?, level: Int) -> String {
        guard let value = unwrap(value) else { return "(null)" }
        return collectionDescription(value, level: level) ?? scalarDescription(value)
    }

    /// `{\n    key = value;\n}` with keys sorted; nested collections start with their
    /// level's indentation, which gives Foundation's `key =     {` quirk.
    static func dictionary(_ pairs: [(String, Any?)], level: Int) -> String {
        var text = indent(level) + "{\n"
        for (key, value) in pairs.sorted(by: { $0.0 < $1.0 }) {
            text += indent(level + 1) + quotedIfNeeded(key) + " = " + element(value, level: level + 1) + ";\n"
        }
        return text + indent(level) + "}"
    }

    /// `(\n    a,\n    b\n)`; sets print the same inside `{` `}`.
    static func list(_ items: [Any?], level: Int, open: String = "(", close: String = ")") -> String {
        var text = indent(level) + open + "\n"
        // A nested collection starts with its own indentation after the element's, which
        // gives Foundation's doubled indent before an inner `{` or `(`.
        let rendered = items.map { indent(level + 1) + element($0, level: level + 1) }
        text += rendered.joined(separator: ",\n")
        if !rendered.isEmpty { text += "\n" }
        return text + indent(level) + close
    }

    private static func collectionDescription(_ value: Any, level: Int) -> String? {
        switch value {
        case let dictionary as [AnyHashable: Any]:
            return self.dictionary(dictionary.map { (plain($0.key.base, level: 0), $0.value) }, level: level)
        case let dictionary as NSDictionary:
            return self.dictionary(dictionary.map { (plain($0.key, level: 0), $0.value) }, level: level)
        case let ordered as NSOrderedSet:
            return list(ordered.array, level: level, open: "{(", close: ")}")
        case let set as Set<AnyHashable>:
            return list(set.map(\.base).sorted(by: { plain($0, level: 0) < plain($1, level: 0) }), level: level, open: "{(", close: ")}")
        case let set as NSSet:
            return list(set.allObjects.sorted(by: { plain($0, level: 0) < plain($1, level: 0) }), level: level, open: "{(", close: ")}")
        case let array as [Any?]:
            return list(array, level: level)
        case let array as NSArray:
            return list(array.map { $0 }, level: level)
        default:
            return nil
        }
    }

    /// The unquoted text of a non-collection value.
    static func scalarDescription(_ value: Any) -> String {
        switch value {
        case let string as String: return string
        case let string as Substring: return String(string)
        // Decimals bridge to NSDecimalNumber, an NSNumber; keep every digit.
        case let decimal as Decimal: return "\(decimal)"
        case let decimal as NSDecimalNumber: return "\(decimal.decimalValue)"
        case let number as NSNumber: return numberDescription(number)
        case let flag as Bool: return flag ? "1" : "0"
        case let number as any BinaryInteger: return "\(number)"
        case let number as Double: return doubleDescription(number)
        case let number as Float: return floatDescription(number)
        case let date as Date: return dateDescription(date)
        case let data as Data: return dataDescription(data)
        case let uuid as UUID: return uuid.uuidString
        case let uuid as NSUUID: return uuid.uuidString
        case let url as URL: return url.absoluteString
        case let url as NSURL: return url.absoluteString
        case is NSNull: return "<null>"
        case let error as NSError: return cocoaErrorDescription(error)
        default: return String(describing: value)
        }
    }

    /// `NSNumber`'s description: booleans as 0/1, integers plainly, floating point shortest.
    static func numberDescription(_ number: NSNumber) -> String {
        switch String(cString: number.objCType) {
        case "c", "B": return number.boolValue ? "1" : "0"
        case "f": return floatDescription(number.floatValue)
        case "d": return doubleDescription(number.doubleValue)
        case "Q", "L", "I", "S", "C": return "\(number.uint64Value)"
        default: return "\(number.int64Value)"
        }
    }

    static func doubleDescription(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 1e16 { return "\(Int64(value))" }
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        return "\(value)"
    }

    static func floatDescription(_ value: Float) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 1e7 { return "\(Int64(value))" }
        if !value.isFinite { return doubleDescription(Double(value)) }
        return "\(value)"
    }

    /// `2019-07-28 04:08:02 +0000`, in UTC as `NSDate`'s description prints.
    static func dateDescription(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
        return String(format: "%04d", parts.year ?? 0) + "-" + two(parts.month) + "-" + two(parts.day) + " "
            + two(parts.hour) + ":" + two(parts.minute) + ":" + two(parts.second) + " +0000"
    }

    /// `{length = 50, bytes = 0x89504e47 0d0a1a0a 0000000d 49484452 ... aece1ce9 00000078 }`:
    /// above 24 bytes the first 16 and last 8, in groups of four. Shorter data prints all of
    /// its bytes without spaces (*unverified*: Core Foundation's short form).
    static func dataDescription(_ data: Data) -> String {
        let bytes = [UInt8](data)
        func hex(_ slice: ArraySlice<UInt8>) -> String { slice.map { String(format: "%02x", $0) }.joined() }
        guard bytes.count > 24 else { return "{length = \(bytes.count), bytes = 0x\(hex(bytes[...]))}" }
        var text = "{length = \(bytes.count), bytes = 0x"
        for start in stride(from: 0, to: 16, by: 4) { text += hex(bytes[start..<start + 4]) + " " }
        text += "... "
        for start in stride(from: bytes.count - 8, to: bytes.count, by: 4) { text += hex(bytes[start..<start + 4]) + " " }
        return text + "}"
    }

    /// Quotes `text` unless it is only ASCII letters, digits and `_`, escaping quotes,
    /// backslashes, control characters and non-ASCII characters (`\U00e9`) as Foundation does.
    static func quotedIfNeeded(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar == "_" || CharacterSet.alphanumerics.contains(scalar))
        }
        if plain { return text }
        var quoted = "\""
        for unit in text.utf16 {
            switch unit {
            case 0x22: quoted += "\\\""
            case 0x5C: quoted += "\\\\"
            case 0x0A: quoted += "\\n"
            case 0x09: quoted += "\\t"
            case 0x0D: quoted += "\\r"
            case 0x20..<0x7F: quoted += String(UnicodeScalar(UInt8(unit)))
            default: quoted += String(format: "\\U%04x", unit)
            }
        }
        return quoted + "\""
    }

    /// Looks through `Optional` layers that `Any` may hide.
    static func unwrap(_ value: Any?) -> Any? {
        guard let value else { return nil }
        // A cast to a protocol only Optional adopts: much cheaper than a Mirror, and this
        // runs for every value set on a managed object.
        guard let optional = value as? AnyOptionalValue else { return value }
        return unwrap(optional.wrappedValueAsAny)
    }
}

/// Lets ``CocoaFormatter/unwrap(_:)`` see through an `Optional` hidden in an `Any`.
private protocol AnyOptionalValue {
    var wrappedValueAsAny: Any? { get }
}

extension Optional: AnyOptionalValue {
    fileprivate var wrappedValueAsAny: Any? {
        switch self {
        case .some(let wrapped): return wrapped
        case .none: return nil
        }
    }
}
