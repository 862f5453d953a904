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
/// Elements may be of any attribute type except undefined, object ID and binary data kept
/// in external files; an element may itself be a composite (a nested dictionary).
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

    /// Every element that holds a value, inside nested composites too, with the element
    /// names leading to it from this composite (`["geo", "lat"]`).
    var leafElements: [(path: [String], element: NSAttributeDescription)] { leafElements(depth: 0) }

    /// Stops at a depth no real model reaches, so a composite that contains itself (which
    /// ``storageProblem`` reports) cannot recurse forever.
    private func leafElements(depth: Int) -> [(path: [String], element: NSAttributeDescription)] {
        guard depth < 16 else { return [] }
        return elements.flatMap { element -> [(path: [String], element: NSAttributeDescription)] in
            guard let nested = element as? NSCompositeAttributeDescription else { return [([element.name], element)] }
            return nested.leafElements(depth: depth + 1).map { ([element.name] + $0.path, $0.element) }
        }
    }

    /// The value at `path` inside a composite's dictionary.
    static func value(at path: ArraySlice<String>, in value: Any?) -> Any? {
        guard let first = path.first else { return value }
        return Self.value(at: path.dropFirst(), in: (value as? [String: Any])?[first])
    }

    /// `dictionary` with `value` stored at `path`, making the nested dictionaries it needs.
    static func setting(_ value: Any, at path: ArraySlice<String>, in dictionary: [String: Any]?) -> [String: Any] {
        var result = dictionary ?? [:]
        guard let first = path.first else { return result }
        if path.count == 1 {
            result[first] = value
        } else {
            result[first] = setting(value, at: path.dropFirst(), in: result[first] as? [String: Any])
        }
        return result
    }

    /// Why a store cannot keep this composite's elements, or `nil` when it can.
    var storageProblem: String? {
        storageProblem(depth: 0)
    }

    private func storageProblem(depth: Int) -> String? {
        guard depth < 16 else { return "The composite attribute \(name) contains itself." }
        for element in elements {
            switch element.attributeType {
            case .compositeAttributeType:
                guard let nested = element as? NSCompositeAttributeDescription else {
                    return "The composite attribute \(name) has an element \(element.name) of type Composite that is not an NSCompositeAttributeDescription."
                }
                if let problem = nested.storageProblem(depth: depth + 1) { return problem }
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
