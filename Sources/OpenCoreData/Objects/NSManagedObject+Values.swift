import Foundation

extension NSManagedObject {
    // MARK: Key-value coding

    /// The value of the property `key`, loading the object first when it is a fault.
    ///
    /// Numbers and Booleans come back as `NSNumber` (cast them with `as? Double`, `as? Int`,
    /// …), decimals as `NSDecimalNumber`, to-one relationships as the related object and
    /// to-many ones as a `Set` (or `NSOrderedSet` when ordered). Stops the program for a key
    /// the entity does not have, as Core Data does.
    func kvcValue(forKey key: String) -> Any? {
        if state.checksQueue { managedObjectContext?.checkQueue() }
        willAccessValue(forKey: key)
        defer { didAccessValue(forKey: key) }
        let (slot, isAttribute) = withPropertyTable { table -> (Int, Bool) in
            let found = self.slot(forKey: key, in: table, accessing: true)
            return (found, table.all[found] is NSAttributeDescription)
        }
        guard isAttribute else {
            if let fetched = state.values.table.all[slot] as? NSFetchedPropertyDescription { return fetchedPropertyValue(fetched, slot: slot) }
            return storedPrimitiveValue(forKey: key)
        }
        // What storedPrimitiveValue does for an attribute, without looking the key up again,
        // and the value read where it lies rather than copied out of its slot. Firing the
        // fault replaces the values, so the table and the slots are read after it.
        fulfillFaultIfNeeded()
        return withPropertyTable { table -> Any? in
            let slots = state.values.unsafeSlots
            guard slot < slots.count, let attribute = table.all[slot] as? NSAttributeDescription else { return nil }
            return AttributeValues.publicValue(in: slots.baseAddress! + slot, for: attribute)
        }
    }

    /// Calls `body` with the table of the object's values, not retained: the values hold
    /// it, and `self`, alive for the call, holds them. `body` must not replace the values
    /// (fire a fault, refresh, run code a subclass overrides), which could free the table;
    /// reading them, and values' slots through ``PropertyValues/unsafeSlots``, is safe. A
    /// retained table cost a retain and a release per value read (two per
    /// `value(forKey:)`, with the copy the slots' reader made).
    @inline(__always)
    func withPropertyTable<Result>(_ body: (EntityPropertyTable) throws -> Result) rethrows -> Result {
        try Unmanaged.passUnretained(state.values.table)._withUnsafeGuaranteedRef(body)
    }

    /// Sets the property `key`, recording the change for the next save and keeping the
    /// inverse of a relationship in step.
    ///
    /// Numbers of any type are accepted for numeric attributes; a value of the wrong kind
    /// (a string for a number, say) stops the program with Core Data's message.
    func kvcSetValue(_ value: consuming Any?, forKey key: String) {
        if state.checksQueue { managedObjectContext?.checkQueue() }
        let (slot, plainAttributeType) = setterSlot(forKey: key)
        // The usual case first: a plain attribute handed a value of the very Swift type it
        // stores (a String for a string attribute) stores it as given, without the casts
        // that tell the kind of property and convert the value, each a dynamic cast.
        if let attributeType = plainAttributeType {
            // Its type told by the metadata word where it lies (see ExactValueReader), and
            // the value taken moves into the slot: neither copied nor queried through the
            // runtime's witnesses of `Any?`.
            if let given = withUnsafePointer(to: value, { ExactValueReader.storedType($0) }),
                AttributeValues.isStoredAsGiven(type: given, for: attributeType) {
                storeAttributeValue(consume value, slot: slot, forKey: key)
                return
            }
            if let given = copy value, AttributeValues.isStoredAsGiven(given, for: attributeType) {
                // Moved into the slot: the unwrapped copy is the one stored, not copied again.
                storeAttributeValue(consume given, slot: slot, forKey: key)
                return
            }
        }
        let property = state.values.table.all[slot]
        if let relationship = property as? NSRelationshipDescription {
            setRelationshipValue(value, for: relationship)
            return
        }
        if property is NSFetchedPropertyDescription {
            raiseCoreDataException(.unknownKey, "[<\(ManagedObjectClasses.className(of: type(of: self))) \(cocoaAddress(of: self))> setValue:forUndefinedKey:]: the entity \(entity.name ?? "(null)") is not key value coding-compliant for the key \"\(key)\".")
        }
        let attribute = property as! NSAttributeDescription
        storeAttributeValue(AttributeValues.stored(value, for: attribute, object: self), slot: slot, forKey: key)
    }

