import Foundation

/// Events: the changes made between two calls of ``NSManagedObjectContext/processPendingChanges()``,
/// reported in one `NSManagedObjectContextObjectsDidChange` notification.
extension NSManagedObjectContext {
    /// Ends the current event: runs the delete rules of objects deleted since the last
    /// call (nullify or cascade), records the event with the
    /// ``undoManager``, and posts `NSManagedObjectContextObjectsDidChange` for it.
    ///
    /// Core Data calls it for you: in ``save()``, at the end of every ``perform(_:)->()``
    /// block, and for a main-queue context at the end of each turn of the main run loop.
    /// Call it yourself to see the notification (or apply delete rules) at once. Deny is
    /// checked at save; no action does nothing.
    public func processPendingChanges() {
        // In rounds: the objects deleted so far, their to-many relationships loaded
        // together (see DeleteRuleLoading.swift), then those a round's cascades deleted.
        while !deletionsToProcess.isEmpty {
            let round = deletionsToProcess.objects
            // A large round in slices of the owners one statement reads, each slice's
            // relationships loaded and then its rules applied while its objects are still
            // in the processor's cache: the last round of a cascade through 100,000 objects
            // (its leaves) walked whole was read from memory once for the loading and again
            // for the rules. The outcome is the same (loading reads the saved rows, which
            // the rules do not change).
            var start = 0
            repeat {
                let end = min(start + Self.deleteRuleSlice, round.count)
                let slice = end - start == round.count ? round : Array(round[start..<end])
                loadDeleteRuleRelationships(of: slice, roundCount: round.count)
                // A rule may take an object of the round back out of the queue (undo,
                // invalidation): only those still waiting are processed.
                // Borrowed: the slice's array keeps its objects alive.
                slice.forEachBorrowed { object in
                    if deletionsToProcess.remove(object) { applyDeleteRules(to: object) }
                }
                start = end
            } while start < round.count
        }
        guard !event.isEmpty else { return }
        var finished = event
        event = ChangeEvent()
        let undoRecord = undoRecord(for: finished)
        eventNumber += 1
        // Reported updates are told from deletions by the objects' flags; the flags and the
        // old values belong to the event that ended no longer (held longer, the old values
        // would keep replaced objects and values alive).
        let reportedUpdated = finished.endReportingUpdated()
        // Objects inserted in the event are no longer new in the next one (see willMutate).
        finished.inserted.forEachBorrowed { $0.state.isEventInsertion = false }
        undoRecord.map(registerUndo)
        postObjectsDidChange(inserted: finished.reportedInserted, updated: reportedUpdated,
                             deleted: finished.reportedDeleted, refreshed: finished.refreshed.objects)
    }

    /// Posts `NSManagedObjectContextObjectsDidChange`, with a key only for each kind of
    /// change that happened, as Core Data does; nothing when nothing changed.
    func postObjectsDidChange(inserted: [NSManagedObject] = [], updated: [NSManagedObject] = [], deleted: [NSManagedObject] = [],
                              refreshed: [NSManagedObject] = [], invalidated: [NSManagedObject] = []) {
        var userInfo: [AnyHashable: Any] = [:]
        for (key, objects) in [(NSInsertedObjectsKey, inserted), (NSUpdatedObjectsKey, updated), (NSDeletedObjectsKey, deleted),
                               (NSRefreshedObjectsKey, refreshed), (NSInvalidatedObjectsKey, invalidated)] where !objects.isEmpty {
            let set = Set(roomy: objects)
            userInfo[key] = set
            // A save's did-save notification may report the same objects (see postDidSaveNotifications).
            if isSaving { reportedChangeSets.record(objects, in: set, as: key) }
        }
        guard !userInfo.isEmpty else { return }
        NotificationCenter.default.post(name: .NSManagedObjectContextObjectsDidChange, object: self, userInfo: userInfo)
    }

