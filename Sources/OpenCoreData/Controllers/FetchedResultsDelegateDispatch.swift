import Foundation

/// Which of its callbacks a delegate receives, as Core Data decides it: the snapshot
/// callback when the delegate implements it; else the difference callback when it
/// implements that and the controller has no `sectionNameKeyPath`; else the per-change
/// callbacks (`controllerWillChangeContent`, one call per section and object change,
/// `controllerDidChangeContent`).
struct DelegateMode {
    /// Whether the delegate implements the snapshot callback; nil until found out.
    var snapshot: Bool?
    /// Whether it implements the difference callback; nil until found out.
    var difference: Bool?
}

extension FetchedResultsCore {
    /// Handles `NSManagedObjectContextObjectsDidChange` from the controller's context.
    func contextObjectsDidChange(_ note: Notification) {
        guard sections != nil, delegate != nil, let request else { return }
        let info = note.userInfo ?? [:]
        let changes: FetchedResultsChangeSet?
        if info[NSInvalidatedAllObjectsKey] != nil {
            let fresh = (try? context.fetch(request)) ?? []
            changes = applyChanges(candidates: fresh, removed: fetchedObjects ?? [])
        } else {
            changes = applyChanges(
                candidates: Self.objects(info[NSInsertedObjectsKey]) + Self.objects(info[NSUpdatedObjectsKey]) + Self.objects(info[NSRefreshedObjectsKey]),
                removed: Self.objects(info[NSDeletedObjectsKey]) + Self.objects(info[NSInvalidatedObjectsKey]))
        }
        guard let changes, !changes.isEmpty else { return }
        deliver(changes)
    }

    /// The managed objects of a notification's userInfo value.
    static func objects(_ value: Any?) -> [NSManagedObject] {
        switch value {
        case let set as Set<NSManagedObject>: return Array(set)
        case let array as [NSManagedObject]: return array
        case let set as NSSet: return set.allObjects.compactMap { $0 as? NSManagedObject }
        case let set as Set<AnyHashable>: return set.compactMap { $0.base as? NSManagedObject }
        default: return []
        }
    }

    /// After a fetch, a delegate that implements the snapshot callback receives the
    /// results (Core Data sends the first snapshot from `performFetch`).
    func deliverInitialSnapshot() {
        guard let delegate, let view = delegateView, delegateMode?.snapshot != false else { return }
        let snapshot = makeSnapshot(reloading: [])
        let implemented = DelegateProbe.implemented { delegate.controller(view, didChangeContentWith: snapshot) }
        delegateMode = DelegateMode(snapshot: implemented, difference: delegateMode?.difference)
    }

    /// Sends one event's changes to the delegate in the form it takes.
    func deliver(_ changes: FetchedResultsChangeSet) {
        guard let delegate, let view = delegateView else { return }
        var mode = delegateMode ?? DelegateMode()
        defer { delegateMode = mode }
        if mode.snapshot != false {
            let updated = changes.objectChanges.filter { $0.type == .update || $0.type == .move }.map { $0.object.objectID }
            let snapshot = makeSnapshot(reloading: updated)
            let implemented = DelegateProbe.implemented { delegate.controller(view, didChangeContentWith: snapshot) }
            mode.snapshot = implemented
            if implemented { return }
        }
        if sectionNameKeyPath == nil, mode.difference != false {
            let difference = changes.difference
            let implemented = DelegateProbe.implemented { delegate.controller(view, didChangeContentWith: difference) }
            mode.difference = implemented
            if implemented { return }
        }
        // Core Data's order: object deletions, section insertions, section deletions, object
        // insertions, then moves and updates.
        delegate.controllerWillChangeContent(view)
        for change in changes.objectChanges where change.type == .delete {
            delegate.controller(view, didChange: change.object, at: change.indexPath, for: .delete, newIndexPath: nil)
        }
        for change in changes.sectionChanges where change.type == .insert {
            delegate.controller(view, didChange: change.section, atSectionIndex: change.index, for: .insert)
        }
        for change in changes.sectionChanges where change.type == .delete {
            delegate.controller(view, didChange: change.section, atSectionIndex: change.index, for: .delete)
        }
        for change in changes.objectChanges where change.type != .delete {
            delegate.controller(view, didChange: change.object, at: change.indexPath, for: change.type, newIndexPath: change.newIndexPath)
        }
        delegate.controllerDidChangeContent(view)
    }

    /// The results as a snapshot: section names and object IDs (built when first read).
    func makeSnapshot(reloading reloaded: [NSManagedObjectID]) -> NSDiffableDataSourceSnapshotReference {
        NSDiffableDataSourceSnapshotReference(sections: (sections ?? []).map { ($0.name, $0.members) }, reloading: reloaded)
    }
}
