import Foundation

/// Relationship values: loaded lazily, and kept in step with their inverses the moment
/// either side changes, before any save.
///
/// A to-one holds the related object (or `nil`), an unordered to-many a
/// `Set<NSManagedObject>`, an ordered one an `NSOrderedSet`. Every change goes through
/// one of two doors: ``setRelationshipValue(_:for:)`` (replace the whole value) or
/// ``addMembers(_:to:at:)`` / ``removeMembers(_:from:)`` (change a to-many in place).
/// Both update the inverse on every object involved; the inverse side changes
/// primitively (`inverseDidGain`/`inverseDidLose`), so maintenance never recurses.
extension NSManagedObject {
    // MARK: Reading

    /// The current value of `relationship`, loading it from the store the first time: the
    /// related object (or `nil`) for a to-one, a `Set` or `NSOrderedSet` for a to-many.
    func relationshipValue(for relationship: NSRelationshipDescription) -> Any? {
        // By slot: a cascade reads relationships of 100,000 objects, and each name hashed
        // here showed in its profile.
        guard let slot = state.values.table.slot(of: relationship) else { return emptyValue(for: relationship) }
        if !state.loadedRelationships.contains(slot) {
            fulfillFaultIfNeeded()
        }
        if !state.loadedRelationships.contains(slot) {
            state.values[slot] = managedObjectContext?.loadRelationship(relationship, of: self) ?? emptyValue(for: relationship)
            state.loadedRelationships.insert(slot)
        }
        let value = state.values[slot]
        if relationship.isToMany, value == nil { return emptyValue(for: relationship) }
        return value
    }

    /// What an empty relationship reads as.
    func emptyValue(for relationship: NSRelationshipDescription) -> Any? {
        guard relationship.isToMany else { return nil }
        return relationship.isOrdered ? NSOrderedSet() : Set<NSManagedObject>()
    }

    /// The objects `relationship` holds now (loading it when needed): none or one for a
    /// to-one, in order for an ordered to-many.
    func members(of relationship: NSRelationshipDescription) -> [NSManagedObject] {
        let value = relationshipValue(for: relationship)
        if relationship.isToMany { return toManyMembers(value) }
        return (value as? NSManagedObject).map { [$0] } ?? []
    }

    /// Whether the relationship named `key` has not been loaded yet: reading it will
    /// fetch its destination objects (as faults) from the store.
    ///
    /// Objects never saved have nothing to load, so their relationships are never faults.
    public func hasFault(forRelationshipNamed key: String) -> Bool {
        guard entity.propertyTable.byName[key] is NSRelationshipDescription else { return false }
        if state.isInserted || objectID.isTemporaryID { return false }
        return state.isFault || !state.hasLoaded(relationshipNamed: key)
    }

    // MARK: Mutable collection proxies (the open methods are in the class body)

    func relationshipMutableSet(forKey key: String) -> NSMutableSet {
        let property = property(forKey: key, accessing: true)
        guard let relationship = property as? NSRelationshipDescription, relationship.isToMany, !relationship.isOrdered else {
            raiseCoreDataException(.invalidArgument, "NSManagedObjects of entity '\(entity.name ?? "(null)")' do not support -mutableSetValueForKey: for the property '\(key)'")
        }
        return RelationshipMutableSet(owner: self, relationship: relationship)
    }

    func relationshipMutableOrderedSet(forKey key: String) -> NSMutableOrderedSet {
        let property = property(forKey: key, accessing: true)
        guard let relationship = property as? NSRelationshipDescription, relationship.isToMany, relationship.isOrdered else {
            raiseCoreDataException(.invalidArgument, "NSManagedObjects of entity '\(entity.name ?? "(null)")' do not support -mutableOrderedSetValueForKey: for the property '\(key)'")
        }
        let proxy = RelationshipMutableOrderedSet(owner: self, relationship: relationship)
        state.orderedProxies.append(WeakOrderedProxy(proxy))
        return proxy
    }

