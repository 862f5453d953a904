import Foundation

extension NSManagedObjectContext {
    /// Brings `contexts` up to date with changes made to the store outside them: by batch
    /// requests, another coordinator or another process.
    ///
    /// `changeNotificationData` holds arrays or sets of `NSManagedObjectID`s (or of their
    /// `uriRepresentation()` URLs) under ``NSInsertedObjectsKey``, ``NSUpdatedObjectsKey``
    /// and ``NSDeletedObjectsKey`` (or the `…ObjectIDsKey` names a did-save notification
    /// uses). In each context, deleted objects leave the context; updated objects that
    /// are loaded are refreshed from the store, keeping their unsaved changes; faults load
    /// the new values when next touched. Each context then posts
    /// `NSManagedObjectContextObjectsDidChange` with the objects concerned, and
    /// `NSManagedObjectContextDidMergeChangesObjectIDs` with their IDs.
    ///
    /// ```swift
    /// let result = try context.execute(batchDelete) as! NSBatchDeleteResult
    /// NSManagedObjectContext.mergeChanges(
    ///     fromRemoteContextSave: [NSDeletedObjectsKey: result.result as! [NSManagedObjectID]],
    ///     into: [context])
    /// ```
    public class func mergeChanges(fromRemoteContextSave changeNotificationData: [AnyHashable: Any], into contexts: [NSManagedObjectContext]) {
        func identifiers(_ keys: String...) -> [Any] {
            keys.flatMap { key -> [Any] in
                guard let value = changeNotificationData[AnyHashable(key)] else { return [] }
                switch value {
                case let array as [Any]: return array
                case let set as Set<NSManagedObject>: return set.map(\.objectID)
                case let set as Set<NSManagedObjectID>: return Array(set)
                case let set as Set<URL>: return Array(set)
                case let set as Set<AnyHashable>: return set.map(\.base)
                case let set as NSSet: return set.allObjects
                case let array as NSArray: return array.map { $0 }
                default: return [value]
                }
            }
        }
        let inserted = identifiers(NSInsertedObjectsKey, NSInsertedObjectIDsKey)
        let updated = identifiers(NSUpdatedObjectsKey, NSUpdatedObjectIDsKey)
        let deleted = identifiers(NSDeletedObjectsKey, NSDeletedObjectIDsKey)
        for context in contexts {
            context.performAndWait {
                // As in Core Data, merging moves a pinned context to the newest generation.
                context.advanceQueryGenerationIfPinned()
                context.mergeRemoteChanges(
                    inserted: inserted.compactMap(context.localObjectID), updated: updated.compactMap(context.localObjectID),
                    deleted: deleted.compactMap(context.localObjectID))
            }
        }
    }

    /// Merges the changes another context saved into this one, from its did-save
    /// notification: `NSManagedObjectContextDidSave` (objects) or
    /// `NSManagedObjectContextDidSaveObjectIDs` (IDs).
    ///
    /// Objects deleted there leave this context; objects updated there and registered
    /// here are refreshed, keeping this context's unsaved changes; inserted ones are
    /// registered (as faults). Then `NSManagedObjectContextObjectsDidChange` reports them.
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave,
    ///                                        object: background, queue: nil) { note in
    ///     viewContext.perform { viewContext.mergeChanges(fromContextDidSave: note) }
    /// }
    /// ```
    public func mergeChanges(fromContextDidSave notification: Notification) {
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: notification.userInfo ?? [:], into: [self])
    }

    /// The ID in this context's coordinator naming what `value` (an ID, possibly of another
    /// coordinator, or its URI) names.
    private func localObjectID(_ value: Any) -> NSManagedObjectID? {
        let uri: URL
        switch value {
        case let id as NSManagedObjectID:
            // Temporary IDs name objects only between a parent and its children.
            if id.isTemporaryID { return parent != nil || registeredObject(for: id) != nil ? id : nil }
            if let store = id.persistentStore, store.persistentStoreCoordinator === persistentStoreCoordinator { return id }
            uri = id.uriRepresentation()
        case let object as NSManagedObject: return localObjectID(object.objectID)
        case let url as URL: uri = url
        case let url as NSURL: uri = url as URL
        default: return nil
        }
        return persistentStoreCoordinator?.managedObjectID(forURIRepresentation: uri)
    }

    private func mergeRemoteChanges(inserted: [NSManagedObjectID], updated: [NSManagedObjectID], deleted: [NSManagedObjectID]) {
        // The context's own pending changes are reported first, in their own notification.
        processPendingChanges()
        var deletedObjects: [NSManagedObject] = []
        for id in deleted {
            if let key = id.storeKey { id.persistentStore?.rowCache.remove(key) }
            guard let object = registeredObject(for: id) else { continue }
            self.updated.remove(object)
            self.deleted.remove(object)
            deletionsToProcess.remove(object)
            object.state.isDeleted = false
            object.state.isUpdated = false
            object.state.changedSlots.removeAll()
            forget(object)
            deletedObjects.append(object)
        }
        var refreshed: [NSManagedObject] = []
        for id in updated {
            if let key = id.storeKey { id.persistentStore?.rowCache.remove(key) }
            guard let object = registeredObject(for: id) else { continue }
            if !object.state.isFault { refresh(object, mergeChanges: true, reporting: false) }
            refreshed.append(object)
        }
        let insertedObjects = inserted.map { object(forPermanentID: $0) }
        postObjectsDidChange(inserted: insertedObjects, updated: refreshed, deleted: deletedObjects)
        guard !deletedObjects.isEmpty || !refreshed.isEmpty || !insertedObjects.isEmpty else { return }
        NotificationCenter.default.post(name: .NSManagedObjectContextDidMergeChangesObjectIDs, object: self, userInfo: [
            NSInsertedObjectIDsKey: Set(insertedObjects.map(\.objectID)), NSUpdatedObjectIDsKey: Set(refreshed.map(\.objectID)),
            NSDeletedObjectIDsKey: Set(deletedObjects.map(\.objectID)),
        ])
    }
}
