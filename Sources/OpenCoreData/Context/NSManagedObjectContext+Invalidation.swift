import Foundation

/// Objects whose store leaves the coordinator are *invalidated*: the context lets go of
/// them and reports them under ``NSInvalidatedObjectsKey``.
extension NSManagedObjectContext {
    /// Follows the coordinator's stores-did-change notification.
    func observeCoordinator() {
        coordinatorObservation.map(NotificationCenter.default.removeObserver)
        coordinatorObservation = nil
        guard let coordinator = persistentStoreCoordinator else { return }
        coordinatorObservation = NotificationCenter.default.addObserver(
            forName: .NSPersistentStoreCoordinatorStoresDidChange, object: coordinator, queue: nil
        ) { [handle] notification in
            guard let self = handle.target, let removed = notification.userInfo?[NSRemovedPersistentStoresKey] as? [NSPersistentStore], !removed.isEmpty
            else { return }
            self.performAndWait { self.invalidateObjects(of: removed) }
        }
    }

    /// Turns the objects of `stores` into faults that can no longer be fulfilled, drops
    /// their unsaved changes, forgets them, and posts `NSManagedObjectContextObjectsDidChange`
    /// with them under ``NSInvalidatedObjectsKey`` (after the pending changes of the others).
    func invalidateObjects(of stores: [NSPersistentStore]) {
        let gone = Set(stores.map(ObjectIdentifier.init))
        func isGone(_ object: NSManagedObject) -> Bool {
            object.objectID.persistentStore.map { gone.contains(ObjectIdentifier($0)) } ?? false
        }
        guard registeredObjects.contains(where: isGone) else { return }
        processPendingChanges()
        let invalidated = registeredObjects.filter(isGone)
        for object in invalidated {
            inserted.remove(object); updated.remove(object); deleted.remove(object); deletionsToProcess.remove(object)
            object.state.isInserted = false
            object.state.isUpdated = false
            object.state.isDeleted = false
            object.state.changedSlots.removeAll()
            object.state.values.removeAll()
            object.state.loadedRelationships = SlotSet()
            object.state.heldRow = nil
            object.state.isFault = true
            object.state.isInvalidated = true
            object.relationshipsWereReset()
            forget(object)
        }
        postObjectsDidChange(invalidated: Array(invalidated))
    }
}