    /// Sets the attribute in `slot` (named `key`) to `stored`, a value already of the
    /// attribute's stored Swift type (or nil): the steps ``kvcSetValue(_:forKey:)`` takes
    /// for it, without looking the key up, checking the value's type or converting it.
    /// For callers that copy a stored value from another object of the entity (a merge
    /// policy) onto an object whose class has no accessors of its own.
    ///
    /// `context` is the object's own context, which the caller holds: it is not looked up
    /// through the object's handle (a lock, a retain and a release) for each value. An
    /// object of a subclass takes ``storeAttributeValue(_:slot:forKey:)``'s steps, with
    /// their change notifications.
    func setStoredAttributeValue(_ stored: consuming Any?, slot: Int, in context: NSManagedObjectContext) {
        assert(contextHandle === context.handle, "not the object's context")
        guard type(of: self) == NSManagedObject.self else {
            if state.checksQueue { context.checkQueue() }
            storeAttributeValue(consume stored, slot: slot, forKey: state.values.table.names[slot])
            return
        }
        // An object of NSManagedObject itself sends no change notifications: the store alone.
        if state.checksQueue { context.checkQueue() }
        store(consume stored, slot: slot, context: context)
    }

    /// Whether ``setStoredAttributeValue(_:slot:)`` stores the value in `sourceSlot` of
    /// `slots` (another object's values, see ``PropertyValues/unsafeSlots``) in `slot` as
    /// ``kvcSetValue(_:forKey:)`` would: the slot holds a plain attribute (not a composite,
    /// derived or other subclass) and the value is nil or of the Swift type it stores, which
    /// key-value coding's conversions hand back unchanged. The value is looked at where it
    /// lies: copying it out to ask cost as much as the rest.
    func storesAsGiven(valueIn slots: UnsafeBufferPointer<Any?>, slot sourceSlot: Int, into slot: Int) -> Bool {
        guard let attributeType = plainAttributeType(inSlot: slot) else { return false }
        guard sourceSlot < slots.count else { return true }  // (no value)
        let value = slots.baseAddress! + sourceSlot
        if ExactValueReader.isNil(value) { return true }
        // The metadata word names a struct's own type; isStoredAsGiven compares with value types only.
        let given = ExactValueReader.storedType(value) ?? type(of: value.pointee!)
        return AttributeValues.isStoredAsGiven(type: given, for: attributeType)
    }

    /// Stores an attribute's value set through key-value coding, between the change
    /// notifications: what storePrimitiveValue does for an attribute, `stored` being
    /// already unwrapped, converted and free of NSNull.
    ///
    /// An object of `NSManagedObject` itself (not of a subclass, which may override them)
    /// skips the calls to `willChangeValue(forKey:)` and `didChangeValue(forKey:)`: theirs
    /// are the base class's, whose work is done here anyway (the first loads a fault, as
    /// the next line does; the second records the key that `noteChange(slot:)` has just
    /// recorded), and the two dynamic calls and the name comparison were a sixth of
    /// setting a value.
    @inline(__always)
    private func storeAttributeValue(_ stored: consuming Any?, slot: Int, forKey key: String) {
        let announces = type(of: self) != NSManagedObject.self
        if announces { willChangeValue(forKey: key) }
        store(consume stored, slot: slot, context: nil)
        if announces { didChangeValue(forKey: key) }
    }

