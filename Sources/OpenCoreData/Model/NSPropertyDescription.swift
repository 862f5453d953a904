import Foundation

/// A property of an entity: an attribute or a relationship.
///
/// As in Core Data, properties are configured while the model is being built and become
/// read-only once a persistent store coordinator uses the model.
open class NSPropertyDescription: CustomStringConvertible {
    /// The property's name, used as its key in key-value coding.
    public var name: String {
        didSet { entity?.propertyListChanged() }
    }
    /// The entity the property belongs to; set when the property is added to an entity.
    /// Not retained (the entity owns its properties).
    public internal(set) var entity: NSEntityDescription! {
        get { entityHandle?.target }
        set { entityHandle = newValue?.handle }
    }
    /// The entity's handle, held instead of a weak reference (``TargetHandle``).
    private var entityHandle: TargetHandle<NSEntityDescription>?
    /// Whether the property may be `nil` when an object is saved. Defaults to `true`.
    public var isOptional: Bool = true
    /// Whether the property is kept in memory only and never written to the store.
    public var isTransient: Bool = false
    /// Whether the store should index the property.
    public var isIndexed: Bool = false
    /// Free-form information from the model editor's User Info.
    public var userInfo: [AnyHashable: Any]? = nil
    /// Extra text mixed into the version hash, to mark a change the hash would not see.
    public var versionHashModifier: String? = nil
    /// The name this property had in the previous model version (Xcode's "Renaming ID").
    public var renamingIdentifier: String? = nil
    /// Kept for API compatibility with Core Data; Spotlight does not exist on Linux.
    public var isIndexedBySpotlight: Bool = false
    /// The property's slot in the ``EntityPropertyTable`` of every entity that has it, set
    /// once the model is frozen (inherited properties come first, so the slot is the same
    /// in subentities): finding it hashes no name. `Int.max` until then.
    var slotHint = Int.max

    /// Creates a property with an empty name; used through a subclass.
    public init() { self.name = "" }

    /// A hash of the properties of this description that affect the store schema: the
    /// same 32 bytes Core Data computes, so hashes recorded by Apple's Core Data match.
    /// Two models whose properties have equal hashes can open the same store.
    public var versionHash: Data { computeVersionHash() }

    /// Core Data's hash of what every property shares: the name, then the flags as a
    /// 16-bit number (1 optional, 2 transient, 4 read-only; read-only is never set
    /// here), then the version hash modifier. Subclasses hash this with their own fields.
    func computeVersionHash() -> Data {
        var hasher = VersionHasher()
        hasher.add(name)
        hasher.add(uint16: (isOptional ? 1 : 0) | (isTransient ? 2 : 0))
        hasher.add(versionHashModifier)
        return hasher.finalize()
    }

    open var description: String {
        "(\(type(of: self))), name \(name), isOptional \(isOptional ? 1 : 0), isTransient \(isTransient ? 1 : 0), entity \(entity?.name ?? "(null)")"
    }
}