    // MARK: Changing a whole relationship

    /// Sets a relationship from `value` (an object, `nil`, a `Set`, an `NSSet`, an array or
    /// an `NSOrderedSet`) and updates the inverse on every object involved.
    func setRelationshipValue(_ value: Any?, for relationship: NSRelationshipDescription) {
        let key = relationship.name
        if relationship.isToMany {
            let new = uniqueMembers(setterMembers(CocoaFormatter.unwrap(value), key: key))
            for member in new { checkDestination(member, of: relationship) }
            let old = members(of: relationship)
            willChangeValue(forKey: key)
            setPrimitiveValue(relationship.isOrdered ? NSOrderedSet(array: new) : Set(new), forKey: key)
            didChangeValue(forKey: key)
            let oldIDs = Set(old.map(ObjectIdentifier.init)), newIDs = Set(new.map(ObjectIdentifier.init))
            for removed in old where !newIDs.contains(ObjectIdentifier(removed)) { removed.inverseDidLose(self, through: relationship) }
            for added in new where !oldIDs.contains(ObjectIdentifier(added)) { added.inverseDidGain(self, through: relationship) }
        } else {
            let new = CocoaFormatter.unwrap(value).flatMap { $0 is NSNull ? nil : $0 }
            guard new == nil || new is NSManagedObject else {
                raiseCoreDataException(.invalidArgument, "Unacceptable type of value for to-one relationship: property = \"\(key)\"; desired type = \(relationship.destinationEntity?.name ?? "?"); given type = \(type(of: new!)); value = \(new!).")
            }
            let newObject = new as? NSManagedObject
            if let newObject { checkDestination(newObject, of: relationship) }
            let old = relationshipValue(for: relationship) as? NSManagedObject
            if old === newObject { return }
            willChangeValue(forKey: key)
            setPrimitiveValue(newObject, forKey: key)
            didChangeValue(forKey: key)
            old?.inverseDidLose(self, through: relationship)
            newObject?.inverseDidGain(self, through: relationship)
        }
    }

    // MARK: Changing a to-many in place

    /// Adds `objects` to the to-many `relationship` (at `index` for an ordered one, else at
    /// the end), skipping objects already there, and updates their inverses.
    func addMembers(_ objects: [NSManagedObject], to relationship: NSRelationshipDescription, at index: Int? = nil) {
        for object in objects { checkDestination(object, of: relationship) }
        let added = insertPrimitively(objects, into: relationship, at: index)
        for object in added { object.inverseDidGain(self, through: relationship) }
    }

    /// Removes `objects` from the to-many `relationship` and clears their inverses.
    func removeMembers(_ objects: [NSManagedObject], from relationship: NSRelationshipDescription) {
        let removed = removePrimitively(objects, from: relationship)
        for object in removed { object.inverseDidLose(self, through: relationship) }
    }

    // MARK: Inverse maintenance

    /// `source` no longer points here through `relationship`: drop it from our inverse.
    ///
    /// `context`, when the caller holds it (the delete rules): used as this object's own
    /// when it is, rather than looked up in each object's handle (a lock, a retain and a
    /// release each time), which a cascade did several times per deleted object.
    func inverseDidLose(_ source: NSManagedObject, through relationship: NSRelationshipDescription, in context: NSManagedObjectContext? = nil) {
        guard let inverse = relationship.inverseRelationship else { return }
        inverseDidLose(source, inverse: inverse, in: context)
    }