    /// The store itself, between any change notifications: loads a fault, keeps the old
    /// value for the context's current event (moved out of the slot as the new one moves
    /// in, not copied), stores, and notes the change. `context` is the object's own when the
    /// caller holds it (a merge); otherwise it is looked up through the object's handle (a
    /// lock, a retain and a release) only when needed.
    @inline(__always)
    private func store(_ stored: consuming Any?, slot: Int, context known: NSManagedObjectContext?) {
        fulfillFaultIfNeeded()
        // An object inserted in the current event has no old values to keep.
        if !state.isEventInsertion, let context = known ?? managedObjectContext,
            context.noteEventChangeNeedsOldValue(of: self, slot: slot) {
            state.eventOldValues.record(state.values.exchange(slot, with: consume stored), for: slot)
        } else {
            state.values[slot] = consume stored
        }
        state.lastChangedSlot = slot
        state.changedSlots.insert(slot)
        if !state.isUpdated {
            if let known {
                state.isUpdated = true
                known.objectDidChange(self)
            } else {
                noteFirstChange()
            }
        }
    }

    /// Follows a dotted key path (`"trail.region"`) through to-one relationships, mapping
    /// over to-many ones.
    func kvcValue(forKeyPath keyPath: String) -> Any? {
        guard let dot = keyPath.firstIndex(of: ".") else { return value(forKey: keyPath) }
        let first = String(keyPath[..<dot])
        let rest = String(keyPath[keyPath.index(after: dot)...])
        switch value(forKey: first) {
        case let object as NSManagedObject: return object.value(forKeyPath: rest)
        case let set as Set<NSManagedObject>: return Set(set.compactMap { $0.value(forKeyPath: rest) as? AnyHashable })
        case let ordered as NSOrderedSet: return ordered.array.compactMap { ($0 as? NSManagedObject)?.value(forKeyPath: rest) }
        default: return nil
        }
    }

    // MARK: Primitive access

    /// The stored value of `key` without change or access notifications: what custom
    /// accessors read.
    func storedPrimitiveValue(forKey key: String) -> Any? {
        fulfillFaultIfNeeded()
        if let relationship = entity.propertyTable.byName[key] as? NSRelationshipDescription {
            return relationshipValue(for: relationship)
        }
        return state.values[key]
    }

    /// Stores `value` for `key` without notifications: what custom setters write between
    /// `willChangeValue(forKey:)` and `didChangeValue(forKey:)`. The change is still saved.
    ///
    /// Only modeled properties have storage: for any other key this stops the program with
    /// the message `setValue(_:forKey:)` gives (Apple's release frameworks would write to
    /// some other property instead; its debug frameworks assert).
    func storePrimitiveValue(_ value: Any?, forKey key: String) {
        fulfillFaultIfNeeded()
        storePrimitiveValue(value, slot: slot(forKey: key, in: state.values.table, accessing: false), key: key)
    }

    /// ``storePrimitiveValue(_:forKey:)`` for a caller that knows the property's slot (and
    /// has loaded the fault): the name is not looked up again. `context` is the object's
    /// own context when the caller holds it (the delete rules, for every object a cascade
    /// reaches): not looked up through the object's handle, a lock, a retain and a release.
    func storePrimitiveValue(_ value: Any?, slot: Int, key: String, context: NSManagedObjectContext? = nil) {
        assert(context == nil || contextHandle === context!.handle, "not the object's context")
        var stored = AttributeValues.unwrapped(value).flatMap { AttributeValues.isNull($0) ? nil : $0 }
        let table = state.values.table
        if let relationship = table.all[slot] as? NSRelationshipDescription {
            // The value it replaces is loaded first, so that the event knows it.
            if !state.loadedRelationships.contains(slot), context != nil || managedObjectContext != nil { _ = relationshipValue(for: relationship) }
            willMutate(slot: slot, context: context)
            if relationship.isToMany {
                // Kept in the one form each kind of to-many has, whatever was handed in.
                let members = toManyMembers(stored)
                stored = relationship.isOrdered ? NSOrderedSet(array: members) : Set(members)
            }
            state.values[slot] = stored
            state.loadedRelationships.insert(slot)
            relationshipStorageDidChange(key)
        } else {
            willMutate(slot: slot)
            state.values[slot] = stored
        }
        noteChange(slot: slot)
    }


    // MARK: Typed access for @Managed

