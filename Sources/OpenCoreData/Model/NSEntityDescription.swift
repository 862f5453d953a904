import Foundation

/// An entity: a kind of object in the model, with its attributes and relationships.
///
/// ```swift
/// let trail = NSEntityDescription()
/// trail.name = "Trail"
/// let name = NSAttributeDescription()
/// name.name = "name"
/// name.attributeType = .stringAttributeType
/// trail.properties = [name]
/// ```
open class NSEntityDescription: CustomStringConvertible {
    /// The entity's name, unique in its model.
    public var name: String?
    /// The class instantiated for objects of this entity. Defaults to `NSManagedObject`.
    public var managedObjectClassName: String! = "NSManagedObject" {
        didSet {
            cachedObjectClass = nil
            finalObjectClass.store(0)
        }
    }
    /// The Swift class found for ``managedObjectClassName``, once looked up, and how many
    /// modules were known then (a class not found may be found once more are known).
    var cachedObjectClass: (type: NSManagedObject.Type, modulesKnown: Int)?
    /// The class ``ManagedObjectClasses`` settled on for good, as its metadata's address,
    /// else 0: read without its lock at every object made for this entity.
    let finalObjectClass = AtomicWord(0)
    /// Whether Core Data's "Unable to load class named" warning was printed for this entity.
    var warnedMissingClass = false
    /// Xcode's code generation setting from a model file (`class`, `category`, or `nil`
    /// for Manual/None).
    var codeGenerationType: String?
    /// Whether the entity only serves as a parent; abstract entities cannot be inserted.
    /// (Not checked for overlapping access at run time: every insert reads it.)
    @exclusivity(unchecked) public var isAbstract: Bool = false
    /// Free-form information from the model editor's User Info.
    public var userInfo: [AnyHashable: Any]? = nil
    /// Extra text mixed into the version hash.
    public var versionHashModifier: String? = nil
    /// The name this entity had in the previous model version.
    public var renamingIdentifier: String? = nil
    /// Sets of property names whose values must be unique together, e.g. `[["name"]]`.
    public var uniquenessConstraints: [[Any]] = []
    /// The store indexes declared for this entity.
    public var indexes: [NSFetchIndexDescription] = []

    /// The model that owns the entity; set when the entity is added to a model.
    public internal(set) weak var managedObjectModel: NSManagedObjectModel!
    /// The parent entity, set when this entity is listed in another's `subentities`.
    public private(set) var superentity: NSEntityDescription? {
        get { superentityHandle?.target }
        set { superentityHandle = newValue?.handle }
    }
    private var superentityHandle: TargetHandle<NSEntityDescription>?
    /// What the entity's properties, indexes and subentities, and relationships to it, hold
    /// instead of a weak reference to it: every managed object and object ID retains its
    /// entity, and a weakly referenced entity would make each of those retains slow
    /// (``TargetHandle``).
    let handle = TargetHandle<NSEntityDescription>()

    private var ownProperties: [NSPropertyDescription] = []
    /// Lookup tables built once the model is frozen; see ``propertyTable``.
    var cachedPropertyTable: EntityPropertyTable?
    private var ownSubentities: [NSEntityDescription] = []

    /// Creates an entity with no name and no properties; add it to a model before use.
    public init() { handle.attach(self) }

    deinit { handle.clear() }

    /// This entity's own properties and those it inherits, parents' first.
    public var properties: [NSPropertyDescription] {
        get { (superentity?.properties ?? []) + ownProperties }
        set {
            let inherited = Set((superentity?.properties ?? []).map(ObjectIdentifier.init))
            ownProperties = newValue.filter { !inherited.contains(ObjectIdentifier($0)) }
            for property in ownProperties { property.entity = self }
            propertyListChanged()
        }
    }

    /// Properties declared on this entity itself, not inherited.
    var declaredProperties: [NSPropertyDescription] { ownProperties }

