import Foundation

/// Attribute values to SQLite values and back, as Core Data stores them.
///
/// Integers and booleans are INTEGER; Double and Float are REAL; dates are REAL seconds
/// since 2001-01-01; strings and URIs (absolute strings) are TEXT; UUIDs are their 16
/// bytes; binary data and transformable values (through ``TransformableStorage``) are
/// BLOBs. Decimals are bound as their text, as Core Data binds them, into a DECIMAL
/// (numeric) column: SQLite keeps an integer that fits 64 bits exactly and turns other
/// numbers of up to 15 significant digits into REAL, which reads back exactly as those
/// digits. A decimal with more digits would lose them that way, so it is kept as the
/// UTF-8 text of the number in a BLOB, which numeric affinity leaves alone.
enum RowCodec {
    /// Binds `value` for `attribute` at `index`; `nil` binds NULL.
    static func bind(
        _ value: Any?, storage: AttributeStorage, attribute: NSAttributeDescription,
        to statement: SQLiteStatement, at index: Int32, external: ExternalBinaryStorage
    ) throws {
        if let value {
            try bind(value, storage: storage, attribute: attribute, to: statement, at: index, external: external)
        } else {
            statement.bindNull(at: index)
        }
    }

    /// Binds the value in `slot` (NULL for nil) for `attribute` at `index`, as
    /// ``bind(_:storage:attribute:to:at:external:)-opt`` binds it; a value of the attribute type's own Swift type is read where it lies
    /// (``ExactValueReader``), which is what nearly every value of a save is.
    static func bind(
        valueIn slot: UnsafePointer<Any?>, storage: AttributeStorage, attribute: NSAttributeDescription,
        to statement: SQLiteStatement, at index: Int32, external: ExternalBinaryStorage
    ) throws {
        if bindExact(valueIn: slot, storage: storage, to: statement, at: index) { return }
        try bind(slot.pointee, storage: storage, attribute: attribute, to: statement, at: index, external: external)
    }

    /// Binds the value in `slot` when it is of the attribute type's own Swift type, read
    /// where it lies, and answers whether it did; anything else is left to
    /// ``bind(_:storage:attribute:to:at:external:)-opt``. Needs no attribute: a caller that
    /// reads it out of an array only when this answers false saves a retain and a release
    /// per value.
    static func bindExact(valueIn slot: UnsafePointer<Any?>, storage: AttributeStorage, to statement: SQLiteStatement, at index: Int32) -> Bool {
        switch storage {
        case .integer16:
            if let number = ExactValueReader.read(slot, as: Int16.self) { statement.bind(Int64(number), at: index); return true }
        case .integer32:
            if let number = ExactValueReader.read(slot, as: Int32.self) { statement.bind(Int64(number), at: index); return true }
        case .integer64:
            if let number = ExactValueReader.read(slot, as: Int64.self) { statement.bind(number, at: index); return true }
        case .boolean:
            if let flag = ExactValueReader.read(slot, as: Bool.self) { statement.bind(Int64(flag ? 1 : 0), at: index); return true }
        case .double:
            if let number = ExactValueReader.read(slot, as: Double.self) { statement.bind(number, at: index); return true }
        case .float:
            if let number = ExactValueReader.read(slot, as: Float.self) { statement.bind(Double(number), at: index); return true }
        case .date:
            if let date = ExactValueReader.read(slot, as: Date.self) {
                statement.bindTimestamp(date.timeIntervalSinceReferenceDate, at: index)
                return true
            }
        case .string:
            if let text = ExactValueReader.read(slot, as: String.self) { statement.bind(text, at: index); return true }
        default:
            break
        }
        return false
    }

