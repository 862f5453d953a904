import Foundation

/// An attribute value of one of the eight Swift types that ``ExactValueReader`` reads where
/// it lies, read out of its `Any?` slot by the attribute's type: the one place that pairs
/// each attribute type with its stored Swift type for in-place reads, so that copying a
/// stored value and handing it out through key-value coding cannot disagree.
enum StoredScalar {
    case string(String)
    case int16(Int16)
    case int32(Int32)
    case int64(Int64)
    case double(Double)
    case float(Float)
    case bool(Bool)
    case date(Date)

    /// The value in `slot` when it is exactly the Swift type an attribute of `type` stores
    /// and one of the eight above; nil otherwise (the caller then takes the general path).
    @inline(__always)
    static func read(_ slot: UnsafePointer<Any?>, for type: NSAttributeType) -> StoredScalar? {
        switch type {
        case .stringAttributeType: if let value = ExactValueReader.read(slot, as: String.self) { return .string(value) }
        case .integer16AttributeType: if let value = ExactValueReader.read(slot, as: Int16.self) { return .int16(value) }
        case .integer32AttributeType: if let value = ExactValueReader.read(slot, as: Int32.self) { return .int32(value) }
        case .integer64AttributeType: if let value = ExactValueReader.read(slot, as: Int64.self) { return .int64(value) }
        case .doubleAttributeType: if let value = ExactValueReader.read(slot, as: Double.self) { return .double(value) }
        case .floatAttributeType: if let value = ExactValueReader.read(slot, as: Float.self) { return .float(value) }
        case .booleanAttributeType: if let value = ExactValueReader.read(slot, as: Bool.self) { return .bool(value) }
        case .dateAttributeType: if let value = ExactValueReader.read(slot, as: Date.self) { return .date(value) }
        default: break
        }
        return nil
    }

    /// The value as the object stores it.
    @inline(__always)
    var stored: Any {
        switch self {
        case .string(let value): return value
        case .int16(let value): return value
        case .int32(let value): return value
        case .int64(let value): return value
        case .double(let value): return value
        case .float(let value): return value
        case .bool(let value): return value
        case .date(let value): return value
        }
    }

    /// The value as `value(forKey:)` hands it out: numbers and Booleans boxed in `NSNumber`,
    /// strings and dates as they are (what ``AttributeValues/public(_:for:)`` answers).
    @inline(__always)
    var `public`: Any {
        switch self {
        case .string(let value): return value
        case .int16(let value): return NumberBox.of(value)
        case .int32(let value): return NumberBox.of(value)
        case .int64(let value): return NumberBox.of(value)
        case .double(let value): return NumberBox.of(value)
        case .float(let value): return NumberBox.of(value)
        case .bool(let value): return NumberBox.of(value)
        case .date(let value): return value
        }
    }
}
