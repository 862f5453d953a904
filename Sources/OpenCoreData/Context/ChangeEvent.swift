import Foundation

/// The changes a context collected since its last ``NSManagedObjectContext/processPendingChanges()``:
/// one *event*, in Core Data's words.
///
/// Core Data coalesces the changes of an event before it reports them: an object inserted
/// and deleted in the same event is not reported at all, an object inserted and then
/// changed is reported only as inserted, an object changed and then deleted only as
/// deleted. The lists here keep enough to do that, and to let undo revert the event.
struct ChangeEvent {
    /// Objects inserted in this event (new ones, or unsaved ones put back by undo or redo).
    var inserted = ObjectList()
    /// Saved objects whose deletion was taken back in this event (`insert(_:)` or undo).
    var undeleted = ObjectList()
    /// Objects with a property changed in this event; each holds its old values.
    var updated = ObjectList()
    /// Saved objects deleted in this event.
    var deleted = ObjectList()
    /// Unsaved objects inserted in an earlier event and deleted in this one.
    var uninserted = ObjectList()
    /// Objects refreshed in this event (`refresh(_:mergeChanges:)`).
    var refreshed = ObjectList()

    var isEmpty: Bool {
        inserted.isEmpty && undeleted.isEmpty && updated.isEmpty && deleted.isEmpty && uninserted.isEmpty
            && refreshed.isEmpty
    }

    /// Objects reported as inserted: new ones and saved ones whose deletion was undone.
    var reportedInserted: [NSManagedObject] { undeleted.isEmpty ? inserted.objects : inserted.objects + undeleted.objects }
    /// Objects reported as deleted.
    var reportedDeleted: [NSManagedObject] { uninserted.isEmpty ? deleted.objects : deleted.objects + uninserted.objects }
    /// Objects reported as updated: changed, and neither inserted nor deleted in this event.
    /// Ends the event for its objects in the same walk: clears the old values of the
    /// updated objects and the flag of the deleted ones (see noteEventDeletion), which
    /// belong to this event no longer. A cascade's event lists each of its objects (cold
    /// in memory) as updated and as deleted: one walk over them, not three. Call it after
    /// the undo record, which reads the old values, is taken.
    /// (Mutating: asking the lists about each object brings their tables of positions up to date.)
    mutating func endReportingUpdated() -> [NSManagedObject] {
        let checksOtherLists = !(inserted.isEmpty && undeleted.isEmpty && deleted.isEmpty && uninserted.isEmpty)
        var reported: [NSManagedObject] = []
        if !checksOtherLists { reported.reserveCapacity(updated.count) }
        var flagsCleared = 0
        // The updated list walked in place (a copy of it, borrowed), not copied into an
        // array first: a cascade's event updates every object it deletes, and reports none
        // of them as updated.
        let updated = self.updated
        updated.forEachBorrowed { object in
            // In `deleted` exactly when flagged: no look-up there.
            if object.state.isEventDeletion {
                object.state.isEventDeletion = false
                flagsCleared += 1
            } else if !checksOtherLists || (!inserted.contains(object) && !undeleted.contains(object) && !uninserted.contains(object)) {
                reported.append(object)
            }
            object.state.eventOldValues = EventOldValues()
        }
        // Every deleted object is flagged: when all of them were updated too, none is left.
        if flagsCleared < deleted.count {
            deleted.forEachBorrowed { $0.state.isEventDeletion = false }
        }
        return reported
    }
}

/// The values an object's properties had before their first change in the current event,
/// by slot. The first two are kept inline: most events change one or two properties of an
/// object (a merge of an import into a stored object, two of its four, say), and a bulk
/// update or a merge then allocates nothing per object (the list for a second value, with
/// its tuple type's metadata looked up, was most of recording it). The others go in a
/// short list, looked through slot by slot: an event changes few properties of one object,
/// and a merge that set two or three of each of 5,000 objects made a dictionary for each
/// before.
struct EventOldValues {
    private var firstSlot = -1
    private var firstValue: Any?
    private var secondSlot = -1
    private var secondValue: Any?
    private var others: [(slot: Int, value: Any?)]?

    /// Whether the value of `slot` is recorded.
    func contains(_ slot: Int) -> Bool {
        slot == firstSlot || slot == secondSlot || others?.contains { $0.slot == slot } == true
    }

    /// Records `value` as the old value of `slot` (which must not be recorded yet). The
    /// value is taken, not borrowed: the caller's copy moves in rather than being copied
    /// again (through the generic witnesses of `Any?`) and then freed.
    mutating func record(_ value: consuming Any?, for slot: Int) {
        if firstSlot < 0 {
            firstSlot = slot
            firstValue = consume value
        } else if secondSlot < 0 {
            secondSlot = slot
            secondValue = consume value
        } else if others == nil {
            others = [(slot, consume value)]
        } else {
            others!.append((slot, consume value))
        }
    }

    /// Every recorded slot with its old value, in the order recorded.
    var all: [(slot: Int, value: Any?)] {
        guard firstSlot >= 0 else { return [] }
        guard secondSlot >= 0 else { return [(firstSlot, firstValue)] }
        return [(firstSlot, firstValue), (secondSlot, secondValue)] + (others ?? [])
    }
}