    /// Binds `value` (`NSNull` as NULL) for `attribute` at `index`.
    static func bind(
        _ value: Any, storage: AttributeStorage, attribute: NSAttributeDescription,
        to statement: SQLiteStatement, at index: Int32, external: ExternalBinaryStorage
    ) throws {
        // Each case tries the attribute type's own Swift type first: a failed dynamic cast
        // costs more than binding the value.
        switch storage {
        case .integer16:
            if let number = value as? Int16 {
                statement.bind(Int64(number), at: index)
            } else {
                try bindInteger(value, attribute, to: statement, at: index)
            }
        case .integer32:
            if let number = value as? Int32 {
                statement.bind(Int64(number), at: index)
            } else {
                try bindInteger(value, attribute, to: statement, at: index)
            }
        case .integer64:
            if let number = value as? Int64 {
                statement.bind(number, at: index)
            } else {
                try bindInteger(value, attribute, to: statement, at: index)
            }
        case .boolean:
            if let flag = value as? Bool {
                statement.bind(Int64(flag ? 1 : 0), at: index)
            } else if let number = integer(value) {
                statement.bind(Int64(number != 0 ? 1 : 0), at: index)
            } else {
                try unacceptable(value, attribute, "NSNumber", statement, index)
            }
        case .double:
            if let number = value as? Double {
                statement.bind(number, at: index)
            } else if let number = double(value) {
                statement.bind(number, at: index)
            } else {
                try unacceptable(value, attribute, "NSNumber", statement, index)
            }
        case .float:
            if let number = value as? Float {
                statement.bind(Double(number), at: index)
            } else if let number = double(value) {
                statement.bind(Double(Float(number)), at: index)
            } else {
                try unacceptable(value, attribute, "NSNumber", statement, index)
            }
        case .decimal:
            guard let number = decimal(value) else { return try unacceptable(value, attribute, "NSDecimalNumber", statement, index) }
            bindDecimal(number, to: statement, at: index)
        case .date:
            if let date = value as? Date {
                statement.bindTimestamp(date.timeIntervalSinceReferenceDate, at: index)
            } else if let seconds = double(value) {
                statement.bindTimestamp(seconds, at: index)
            } else {
                try unacceptable(value, attribute, "NSDate", statement, index)
            }
        case .string:
            guard let text = value as? String else { return try unacceptable(value, attribute, "NSString", statement, index) }
            statement.bind(text, at: index)
        case .uri:
            if let url = value as? URL {
                statement.bind(url.absoluteString, at: index)
            } else if let text = value as? String {
                statement.bind(text, at: index)
            } else {
                try unacceptable(value, attribute, "NSURL", statement, index)
            }
        case .uuid:
            let uuid: UUID
            if let value = value as? UUID {
                uuid = value
            } else if let text = value as? String, let parsed = UUID(uuidString: text) {
                uuid = parsed
            } else {
                return try unacceptable(value, attribute, "NSUUID", statement, index)
            }
            statement.bind(withUnsafeBytes(of: uuid.uuid) { Data($0) }, at: index)
        case .binary:
            guard let data = bytes(value) else { return try unacceptable(value, attribute, "NSData", statement, index) }
            statement.bind(data, at: index)
        case .externalBinary:
            guard let data = bytes(value) else { return try unacceptable(value, attribute, "NSData", statement, index) }
            statement.bind(try external.columnValue(for: data), at: index)
        case .transformable:
            if value is NSNull { return statement.bindNull(at: index) }
            guard let data = try TransformableStorage.storedData(for: value, attribute: attribute) else {
                statement.bindNull(at: index)
                return
            }
            statement.bind(data, at: index)
        }
    }

    /// The value of column `index` of the current row for `attribute`; `nil` for NULL.
    static func read(
        _ statement: SQLiteStatement, column index: Int32, storage: AttributeStorage,
        attribute: NSAttributeDescription, external: ExternalBinaryStorage
    ) throws -> Any? {
        switch storage {
        case .externalBinary:
            if statement.storageClass(index) == .null { return nil }
            return try statement.withBytes(index) { try external.data(fromColumn: $0) }
        case .transformable:
            if statement.storageClass(index) == .null { return nil }
            return try TransformableStorage.value(from: statement.data(index), attribute: attribute)
        default:
            return readPlain(statement, column: index, storage: storage)
        }
    }