    /// The value of `key` as `T`: what a `@Managed` getter calls. A missing value is `nil`
    /// for optional types and zero or `false` for scalars.
    ///
    /// As Core Data's `@NSManaged` accessors do, it reads the stored value between
    /// `willAccessValue(forKey:)` and `didAccessValue(forKey:)` rather than through
    /// `value(forKey:)`: an attribute stored as `T` (an `Int32` attribute read as `Int32`)
    /// comes back without boxing it in an `NSNumber` and casting it back.
    public func managedValue<T>(forKey key: String) -> T {
        if let direct: T = storedAttributeValue(forKey: key) { return direct }
        let raw = value(forKey: key)
        if let direct = raw as? T { return direct }
        if let stored = primitiveValue(forKey: key), let direct = stored as? T { return direct }
        if raw == nil {
            if let absent = (nil as Any?) as? T { return absent }
            if let zero = (T.self as? ManagedScalar.Type)?.managedZero as? T { return zero }
            fatalError("\(entity.name ?? "?").\(key) is nil, but its @Managed property is declared non-optional \(T.self)")
        }
        fatalError("\(entity.name ?? "?").\(key) holds a \(type(of: raw!)), which is not the \(T.self) its @Managed property declares")
    }

    /// The attribute `key`'s stored value when it is a `T`, read as a `@Managed` getter
    /// reads it; `nil` for relationships, unknown keys, composites and values of another
    /// type (and a missing value of a non-optional type), which
    /// take the key-value coding path (and its conversions and messages).
    @inline(__always)
    private func storedAttributeValue<T>(forKey key: String) -> T? {
        // A composite's elements come out converted one by one: that stays with value(forKey:).
        let found = withPropertyTable { table -> Int? in
            guard let slot = table.slotByName[key], let attribute = table.all[slot] as? NSAttributeDescription,
                attribute.attributeType != .compositeAttributeType
            else { return nil }
            return slot
        }
        guard let slot = found else { return nil }
        if state.checksQueue { managedObjectContext?.checkQueue() }
        willAccessValue(forKey: key)
        defer { didAccessValue(forKey: key) }
        fulfillFaultIfNeeded()
        // Read where it lies once the fault has fired (firing replaces the values): only
        // the value is copied, not the values' buffer.
        let slots = state.values.unsafeSlots
        return slot < slots.count ? ExactValueReader.copy(slots.baseAddress! + slot) as? T : nil
    }

    /// Sets `key` to `value`: what a `@Managed` setter calls.
    public func setManagedValue<T>(_ value: T, forKey key: String) {
        setValue(AttributeValues.unwrapped(value), forKey: key)
    }

    // MARK: Internals

    /// The property named `key`, or a stop with Core Data's key-value coding message.
    func property(forKey key: String, accessing: Bool) -> NSPropertyDescription {
        let table = state.values.table
        return table.all[slot(forKey: key, in: table, accessing: accessing)]
    }

    /// The slot of the property named `key`, for ``kvcSetValue(_:forKey:)``, and the type of
    /// the attribute there when it is a plain attribute (not a composite, derived or other
    /// subclass, nor a relationship or fetched property).
    ///
    /// The table is borrowed without retaining it (``withPropertyTable(_:)``; two retains
    /// and releases per value set, of the table and of its array of properties): it is used
    /// only here, before anything runs that could replace the object's values.
    @inline(__always)
    private func setterSlot(forKey key: String) -> (slot: Int, plainAttributeType: NSAttributeType?) {
        withPropertyTable { table in
            let slot = slotSetNext(forKey: key, in: table)
            return (slot, Self.plainAttributeType(inSlot: slot, of: table))
        }
    }

    /// The type of the attribute in `slot` when it is a plain attribute (not a composite,
    /// derived or other subclass, nor a relationship or fetched property). The table is
    /// borrowed without retaining it, as in ``setterSlot(forKey:)``: the object holds it.
    @inline(__always)
    private func plainAttributeType(inSlot slot: Int) -> NSAttributeType? {
        withPropertyTable { table in Self.plainAttributeType(inSlot: slot, of: table) }
    }

    @inline(__always)
    private static func plainAttributeType(inSlot slot: Int, of table: EntityPropertyTable) -> NSAttributeType? {
        let property = table.all[slot]
        guard type(of: property) == NSAttributeDescription.self else { return nil }
        return unsafeDowncast(property, to: NSAttributeDescription.self).attributeType
    }

