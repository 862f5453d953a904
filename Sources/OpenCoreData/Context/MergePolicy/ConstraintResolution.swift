import Foundation

/// What the built-in merge policies do with one uniqueness-constraint conflict: the
/// objects that share the constraint's values become one (the error policy never gets
/// here: it throws). It follows Core Data's decompiled `NSMergePolicy` (iOS 26,
/// `resolveConstraintConflicts:error:` and the `_…ResolveConstraintConflict:` methods).
///
/// Against an object already in the store (``NSConstraintConflict/databaseObject``):
/// - object trump: each conflicting object's values are set on the stored one, in the
///   order they were inserted: every attribute and to-one of an inserted object, set or
///   not (what an import left unset arrives as nil or the model's default), only the
///   changed ones of an object that was fetched;
/// - store trump: the stored object keeps its values;
/// - both trump policies then move the conflicting objects' to-many members to the stored
///   object and delete the conflicting objects: an insert becomes an update, an upsert;
/// - overwrite: the last conflicting object stays instead, with the stored object's
///   to-many members, and the stored object is deleted (see ``replace(_:with:others:in:)``);
/// - rollback: inserted conflicting objects leave, fetched ones lose their changes.
///
/// Among the save's objects only, one is kept (see ``keeper(of:)``) and the others are
/// deleted; under the trump policies the kept object first takes what each other one
/// changed (see ``mergeChanges(of:onto:)``) and their to-many members; under overwrite
/// and rollback it stays as it is.
enum ConstraintResolution {
    static func resolve(_ conflict: NSConstraintConflict, as type: NSMergePolicyType) {
        let given = conflict.conflictingObjects
        guard type != .errorMergePolicyType, let context = given.first?.managedObjectContext else { return }
        // In the context: its handle is the object's (compared without taking the context
        // out of each object's handle, a lock, a retain and a release).
        let stays = { (object: NSManagedObject) in object.contextHandle === context.handle && !object.state.isDeleted }
        var members = given.allSatisfy(stays) ? given : given.filter(stays)  // (usually all: no new list)
        guard let database = conflict.databaseObject, !database.state.isDeleted else {
            resolveAmongSavedObjects(members, constraint: conflict.constraint, as: type, in: context)
            return
        }
        // Duplicates among the save's own objects are settled first, as Core Data checks
        // them (its NSConstraintValidator) before the store meets its rows: the one kept
        // then meets the stored object alone (Core Data's resolvers take the conflict's
        // last object only).
        if members.count > 1 {  // (usually one: no list made)
            let ofTheSave = members.filter { $0 !== database }
            if ofTheSave.count > 1, let kept = resolveAmongSavedObjects(ofTheSave, constraint: conflict.constraint, as: type, in: context) {
                members = [kept]
            }
        }
        if type == .overwriteMergePolicyType, let replacement = members.last(where: { $0 !== database }) {
            replace(database, with: replacement, others: members, in: context)
            return
        }
        if !database.state.isFault, !database.state.isUpdated, database.state.snapshot?.version != conflict.databaseRow?.version {
            // Registered with older values: read the row again before merging into it.
            context.refresh(database, mergeChanges: false)
        }
        for member in members where member !== database {
            if type == .mergeByPropertyObjectTrumpMergePolicyType {
                // An import meeting a stored object brings all its values, not only those it set.
                copyValues(from: member, to: database, all: member.state.isInserted, in: context)
            }
            if type == .rollbackMergePolicyType {
                remove(member, keepingChanges: false, from: context)
            } else {
                moveToManyMembers(from: member, to: database)
                remove(member, keepingChanges: true, from: context)
            }
        }
    }

    /// Whether the conflict's objects that are still there (and its stored object) belong
    /// to more than one entity: sub-entities sharing a constraint their parent declares.
    /// Core Data's policies do not merge such objects (see
    /// ``NSMergePolicy/resolve(constraintConflicts:)``).
    static func spansSeveralEntities(_ conflict: NSConstraintConflict) -> Bool {
        // Compared as they come, without making the list of them, by identity (no entity
        // retained to compare it).
        var first = conflict.databaseObject.map { ObjectIdentifier($0.entity) }
        for object in conflict.conflictingObjects where !object.state.isDeleted {
            let entity = ObjectIdentifier(object.entity)
            guard let known = first else {
                first = entity
                continue
            }
            if entity != known { return true }
        }
        return false
    }