    /// ``read(_:column:storage:attribute:external:)`` for a storage that needs neither its
    /// attribute nor the external files (``AttributeStorage/readsPlain``): what a row's
    /// decoding calls without touching the attribute's description. `nil` for NULL.
    static func readPlain(_ statement: SQLiteStatement, column index: Int32, storage: AttributeStorage) -> Any? {
        // The column's value read once (see SQLiteColumn), then its class and contents.
        let column = statement.column(index)
        let type = column.storageClass
        if type == .null { return nil }
        switch storage {
        case .integer16: return Int16(truncatingIfNeeded: column.int64)
        case .integer32: return Int32(truncatingIfNeeded: column.int64)
        case .integer64: return column.int64
        case .boolean: return column.int64 != 0
        case .double: return column.double
        case .float: return Float(column.double)
        case .date: return Date(timeIntervalSinceReferenceDate: column.double)
        case .decimal: return readDecimal(statement, column: index, type: type)
        case .string: return column.string
        case .uri: return URL(string: column.string)
        case .uuid:
            return column.withBytes { bytes -> UUID? in
                if bytes.count == 16 {
                    var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
                    withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: bytes) }
                    return UUID(uuid: uuid)
                }
                return UUID(uuidString: String(decoding: bytes, as: UTF8.self))
            }
        case .binary, .externalBinary, .transformable:
            // The column's bytes as stored; `read` turns those of external data and of
            // transformables into their values, and callers go through it for them.
            return column.data
        }
    }

    // MARK: Decimals

    private static let posix = Locale(identifier: "en_US_POSIX")

    private static func bindDecimal(_ value: Decimal, to statement: SQLiteStatement, at index: Int32) {
        let text = NSDecimalNumber(decimal: value).stringValue
        if let integer = Int64(text) {
            statement.bind(integer, at: index)
        } else if significantDigits(text) <= 15 || value.isNaN {
            statement.bindNumeral(text, at: index)
        } else {
            statement.bind(Data(text.utf8), at: index)
        }
    }

    private static func readDecimal(_ statement: SQLiteStatement, column index: Int32, type: SQLiteStorageClass) -> Decimal? {
        switch type {
        case .integer:
            return Decimal(statement.int64(index))
        case .real:
            // Fifteen digits: every decimal of up to 15 significant digits reads back exactly.
            return Decimal(string: String(format: "%.15g", statement.double(index)), locale: posix)
        default:
            return statement.withBytes(index) { Decimal(string: String(decoding: $0, as: UTF8.self), locale: posix) }
        }
    }

    /// The number of significant digits of a plain decimal numeral.
    private static func significantDigits(_ text: String) -> Int {
        let digits = text.utf8.filter { $0 >= 0x30 && $0 <= 0x39 }
        guard let first = digits.firstIndex(where: { $0 != 0x30 }) else { return 0 }
        let last = digits.lastIndex(where: { $0 != 0x30 })!
        return last - first + 1
    }

    // MARK: Coercions

    /// `value` as a 64-bit integer, for any Swift or Foundation integer (or an integral
    /// floating-point number).
    static func integer(_ value: Any) -> Int64? {
        switch value {
        case let v as Int64: return v
        case let v as Int: return Int64(v)
        case let v as Int32: return Int64(v)
        case let v as Int16: return Int64(v)
        case let v as Int8: return Int64(v)
        case let v as UInt8: return Int64(v)
        case let v as UInt16: return Int64(v)
        case let v as UInt32: return Int64(v)
        case let v as UInt64: return Int64(exactly: v)
        case let v as UInt: return Int64(exactly: v)
        case let v as Bool: return v ? 1 : 0
        case let v as NSNumber: return v.int64Value
        case let v as Double: return Int64(exactly: v)
        case let v as Float: return Int64(exactly: v)
        case let v as Decimal: return Int64(exactly: NSDecimalNumber(decimal: v).doubleValue)
        default: return nil
        }
    }

    /// `value` as a double, for any Swift or Foundation number.
    static func double(_ value: Any) -> Double? {
        switch value {
        case let v as Double: return v
        case let v as Float: return Double(v)
        case let v as NSNumber: return v.doubleValue
        case let v as Decimal: return NSDecimalNumber(decimal: v).doubleValue
        default: return integer(value).map(Double.init)
        }
    }

    /// `value` as a decimal, for a `Decimal`, a number, or a numeral string.
    static func decimal(_ value: Any) -> Decimal? {
        switch value {
        case let v as Decimal: return v
        case let v as NSDecimalNumber: return v.decimalValue
        case let v as String: return Decimal(string: v, locale: posix)
        case let v as Double: return Decimal(string: String(v), locale: posix)
        case let v as Float: return Decimal(string: String(v), locale: posix)
        default: return integer(value).map { Decimal($0) }
        }
    }

    /// `value` as bytes.
    static func bytes(_ value: Any) -> Data? {
        switch value {
        case let v as Data: return v
        case let v as NSData: return Data(referencing: v)
        case let v as [UInt8]: return Data(v)
        default: return nil
        }
    }

    private static func bindInteger(_ value: Any, _ attribute: NSAttributeDescription, to statement: SQLiteStatement, at index: Int32) throws {
        guard let number = integer(value) else { return try unacceptable(value, attribute, "NSNumber", statement, index) }
        statement.bind(number, at: index)
    }

    /// Binds `NSNull` as NULL; any other value of the wrong type is Core Data's complaint.
    private static func unacceptable(_ value: Any, _ attribute: NSAttributeDescription, _ desired: String, _ statement: SQLiteStatement, _ index: Int32) throws {
        if value is NSNull { return statement.bindNull(at: index) }
        throw coreDataError(NSManagedObjectValidationError, userInfo: [
            NSLocalizedDescriptionKey: "Unacceptable type of value for attribute: property = \"\(attribute.name)\"; desired type = \(desired); given type = \(type(of: value)); value = \(value).",
            NSValidationKeyErrorKey: attribute.name,
            NSValidationValueErrorKey: value,
        ])
    }
}
