import Foundation

/// What a child context's save hands its parent: each changed object as its ID, class
/// and the values of the properties that changed, relationships as object IDs.
struct ChildChanges {
    struct Change {
        let objectID: NSManagedObjectID
        let objectClass: NSManagedObject.Type
        /// Attribute values in their public form (`nil` for no value).
        var attributes: [(name: String, value: Any?)] = []
        /// Each changed relationship's members, in order for an ordered to-many.
        var relationships: [(relationship: NSRelationshipDescription, members: [NSManagedObjectID])] = []
    }
    var inserted: [Change] = []
    var updated: [Change] = []
    var deleted: [NSManagedObjectID] = []
}

extension NSManagedObjectContext {
    /// The save of a child context: its changes go into `parent` (not to the stores), as
    /// if made there, and the child's objects become unchanged. Objects the child
    /// inserted keep their temporary IDs here even after the parent saves them: give them
    /// permanent IDs with ``obtainPermanentIDs(for:)`` to name them in both contexts.
    func save(into parent: NSManagedObjectContext) throws {
        let insertedNow = inserted.objects, updatedNow = updated.objects.filter { object in
            object.state.changedSlots.contains { !object.entity.propertyTable.all[$0].isTransient }
        }
        let deletedNow = deleted.objects
        var changes = ChildChanges()
        changes.inserted = insertedNow.map { describe($0, allProperties: true) }
        changes.updated = updatedNow.map { describe($0, allProperties: false) }
        changes.deleted = deletedNow.filter { !$0.state.isInaccessible }.map(\.objectID)
        try parent.performAndWait { try parent.accept(changes) }

        for object in insertedNow + updated.objects {
            object.state.isInserted = false
            object.state.isUpdated = false
            object.state.changedSlots.removeAll()
            object.state.snapshot = childSnapshot(of: object, attributes: persistentAttributes(of: object))
        }
        for object in deletedNow {
            object.state.isDeleted = false
            forget(object)
        }
        inserted = ObjectList(); updated = ObjectList(); deleted = ObjectList()
        isSaving = false  // the save is done: its did-save observers may save again
        postDidSaveNotifications(inserted: insertedNow, updated: updatedNow, deleted: deletedNow)
        for object in insertedNow + updatedNow + deletedNow { object.didSave() }
    }

    /// The changed (or, for an inserted object, all set) persistent properties of `object`.
    private func describe(_ object: NSManagedObject, allProperties: Bool) -> ChildChanges.Change {
        var change = ChildChanges.Change(objectID: object.objectID, objectClass: type(of: object))
        let table = object.entity.propertyTable
        for (slot, property) in table.all.enumerated() where !property.isTransient {
            guard allProperties || object.state.changedSlots.contains(slot) else { continue }
            if let relationship = property as? NSRelationshipDescription {
                // An inserted object's untouched relationships are empty; nothing to hand over.
                guard !allProperties || object.state.changedSlots.contains(slot) else { continue }
                change.relationships.append((relationship, object.members(of: relationship).map(\.objectID)))
            } else {
                change.attributes.append((property.name, object.publicValue(object.state.values[slot], for: property)))
            }
        }
        return change
    }

    /// Applies a child's saved changes to this context, as if they were made here.
    ///
    /// Throws ``NSManagedObjectReferentialIntegrityError`` (133000), changing nothing, when
    /// the child changed or pointed at an object that is gone here (deleted and saved).
    func accept(_ changes: ChildChanges) throws {
        var created: [ObjectIdentifier: NSManagedObject] = [:]
        let insertedIDs = Set(changes.inserted.map { ObjectIdentifier($0.objectID) })
        func target(_ id: NSManagedObjectID) -> NSManagedObject? {
            if let object = created[ObjectIdentifier(id)] { return object }
            guard let object = objectForChild(id) else { return nil }
            object.fulfillFaultIfNeeded()
            return object.state.isInaccessible ? nil : object
        }
        // Check first, so that a failed save leaves this context as it was.
        var missing: [NSManagedObjectID] = []
        for change in changes.updated where try !hasObjectForChild(change.objectID) { missing.append(change.objectID) }
        for change in changes.inserted + changes.updated {
            for (_, members) in change.relationships {
                for id in members where try !insertedIDs.contains(ObjectIdentifier(id)) && !hasObjectForChild(id) { missing.append(id) }
            }
        }
        if !missing.isEmpty {
            throw coreDataError(NSManagedObjectReferentialIntegrityError, userInfo: [
                NSLocalizedDescriptionKey: "The parent context no longer has \(missing.count == 1 ? "an object" : "objects") the child saved changes to.",
                NSAffectedObjectsErrorKey: missing,
            ])
        }
        for change in changes.inserted {
            let entity = change.objectID.entity
            let object = change.objectClass.init(entity: entity, insertInto: nil)
            object.objectID = change.objectID
            insert(object)
            if change.objectID.isTemporaryID {
                idsFromChildren[ObjectIdentifier(change.objectID)] = (change.objectID, change.objectID)
            } else {
                register(object, permanentID: change.objectID)
            }
            created[ObjectIdentifier(change.objectID)] = object
        }
        for change in changes.inserted + changes.updated {
            guard let object = target(change.objectID) else { continue }
            for (name, value) in change.attributes { object.setValue(value, forKey: name) }
            for (relationship, ids) in change.relationships {
                let members = ids.compactMap(target)
                if !relationship.isToMany {
                    object.setValue(members.first, forKey: relationship.name)
                } else if relationship.isOrdered {
                    object.setValue(NSOrderedSet(array: members), forKey: relationship.name)
                } else {
                    object.setValue(Set(members), forKey: relationship.name)
                }
            }
        }
        for id in changes.deleted {
            if let object = target(id), !object.isDeleted { delete(object) }
        }
        processPendingChanges()
    }

    /// The permanent ID an ancestor gave the object a child names by `temporaryID`, if any.
    func permanentIDInAncestors(of temporaryID: NSManagedObjectID) -> NSManagedObjectID? {
        guard let parent else { return nil }
        return parent.performAndWait {
            if let object = parent.objectForChild(temporaryID), !object.objectID.isTemporaryID { return object.objectID }
            return parent.permanentIDInAncestors(of: temporaryID)
        }
    }

    /// Every ancestor that knows an object by `temporaryID` moves it to `permanentID`.
    func ancestorsAdopt(_ permanentID: NSManagedObjectID, for temporaryID: NSManagedObjectID) {
        guard let parent else { return }
        parent.performAndWait {
            if let object = parent.registeredObject(for: temporaryID) {
                parent.register(object, permanentID: permanentID)
            }
            parent.ancestorsAdopt(permanentID, for: temporaryID)
        }
    }
}