    /// A conflict among the save's own objects (no stored row has the values): one object
    /// is kept and the others are deleted; under the trump policies the kept one first
    /// takes their changes and their to-many members.
    @discardableResult
    private static func resolveAmongSavedObjects(_ members: [NSManagedObject], constraint: [String], as type: NSMergePolicyType,
                                                 in context: NSManagedObjectContext) -> NSManagedObject? {
        guard let keeper = keeper(of: members, constraint: constraint) else { return nil }
        let merges = type == .mergeByPropertyObjectTrumpMergePolicyType || type == .mergeByPropertyStoreTrumpMergePolicyType
        for other in members where other !== keeper {
            if merges {
                mergeChanges(of: other, onto: keeper)
                moveToManyMembers(from: other, to: keeper)
            }
            remove(other, keepingChanges: true, from: context)
        }
        return keeper
    }

    /// The object Core Data keeps among the save's conflicting objects: one that was saved
    /// before and did not change the constrained values; else the only saved one, or the
    /// saved one with the lowest primary key; else the first inserted (members come in the
    /// order they were inserted).
    private static func keeper(of members: [NSManagedObject], constraint: [String]) -> NSManagedObject? {
        let saved = members.filter { !$0.state.isInserted }
        // Core Data compares the object's snapshot with the conflict's own values: a saved
        // object that did not change this constraint's properties already held them.
        if let unchanged = saved.first(where: { object in
            let table = object.entity.propertyTable
            return !constraint.compactMap { table.slotByName[$0] }.contains { object.state.changedSlots.contains($0) }
        }) {
            return unchanged
        }
        if saved.isEmpty { return members.first }
        return saved.min { ($0.objectID.storeKey?.primaryKey ?? .max) < ($1.objectID.storeKey?.primaryKey ?? .max) }
    }

    /// Sets on `keeper` each attribute and to-one that `other` changed (every value an
    /// inserted object holds; a fetched object's changes since it was fetched), unless
    /// `keeper` was fetched and changed that property itself: Core Data's merge of two
    /// objects of one save under either trump policy.
    private static func mergeChanges(of other: NSManagedObject, onto keeper: NSManagedObject) {
        forEachMergeable(from: other, to: keeper) { slot, keeperSlot, _, table in
            if !keeper.state.isInserted, keeper.state.changedSlots.contains(keeperSlot) { return }
            let name = table.names[slot]
            let value = other.value(forKey: name)
            let changed = other.state.isInserted ? value != nil : other.state.changedSlots.contains(slot)
            if changed, !valueEquals(value, keeper.value(forKey: name)) { setMerged(value, forKey: name, on: keeper) }
        }
    }

    /// Calls `body` for each property a merge sets: `source`'s persistent attributes and
    /// to-ones that `target`'s entity has too, with their slot in each and `source`'s table
    /// (to-many relationships move their members instead, see ``moveToManyMembers(from:to:)``).
    /// The entity's table lists them once, so a merge makes no list of its own; a name is
    /// read out of the table only where it is used (copied, a retain and a release, where
    /// a plain object's attribute needs none).
    private static func forEachMergeable(from source: NSManagedObject, to target: NSManagedObject,
                                         _ body: (_ slot: Int, _ targetSlot: Int, _ isAttribute: Bool, _ table: EntityPropertyTable) -> Void) {
        let sourceTable = source.entity.propertyTable
        // One entity (the usual merge) has one slot per property: no second table, no look-up by name.
        let targetTable = source.entity === target.entity ? nil : target.entity.propertyTable
        // By index: each pair read from the table, which is held, rather than its list
        // retained for the loop.
        for index in sourceTable.mergeable.indices {
            let (slot, isAttribute) = sourceTable.mergeable[index]
            var targetSlot = slot
            if let targetTable {
                guard let found = targetTable.slotByName[sourceTable.names[slot]] else { continue }
                targetSlot = found
            }
            body(slot, targetSlot, isAttribute, sourceTable)
        }
    }

