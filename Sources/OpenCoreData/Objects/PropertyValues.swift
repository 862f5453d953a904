import Foundation

/// The values of one object's properties, or of one stored row's attributes: a slot per
/// property of the entity, in the order of ``EntityPropertyTable/all``, `nil` where there
/// is no value.
///
/// Slots rather than a `[String: Any]` dictionary: the slot of a key is looked up once per
/// call (or worked out once per entity, for the store's columns), so reading and writing
/// values hashes no keys again, a row costs one allocation instead of a hash table, and a
/// row's values become an object's by sharing one array.
struct PropertyValues {
    /// The entity's properties, which give each slot its meaning.
    let table: EntityPropertyTable
    /// Empty until a value is stored (a fault's values, say), then one per property.
    private(set) var slots: [Any?]

    /// No values.
    init(table: EntityPropertyTable) {
        self.table = table
        slots = []
    }

    /// `slots`, one per property of `table` (or none).
    init(table: EntityPropertyTable, slots: [Any?]) {
        self.table = table
        self.slots = slots
    }

    /// The values of `named`, by property name; names the entity does not have are ignored.
    init(table: EntityPropertyTable, named: [String: Any]) {
        self.init(table: table)
        for (name, value) in named {
            if let slot = table.slotByName[name] { self[slot] = value }
        }
    }

    /// The value in `slot`, an index into the table's `all`.
    subscript(slot: Int) -> Any? {
        get { slot < slots.count ? slots[slot] : nil }
        set {
            if slots.isEmpty {
                guard newValue != nil else { return }
                slots = Array(repeating: nil, count: table.all.count)
            }
            slots[slot] = newValue
        }
    }

    /// The value of the property `name`; `nil` for a name the entity does not have.
    subscript(name: String) -> Any? {
        get { table.slotByName[name].flatMap { self[$0] } }
        set {
            guard let slot = table.slotByName[name] else {
                preconditionFailure("the entity has no property '\(name)'")
            }
            self[slot] = newValue
        }
    }

    /// Whether no property has a value.
    var isEmpty: Bool { slots.allSatisfy { $0 == nil } }

    /// The properties with a value, in model order, by name.
    var named: [String: Any] {
        var result: [String: Any] = [:]
        for (slot, value) in slots.enumerated() {
            if let value { result[table.all[slot].name] = value }
        }
        return result
    }

    /// Removes every value.
    mutating func removeAll() { slots = [] }

    /// Removes the value of `name` and returns it.
    @discardableResult
    mutating func removeValue(forKey name: String) -> Any? {
        let value = self[name]
        if value != nil { self[name] = nil }
        return value
    }
}
