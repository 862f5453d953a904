import Foundation

/// Reads a value of one exact Swift type out of an `Any?` where it lies, without the
/// runtime's dynamic cast.
///
/// Why: a save binds each value of each written row from its `Any?` slot, and `as? Int32`
/// on an `Any` copies the existential and goes through the runtime's general cast, which
/// looks for bridging and wrapping before it finds an exact match: 60–80 ns a value here,
/// about a twentieth of inserting and saving 100,000 objects of eight attributes.
///
/// How: the Swift ABI lays an `Any` out as a buffer of three words followed by the
/// metadata pointer of the value's type (docs/ABI/TypeLayout.rst, "Existential Container
/// Layout"); a value of a bitwise-takable type that fits in the buffer lies in it, at its
/// start, and `Optional<Any>` is the same four words (nil is a metadata pointer no type
/// has). So when the metadata word is `T`'s, the value is the buffer's first bytes. Only
/// the types that conform to ``InlineExistentialValue`` are read this way, and a check at
/// first use reads a probe value of each through an `Any?` and compares; should a future
/// layout differ, ``read(_:as:)`` answers nil and every caller falls back to `as?`.
enum ExactValueReader {
    /// The value in `slot` when its type is exactly `T` (not a subclass, not a bridged or
    /// wrapped value), else nil: the caller then casts as usual.
    @inline(__always)
    static func read<T: InlineExistentialValue>(_ slot: UnsafePointer<Any?>, as type: T.Type) -> T? {
        layoutHolds ? unchecked(slot, as: type) : nil
    }

    /// Whether the `Any?` in `slot` is nil: its metadata word is zero (checked with the
    /// layout), read without the runtime's generic test of an optional's case.
    @inline(__always)
    static func isNil(_ slot: UnsafePointer<Any?>) -> Bool {
        guard layoutHolds else { return slot.pointee == nil }
        return UnsafeRawPointer(slot).load(fromByteOffset: metadataOffset, as: UnsafeRawPointer?.self) == nil
    }

    /// Deinitializes the `Any?` in `slot`: nothing to do for a nil, and a value is
    /// destroyed as the `Any` it holds. Destroying through `Any?` asks the runtime for the
    /// optional's case first, through generic witnesses (most of the cost of freeing a
    /// slot, 40 to 60 instructions).
    @inline(__always)
    static func deinitialize(_ slot: UnsafeMutablePointer<Any?>) {
        guard layoutHolds else { slot.deinitialize(count: 1); return }
        guard !isNil(slot) else { return }
        // A present `Any?` is its `Any`, in the same four words (see above).
        slot.withMemoryRebound(to: Any.self, capacity: 1) { _ = $0.deinitialize(count: 1) }
    }

    /// A copy of the `Any?` in `slot`. A nil, or a value of one of the types read here, is
    /// copied as itself (a string costs a retain): the runtime's generic copy of an `Any?`
    /// asks the optional's case and then the value's witnesses, about 120 instructions a
    /// value, which made copying a row's slots (an object's first change after a fetch)
    /// and reading a value out of its slot cost more than the rest of either.
    @inline(__always)
    static func copy(_ slot: UnsafePointer<Any?>) -> Any? {
        guard layoutHolds else { return slot.pointee }
        if isNil(slot) { return nil }
        if let value = unchecked(slot, as: String.self) { return value }
        if let value = unchecked(slot, as: Double.self) { return value }
        if let value = unchecked(slot, as: Int64.self) { return value }
        if let value = unchecked(slot, as: Int32.self) { return value }
        if let value = unchecked(slot, as: Int16.self) { return value }
        if let value = unchecked(slot, as: Bool.self) { return value }
        if let value = unchecked(slot, as: Date.self) { return value }
        return slot.pointee
    }