    /// The slot of the property named `key` in `table`, for a setter: the slot after the
    /// one changed last is tried first, by name (code that sets an object's properties one
    /// after another usually follows the model's order), and only then the table by key.
    @inline(__always)
    private func slotSetNext(forKey key: String, in table: EntityPropertyTable) -> Int {
        let next = state.lastChangedSlot + 1
        // With unique names, the slot whose name is `key` is the one the table gives.
        if table.namesAreUnique, next < table.names.count, table.names[next] == key { return next }
        return slot(forKey: key, in: table, accessing: false)
    }

    /// The slot of the property named `key` in `table` (this object's), or a stop with Core
    /// Data's key-value coding message.
    func slot(forKey key: String, in table: EntityPropertyTable, accessing: Bool) -> Int {
        if let slot = table.slotByName[key] { return slot }
        let verb = accessing ? "valueForUndefinedKey:" : "setValue:forUndefinedKey:"
        raiseCoreDataException(.unknownKey, "[<\(ManagedObjectClasses.className(of: type(of: self))) \(cocoaAddress(of: self))> \(verb)]: the entity \(entity.name ?? "(null)") is not key value coding-compliant for the key \"\(key)\".")
    }

    /// Moves the object's values and change bits to `table`, by property name, when they
    /// were laid out by another table of its entity: one built while the model was still
    /// being edited, before a coordinator froze it.
    func adoptPropertyTable(_ table: EntityPropertyTable) {
        let old = state.values.table
        guard old !== table else { return }
        var values = PropertyValues(table: table)
        var changed = SlotSet()
        for (slot, property) in old.all.enumerated() {
            guard let newSlot = table.slotByName[property.name] else { continue }
            values[newSlot] = state.values[slot]
            if state.changedSlots.contains(slot) { changed.insert(newSlot) }
        }
        state.values = values
        state.changedSlots = changed
        state.lastChangedSlot = -1
    }

    /// Loads the object's values when it is a fault. The test inline, the loading apart:
    /// every value set and read asks, and a call that saves registers for the loading's
    /// sake cost more than the test.
    @inline(__always)
    func fulfillFaultIfNeeded() {
        if state.isFault { loadFaultedValues() }
    }

    /// ``fulfillFaultIfNeeded()`` for a caller that holds the object's own context (or nil):
    /// not looked up in the object's handle (a lock, and a retain and a release of the
    /// context, which weak references send down the reference count's slow path).
    @inline(__always)
    func fulfillFaultIfNeeded(in context: NSManagedObjectContext?) {
        guard state.isFault else { return }
        if let context { context.fulfillFault(self) } else { loadFaultedValues() }
    }

    /// Loads the object's values, a fault's.
    @inline(never)
    private func loadFaultedValues() {
        guard let context = managedObjectContext else {
            if state.isInvalidated {
                raiseCoreDataException(.objectInaccessible, "CoreData could not fulfill a fault for '\(objectID)'")
            }
            return
        }
        context.fulfillFault(self)
    }

    /// Records that `key` changed, so the context saves the object. A key the entity does
    /// not have is ignored.
    func noteChange(forKey key: String) {
        let table = state.values.table
        // The usual caller is didChangeValue(forKey:) right after setValue(_:forKey:)
        // recorded the same key: comparing a name is cheaper than looking the key up.
        let last = state.lastChangedSlot
        if last >= 0, last < table.names.count, state.changedSlots.contains(last), table.names[last] == key { return }
        guard let slot = table.slotByName[key] else { return }
        // A change announced only by will/didChangeValue stored nothing: its value now is its old one.
        willMutate(slot: slot)
        noteChange(slot: slot)
    }

    /// About to store a new value in `slot`: the context's current event keeps the old one.
    /// An object inserted in the current event has no old values to keep (and this check
    /// costs no look-up of the context, which matters when importing many objects).
    @inline(__always)
    func willMutate(slot: Int, context: NSManagedObjectContext? = nil) {
        guard !state.isEventInsertion else { return }
        (context ?? managedObjectContext)?.noteEventChange(of: self, slot: slot)
    }