    /// Every property by name, including inherited ones.
    public var propertiesByName: [String: NSPropertyDescription] {
        Dictionary(properties.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// Every attribute by name, including inherited ones.
    public var attributesByName: [String: NSAttributeDescription] {
        propertiesByName.compactMapValues { $0 as? NSAttributeDescription }
    }

    /// Every relationship by name, including inherited ones.
    public var relationshipsByName: [String: NSRelationshipDescription] {
        propertiesByName.compactMapValues { $0 as? NSRelationshipDescription }
    }

    /// The direct sub-entities. Setting them makes this entity their superentity.
    public var subentities: [NSEntityDescription] {
        get { ownSubentities }
        set {
            for old in ownSubentities where old.superentity === self { old.superentity = nil }
            ownSubentities = newValue
            for entity in newValue { entity.superentity = self }
        }
    }

    /// The direct sub-entities by name.
    public var subentitiesByName: [String: NSEntityDescription] {
        Dictionary(subentities.compactMap { entity in entity.name.map { ($0, entity) } }, uniquingKeysWith: { a, _ in a })
    }

    /// The relationships of this entity whose destination is `entity`.
    public func relationships(forDestination entity: NSEntityDescription) -> [NSRelationshipDescription] {
        properties.compactMap { $0 as? NSRelationshipDescription }.filter { $0.destinationEntity === entity }
    }

    /// Whether this entity is `entity` or one of its descendants.
    public func isKindOf(entity: NSEntityDescription) -> Bool {
        var current: NSEntityDescription? = self
        while let candidate = current {
            if candidate === entity { return true }
            current = candidate.superentity
        }
        return false
    }

    /// A hash of everything about the entity that affects the store schema: the same 32
    /// bytes Core Data computes, so a store written by Apple's Core Data opens with the
    /// same model.
    ///
    /// Core Data hashes the name, a byte 1 when abstract, the parent's version hash (so
    /// a change to a parent changes its descendants), the hashes of all persistent
    /// attributes and relationships, inherited ones included, in name order, the version
    /// hash modifier, and finally each uniqueness constraint declared on this entity,
    /// its names joined by `.`, in sorted order.
    public var versionHash: Data {
        var hasher = VersionHasher()
        hasher.add(name)
        hasher.add(byte: isAbstract ? 1 : 0)
        if let superentity { hasher.add(bytes: superentity.versionHash) }
        let hashed = properties.filter { property in
            (property is NSAttributeDescription || property is NSRelationshipDescription) && !property.isTransient
        }
        // Core Data sorts by `NSString.compare(_:)` on the names; for the names a model
        // holds (identifiers) that is the order of Swift's `<`.
        for property in hashed.sorted(by: { $0.name < $1.name }) {
            hasher.add(bytes: property.versionHash)
        }
        hasher.add(versionHashModifier)
        let constraintKeys = uniquenessConstraints.map { constraint in
            constraint.map { element in (element as? NSPropertyDescription)?.name ?? "\(element)" }.joined(separator: ".")
        }
        for key in constraintKeys.sorted() where !key.isEmpty { hasher.add(key) }
        return hasher.finalize()
    }

    /// Called when the property list or a property name changes.
    func propertyListChanged() {}

    /// The root of this entity's inheritance tree (itself when it has no parent).
    var rootEntity: NSEntityDescription {
        var current = self
        while let parent = current.superentity { current = parent }
        return current
    }

    /// This entity and all its descendants, depth first.
    var selfAndDescendants: [NSEntityDescription] {
        [self] + subentities.flatMap(\.selfAndDescendants)
    }

    open var description: String {
        "(\(name ?? "(null)")) name \(name ?? "(null)"), managedObjectClassName \(managedObjectClassName ?? "(null)"), abstract \(isAbstract ? 1 : 0), superentity name \(superentity?.name ?? "(null)"), properties \(properties.map(\.name))"
    }
}

/// A store index over one or more properties of an entity.
public final class NSFetchIndexDescription {
    /// The index's name, unique within its entity.
    public var name: String
    /// The indexed properties, in the order the index sorts them.
    public var elements: [NSFetchIndexElementDescription]
    /// Set by the entity when the index is added to it.
    public internal(set) var entity: NSEntityDescription? {
        get { entityHandle?.target }
        set { entityHandle = newValue?.handle }
    }
    private var entityHandle: TargetHandle<NSEntityDescription>?
    /// The source of a partial index's `WHERE` clause, as written in the model.
    var partialIndexPredicateFormat: String?

    /// Creates an index named `name` over `elements` (none when `nil`).
    public init(name: String, elements: [NSFetchIndexElementDescription]?) {
        self.name = name
        self.elements = elements ?? []
    }
}

/// How an index element is collated. Raw values match Core Data's.
public enum NSFetchIndexElementType: UInt, Sendable {
    /// An ordinary (B-tree) index, compared bytewise.
    case binary = 0
    /// A spatial (R-tree) index, for range queries over numbers.
    case rTree = 1
}

/// One property of a store index, with its order.
public final class NSFetchIndexElementDescription {
    /// The indexed property.
    public var property: NSPropertyDescription?
    /// The property's name; kept when the property is resolved later by the model loader.
    public var propertyName: String?
    /// How the element is indexed: ordinary (`.binary`) or spatial (`.rTree`).
    public var collationType: NSFetchIndexElementType
    /// Whether the index sorts this element in ascending order (the default).
    public var isAscending: Bool = true

    /// Creates an index element over `property`, indexed as `collationType`.
    public init(property: NSPropertyDescription, collationType: NSFetchIndexElementType) {
        self.property = property
        self.propertyName = property.name
        self.collationType = collationType
    }

    init(propertyName: String, collationType: NSFetchIndexElementType, isAscending: Bool) {
        self.propertyName = propertyName
        self.collationType = collationType
        self.isAscending = isAscending
    }
}