    /// The type the metadata word of the `Any?` in `slot` names, nil for a nil or when the
    /// layout does not hold: for a value of a struct or an enum its own type, read without
    /// copying the value out (for a class instance it may be a superclass: callers compare
    /// it with value types only).
    @inline(__always)
    static func storedType(_ slot: UnsafePointer<Any?>) -> Any.Type? {
        guard layoutHolds, let word = UnsafeRawPointer(slot).load(fromByteOffset: metadataOffset, as: UnsafeRawPointer?.self) else { return nil }
        return unsafeBitCast(word, to: Any.Type.self)
    }

    /// Where the metadata word lies: after the three-word buffer.
    private static let metadataOffset = 3 * MemoryLayout<UnsafeRawPointer>.stride

    private static func metadata(of type: Any.Type) -> UnsafeRawPointer {
        unsafeBitCast(type, to: UnsafeRawPointer.self)
    }

    /// Whether the layout described above is the one this program runs with.
    static let layoutHolds: Bool = {
        guard MemoryLayout<Any?>.size == 4 * MemoryLayout<UnsafeRawPointer>.stride,
            MemoryLayout<Any>.size == MemoryLayout<Any?>.size, nilHasNoMetadata()
        else { return false }
        return probe(Int16(-12_345)) && probe(Int32(-1_234_567)) && probe(Int64.min + 7)
            && probe(true) && probe(false) && probe(-2.5e300) && probe(Float(3.25))
            && probe(Date(timeIntervalSinceReferenceDate: 123_456.75))
            && probe("short") && probe(String(repeating: "a heap-allocated string, ", count: 4))
    }()

    /// Whether a nil `Any?` has a zero metadata word (what ``isNil(_:)`` reads).
    private static func nilHasNoMetadata() -> Bool {
        var empty: Any? = nil
        var present: Any? = 0
        return withUnsafePointer(to: &empty) { UnsafeRawPointer($0).load(fromByteOffset: metadataOffset, as: UnsafeRawPointer?.self) == nil }
            && withUnsafePointer(to: &present) { UnsafeRawPointer($0).load(fromByteOffset: metadataOffset, as: UnsafeRawPointer?.self) != nil }
    }

    /// Whether `value` reads back through an `Any?` as itself, and another type's value
    /// does not read as one of its type.
    private static func probe<T: InlineExistentialValue & Equatable>(_ value: T) -> Bool {
        guard MemoryLayout<T>.size <= metadataOffset, MemoryLayout<T>.alignment <= MemoryLayout<UnsafeRawPointer>.alignment else { return false }
        var boxed: Any? = value
        var other: Any? = UInt8(1)
        let reads = withUnsafePointer(to: &boxed) { slot in
            unchecked(slot, as: T.self) == value
        }
        let rejects = withUnsafePointer(to: &other) { slot in unchecked(slot, as: T.self) == nil }
        var empty: Any? = nil
        let rejectsNil = withUnsafePointer(to: &empty) { slot in unchecked(slot, as: T.self) == nil }
        return reads && rejects && rejectsNil
    }

    /// ``read(_:as:)`` without the check of the layout (which is what the check runs).
    @inline(__always)
    private static func unchecked<T>(_ slot: UnsafePointer<Any?>, as type: T.Type) -> T? {
        let raw = UnsafeRawPointer(slot)
        guard raw.load(fromByteOffset: metadataOffset, as: UnsafeRawPointer?.self) == metadata(of: T.self) else { return nil }
        return raw.load(as: T.self)
    }
}

/// A type whose values an `Any` holds in its inline buffer: bitwise-takable and at most
/// three words. Only the attribute types' own Swift types that a save binds are listed.
protocol InlineExistentialValue {}
extension Int16: InlineExistentialValue {}
extension Int32: InlineExistentialValue {}
extension Int64: InlineExistentialValue {}
extension Bool: InlineExistentialValue {}
extension Double: InlineExistentialValue {}
extension Float: InlineExistentialValue {}
extension Date: InlineExistentialValue {}
extension String: InlineExistentialValue {}
