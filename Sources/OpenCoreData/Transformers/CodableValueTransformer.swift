import Foundation

/// Stores any `Codable` value of a Transformable attribute as JSON.
///
/// ```swift
/// struct Route: Codable { var waypoints: [String] }
/// ValueTransformer.setValueTransformer(CodableValueTransformer<Route>(), forName: .init("RouteTransformer"))
/// // In the model: valueTransformerName="RouteTransformer"
/// ```
///
/// ``transformedValue(_:)`` turns a `Value` into JSON `Data` (keys sorted, so equal
/// values store equal bytes); ``reverseTransformedValue(_:)`` decodes it back.
public final class CodableValueTransformer<Value: Codable>: ValueTransformer {
    /// Makes a transformer for `Value`.
    public override init() { super.init() }

    public override class func transformedValueClass() -> AnyClass { NSData.self }
    public override class func allowsReverseTransformation() -> Bool { true }

    /// The JSON encoding of `value`, or `nil` when it is not a `Value` or fails to encode.
    public override func transformedValue(_ value: Any?) -> Any? {
        guard let typed = CocoaFormatter.unwrap(value) as? Value else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try? encoder.encode(typed)
    }

    /// The `Value` decoded from JSON `Data`, or `nil` when it does not decode.
    public override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let data = CocoaFormatter.unwrap(value) as? Data else { return nil }
        return try? JSONDecoder().decode(Value.self, from: data)
    }
}
