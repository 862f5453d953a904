import Foundation

#if !canImport(ObjectiveC)
/// The name of a method, for APIs that take one: `NSSortDescriptor(key:ascending:selector:)`
/// and `NSComparisonPredicate(leftExpression:rightExpression:customSelector:)`.
///
/// Linux has no Objective-C runtime, so `#selector(…)` is not available; write the name:
///
/// ```swift
/// NSSortDescriptor(key: "name", ascending: true, selector: Selector("localizedStandardCompare:"))
/// NSSortDescriptor(key: "name", ascending: true, selector: "caseInsensitiveCompare:")
/// ```
///
/// The same source compiles on Apple platforms, where `Selector` is the runtime's.
public struct Selector: ExpressibleByStringLiteral, Hashable, CustomStringConvertible, Sendable {
    /// The method name, e.g. `"localizedStandardCompare:"`.
    let name: String

    /// The selector named `name`, e.g. `Selector("compare:")`.
    public init(_ name: String) {
        self.name = name
    }

    public init(stringLiteral name: String) {
        self.name = name
    }

    public var description: String { name }
}

/// The name of `selector`, e.g. `"compare:"`.
public func NSStringFromSelector(_ selector: Selector) -> String {
    selector.name
}

/// The selector named `name`.
public func NSSelectorFromString(_ name: String) -> Selector {
    Selector(name)
}
#else
extension Selector {
    var name: String { NSStringFromSelector(self) }
}
#endif
