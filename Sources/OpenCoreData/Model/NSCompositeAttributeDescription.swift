import Foundation

/// An attribute whose value is made of other attributes (Xcode's "Composite", iOS 17).
///
/// In memory the value is a dictionary keyed by the elements' names; in a SQLite store each
/// element has a column of its own, so predicates reach into it with a key path such as
/// `address.city`, and a fetch filters on that column in SQL.
///
/// ```swift
/// let city = NSAttributeDescription()
/// city.name = "city"
/// city.attributeType = .stringAttributeType
/// let address = NSCompositeAttributeDescription()
/// address.name = "address"
/// address.elements = [city]
/// // later: hut.setValue(["city": "Zermatt"], forKey: "address")
/// ```
///
/// Elements may be of any attribute type except undefined, object ID, binary data kept in
/// external files, and (here) another composite.
open class NSCompositeAttributeDescription: NSAttributeDescription {
    /// The attributes that make up the value, in order.
    open var elements: [NSAttributeDescription] = [] {
        didSet { for element in elements { element.compositeOwner = self } }
    }

    /// Creates a composite attribute with no name and no elements.
    public override init() {
        super.init()
        attributeType = .compositeAttributeType
    }

    /// The element named `name`.
    func element(named name: String) -> NSAttributeDescription? {
        elements.first { $0.name == name }
    }

    /// Why a store cannot keep this composite's elements, or `nil` when it can.
    var storageProblem: String? {
        for element in elements {
            switch element.attributeType {
            case .compositeAttributeType:
                return "The composite attribute \(name) contains the composite \(element.name); nested composites are not supported."
            case .undefinedAttributeType, .objectIDAttributeType:
                return "The composite attribute \(name) has an element \(element.name) of a type a composite cannot hold (\(element.attributeType.modelFileName))."
            case .binaryDataAttributeType where element.allowsExternalBinaryDataStorage:
                return "The composite attribute \(name) has an element \(element.name) that allows external storage, which a composite cannot hold."
            default: continue
            }
        }
        return nil
    }

    /// The attribute hash, then each element's hash in order: a change to an element changes
    /// the composite's hash, and so its entity's. Apple's exact scheme for composites was
    /// not at hand to check this against.
    override func computeVersionHash() -> Data {
        var hasher = VersionHasher()
        hasher.add(bytes: super.computeVersionHash())
        for element in elements { hasher.add(bytes: element.versionHash) }
        return hasher.finalize()
    }
}