    /// ``inverseDidLose(_:through:in:)`` for a caller that has read the inverse already: the
    /// delete rules read it once per relationship, not once per member. It is a weak
    /// reference, so each load and each release of it takes the reference count's slow path.
    func inverseDidLose(_ source: NSManagedObject, inverse: NSRelationshipDescription, in context: NSManagedObjectContext? = nil) {
        guard !state.isInaccessible else { return }
        if inverse.isToMany {
            if inverse.isOrdered { removePrimitively([source], from: inverse) } else { removeMember(source, fromUnordered: inverse) }
            return
        }
        var own: NSManagedObjectContext?
        if let context, contextHandle === context.handle { own = context }
        guard toOneValue(of: inverse, expecting: source, ownContext: own) === source else { return }
        if let own, !state.isFault {
            // What setPrimitiveValue(nil, forKey:) does between the change notes, with the
            // slot's relationship at hand (taken out of the property table, it was retained
            // and released on the slow path, as above).
            releaseMembers(of: inverse, in: own)
            return
        }
        willChangeValue(forKey: inverse.name)
        setPrimitiveValue(nil, forKey: inverse.name)
        didChangeValue(forKey: inverse.name)
    }

    /// The current value of the to-one `relationship`, as ``relationshipValue(for:)`` reads
    /// it, for a caller that expects it to be `source`.
    ///
    /// Unloaded, and with the saved row naming the row `source` is registered under in this
    /// context, it loads as `source`: the object the registry look-up of loading it would
    /// return. The nullify rule asks this of every member of a deleted object's to-many (in
    /// a cascade through 100,000 objects, once per object), so the look-up is saved there.
    /// `ownContext`: this object's context, when the caller knows it.
    private func toOneValue(of relationship: NSRelationshipDescription, expecting source: NSManagedObject,
                            ownContext: NSManagedObjectContext? = nil) -> NSManagedObject? {
        if let slot = state.values.table.slot(of: relationship), !state.loadedRelationships.contains(slot) {
            fulfillFaultIfNeeded(in: ownContext)
            if !state.loadedRelationships.contains(slot), let context = ownContext ?? managedObjectContext, context.parent == nil,
                source.contextHandle === context.handle, let registration = source.registration,
                let destination = state.snapshot?.toOne[relationship.name], objectID.storeKey != nil,
                let store = objectID.persistentStore, registration.key == PermanentKey(store: store, key: destination)
            {
                state.values[slot] = source
                state.loadedRelationships.insert(slot)
                return source  // what reading it back would give, without a cast from `Any`
            }
        }
        return relationshipValue(for: relationship) as? NSManagedObject
    }

    /// `source` now points here through `relationship`: add it to our inverse, taking it
    /// from whatever held it before when our inverse is a to-one.
    func inverseDidGain(_ source: NSManagedObject, through relationship: NSRelationshipDescription) {
        guard let inverse = relationship.inverseRelationship else { return }
        if inverse.isToMany {
            insertPrimitively([source], into: inverse, at: nil)
        } else {
            let previous = relationshipValue(for: inverse) as? NSManagedObject
            guard previous !== source else { return }
            willChangeValue(forKey: inverse.name)
            setPrimitiveValue(source, forKey: inverse.name)
            didChangeValue(forKey: inverse.name)
            // What we pointed at before loses us from its side of the relationship.
            previous?.inverseDidLose(self, through: inverse)
        }
    }

    // MARK: Primitive to-many changes (no inverse maintenance)

    /// Inserts the objects not already in the to-many; returns them. Sets change in place
    /// (constant time per object), so growing a large relationship one object at a time
    /// stays linear.
    @discardableResult
    func insertPrimitively(_ objects: [NSManagedObject], into relationship: NSRelationshipDescription, at index: Int?) -> [NSManagedObject] {
        let key = relationship.name
        if relationship.isOrdered {
            let ordered = (relationshipValue(for: relationship) as? NSOrderedSet) ?? NSOrderedSet()
            var seen = Set(toManyMembers(ordered).map(ObjectIdentifier.init))
            let added = objects.filter { seen.insert(ObjectIdentifier($0)).inserted }
            guard !added.isEmpty else { return [] }
            var array = ordered.array
            let position = min(max(index ?? array.count, 0), array.count)
            array.insert(contentsOf: added as [Any], at: position)
            replaceOrderedStorage(key, with: NSOrderedSet(array: array))
            return added
        }
        // Decided in a scope of its own, so that no reference to the set outlives it and
        // the set can then change in place.
        let added: [NSManagedObject] = {
            let set = storedSet(of: relationship)
            var seen = Set<ObjectIdentifier>()
            return objects.filter { !set.contains($0) && seen.insert(ObjectIdentifier($0)).inserted }
        }()
        guard !added.isEmpty else { return [] }
        willChangeValue(forKey: key)
        mutateSet(key) { set in for object in added { set.insert(object) } }
        didChangeValue(forKey: key)
        return added
    }

