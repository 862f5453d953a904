import Foundation

/// What happens to the objects at the other end of a relationship when its source object
/// is deleted. Raw values match Core Data's.
public enum NSDeleteRule: UInt, Sendable {
    /// Leave the destination objects alone, even pointing back at the deleted object.
    case noActionDeleteRule = 0
    /// Remove the deleted object from the destination objects' inverse relationship.
    case nullifyDeleteRule = 1
    /// Delete the destination objects too.
    case cascadeDeleteRule = 2
    /// Refuse the deletion while the relationship holds any object.
    case denyDeleteRule = 3
}

/// A relationship from one entity to another.
open class NSRelationshipDescription: NSPropertyDescription {
    /// The entity at the other end; not retained (the model owns its entities).
    public var destinationEntity: NSEntityDescription? {
        get { destinationHandle?.target }
        set { destinationHandle = newValue?.handle }
    }
    /// The destination's handle, held instead of a weak reference (``TargetHandle``).
    private var destinationHandle: TargetHandle<NSEntityDescription>?
    /// The relationship that leads back. Core Data keeps both sides in step.
    /// (Not checked for overlapping access at run time, like the counts, the rule and
    /// `isOrdered` below: a model in use does not change, and the delete rules read them
    /// for every object they reach, a check each, 2 % of a cascade through 100,000.)
    @exclusivity(unchecked) public weak var inverseRelationship: NSRelationshipDescription?
    /// The fewest objects a to-many relationship may hold at save.
    @exclusivity(unchecked) public var minCount: Int = 0
    /// The most objects the relationship may hold at save; 1 makes it to-one and 0 (the
    /// default, as in Core Data) means no limit, so a new relationship is to-many until
    /// you set 1.
    @exclusivity(unchecked) public var maxCount: Int = 0
    /// What deleting the source object does to the destination objects (nullify by default).
    @exclusivity(unchecked) public var deleteRule: NSDeleteRule = .nullifyDeleteRule
    /// Whether a to-many relationship keeps its order (an `NSOrderedSet`).
    @exclusivity(unchecked) public var isOrdered: Bool = false

    /// Whether the relationship may hold more than one object.
    public var isToMany: Bool { maxCount != 1 }

    /// Creates a to-many relationship with no name and no destination; set them before use.
    public override init() { super.init() }

    /// Set by the model file loader: names resolved once all entities exist.
    var destinationEntityName: String?
    var inverseName: String?

    /// Core Data's relationship hash: the shared property hash, the destination entity's
    /// name, the inverse relationship's name (left out when the relationship is its own
    /// inverse), `maxCount` and `minCount` as 32-bit numbers, and for an ordered
    /// relationship a 16-bit 1. The delete rule is not part of it.
    override func computeVersionHash() -> Data {
        var hasher = VersionHasher()
        hasher.add(bytes: super.computeVersionHash())
        hasher.add(destinationEntity?.name ?? destinationEntityName)
        if inverseRelationship !== self {
            hasher.add(inverseRelationship?.name ?? inverseName)
        }
        hasher.add(uint32: UInt32(truncatingIfNeeded: maxCount))
        hasher.add(uint32: UInt32(truncatingIfNeeded: minCount))
        if isOrdered { hasher.add(uint16: 1) }
        return hasher.finalize()
    }

    open override var description: String {
        super.description + ", destination entity \(destinationEntity?.name ?? "(null)"), inverseRelationship \(inverseRelationship?.name ?? "(null)"), minCount \(minCount), maxCount \(maxCount), isOrdered \(isOrdered ? 1 : 0), deleteRule \(deleteRule.rawValue)"
    }
}
