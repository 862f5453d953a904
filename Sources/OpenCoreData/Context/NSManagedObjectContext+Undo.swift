import Foundation

/// Undo and redo: each event's changes, recorded with the context's ``NSManagedObjectContext/undoManager``
/// when the event ends, as one action that reverts them.
extension NSManagedObjectContext {
    /// Asks the ``undoManager`` to undo its last group of changes (closing the open group
    /// first). Works after a save too: the context then has the reverse changes to save.
    public func undo() { undoManager?.undo() }

    /// Asks the ``undoManager`` to redo the last undone group of changes.
    public func redo() { undoManager?.redo() }

    /// Follows the undo manager's checkpoints: when a group is about to close, or an undo
    /// or redo is about to run, the context ends its event so that its pending changes
    /// are recorded first (Core Data does the same).
    func observeUndoManager() {
        undoCheckpointObservation.map(NotificationCenter.default.removeObserver)
        undoCheckpointObservation = nil
        guard let undoManager else { return }
        undoCheckpointObservation = NotificationCenter.default.addObserver(
            forName: .NSUndoManagerCheckpoint, object: undoManager, queue: nil
        ) { [handle] _ in
            handle.target?.processPendingChanges()
        }
    }

    /// What reverting one event takes, captured when the event ends.
    struct UndoRecord {
        /// Objects to take out again: inserted, or brought back from deletion, in the event.
        var retracted: [NSManagedObject]
        /// Objects to bring back: deleted in the event (saved or not).
        var restored: [NSManagedObject]
        /// Each changed object with the values its changed properties had before the event.
        var changes: [(object: NSManagedObject, oldValues: EventOldValues)]
    }

    /// The record of `event`, which is still the context's current event (the objects'
    /// old values belong to it); `nil` when nothing is recorded.
    func undoRecord(for event: ChangeEvent) -> UndoRecord? {
        guard let undoManager, undoManager.isUndoRegistrationEnabled else { return nil }
        let changes = event.updated.objects.compactMap { object -> (NSManagedObject, EventOldValues)? in
            guard object.state.eventNumber == eventNumber, !object.state.isEventInsertion else { return nil }
            return (object, object.state.eventOldValues)
        }
        return UndoRecord(retracted: event.inserted.objects + event.undeleted.objects,
                          restored: event.deleted.objects + event.uninserted.objects, changes: changes)
    }

    /// Registers the action that reverts `record` with the undo manager.
    func registerUndo(_ record: UndoRecord) {
        undoManager?.registerUndo(withTarget: self) { context in context.revert(record) }
    }

    /// Reverts one recorded event, as a new event of its own: the undo manager records
    /// that one in turn (on its redo stack while undoing), so redo reverts the revert.
    private func revert(_ record: UndoRecord) {
        for object in record.restored { restoreDeleted(object) }
        for (object, oldValues) in record.changes where object.managedObjectContext === self {
            for (slot, value) in oldValues.all { object.restore(value, slot: slot) }
        }
        for object in record.retracted where object.managedObjectContext === self { retract(object) }
        processPendingChanges()
    }

    /// Brings back a deleted object: undeleted where it is, or inserted again when it had
    /// left the context (an unsaved object, or a saved one whose deletion was saved).
    private func restoreDeleted(_ object: NSManagedObject) {
        guard !object.state.isInvalidated else { return }  // its store is gone
        if object.managedObjectContext == nil {
            reinsert(object)
            return
        }
        guard object.managedObjectContext === self, object.state.isDeleted, deleted.remove(object) else { return }
        deletionsToProcess.remove(object)
        object.state.isDeleted = false
        if object.state.isUpdated { updated.append(object) }
        noteEventUndeletion(of: object)
    }

    /// Takes an object out again: its relationships are emptied (the objects on the
    /// other side are reverted separately) and it is deleted, so that no delete rule
    /// reaches objects the event did not touch.
    private func retract(_ object: NSManagedObject) {
        for relationship in object.entity.propertyTable.relationships where !object.members(of: relationship).isEmpty {
            object.releaseMembers(of: relationship, in: self)
        }
        delete(object)
    }
}

extension NSManagedObject {
    /// Stores `value` back into `slot` as a recorded change, with change notifications.
    func restore(_ value: Any?, slot: Int) {
        let property = state.values.table.all[slot]
        willChangeValue(forKey: property.name)
        willMutate(slot: slot)
        state.values[slot] = value
        if property is NSRelationshipDescription {
            state.noteLoaded(property)
            relationshipStorageDidChange(property.name)
        }
        noteChange(slot: slot)
        didChangeValue(forKey: property.name)
    }
}
