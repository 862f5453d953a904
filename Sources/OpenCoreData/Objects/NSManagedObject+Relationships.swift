import Foundation

/// Relationship values: loaded lazily, and kept in step with their inverses the moment
/// either side changes, before any save.
extension NSManagedObject {
    /// The current value of `relationship`, loading it from the store the first time: the
    /// related object (or `nil`) for a to-one, a `Set` or `NSOrderedSet` for a to-many.
    func relationshipValue(for relationship: NSRelationshipDescription) -> Any? {
        let key = relationship.name
        if !state.loadedRelationships.contains(key) {
            state.values[key] = managedObjectContext?.loadRelationship(relationship, of: self) ?? emptyValue(for: relationship)
            state.loadedRelationships.insert(key)
        }
        if relationship.isToMany, state.values[key] == nil { return emptyValue(for: relationship) }
        return state.values[key]
    }

    /// What an empty relationship reads as.
    func emptyValue(for relationship: NSRelationshipDescription) -> Any? {
        guard relationship.isToMany else { return nil }
        return relationship.isOrdered ? NSOrderedSet() : Set<NSManagedObject>()
    }

    /// Sets a relationship from `value` (an object, `nil`, a `Set`, an `NSSet`, an array or
    /// an `NSOrderedSet`) and updates the inverse on every object involved.
    func setRelationshipValue(_ value: Any?, for relationship: NSRelationshipDescription) {
        let key = relationship.name
        if relationship.isToMany {
            let old = toManyMembers(relationshipValue(for: relationship))
            let new = toManyMembers(CocoaFormatter.unwrap(value))
            for member in new where !(member.entity.isKindOf(entity: relationship.destinationEntity ?? member.entity)) {
                raiseCoreDataException(.invalidArgument, "Unacceptable type of value for to-many relationship: property = \"\(key)\"; desired type = \(relationship.destinationEntity?.name ?? "?"); given type = \(member.entity.name ?? "?").")
            }
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
            let old = relationshipValue(for: relationship) as? NSManagedObject
            if old === newObject { return }
            willChangeValue(forKey: key)
            setPrimitiveValue(newObject, forKey: key)
            didChangeValue(forKey: key)
            old?.inverseDidLose(self, through: relationship)
            newObject?.inverseDidGain(self, through: relationship)
        }
    }

    /// `source` no longer points here through `relationship`: drop it from our inverse.
    private func inverseDidLose(_ source: NSManagedObject, through relationship: NSRelationshipDescription) {
        guard let inverse = relationship.inverseRelationship else { return }
        if inverse.isToMany {
            var members = toManyMembers(relationshipValue(for: inverse))
            guard let index = members.firstIndex(where: { $0 === source }) else { return }
            members.remove(at: index)
            replaceToMany(inverse, with: members)
        } else if relationshipValue(for: inverse) as? NSManagedObject === source {
            willChangeValue(forKey: inverse.name)
            setPrimitiveValue(nil, forKey: inverse.name)
            didChangeValue(forKey: inverse.name)
        }
    }

    /// `source` now points here through `relationship`: add it to our inverse, taking it
    /// from whatever held it before when our inverse is a to-one.
    private func inverseDidGain(_ source: NSManagedObject, through relationship: NSRelationshipDescription) {
        guard let inverse = relationship.inverseRelationship else { return }
        if inverse.isToMany {
            var members = toManyMembers(relationshipValue(for: inverse))
            guard !members.contains(where: { $0 === source }) else { return }
            members.append(source)
            replaceToMany(inverse, with: members)
        } else {
            let previous = relationshipValue(for: inverse) as? NSManagedObject
            guard previous !== source else { return }
            willChangeValue(forKey: inverse.name)
            setPrimitiveValue(source, forKey: inverse.name)
            didChangeValue(forKey: inverse.name)
            // The object we pointed at before loses us from its side of the relationship.
            previous?.inverseDidLose(self, through: inverse)
        }
    }

    private func replaceToMany(_ relationship: NSRelationshipDescription, with members: [NSManagedObject]) {
        willChangeValue(forKey: relationship.name)
        setPrimitiveValue(relationship.isOrdered ? NSOrderedSet(array: members) : Set(members), forKey: relationship.name)
        didChangeValue(forKey: relationship.name)
    }
}

/// The objects of a to-many value in their order (insertion order is not kept for sets).
func toManyMembers(_ value: Any?) -> [NSManagedObject] {
    switch value {
    case nil: return []
    case let set as Set<NSManagedObject>: return Array(set)
    case let ordered as NSOrderedSet: return ordered.array.compactMap { $0 as? NSManagedObject }
    case let array as [NSManagedObject]: return array
    case let set as NSSet: return set.allObjects.compactMap { $0 as? NSManagedObject }
    case let array as [Any]: return array.compactMap { $0 as? NSManagedObject }
    case let set as Set<AnyHashable>: return set.compactMap { $0.base as? NSManagedObject }
    default: return []
    }
}
