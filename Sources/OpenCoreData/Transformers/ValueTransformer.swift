import Foundation

/// The name a value transformer is registered under.
public struct NSValueTransformerName: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    /// Makes a name from its string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Makes a name from its string.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// `NSSecureUnarchiveFromDataTransformer`: Core Data's default for Transformable attributes.
    public static let secureUnarchiveFromDataTransformerName = NSValueTransformerName("NSSecureUnarchiveFromData")
    /// `NSKeyedUnarchiveFromData`: unarchives keyed archives (here with the same checks
    /// as the secure transformer).
    public static let keyedUnarchiveFromDataTransformerName = NSValueTransformerName("NSKeyedUnarchiveFromData")
    /// `NSUnarchiveFromData`: Apple's deprecated unarchiver, an alias of the keyed one here.
    public static let unarchiveFromDataTransformerName = NSValueTransformerName("NSUnarchiveFromData")
    /// Turns a Boolean into its opposite.
    public static let negateBooleanTransformerName = NSValueTransformerName("NSNegateBoolean")
    /// Whether a value is `nil`.
    public static let isNilTransformerName = NSValueTransformerName("NSIsNil")
    /// Whether a value is not `nil`.
    public static let isNotNilTransformerName = NSValueTransformerName("NSIsNotNil")
}

/// Converts values one way and, optionally, back: Foundation's `ValueTransformer`, which
/// swift-corelibs-foundation lacks. Transformable attributes store what their
/// transformer makes of their value.
///
/// ```swift
/// ValueTransformer.setValueTransformer(CodableValueTransformer<[String]>(), forName: .init("TagsTransformer"))
/// ```
open class ValueTransformer {
    /// Registered transformers by name, guarded by `registryLock`.
    private static var registry: [String: ValueTransformer] = [
        NSValueTransformerName.secureUnarchiveFromDataTransformerName.rawValue: NSSecureUnarchiveFromDataTransformer(),
        NSValueTransformerName.keyedUnarchiveFromDataTransformerName.rawValue: NSSecureUnarchiveFromDataTransformer(),
        NSValueTransformerName.unarchiveFromDataTransformerName.rawValue: NSSecureUnarchiveFromDataTransformer(),
        NSValueTransformerName.negateBooleanTransformerName.rawValue: NegateBooleanTransformer(),
        NSValueTransformerName.isNilTransformerName.rawValue: IsNilTransformer(expectingNil: true),
        NSValueTransformerName.isNotNilTransformerName.rawValue: IsNilTransformer(expectingNil: false),
    ]
    private static let registryLock = NSLock()

    /// Set on the instances `init?(forName:)` makes: they forward to the registered one.
    private var registered: ValueTransformer?

    /// Makes a transformer.
    public init() {}

    /// A transformer that behaves as the one registered under `name`, or `nil` when none is.
    ///
    /// Apple returns the registered instance itself; Swift initializers cannot, so this one
    /// forwards `transformedValue(_:)` and `reverseTransformedValue(_:)` to it.
    public convenience init?(forName name: NSValueTransformerName) {
        guard let target = ValueTransformer.registeredTransformer(named: name) else { return nil }
        self.init()
        registered = target
    }

    /// Registers `transformer` under `name`; `nil` removes the registration.
    public class func setValueTransformer(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
        registryLock.lock()
        defer { registryLock.unlock() }
        registry[name.rawValue] = transformer
    }

    /// The names of all registered transformers, sorted.
    public class func valueTransformerNames() -> [NSValueTransformerName] {
        registryLock.lock()
        defer { registryLock.unlock() }
        return registry.keys.sorted().map(NSValueTransformerName.init(rawValue:))
    }

    /// The registered instance itself (what Apple's `ValueTransformer(forName:)` returns).
    static func registeredTransformer(named name: NSValueTransformerName) -> ValueTransformer? {
        registryLock.lock()
        defer { registryLock.unlock() }
        return registry[name.rawValue]
    }

    /// The class of the values `transformedValue(_:)` returns.
    open class func transformedValueClass() -> AnyClass { NSObject.self }

    /// Whether `reverseTransformedValue(_:)` undoes `transformedValue(_:)`.
    open class func allowsReverseTransformation() -> Bool { true }

    /// The transformed form of `value`; the base class returns `value` unchanged.
    open func transformedValue(_ value: Any?) -> Any? {
        if let registered { return registered.transformedValue(value) }
        return value
    }

    /// `value` transformed back; `nil` when the transformer does not allow reversing
    /// (Apple raises an exception there).
    open func reverseTransformedValue(_ value: Any?) -> Any? {
        if let registered { return registered.reverseTransformedValue(value) }
        guard type(of: self).allowsReverseTransformation() else { return nil }
        return transformedValue(value)
    }
}

/// `NSNegateBoolean`: true becomes false and back.
private final class NegateBooleanTransformer: ValueTransformer {
    override class func transformedValueClass() -> AnyClass { NSNumber.self }
    override func transformedValue(_ value: Any?) -> Any? {
        guard let number = value.flatMap(AttributeValidationNumber.decimal) else { return nil }
        return number == 0
    }
    override func reverseTransformedValue(_ value: Any?) -> Any? { transformedValue(value) }
}

/// `NSIsNil` and `NSIsNotNil`; neither can be reversed.
private final class IsNilTransformer: ValueTransformer {
    let expectingNil: Bool
    init(expectingNil: Bool) { self.expectingNil = expectingNil }
    override class func transformedValueClass() -> AnyClass { NSNumber.self }
    override class func allowsReverseTransformation() -> Bool { false }
    override func transformedValue(_ value: Any?) -> Any? {
        let isNil = CocoaFormatter.unwrap(value) == nil || value is NSNull
        return isNil == expectingNil
    }
}
