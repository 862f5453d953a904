import Foundation

/// What the built-in merge policies do with one uniqueness-constraint conflict: the
/// objects that share the constraint's values become one (the error policy never gets
/// here: it throws).
///
/// The object that stays is the one already in the store (``NSConstraintConflict/databaseObject``)
/// or, among objects of the save only, one that was saved before; failing that the last
/// inserted under object trump and overwrite, the first under store trump and rollback.
/// The others leave the save:
/// - merge by property, object trump: each one's properties are set on the one that
///   stays, in the order they were inserted (the last import wins): all its attributes
///   and to-ones for an inserted object meeting a stored one, set or not, so what the
///   import left unset comes out nil or the model's default; only its changed ones
///   otherwise;
/// - overwrite: every property of the last one is set on the one that stays; against a
///   stored object the last one stays instead and the stored object is deleted (see
///   ``replace(_:with:others:in:)``);
/// - merge by property, store trump, and rollback: the one that stays keeps its values.
///
/// Except under rollback, the members of the leaving objects' to-many relationships
/// move to the one that stays. So an insert whose values are already in the store
/// becomes an update of that row: an upsert.
///
/// Against a stored object this is what Core Data's decompiled `NSMergePolicy` does
/// (iOS 26, `_byPropertyObjectTrumpResolveConstraintConflict:` sets each attribute and
/// to-one of an inserted object on the database object with `setValue:forKey:`, without
/// comparing; `_overwriteResolveConstraintConflict:` unites the to-many relationships on
/// the last conflicting object and deletes the database object).
enum ConstraintResolution {
    static func resolve(_ conflict: NSConstraintConflict, as type: NSMergePolicyType) {
        guard type != .errorMergePolicyType, let context = conflict.conflictingObjects.first?.managedObjectContext else { return }
        let members = conflict.conflictingObjects.filter { $0.managedObjectContext === context && !$0.state.isDeleted }
        if type == .overwriteMergePolicyType, let database = conflict.databaseObject, !database.state.isDeleted,
            let replacement = members.last(where: { $0 !== database }) {
            replace(database, with: replacement, others: members, in: context)
            return
        }
        let objectWins = type == .mergeByPropertyObjectTrumpMergePolicyType || type == .overwriteMergePolicyType
        let survivor: NSManagedObject
        if let database = conflict.databaseObject {
            survivor = database
            if !database.state.isFault, !database.state.isUpdated, database.state.snapshot?.version != conflict.databaseRow?.version {
                // Registered with older values: read the row again before merging into it.
                context.refresh(database, mergeChanges: false)
            }
        } else if let saved = members.first(where: { !$0.state.isInserted }) {
            survivor = saved
        } else {
            guard let chosen = objectWins ? members.last : members.first else { return }
            survivor = chosen
        }
        let losers = members.filter { $0 !== survivor }
        // Members come in the order they were inserted: only what came later overrides.
        let survivorPosition = members.firstIndex { $0 === survivor } ?? -1
        for (position, loser) in members.enumerated() where loser !== survivor {
            let newer = !survivor.state.isInserted || position > survivorPosition
            // An import meeting a stored object brings all its values, not only those it set.
            let all = (type == .overwriteMergePolicyType && loser === losers.last)
                || (survivor === conflict.databaseObject && loser.state.isInserted)
            if objectWins, newer { copyValues(from: loser, to: survivor, all: all) }
            if type != .rollbackMergePolicyType { moveToManyMembers(from: loser, to: survivor) }
            remove(loser, keepingChanges: objectWins, from: context)
        }
    }

    /// Overwrite against a stored object: `replacement` (the last object of the save with
    /// the stored values) takes the stored object's place. It gains the stored object's
    /// to-many members, and the stored object is deleted, so the save replaces the row (the
    /// replacement keeps its own object ID) rather than updating it. The save's other
    /// conflicting objects give their to-many members to the replacement and leave.
    private static func replace(_ database: NSManagedObject, with replacement: NSManagedObject, others: [NSManagedObject], in context: NSManagedObjectContext) {
        for other in others where other !== replacement && other !== database {
            moveToManyMembers(from: other, to: replacement)
            remove(other, keepingChanges: true, from: context)
        }
        moveToManyMembers(from: database, to: replacement)
        remove(database, keepingChanges: true, from: context)
    }

    /// Sets `source`'s changed attributes and to-ones (all of them with `all`) on `target`.
    ///
    /// Attributes are compared as the objects store them (the same answer as comparing
    /// what `value(forKey:)` hands out, without boxing each number in an `NSNumber`);
    /// only a value that differs is read and set through key-value coding, so observers
    /// and custom accessors see the merge.
    private static func copyValues(from source: NSManagedObject, to target: NSManagedObject, all: Bool) {
        let table = source.entity.propertyTable, targetTable = target.entity.propertyTable
        for (slot, property) in table.all.enumerated() {
            guard !property.isTransient, !(property is NSFetchedPropertyDescription) else { continue }
            if let relationship = property as? NSRelationshipDescription, relationship.isToMany { continue }
            guard all || source.state.changedSlots.contains(slot), let targetSlot = targetTable.slotByName[property.name] else { continue }
            if property is NSAttributeDescription {
                target.fulfillFaultIfNeeded()
                if valueEquals(source.state.values[slot], target.state.values[targetSlot]) { continue }
                target.setValue(source.value(forKey: property.name), forKey: property.name)
                continue
            }
            let value = source.value(forKey: property.name)
            if !valueEquals(value, target.value(forKey: property.name)) { target.setValue(value, forKey: property.name) }
        }
    }

    /// Moves the members of `source`'s to-many relationships to `target`'s.
    private static func moveToManyMembers(from source: NSManagedObject, to target: NSManagedObject) {
        for relationship in source.entity.propertyTable.relationships where relationship.isToMany && !relationship.isTransient {
            guard target.entity.propertyTable.byName[relationship.name] != nil else { continue }
            let members = source.members(of: relationship)
            guard !members.isEmpty else { continue }
            if relationship.isOrdered {
                source.mutableOrderedSetValue(forKey: relationship.name).removeAllObjects()
                target.mutableOrderedSetValue(forKey: relationship.name).addObjects(from: members)
            } else {
                source.mutableSetValue(forKey: relationship.name).removeAllObjects()
                target.mutableSetValue(forKey: relationship.name).addObjects(from: members)
            }
        }
    }

    /// Takes `object` out of the save: an inserted object leaves the context (its to-ones
    /// let go first, so no inverse keeps it); a saved one is deleted when the other
    /// object's values won, or loses its changes when the store's did.
    private static func remove(_ object: NSManagedObject, keepingChanges: Bool, from context: NSManagedObjectContext) {
        if object.state.isInserted {
            for relationship in object.entity.propertyTable.relationships where !relationship.isToMany && !relationship.isTransient {
                if object.value(forKey: relationship.name) != nil { object.setValue(nil, forKey: relationship.name) }
            }
            context.inserted.remove(object)
            object.state.isInserted = false
            context.forget(object)
        } else if keepingChanges {
            context.updated.remove(object)
            object.state.isUpdated = false
            object.state.isDeleted = true
            context.deleted.append(object)
        } else {
            context.refresh(object, mergeChanges: false)
        }
    }
}