    /// Removes the objects that are in the to-many; returns them.
    @discardableResult
    func removePrimitively(_ objects: [NSManagedObject], from relationship: NSRelationshipDescription) -> [NSManagedObject] {
        let key = relationship.name
        if relationship.isOrdered {
            let members = toManyMembers(relationshipValue(for: relationship))
            let doomed = Set(objects.map(ObjectIdentifier.init))
            let removed = members.filter { doomed.contains(ObjectIdentifier($0)) }
            guard !removed.isEmpty else { return [] }
            replaceOrderedStorage(key, with: NSOrderedSet(array: members.filter { !doomed.contains(ObjectIdentifier($0)) }))
            return removed
        }
        let removed: [NSManagedObject] = {
            let set = storedSet(of: relationship)
            var seen = Set<ObjectIdentifier>()
            return objects.filter { set.contains($0) && seen.insert(ObjectIdentifier($0)).inserted }
        }()
        guard !removed.isEmpty else { return [] }
        willChangeValue(forKey: key)
        mutateSet(key) { set in for object in removed { set.remove(object) } }
        didChangeValue(forKey: key)
        return removed
    }

    /// ``removePrimitively(_:from:)`` for one object and an unordered to-many: the delete
    /// rules drop each deleted object from its destinations' inverses this way (in a
    /// cascade through 100,000 objects, once per object), without an array for the one
    /// object or the removed ones.
    private func removeMember(_ object: NSManagedObject, fromUnordered relationship: NSRelationshipDescription) {
        // Decided in a scope of its own, so that no reference to the set outlives it and
        // the set can then change in place.
        let contained = { storedSet(of: relationship).contains(object) }()
        guard contained else { return }
        let key = relationship.name
        willChangeValue(forKey: key)
        mutateSet(key) { set in _ = set.remove(object) }
        didChangeValue(forKey: key)
    }

    /// The loaded set of an unordered to-many, stored as a `Set` from now on.
    private func storedSet(of relationship: NSRelationshipDescription) -> Set<NSManagedObject> {
        let value = relationshipValue(for: relationship)
        if let set = value as? Set<NSManagedObject> { return set }
        let set = Set(toManyMembers(value))
        state.values[relationship.name] = set
        return set
    }

    /// Stores a new value for an ordered to-many, with change notifications.
    private func replaceOrderedStorage(_ key: String, with ordered: NSOrderedSet) {
        willChangeValue(forKey: key)
        if let slot = state.values.table.slotByName[key] { willMutate(slot: slot) }
        state.values[key] = ordered
        state.noteLoaded(relationshipNamed: key)
        noteChange(forKey: key)
        relationshipStorageDidChange(key)
        didChangeValue(forKey: key)
    }

    /// Changes the stored set of `key` in place: taken out of the values so that it is
    /// uniquely referenced and the change costs no copy.
    private func mutateSet(_ key: String, _ body: (inout Set<NSManagedObject>) -> Void) {
        if let slot = state.values.table.slotByName[key] { willMutate(slot: slot) }
        var set = (state.values.removeValue(forKey: key) as? Set<NSManagedObject>) ?? []
        body(&set)
        state.values[key] = set
        state.noteLoaded(relationshipNamed: key)
        noteChange(forKey: key)
    }

    // MARK: Checks

