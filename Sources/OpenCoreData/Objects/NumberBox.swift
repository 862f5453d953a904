import Foundation

/// The `NSNumber`s key-value coding hands out for attributes' numbers and Booleans: the one
/// place they are boxed.
///
/// On Apple's platforms handing one out costs no allocation for the values most attributes
/// hold: small integers are tagged pointers, and the Booleans are the shared
/// `kCFBooleanTrue` and `kCFBooleanFalse`. corelibs Foundation allocates every `NSNumber`
/// (two allocations each, about a tenth of a microsecond). So the two Booleans, and each
/// integer type's values from -128 to 1,023, are made once, on first use, and shared (an
/// `NSNumber` is immutable); other values are boxed anew. Each integer type keeps its own,
/// because the number remembers its type (`objCType` is `s`, `i` or `q`).
enum NumberBox {
    private static let smallest = -128
    private static let largest = 1_023
    private static let int16s = (smallest...largest).map { NSNumber(value: Int16($0)) }
    private static let int32s = (smallest...largest).map { NSNumber(value: Int32($0)) }
    private static let int64s = (smallest...largest).map { NSNumber(value: Int64($0)) }
    private static let yes = NSNumber(value: true)
    private static let no = NSNumber(value: false)

    static func of(_ value: Int16) -> NSNumber {
        isSmall(Int(value)) ? int16s[Int(value) - smallest] : NSNumber(value: value)
    }

    static func of(_ value: Int32) -> NSNumber {
        isSmall(Int(value)) ? int32s[Int(value) - smallest] : NSNumber(value: value)
    }

    static func of(_ value: Int64) -> NSNumber {
        isSmall(Int(value)) ? int64s[Int(value) - smallest] : NSNumber(value: value)
    }

    static func of(_ value: Bool) -> NSNumber { value ? yes : no }

    static func of(_ value: Double) -> NSNumber { NSNumber(value: value) }

    static func of(_ value: Float) -> NSNumber { NSNumber(value: value) }

    @inline(__always)
    private static func isSmall(_ value: Int) -> Bool { value >= smallest && value <= largest }
}
