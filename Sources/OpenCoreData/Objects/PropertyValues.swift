import Foundation

/// The values of one object's properties, or of one stored row's attributes: a slot per
/// property of the entity, in the order of ``EntityPropertyTable/all``, `nil` where there
/// is no value.
///
/// Slots rather than a `[String: Any]` dictionary: the slot of a key is looked up once per
/// call (or worked out once per entity, for the store's columns), so reading and writing
/// values hashes no keys again, a row costs one allocation instead of a hash table, and a
/// row's values become an object's by sharing one buffer (copied on the first write to a
/// shared one, as an array would be).
struct PropertyValues {
    /// The entity's properties, which give each slot its meaning.
    let table: EntityPropertyTable
    /// `nil` until a value is stored (a fault's values, say), then one slot per property.
    private var storage: PropertySlots?

    /// No values.
    init(table: EntityPropertyTable) {
        self.table = table
        storage = nil
    }

    /// `slots`, one per property of `table` (or none).
    init(table: EntityPropertyTable, slots: [Any?]) {
        self.table = table
        storage = slots.isEmpty ? nil : slots.withUnsafeBufferPointer { PropertySlots.make(copying: $0) }
    }

    /// The values of `named`, by property name; names the entity does not have are ignored.
    init(table: EntityPropertyTable, named: [String: Any]) {
        self.init(table: table)
        for (name, value) in named {
            if let slot = table.slotByName[name] { self[slot] = value }
        }
    }

    /// The slots `storage` holds, shared until the first change (a new object's defaults).
    init(table: EntityPropertyTable, sharing storage: PropertySlots?) {
        self.table = table
        self.storage = storage
    }

    /// One slot per property of `table`, written by `fill` through a ``SlotWriter``: a
    /// stored row's values decoded in place, with no intermediate array. Slots `fill` does
    /// not write are `nil`, also when it throws.
    init(table: EntityPropertyTable, writing fill: (inout SlotWriter) throws -> Void) rethrows {
        self.table = table
        let count = table.all.count
        let storage = PropertySlots.makeUninitialized(count: count)
        self.storage = storage
        try storage.withUnsafeMutablePointerToElements { slots in
            var writer = SlotWriter(slots: slots, count: count)
            // Every slot initialized before the buffer can be freed, even after a throw.
            defer { writer.finish() }
            try fill(&writer)
        }
    }

    /// The value in `slot`, an index into the table's `all`.
    subscript(slot: Int) -> Any? {
        get {
            guard let storage else { return nil }
            return storage.withUnsafeMutablePointers { count, slots in slot < count.pointee ? ExactValueReader.copy(slots + slot) : nil }
        }
        set {
            if storage == nil, newValue == nil { return }
            let target = uniqueSlot(slot)
            if ExactValueReader.isNil(target) {
                // An empty slot (a new object's, usually): the value moved in, nothing to free.
                // Freeing the nil through `Any?` cost a tenth of setting a value.
                target.initialize(to: consume newValue)
            } else {
                // The new value moved in and the old one out, freed here after the slot holds
                // the new one.
                var value = consume newValue
                swap(&target.pointee, &value)
            }
        }
    }

    /// Stores `newValue` in `slot` and hands back the value it replaces, moved out of the
    /// slot: for a caller that keeps the old value (a change event), which reading it and
    /// then setting the slot copied (a retain) and freed (a release).
    mutating func exchange(_ slot: Int, with newValue: consuming Any?) -> Any? {
        if storage == nil, newValue == nil { return nil }
        var value = consume newValue
        swap(&uniqueSlot(slot).pointee, &value)
        return value
    }