    /// Records that the property in `slot` changed, so the context saves the object.
    /// (Callers that store a value call ``willMutate(slot:)`` first.) The bits inline, the
    /// object's first change, which tells the context, apart.
    @inline(__always)
    func noteChange(slot: Int) {
        state.lastChangedSlot = slot
        state.changedSlots.insert(slot)
        if !state.isUpdated { noteFirstChange() }
    }

    /// Marks the object updated and tells its context, at its first change since a save.
    @inline(never)
    private func noteFirstChange() {
        state.isUpdated = true
        // The context lists only saved objects that are not deleted as updated (see
        // objectDidChange): an inserted one's first change costs no look-up of its context
        // (a lock, a retain and a release), which matters when importing many objects.
        guard !state.isInserted, !state.isDeleted else { return }
        managedObjectContext?.objectDidChange(self)
    }

    /// The saved value of `key`: the snapshot's attribute, or the object a to-one pointed at.
    func committedValue(forKey key: String) -> Any? {
        guard let snapshot = state.snapshot else { return nil }
        if let related = snapshot.toOne[key] {
            return managedObjectContext?.object(for: related, storeOf: self)
        }
        return snapshot.attributes[key]
    }

    /// A stored value as key-value coding hands it out.
    func publicValue(_ stored: Any?, for property: NSPropertyDescription?) -> Any? {
        guard let stored else { return nil }
        guard let attribute = property as? NSAttributeDescription else { return stored }
        return AttributeValues.public(stored, for: attribute)
    }

    /// The `key = value;` pairs of the description: every property, relationships as Core
    /// Data prints them (faults, object IDs).
    func descriptionPairs() -> [(key: String, value: Any?)] {
        let table = entity.propertyTable
        return table.all.filter { !($0 is NSFetchedPropertyDescription) }.map { property in
            guard let relationship = property as? NSRelationshipDescription else {
                return (property.name, state.values[property.name].map { AttributeValues.public($0, for: property as! NSAttributeDescription) })
            }
            if relationship.isToMany {
                guard state.hasLoaded(property) || state.isInserted else {
                    return (property.name, "<relationship fault: \(cocoaAddress(of: relationship)) '\(property.name)'>")
                }
                let members = toManyMembers(state.values[property.name])
                return (property.name, members.map { $0.objectID.description })
            }
            if state.hasLoaded(property) {
                return (property.name, (state.values[property.name] as? NSManagedObject)?.objectID.description)
            }
            guard let key = state.snapshot?.toOne[property.name] else { return (property.name, nil) }
            return (property.name, managedObjectContext?.objectID(for: key, storeOf: self)?.description)
        }
    }
}

/// Swift scalar types a `@Managed` property can have, with the value a missing one reads as.
public protocol ManagedScalar {
    /// The value a property of this type reads as when it holds none (zero or `false`).
    static var managedZero: Self { get }
}
extension Int: ManagedScalar {
    /// Zero: what a `@Managed` `Int` property without a value reads as.
    public static var managedZero: Int { 0 }
}
extension Int16: ManagedScalar {
    /// Zero: what a `@Managed` `Int16` property without a value reads as.
    public static var managedZero: Int16 { 0 }
}
extension Int32: ManagedScalar {
    /// Zero: what a `@Managed` `Int32` property without a value reads as.
    public static var managedZero: Int32 { 0 }
}
extension Int64: ManagedScalar {
    /// Zero: what a `@Managed` `Int64` property without a value reads as.
    public static var managedZero: Int64 { 0 }
}
extension Double: ManagedScalar {
    /// Zero: what a `@Managed` `Double` property without a value reads as.
    public static var managedZero: Double { 0 }
}
extension Float: ManagedScalar {
    /// Zero: what a `@Managed` `Float` property without a value reads as.
    public static var managedZero: Float { 0 }
}
extension Bool: ManagedScalar {
    /// `false`: what a `@Managed` `Bool` property without a value reads as.
    public static var managedZero: Bool { false }
}
extension Decimal: ManagedScalar {
    /// Zero: what a `@Managed` `Decimal` property without a value reads as.
    public static var managedZero: Decimal { 0 }
}

