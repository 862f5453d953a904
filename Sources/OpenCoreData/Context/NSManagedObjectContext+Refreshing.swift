import Foundation

extension NSManagedObjectContext {
    /// Discards every unsaved change: inserted objects leave, changed ones get their saved
    /// values back, deleted ones are restored. Everything is removed from the undo
    /// manager's stacks, as Core Data documents.
    ///
    /// Pending changes are processed first (their notification is posted); then one
    /// `NSManagedObjectContextObjectsDidChange` reports the rolled-back inserts as deleted,
    /// the restored deletions as inserted and the reverted objects as refreshed.
    public func rollback() {
        processPendingChanges()
        undoManager?.removeAllActions()
        let goneObjects = inserted.objects, restoredObjects = deleted.objects
        for object in goneObjects {
            object.state.isInserted = false
            forget(object)
        }
        var reverted = updated.objects + restoredObjects
        // Objects changed only through delete rules of rolled-back deletions are reverted too.
        let listed = Set(reverted.map(ObjectIdentifier.init))
        reverted += registeredObjects.filter { $0.state.isUpdated && !listed.contains(ObjectIdentifier($0)) }
        for object in reverted { revertToSnapshot(object) }
        inserted = ObjectList(); updated = ObjectList(); deleted = ObjectList(); deletionsToProcess = ObjectList()
        let restored = Set(restoredObjects.map(ObjectIdentifier.init))
        postObjectsDidChange(inserted: restoredObjects, deleted: goneObjects,
                             refreshed: reverted.filter { !restored.contains(ObjectIdentifier($0)) })
    }

    /// Forgets every object: the context is as new, and its undo manager's actions are
    /// removed. Objects you still hold must not be used afterwards.
    ///
    /// Posts `NSManagedObjectContextObjectsDidChange` with ``NSInvalidatedAllObjectsKey``,
    /// whose value is an array of the IDs of the objects the context had.
    public func reset() {
        let objectIDs = registeredObjects.map(\.objectID)
        forgetAll()
        advanceQueryGenerationIfPinned()
        // The recorded actions name objects the context no longer knows.
        undoManager?.removeAllActions()
        NotificationCenter.default.post(name: .NSManagedObjectContextObjectsDidChange, object: self,
                                        userInfo: [NSInvalidatedAllObjectsKey: objectIDs])
    }

    /// Turns `object` back into a fault, or (with `mergeChanges`) reloads its saved values
    /// and re-applies its unsaved changes on top. Transient values survive a merge.
    ///
    /// The next `NSManagedObjectContextObjectsDidChange` lists the object under
    /// ``NSRefreshedObjectsKey``.
    public func refresh(_ object: NSManagedObject, mergeChanges flag: Bool) {
        refresh(object, mergeChanges: flag, reporting: true)
    }

    /// ``refresh(_:mergeChanges:)``, reporting the refresh in the current event or not
    /// (a merge reports its objects itself).
    func refresh(_ object: NSManagedObject, mergeChanges flag: Bool, reporting: Bool) {
        guard object.managedObjectContext === self, !object.state.isInserted, !object.state.isFault else { return }
        if reporting { noteEventRefresh(of: object, discardedChanges: !flag) }
        if flag, object.state.isUpdated {
            let table = object.entity.propertyTable
            let pending = object.state.changedSlots.map { (slot: $0, value: object.state.values[$0]) }
            let transientSlots = table.all.indices.filter { table.all[$0].isTransient }
            let transients = transientSlots.map { object.state.values[$0] }
            guard let row = currentCommittedRow(of: object) else { return }
            object.state.snapshot = row
            object.state.values = row.attributes
            for (slot, value) in zip(transientSlots, transients) { object.state.values[slot] = value }
            object.state.loadedRelationships = SlotSet()
            for (slot, value) in pending {
                object.state.values[slot] = value
                if table.all[slot] is NSRelationshipDescription { object.state.loadedRelationships.insert(slot) }
            }
            object.relationshipsWereReset()
            return
        }
        object.state.isChangingFaultState = true
        defer { object.state.isChangingFaultState = false }
        object.willTurnIntoFault()
        updated.remove(object)
        object.state.values.removeAll()
        object.state.changedSlots.removeAll()
        object.state.isUpdated = false
        object.state.loadedRelationships = SlotSet()
        object.state.isFault = true
        // Hold the cache's current row, which may be newer than the snapshot.
        holdCachedRows(of: [object])
        object.relationshipsWereReset()
        object.didTurnIntoFault()
    }

    /// The saved state of `object` now: its row in the store (from the row cache when it
    /// has it and ``stalenessInterval`` accepts its age), or for a child context what the parent holds; `nil` when it is gone.
    private func currentCommittedRow(of object: NSManagedObject) -> StoreRow? {
        if let parent {
            let id = object.objectID
            let values = parent.performAndWait { parent.valuesForChild(of: id) }
            return values.map { childSnapshot(of: object, attributes: $0) }
        }
        guard let key = object.objectID.storeKey, let store = object.objectID.persistentStore else { return nil }
        // The cached row unless it is older than stalenessInterval allows, as when a fault fires;
        // a context pinned to a query generation reads its snapshot's rows.
        return readingQueryGeneration {
            if let cached = store.rowCache.row(for: key), !isStale(cached) { return cached }
            return readingStore(for: object.objectID) { try storedRow(for: key, in: store) }.map { store.rowCache.store($0) }
        }
    }

    /// Refreshes every registered object, keeping unsaved changes.
    public func refreshAllObjects() {
        for object in registeredObjects { refresh(object, mergeChanges: true) }
    }

    /// Gives `object` its saved values back and clears its change flags.
    private func revertToSnapshot(_ object: NSManagedObject) {
        // An object whose row is gone stays deleted: there is nothing to go back to.
        guard !object.state.isInaccessible else { return }
        object.state.isDeleted = false
        object.state.isUpdated = false
        object.state.changedSlots.removeAll()
        object.state.loadedRelationships = SlotSet()
        object.state.values = object.state.snapshot?.attributes ?? PropertyValues(table: object.entity.propertyTable)
        object.relationshipsWereReset()
    }
}