    /// Stops the program when `object` cannot be a destination of `relationship`: a wrong
    /// entity, or an object of another context (Core Data's exceptions for both).
    func checkDestination(_ object: NSManagedObject, of relationship: NSRelationshipDescription) {
        if let destination = relationship.destinationEntity, !object.entity.isKindOf(entity: destination) {
            let kind = relationship.isToMany ? "to-many" : "to-one"
            raiseCoreDataException(.invalidArgument, "Unacceptable type of value for \(kind) relationship: property = \"\(relationship.name)\"; desired type = \(destination.name ?? "?"); given type = \(object.entity.name ?? "?"); value = \(object).")
        }
        if let mine = managedObjectContext, let theirs = object.managedObjectContext, mine !== theirs {
            raiseCoreDataException(.invalidArgument, "Illegal attempt to establish a relationship '\(relationship.name)' between objects in different contexts (source = \(self) , destination = \(object))")
        }
    }

    /// The objects of a to-many value given to a setter, refusing values that are not
    /// collections of managed objects (Core Data's "Unacceptable type" exception).
    private func setterMembers(_ value: Any?, key: String) -> [NSManagedObject] {
        guard let value, !(value is NSNull) else { return [] }
        switch value {
        case is Set<NSManagedObject>, is NSOrderedSet, is [NSManagedObject], is NSSet, is [Any], is Set<AnyHashable>: break
        default:
            raiseCoreDataException(.invalidArgument, "Unacceptable type of value for to-many relationship: property = \"\(key)\"; desired type = NSSet; given type = \(type(of: value)); value = \(value).")
        }
        return toManyMembers(value)
    }

    /// `objects` without repeats, first occurrence kept.
    private func uniqueMembers(_ objects: [NSManagedObject]) -> [NSManagedObject] {
        var seen = Set<ObjectIdentifier>()
        return objects.filter { seen.insert(ObjectIdentifier($0)).inserted }
    }

    // MARK: Proxies kept in step

    /// The stored value of relationship `key` changed: live ordered-set proxies copy it.
    func relationshipStorageDidChange(_ key: String) {
        guard state.hasOrderedProxies else { return }
        state.orderedProxies.removeAll { $0.proxy == nil }
        for entry in state.orderedProxies where entry.proxy?.relationship.name == key {
            entry.proxy?.copyRelationship()
        }
    }

    /// The object's values were replaced wholesale (refreshed, rolled back, reloaded):
    /// live ordered-set proxies copy the relationship again, or, when the object just
    /// became a fault, before their next use (copying now would fire the fault).
    func relationshipsWereReset() {
        guard state.hasOrderedProxies else { return }
        state.orderedProxies.removeAll { $0.proxy == nil }
        for entry in state.orderedProxies {
            if state.isFault { entry.proxy?.isStale = true } else { entry.proxy?.copyRelationship() }
        }
    }
}

/// The objects of a to-many value in their order (insertion order is not kept for sets).
func toManyMembers(_ value: Any?) -> [NSManagedObject] {
    // The form an unordered to-many is kept in, cast once before the switch, which copied
    // the value for each case it tried: the delete rules ask this of every object a cascade
    // deletes (100,000 in a large one, most of them leaves with an empty set).
    if let set = value as? Set<NSManagedObject> { return Array(set) }
    switch value {
    case nil: return []
    case let ordered as NSOrderedSet: return ordered.array.compactMap { $0 as? NSManagedObject }
    case let array as [NSManagedObject]: return array
    case let set as NSSet: return set.allObjects.compactMap { $0 as? NSManagedObject }
    case let array as [Any]: return array.compactMap { $0 as? NSManagedObject }
    case let set as Set<AnyHashable>: return set.compactMap { $0.base as? NSManagedObject }
    default: return []
    }
}

/// A weak reference to a live ordered-set proxy.
struct WeakOrderedProxy {
    weak var proxy: RelationshipMutableOrderedSet?
    init(_ proxy: RelationshipMutableOrderedSet) { self.proxy = proxy }
}