    /// The address of `slot` in a buffer of slots this value alone holds: made or copied
    /// first if need be. Used after the closure that finds it: the buffer stays where it is
    /// while `storage` holds it, and the caller runs nothing else meanwhile. (Assigning a
    /// value inside the closure, which captures it, copied it and then freed the original.)
    @inline(__always)
    private mutating func uniqueSlot(_ slot: Int) -> UnsafeMutablePointer<Any?> {
        if storage == nil {
            storage = PropertySlots.make(count: table.all.count)
        } else if !isKnownUniquelyReferenced(&storage) {
            storage = storage!.withUnsafeMutablePointers { count, slots in
                PropertySlots.make(copying: UnsafeBufferPointer(start: slots, count: count.pointee))
            }
        }
        return storage!.withUnsafeMutablePointers { count, slots in
            precondition(slot >= 0 && slot < count.pointee, "slot \(slot) out of range")
            return slots + slot
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

    /// Calls `body` with the slots where they lie (empty when no property has a value),
    /// for a reader of many values that must not copy each one out first
    /// (``ExactValueReader``).
    func withUnsafeSlots<Result>(_ body: (UnsafeBufferPointer<Any?>) throws -> Result) rethrows -> Result {
        guard let storage else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        return try storage.withUnsafeMutablePointers { count, slots in
            try body(UnsafeBufferPointer(start: slots, count: count.pointee))
        }
    }

    /// The slots where they lie (empty when no property has a value), for a reader of an
    /// object's values that holds the object, and stores nothing into them, while it uses
    /// them: the buffer lives as long as the object holds it. Read in place of
    /// ``withUnsafeSlots(_:)`` on a copy of `object.state.values`, whose copy retains and
    /// releases the table and the buffer (a merge compared every attribute so).
    @inline(__always)
    var unsafeSlots: UnsafeBufferPointer<Any?> {
        guard let storage else { return UnsafeBufferPointer(start: nil, count: 0) }
        return storage.withUnsafeMutablePointers { count, slots in UnsafeBufferPointer(start: slots, count: count.pointee) }
    }

    /// Whether no property has a value.
    var isEmpty: Bool {
        guard let storage else { return true }
        return storage.withUnsafeMutablePointers { count, slots in
            UnsafeBufferPointer(start: slots, count: count.pointee).allSatisfy { $0 == nil }
        }
    }

    /// The properties with a value, in model order, by name.
    var named: [String: Any] {
        var result: [String: Any] = [:]
        guard let storage else { return result }
        storage.withUnsafeMutablePointers { count, slots in
            for slot in 0..<count.pointee {
                if let value = slots[slot] { result[table.all[slot].name] = value }
            }
        }
        return result
    }

    /// Removes every value. (Tested first: a fault being made has none, and storing `nil`
    /// over `nil` is a release call.)
    mutating func removeAll() { if storage != nil { storage = nil } }

    /// Removes the value of `name` and returns it.
    @discardableResult
    mutating func removeValue(forKey name: String) -> Any? {
        let value = self[name]
        if value != nil { self[name] = nil }
        return value
    }
}

/// The slots of ``PropertyValues``: the count in the header, the values after it, in one
/// allocation of a concrete class. An `[Any?]` made per row looked its storage class's
/// generic metadata up in the runtime's table at every allocation (a hash look-up under a
/// lock, about half the cost of making a row's slots).
final class PropertySlots: ManagedBuffer<Int, Any?> {
    /// `count` slots, each `nil`.
    static func make(count: Int) -> PropertySlots {
        let buffer = unsafeDowncast(create(minimumCapacity: count) { _ in count }, to: PropertySlots.self)
        buffer.withUnsafeMutablePointerToElements { slots in
            // One store per slot; `initialize(repeating:count:)` copied a nil `Any?` through
            // its value witness for each.
            for slot in 0..<count { (slots + slot).initialize(to: nil) }
        }
        return buffer
    }

    /// `count` slots left uninitialized, for a ``SlotWriter`` to initialize every one.
    fileprivate static func makeUninitialized(count: Int) -> PropertySlots {
        unsafeDowncast(create(minimumCapacity: count) { _ in count }, to: PropertySlots.self)
    }

    /// A copy of `values`.
    static func make(copying values: UnsafeBufferPointer<Any?>) -> PropertySlots {
        let buffer = unsafeDowncast(create(minimumCapacity: values.count) { _ in values.count }, to: PropertySlots.self)
        if let source = values.baseAddress {
            buffer.withUnsafeMutablePointerToElements { slots in
                // Slot by slot, each value copied as its own type where it can be (see
                // ``ExactValueReader/copy(_:)``), not through the generic copy of `Any?`.
                for slot in 0..<values.count { (slots + slot).initialize(to: ExactValueReader.copy(source + slot)) }
            }
        }
        return buffer
    }

    deinit {
        withUnsafeMutablePointers { count, slots in
            // Slot by slot: an empty slot costs a test, where `deinitialize(count:)` called
            // the value witnesses for every element.
            for slot in 0..<count.pointee { ExactValueReader.deinitialize(slots + slot) }
        }
    }
}

/// Writes the slots of a new ``PropertySlots`` buffer. A slot after every one written so
/// far is initialized in place (the value moved in, the skipped slots before it set to
/// `nil`), with no `nil` stored first and no assignment over it; a slot at or before the
/// last one written is assigned. ``finish()`` sets the slots never reached to `nil`.
struct SlotWriter {
    private let slots: UnsafeMutablePointer<Any?>
    private let count: Int
    /// The slots below this one are initialized.
    private var next = 0

    fileprivate init(slots: UnsafeMutablePointer<Any?>, count: Int) {
        self.slots = slots
        self.count = count
    }

    /// Stores `value` in `slot`.
    mutating func write(_ value: consuming Any?, at slot: Int) {
        precondition(slot >= 0 && slot < count, "slot \(slot) out of range")
        if slot < next {
            slots[slot] = value
            return
        }
        while next < slot {
            (slots + next).initialize(to: nil)
            next += 1
        }
        (slots + slot).initialize(to: value)
        next = slot + 1
    }

    /// Sets every slot not written yet to `nil`.
    fileprivate mutating func finish() {
        while next < count {
            (slots + next).initialize(to: nil)
            next += 1
        }
    }
}
