import Foundation

/// Child contexts: a context whose ``NSManagedObjectContext/parent`` is set reads through
/// its parent and saves into it.
///
/// Every read a child cannot answer from its own objects goes to the parent, on the
/// parent's queue (``NSManagedObjectContext/performAndWait(_:)``): a fault takes the
/// values the parent's object has now, saved or not; a relationship the members the
/// parent's object has; a fetch the objects the parent would fetch, including its
/// unsaved inserts and without its unsaved deletions. What crosses between the two
/// contexts is values and object IDs, never objects.
extension NSManagedObjectContext {
    // MARK: Reading through the parent

    /// Whether the chain of ancestors has an object with the temporary ID `id`.
    func parentKnows(_ id: NSManagedObjectID) -> Bool {
        guard let parent else { return false }
        return parent.performAndWait { parent.objectForChild(id) != nil }
    }

    /// This context's object for an ID a child uses: registered here, known here by a
    /// temporary ID the object had when a child saved it, a fault for a permanent ID, or
    /// (for a temporary ID) one an ancestor knows. `nil` when nobody knows the ID.
    func objectForChild(_ id: NSManagedObjectID) -> NSManagedObject? {
        if let registered = registeredObject(for: id) { return registered }
        if let entry = idsFromChildren[ObjectIdentifier(id)] {
            if let registered = registeredObject(for: entry.current) { return registered }
            if !entry.current.isTemporaryID { return object(with: entry.current) }
        }
        if !id.isTemporaryID { return object(with: id) }
        return parentKnows(id) ? registerFault(temporary: id) : nil
    }

    /// Whether this context has (or could load) the object a child names `id`, without
    /// loading it: a fault firing on a missing row would mark it deleted here.
    func hasObjectForChild(_ id: NSManagedObjectID) throws -> Bool {
        var id = id
        if let registered = registeredObject(for: id) ?? idsFromChildren[ObjectIdentifier(id)].flatMap({ registeredObject(for: $0.current) }) {
            if !registered.state.isFault { return !registered.state.isInaccessible }
            id = registered.objectID
        } else if let entry = idsFromChildren[ObjectIdentifier(id)] {
            id = entry.current
        }
        if let parent { return try parent.performAndWait { try parent.hasObjectForChild(id) } }
        guard let key = id.storeKey, let store = id.persistentStore else { return false }
        return try readingQueryGeneration {
            if store.rowCache.row(for: key) != nil { return true }
            return try !storedRows(for: [key], in: store).isEmpty
        }
    }

    /// What a child's fault loads: the persistent attribute values of this context's
    /// object now, or `nil` when the object is gone (deleted and saved, or never known).
    func valuesForChild(of id: NSManagedObjectID) -> PropertyValues? {
        guard let object = objectForChild(id) else { return nil }
        object.fulfillFaultIfNeeded()
        guard !object.state.isInaccessible else { return nil }
        return persistentAttributes(of: object)
    }

    /// The persistent attribute values of `object` (relationships and transients left out).
    func persistentAttributes(of object: NSManagedObject) -> PropertyValues {
        let table = object.entity.propertyTable
        var values = PropertyValues(table: table)
        for slot in table.persistentSlots where table.all[slot] is NSAttributeDescription {
            if let value = object.state.values[slot] { values[slot] = value }
        }
        return values
    }

    /// The IDs of the members of `relationship` of the object a child names `id`.
    private func memberIDsForChild(of id: NSManagedObjectID, relationship: NSRelationshipDescription) -> [NSManagedObjectID] {
        guard let object = objectForChild(id) else { return [] }
        object.fulfillFaultIfNeeded()
        guard !object.state.isInaccessible else { return [] }
        return object.members(of: relationship).map(\.objectID)
    }

    /// Loads a fault of a child context from the parent's object.
    func fulfillFaultFromParent(_ object: NSManagedObject) {
        guard let parent else { return }
        let id = object.objectID
        fill(object, with: parent.performAndWait { parent.valuesForChild(of: id) })
    }

    /// Loads the faults among `objects` from the parent in one visit to its queue, so that
    /// evaluating a fetch over many objects costs one hop, not one per object.
    func fulfillFaultsFromParent(_ objects: [NSManagedObject]) {
        guard let parent else { return }
        let faults = objects.filter { $0.state.isFault }
        guard faults.count > 1 else { return }
        let ids = faults.map(\.objectID)
        let values = parent.performAndWait { ids.map { parent.valuesForChild(of: $0) } }
        for (object, objectValues) in zip(faults, values) where object.state.isFault { fill(object, with: objectValues) }
    }

