import Foundation

/// What the built-in merge policies do with one optimistic-locking conflict (the error
/// policy never gets here: it throws).
///
/// - An object whose row was deleted in the store (new version 0): the deletion wins,
///   the object's changes are dropped and it leaves the context as a deleted object when
///   the save finishes; except under overwrite, which saves the object again (see
///   ``putBack(_:in:)``).
/// - An object the context deleted but the store changed: the deletion is kept, except
///   under rollback and store trump, which discard it and give the object the store's
///   values (Core Data's `_mergeChangesStoreUpdatesTrumpForObject:withRecord:`, decompiled
///   for iOS 26, inserts a deleted object back into its context, for every app built
///   with a current SDK).
/// - An object changed on both sides:
///   - merge by property, object trump: the context's changed properties win, every other
///     property takes the store's value;
///   - merge by property, store trump: properties the store changed take the store's
///     value, the context's other changes are kept;
///   - overwrite: the context's whole object is written over the row;
///   - rollback: the context's changes are discarded for the store's values.
///
/// A one-to-many relationship is kept on the "many" side (each destination's foreign
/// key), so members added on both sides are all kept; the object reloads the relationship
/// from the store after the save.
enum OptimisticLockingResolution {
    static func resolve(_ conflict: NSMergeConflict, as type: NSMergePolicyType) {
        let object = conflict.sourceObject
        guard let context = object.managedObjectContext else { return }
        guard let row = conflict.currentRow else {
            if type == .overwriteMergePolicyType, !object.state.isDeleted, !object.state.isInserted {
                putBack(object, in: context)
            } else {
                acceptStoreDeletion(of: object, in: context)
            }
            return
        }
        let old = object.state.snapshot
        if object.state.isDeleted {
            object.state.snapshot = row
            if type == .rollbackMergePolicyType || type == .mergeByPropertyStoreTrumpMergePolicyType {
                restoreDeleted(object, to: row, in: context)
            }
            return
        }
        let table = object.entity.propertyTable
        let slots = table.persistentSlots + table.relationships.filter { !$0.isToMany && !$0.isTransient }.map { table.slotByName[$0.name]! }
        object.state.snapshot = row
        switch type {
        case .errorMergePolicyType:
            return
        case .overwriteMergePolicyType:
            for slot in slots { object.state.changedSlots.insert(slot) }
        case .mergeByPropertyObjectTrumpMergePolicyType:
            for slot in slots where !object.state.changedSlots.contains(slot) { takeStoreValue(slot, of: object, from: row) }
        case .mergeByPropertyStoreTrumpMergePolicyType:
            for slot in slots where storeChanged(slot, table: table, old: old, new: row) || !object.state.changedSlots.contains(slot) {
                takeStoreValue(slot, of: object, from: row)
                object.state.changedSlots.remove(slot)
            }
        case .rollbackMergePolicyType:
            for slot in slots { takeStoreValue(slot, of: object, from: row) }
            object.state.changedSlots.removeAll()
            object.state.isUpdated = false
            context.updated.remove(object)
        }
        unloadOneToMany(object)
        // Still updated (the version moves on) so its row gets the merged values.
        if type != .rollbackMergePolicyType, !object.state.isUpdated {
            object.state.isUpdated = true
            context.updated.append(object)
        }
    }

    /// Whether the store's row changed the property in `slot` since `old` was read.
    private static func storeChanged(_ slot: Int, table: EntityPropertyTable, old: StoreRow?, new: StoreRow) -> Bool {
        guard let old else { return true }
        if let relationship = table.all[slot] as? NSRelationshipDescription {
            return old.toOne[relationship.name] != new.toOne[relationship.name]
        }
        return !valueEquals(old.attributes[slot], new.attributes[slot])
    }

    /// Gives the object the row's value for `slot`: an attribute's value, or a to-one that
    /// reloads from the new snapshot.
    private static func takeStoreValue(_ slot: Int, of object: NSManagedObject, from row: StoreRow) {
        let property = object.entity.propertyTable.all[slot]
        if property is NSRelationshipDescription {
            object.state.values[slot] = nil
            object.state.noteUnloaded(property)
        } else {
            object.state.values[slot] = row.attributes[slot]
        }
    }

    /// Forgets the loaded members of one-to-many relationships: the store's members and
    /// the context's (whose foreign keys this save writes) are read back together.
    private static func unloadOneToMany(_ object: NSManagedObject) {
        let table = object.entity.propertyTable
        for relationship in table.relationships where relationship.isToMany && !(relationship.inverseRelationship?.isToMany ?? true) {
            guard object.state.hasLoaded(relationship) else { continue }
            object.state.noteUnloaded(relationship)
            object.state.values[table.slotByName[relationship.name]!] = nil
            object.state.changedSlots.remove(table.slotByName[relationship.name]!)
        }
        object.relationshipsWereReset()
    }

    /// The row is gone: the object's changes are dropped and it ends the save deleted.
    private static func acceptStoreDeletion(of object: NSManagedObject, in context: NSManagedObjectContext) {
        object.state.changedSlots.removeAll()
        object.state.isUpdated = false
        object.state.isInaccessible = true
        context.updated.remove(object)
        if !object.state.isDeleted {
            object.state.isDeleted = true
            context.deleted.append(object)
        }
    }

    /// Overwrite against a row another context or process deleted: the whole object goes
    /// back to the store, under the same object ID, as a row inserted by this save. Core
    /// Data forces the insertion of such an object (decompiled `NSMergePolicy`, iOS 26:
    /// `resolveOptimisticLockingVersionConflicts:error:` calls `_forceInsertionForObject:`
    /// for an object neither deleted nor inserted), as the policy's documentation says: it
    /// pushes "the entire in-memory object to the persistent store".
    private static func putBack(_ object: NSManagedObject, in context: NSManagedObjectContext) {
        context.updated.remove(object)
        object.state.isUpdated = false
        object.state.isInserted = true
        context.inserted.append(object)
        for slot in object.entity.propertyTable.persistentSlots { object.state.changedSlots.insert(slot) }
    }

    /// Rollback of a deletion the store disagrees with: the object is back, with the row's values.
    private static func restoreDeleted(_ object: NSManagedObject, to row: StoreRow, in context: NSManagedObjectContext) {
        context.deleted.remove(object)
        object.state.isDeleted = false
        object.state.isUpdated = false
        object.state.changedSlots.removeAll()
        object.state.loadedRelationships = SlotSet()
        object.state.values = row.attributes
        object.relationshipsWereReset()
    }
}
