import Foundation

/// Objects whose properties can be read by name: the part of Foundation's key-value
/// coding that predicates, sort descriptors and expressions need.
///
/// swift-corelibs-foundation marks key-value coding unavailable, so the library declares
/// its own. `NSManagedObject` adopts it; so can any class of yours that predicates should
/// evaluate against.
///
/// ```swift
/// final class Point: KeyValueCoding {
///     var x = 1, y = 2
///     func value(forKey key: String) -> Any? { key == "x" ? x : key == "y" ? y : nil }
/// }
/// NSPredicate(format: "x < y").evaluate(with: Point())  // true
/// ```
public protocol KeyValueCoding: AnyObject {
    /// The value of the property named `key`, or `nil`.
    func value(forKey key: String) -> Any?
}