    /// Sets a merged value on `target`; a to-one whose delete rule is cascade deletes the
    /// object it pointed at before, as Core Data's merges do (decompiled NSMergePolicy, iOS
    /// 26: `deleteRule == 2` → `deleteObject:` of the replaced destination, in
    /// `_byPropertyObjectTrumpResolveConstraintConflict:` and in the merge among a save's
    /// objects). Its delete rules run with the policy's other deletions.
    private static func setMerged(_ value: Any?, forKey key: String, on target: NSManagedObject) {
        let relationship = target.entity.propertyTable.byName[key] as? NSRelationshipDescription
        let replaced = relationship?.deleteRule == .cascadeDeleteRule ? target.value(forKey: key) as? NSManagedObject : nil
        target.setValue(value, forKey: key)
        if let replaced, replaced !== (value as AnyObject?), !replaced.state.isDeleted { replaced.managedObjectContext?.delete(replaced) }
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
    /// and custom accessors see the merge. Between two objects of the plain
    /// `NSManagedObject` class (no accessors to see it) a differing value of the
    /// attribute's own type goes from slot to slot instead, through the steps
    /// `setValue(_:forKey:)` takes for it, without boxing it for `value(forKey:)` and
    /// converting it back.
    private static func copyValues(from source: NSManagedObject, to target: NSManagedObject, all: Bool, in context: NSManagedObjectContext) {
        // (The stored object is the context's: the handles compare without retaining either.)
        let plain = type(of: source) == NSManagedObject.self && type(of: target) == NSManagedObject.self && target.contextHandle === context.handle
        forEachMergeable(from: source, to: target) { slot, targetSlot, isAttribute, table in
            guard all || source.state.changedSlots.contains(slot) else { return }
            if isAttribute {
                target.fulfillFaultIfNeeded()
                // Both objects' values read where they lie, not copied out with their buffers:
                // the caller holds both objects, and nothing below stores into them before
                // the set (the target's slots are read again for each property, as a set may
                // give it a buffer of its own).
                let values = source.state.values.unsafeSlots
                if slotValuesEqual(values, slot, target.state.values.unsafeSlots, targetSlot) { return }
                if plain, target.storesAsGiven(valueIn: values, slot: slot, into: targetSlot) {
                    // Copied out before the set begins (`source` is not `target`).
                    target.setStoredAttributeValue(slot < values.count ? ExactValueReader.copy(values.baseAddress! + slot) : nil, slot: targetSlot, in: context)
                } else {
                    let name = table.names[slot]
                    target.setValue(source.value(forKey: name), forKey: name)
                }
                return
            }
            let name = table.names[slot]
            let value = source.value(forKey: name)
            if !valueEquals(value, target.value(forKey: name)) { setMerged(value, forKey: name, on: target) }
        }
    }

    /// Moves the members of `source`'s to-many relationships to `target`'s.
    private static func moveToManyMembers(from source: NSManagedObject, to target: NSManagedObject) {
        let table = source.entity.propertyTable
        // By index: an entity without relationships costs no retain of their list.
        for index in table.relationships.indices {
            let relationship = table.relationships[index]
            guard relationship.isToMany && !relationship.isTransient else { continue }
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

    /// Takes `object` out of the save: deleted, as Core Data's resolvers delete it
    /// (`deleteObject:`, so its `prepareForDeletion` and delete rules run: an import's
    /// cascade goes with it), or, without `keepingChanges`, a fetched object loses its
    /// changes instead (rollback).
    private static func remove(_ object: NSManagedObject, keepingChanges: Bool, from context: NSManagedObjectContext) {
        if object.state.isInserted || keepingChanges {
            context.delete(object)
        } else {
            context.refresh(object, mergeChanges: false)
        }
    }
}