/// `value as? AnyHashable`; a Swift string is wrapped directly, without the runtime's
/// search for its conformance (the same result).
func hashableValue(_ value: Any?) -> AnyHashable? {
    guard let value else { return nil }
    if type(of: value) == String.self { return AnyHashable(value as! String) }
    return value as? AnyHashable
}

/// Whether two stored values are the same, for change detection.
func valueEquals(_ a: Any?, _ b: Any?) -> Bool {
    // Two values of one of the commonest stored types, read where they lie (no copy of
    // either existential, no runtime cast) and compared as themselves.
    if let same = withUnsafePointer(to: a, { a in withUnsafePointer(to: b) { b in exactValuesEqual(a, b) } }) { return same }
    // Unwrapped one at a time rather than matched as a pair: each value is copied once.
    guard let x = a else { return b == nil }
    guard let y = b else { return false }
    let type = Swift.type(of: x)
    guard type == Swift.type(of: y) else { return hashableEquals(x, y) }
    // The commonest stored values, compared as themselves; the same answers as through
    // AnyHashable (which compares two values of one type with their ==), without the
    // runtime's cast to AnyHashable.
    switch ObjectIdentifier(type) {
    case ObjectIdentifier(String.self): return (x as! String) == (y as! String)
    case ObjectIdentifier(Double.self): return (x as! Double) == (y as! Double)
    case ObjectIdentifier(Int64.self): return (x as! Int64) == (y as! Int64)
    case ObjectIdentifier(Int32.self): return (x as! Int32) == (y as! Int32)
    case ObjectIdentifier(Int16.self): return (x as! Int16) == (y as! Int16)
    case ObjectIdentifier(Bool.self): return (x as! Bool) == (y as! Bool)
    case ObjectIdentifier(Date.self): return (x as! Date) == (y as! Date)
    default: return hashableEquals(x, y)
    }
}

/// ``valueEquals(_:_:)`` of the value in `slot` of `first` and the one in `otherSlot` of
/// `second` (two objects' values, see ``PropertyValues/unsafeSlots``), read where they
/// lie: neither `Any?` is copied out of its slot (a retain and a release for a string)
/// unless the comparison needs the general path.
func slotValuesEqual(_ first: UnsafeBufferPointer<Any?>, _ slot: Int, _ second: UnsafeBufferPointer<Any?>, _ otherSlot: Int) -> Bool {
    guard slot < first.count, otherSlot < second.count else {
        return valueEquals(slot < first.count ? first[slot] : nil, otherSlot < second.count ? second[otherSlot] : nil)
    }
    let x = first.baseAddress! + slot, y = second.baseAddress! + otherSlot
    return exactValuesEqual(x, y) ?? valueEquals(x.pointee, y.pointee)
}

/// Whether the values in two slots are equal, when both hold a value of exactly the same
/// one of the types ``valueEquals(_:_:)`` compares as themselves, read by
/// ``ExactValueReader``; nil otherwise (another type, a nil, values of two types, or a
/// layout the reader does not trust), for the general comparison to answer.
@inline(__always)
private func exactValuesEqual(_ a: UnsafePointer<Any?>, _ b: UnsafePointer<Any?>) -> Bool? {
    @inline(__always)
    func compare<T: InlineExistentialValue & Equatable>(_ type: T.Type) -> Bool?? {
        guard let x = ExactValueReader.read(a, as: type) else { return .none }
        guard let y = ExactValueReader.read(b, as: type) else { return .some(nil) }
        return .some(x == y)
    }
    if let answer = compare(String.self) { return answer }
    if let answer = compare(Double.self) { return answer }
    if let answer = compare(Int64.self) { return answer }
    if let answer = compare(Int32.self) { return answer }
    if let answer = compare(Int16.self) { return answer }
    if let answer = compare(Bool.self) { return answer }
    if let answer = compare(Date.self) { return answer }
    return nil
}

/// Whether two values are equal as `AnyHashable`s, or identical objects when they are not hashable.
private func hashableEquals(_ a: Any, _ b: Any) -> Bool {
    switch (a, b) {
    case let (x as AnyHashable, y as AnyHashable): return x == y
    case let (x as AnyObject, y as AnyObject): return x === y
    }
}
