import Foundation

/// An entity's properties arranged for fast lookup by managed objects and contexts.
///
/// Built on first use once the model is frozen (a coordinator uses it, so it can no longer
/// change); while a model is still being edited it is rebuilt on every call.
///
/// A class: every property access reads it, and a struct of seven collections would be
/// copied (seven retains and releases) each time.
final class EntityPropertyTable {
    /// Every property, inherited ones first, in model order.
    let all: [NSPropertyDescription]
    /// The name of each property of `all`, by slot: comparing a key with the name of the
    /// slot a caller expects costs less than hashing the key.
    let names: [String]
    let byName: [String: NSPropertyDescription]
    /// Each property's index in `all`: its slot in ``PropertyValues``.
    let slotByName: PropertySlotIndex
    /// Attributes written to the store.
    let persistentAttributes: [NSAttributeDescription]
    /// The slots of `persistentAttributes`.
    let persistentSlots: [Int]
    let relationships: [NSRelationshipDescription]
    /// Whether a relationship has the deny delete rule: without one (most entities), a
    /// deleted object's validation has no relationship to look at.
    let hasDenyRules: Bool
    /// Whether any attribute is transient (kept in memory only).
    let hasTransientAttributes: Bool
    /// Names of the properties written to the store.
    let persistentNames: [String]
    /// The model's default values, stored types, by slot: a new object's starting values
    /// (empty when no attribute has a default).
    let defaultSlots: [Any?]
    /// `defaultSlots` as the slots every new object shares until its first change.
    private let sharedDefaultSlots: PropertySlots?
    /// A new object's values: the model's defaults.
    var defaultValues: PropertyValues { PropertyValues(table: self, sharing: sharedDefaultSlots) }
    /// The properties the model's validation rules can reject: relationships, and
    /// attributes that are required or have limits, pattern or date range.
    let propertiesWithRules: [NSPropertyDescription]
    /// Whether no two properties share a name, so that a property's slot and its name's
    /// slot agree (``slot(of:)`` may then trust the property's hint).
    let namesAreUnique: Bool
    /// The properties a merge policy copies from one object to another: the persistent
    /// attributes and to-one relationships, by slot (to-many relationships move their
    /// members instead; transient and fetched properties are not merged).
    let mergeable: [(slot: Int, isAttribute: Bool)]

    init(entity: NSEntityDescription) {
        all = entity.properties
        names = all.map(\.name)
        byName = Dictionary(all.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
        let properties = all
        slotByName = PropertySlotIndex(names)
        let attributes = all.compactMap { $0 as? NSAttributeDescription }
        persistentAttributes = attributes.filter { !$0.isTransient }
        persistentSlots = properties.indices.filter { properties[$0] is NSAttributeDescription && !properties[$0].isTransient }
        relationships = all.compactMap { $0 as? NSRelationshipDescription }
        hasDenyRules = relationships.contains { $0.deleteRule == .denyDeleteRule }
        hasTransientAttributes = attributes.contains { $0.isTransient }
        persistentNames = all.filter { !$0.isTransient && !($0 is NSFetchedPropertyDescription) }.map(\.name)
        var defaults: [Any?] = Array(repeating: nil, count: all.count)
        for (slot, property) in all.enumerated() {
            guard let attribute = property as? NSAttributeDescription, let value = attribute.defaultValue,
                let stored = AttributeValues.convert(value, to: attribute.attributeType)
            else { continue }
            defaults[slot] = stored
        }
        defaultSlots = defaults.contains { $0 != nil } ? defaults : []
        sharedDefaultSlots = defaultSlots.isEmpty ? nil : defaultSlots.withUnsafeBufferPointer { PropertySlots.make(copying: $0) }
        namesAreUnique = slotByName.count == all.count
        mergeable = all.enumerated().compactMap { slot, property in
            guard !property.isTransient, !(property is NSFetchedPropertyDescription),
                !((property as? NSRelationshipDescription)?.isToMany ?? false)
            else { return nil }
            return (slot, property is NSAttributeDescription)
        }
        propertiesWithRules = all.filter { property in
            if property is NSFetchedPropertyDescription { return false }
            guard let attribute = property as? NSAttributeDescription else { return true }
            return !attribute.isOptional || !attribute.constraints.isEmpty
        }
    }

    /// The slot of `property`: its hint when that names it here, else by its name.
    func slot(of property: NSPropertyDescription) -> Int? {
        let hint = property.slotHint
        if namesAreUnique, hint < all.count, all[hint] === property { return hint }
        return slotByName[property.name]
    }

    /// Gives each property its slot as a hint; called once the model is frozen, while one
    /// thread has it (a hint written later could race with readers on other queues).
    fileprivate func assignSlotHints() {
        guard namesAreUnique else { return }
        for (slot, property) in all.enumerated() { property.slotHint = slot }
    }
}

extension NSEntityDescription {
    /// This entity's ``EntityPropertyTable``. The cached table inline, the building apart:
    /// every object made and saved asks.
    @inline(__always)
    var propertyTable: EntityPropertyTable {
        if let cached = cachedPropertyTable { return cached }
        return makePropertyTable()
    }

    /// Builds the entity's table, and keeps it once the model is frozen.
    @inline(never)
    private func makePropertyTable() -> EntityPropertyTable {
        let table = EntityPropertyTable(entity: self)
        if managedObjectModel?.isEditable == false {
            cachedPropertyTable = table
            table.assignSlotHints()
        }
        return table
    }
}