    /// Gives a fault the values its parent handed over, or marks it inaccessible (`nil`).
    private func fill(_ object: NSManagedObject, with parentValues: PropertyValues?) {
        guard let values = parentValues else {
            markInaccessible(object)
            return
        }
        object.state.snapshot = childSnapshot(of: object, attributes: values)
        object.state.heldRow = nil
        object.state.values = values
        object.state.loadedRelationships = SlotSet()
        object.relationshipsWereReset()
        object.state.isFault = false
        object.state.isChangingFaultState = true
        object.awakeFromFetch()
        object.state.isChangingFaultState = false
    }

    /// The committed state of an object of a child context: what its parent holds now.
    /// Its key is a placeholder when the object has a temporary ID (a child never writes rows).
    func childSnapshot(of object: NSManagedObject, attributes: PropertyValues) -> StoreRow {
        StoreRow(key: object.objectID.storeKey ?? StoreKey(entityNumber: 0, primaryKey: 0), entity: object.entity,
                 version: object.state.snapshot?.version ?? 0, attributes: attributes, toOne: [:])
    }

    /// A relationship of an object of a child context: the members the parent's object has.
    func loadRelationshipFromParent(_ relationship: NSRelationshipDescription, of object: NSManagedObject) -> Any? {
        guard let parent else { return nil }
        let id = object.objectID
        let ids = parent.performAndWait { parent.memberIDsForChild(of: id, relationship: relationship) }
        let members = ids.compactMap { objectForID(fromParent: $0) }
        if !relationship.isToMany { return members.first }
        return relationship.isOrdered ? NSOrderedSet(array: members) : Set(members)
    }

    /// This context's object for an ID its parent handed over.
    private func objectForID(fromParent id: NSManagedObjectID) -> NSManagedObject? {
        if let registered = registeredObject(for: id) { return registered }
        if id.isTemporaryID { return registerFault(temporary: id) }
        return object(with: id)
    }

    /// ``existingObject(with:)`` in a child context: the object, loaded through the parent.
    func existingObjectThroughParent(with objectID: NSManagedObjectID) throws -> NSManagedObject {
        let object: NSManagedObject
        if let registered = registeredObject(for: objectID) {
            object = registered
        } else if objectID.isTemporaryID {
            guard parentKnows(objectID) else {
                throw coreDataError(NSManagedObjectReferentialIntegrityError, userInfo: ["objectID": objectID])
            }
            object = registerFault(temporary: objectID)
        } else {
            object = self.object(with: objectID)
        }
        object.fulfillFaultIfNeeded()
        if object.state.isInaccessible {
            throw coreDataError(NSManagedObjectReferentialIntegrityError, userInfo: ["objectID": objectID])
        }
        return object
    }

    /// The IDs of every object of `entity` this context would fetch, before any predicate:
    /// the stores' rows (or the parent's answer), without this context's deletions and
    /// with its insertions.
    func candidateIDs(of entity: NSEntityDescription, includesSubentities: Bool) throws -> [NSManagedObjectID] {
        var ids: [NSManagedObjectID]
        if let parent {
            ids = try parent.performAndWait { try parent.candidateIDs(of: entity, includesSubentities: includesSubentities) }
        } else {
            ids = []
            for store in persistentStoreCoordinator?.persistentStores ?? [] {
                guard let coordinator = persistentStoreCoordinator,
                    (coordinator.managedObjectModel.entities(forConfigurationName: store.configurationName) ?? []).contains(where: { $0 === entity })
                else { continue }
                let rows = try readingQueryGeneration { store.rowCache.store(try coordinator.rows(of: entity, includesSubentities: includesSubentities, in: store, context: self)) }
                ids += rows.compactMap { coordinator.objectID(for: $0.key, in: store) }
            }
        }
        if !deleted.isEmpty {
            let gone = Set(deleted.objects.map(\.objectID))
            ids.removeAll { gone.contains($0) }
        }
        for object in inserted.objects where !object.state.isDeleted {
            let matches = includesSubentities ? object.entity.isKindOf(entity: entity) : object.entity === entity
            if matches { ids.append(object.objectID) }
        }
        return ids
    }

    /// The objects of this (child) context for `ids`, registering faults as needed.
    func objects(forParentIDs ids: [NSManagedObjectID]) -> [NSManagedObject] {
        ids.compactMap { objectForID(fromParent: $0) }
    }
}
