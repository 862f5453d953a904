import Foundation

extension NSManagedObjectContext {
    /// Starts or stops observing the saves ``automaticallyMergesChangesFromParent`` merges.
    func observeSavesToMerge() {
        automaticMergeObservation.map(NotificationCenter.default.removeObserver)
        automaticMergeObservation = nil
        guard automaticallyMergesChangesFromParent else { return }
        automaticMergeObservation = NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextDidSave, object: nil, queue: nil
        ) { [handle] notification in
            guard let self = handle.target, let saver = notification.object as? NSManagedObjectContext, self.mergesSaves(of: saver) else { return }
            // The notification arrives on the saver's queue; the merge runs on ours.
            let userInfo = notification.userInfo ?? [:]
            let ids = Self.objectIDs(in: userInfo)
            self.perform { NSManagedObjectContext.mergeChanges(fromRemoteContextSave: ids, into: [self]) }
        }
    }

    /// Whether a save of `saver` is one this context merges automatically: its parent's,
    /// or, for a context with no parent, any other parentless context's on the same coordinator.
    private func mergesSaves(of saver: NSManagedObjectContext) -> Bool {
        guard saver !== self else { return false }
        if let parent { return saver === parent }
        return saver.parent == nil && saver.persistentStoreCoordinator === persistentStoreCoordinator && persistentStoreCoordinator != nil
    }

    /// A did-save notification's objects as IDs, which may cross to another queue (the
    /// objects themselves may not).
    static func objectIDs(in userInfo: [AnyHashable: Any]) -> [AnyHashable: Any] {
        var ids: [AnyHashable: Any] = [:]
        for (key, idKey) in [(NSInsertedObjectsKey, NSInsertedObjectIDsKey), (NSUpdatedObjectsKey, NSUpdatedObjectIDsKey),
                             (NSDeletedObjectsKey, NSDeletedObjectIDsKey)] {
            if let objects = userInfo[key] as? Set<NSManagedObject> { ids[idKey] = objects.map(\.objectID) }
        }
        return ids
    }

    /// Whether cached `row` is older than ``stalenessInterval`` allows.
    func isStale(_ row: StoreRow) -> Bool {
        stalenessInterval >= 0 && ProcessInfo.processInfo.systemUptime - row.timestamp > stalenessInterval
    }
}