    // MARK: Recording an event (called by inserting, deleting and changing objects)

    /// `object` was just inserted; `isNew` when it was in no context before (so in none
    /// of this context's lists).
    func noteEventInsertion(of object: NSManagedObject, isNew: Bool = false) {
        object.state.eventNumber = eventNumber
        object.state.isEventInsertion = true
        object.state.eventOldValues = EventOldValues()
        if isNew { event.inserted.appendNew(object) } else { event.inserted.append(object) }
        scheduleEndOfEvent()
    }

    /// The deletion of the saved `object` was taken back (it was inserted again).
    func noteEventUndeletion(of object: NSManagedObject) {
        if event.deleted.remove(object) {
            object.state.isEventDeletion = false
        } else {
            event.undeleted.append(object)
        }
        scheduleEndOfEvent()
    }

    /// `object` was just deleted. One inserted in this same event goes unreported.
    func noteEventDeletion(of object: NSManagedObject) {
        if object.state.eventNumber == eventNumber, object.state.isEventInsertion {
            event.inserted.remove(object)
            event.updated.remove(object)
        } else if object.state.isInserted {
            event.uninserted.append(object)
        } else if !event.undeleted.remove(object), !object.state.isEventDeletion {
            // Not in the list (the flag says so): no look-up, as a cascade deletes 100,000.
            object.state.isEventDeletion = true
            assert(!event.deleted.contains(object), "an object not marked is in the event's deleted list")
            event.deleted.appendNew(object)
        }
        scheduleEndOfEvent()
    }

    /// A property of `object` (its `slot`) is about to change: keep the value it had when
    /// the event began.
    @inline(__always)
    func noteEventChange(of object: NSManagedObject, slot: Int) {
        if noteEventChangeNeedsOldValue(of: object, slot: slot) {
            object.state.eventOldValues.record(object.state.values[slot], for: slot)
        }
    }

    /// ``noteEventChange(of:slot:)`` but for keeping the old value: whether the caller must
    /// record it (`object.state.eventOldValues.record(_:for:)`) before storing the new one,
    /// for a caller that moves it out of the slot as it stores the new value.
    @inline(__always)
    func noteEventChangeNeedsOldValue(of object: NSManagedObject, slot: Int) -> Bool {
        if object.state.eventNumber == eventNumber {
            if object.state.isEventInsertion { return false }
        } else {
            object.state.eventNumber = eventNumber
            object.state.isEventInsertion = false
            object.state.eventOldValues = EventOldValues()
            // Not in the event's updated list: an object enters it only here, with the
            // event's number, which leaves it only as it leaves the list (see
            // noteEventRefresh). No look-up: a cascade updates every object it deletes.
            assert(!event.updated.contains(object), "an object with an older event number is in the event")
            event.updated.appendNew(object)
            scheduleEndOfEvent()
        }
        return !object.state.eventOldValues.contains(slot)
    }

    /// `object` was refreshed; `discardedChanges` when its unsaved changes are gone.
    func noteEventRefresh(of object: NSManagedObject, discardedChanges: Bool) {
        if discardedChanges, object.state.eventNumber == eventNumber, !object.state.isEventInsertion {
            event.updated.remove(object)
            object.state.eventNumber = -1
        }
        event.refreshed.append(object)
        scheduleEndOfEvent()
    }

    /// A main-queue context ends its event when the main run loop next turns, as Core
    /// Data's does at the end of each run loop cycle. Nothing runs until the program lets
    /// the main queue run (`RunLoop.main.run(until:)`, `dispatchMain()`).
    private func scheduleEndOfEvent() {
        guard concurrencyType == .mainQueueConcurrencyType, !isEndOfEventScheduled else { return }
        isEndOfEventScheduled = true
        DispatchQueue.main.async { [handle] in
            guard let self = handle.target else { return }
            self.isEndOfEventScheduled = false
            self.processPendingChanges()
        }
    }
}
