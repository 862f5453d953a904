import Foundation

/// How a Transformable attribute's value becomes the bytes a store keeps, and back.
///
/// Core Data finds the transformer by the attribute's `valueTransformerName` (default:
/// `NSSecureUnarchiveFromData`). Unarchiving transformers work "backwards": their
/// `transformedValue(_:)` reads data, so Core Data archives with their reverse.
enum TransformableStorage {
    /// The registered transformer the attribute names.
    static func transformer(for attribute: NSAttributeDescription) throws -> ValueTransformer {
        let name = NSValueTransformerName(attribute.valueTransformerName ?? NSValueTransformerName.secureUnarchiveFromDataTransformerName.rawValue)
        guard let transformer = ValueTransformer.registeredTransformer(named: name) else {
            throw coreDataError(NSCoreDataError, userInfo: [
                NSLocalizedDescriptionKey: "No value transformer is registered under the name \(name.rawValue) (attribute \(attribute.name)); register one with ValueTransformer.setValueTransformer(_:forName:)."
            ])
        }
        return transformer
    }

    /// The data to store for `value`; `nil` stays `nil`.
    static func storedData(for value: Any?, attribute: NSAttributeDescription) throws -> Data? {
        guard let value = CocoaFormatter.unwrap(value) else { return nil }
        let transformer = try transformer(for: attribute)
        let result = readsData(transformer) ? transformer.reverseTransformedValue(value) : transformer.transformedValue(value)
        guard let data = CocoaFormatter.unwrap(result) as? Data else {
            throw coreDataError(NSCoreDataError, userInfo: [
                NSLocalizedDescriptionKey: "The value of \(attribute.name) could not be transformed to data by \(type(of: transformer)): \(cocoaPlainDescription(value))"
            ])
        }
        return data
    }

    /// The attribute value for stored `data`; `nil` stays `nil`.
    static func value(from data: Data?, attribute: NSAttributeDescription) throws -> Any? {
        guard let data else { return nil }
        let transformer = try transformer(for: attribute)
        let result = readsData(transformer) ? transformer.transformedValue(data) : transformer.reverseTransformedValue(data)
        guard let value = CocoaFormatter.unwrap(result) else {
            throw coreDataError(NSCoreDataError, userInfo: [
                NSLocalizedDescriptionKey: "The stored data of \(attribute.name) (\(data.count) bytes) could not be read back by \(type(of: transformer))."
            ])
        }
        return value
    }

    /// Whether the transformer's forward direction reads data (an unarchiver).
    private static func readsData(_ transformer: ValueTransformer) -> Bool {
        transformer is NSSecureUnarchiveFromDataTransformer
    }
}
