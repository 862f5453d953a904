import Foundation

extension NSManagedObjectContext {
    /// The coordinator a request about `store` goes through: this context's, or (for an
    /// object ID of a store the context's coordinator no longer has) the store's own.
    func storeCoordinator(of store: NSPersistentStore) throws -> NSPersistentStoreCoordinator {
        if let coordinator = persistentStoreCoordinator ?? store.persistentStoreCoordinator { return coordinator }
        throw coreDataError(NSPersistentStoreOperationError, userInfo: [
            NSLocalizedDescriptionKey: "The store \(store.url?.lastPathComponent ?? "(memory)") belongs to no persistent store coordinator."
        ])
    }

    /// The stored rows of `keys` in `store`, read through the coordinator.
    func storedRows(for keys: [StoreKey], in store: NSPersistentStore) throws -> [StoreRow] {
        try storeCoordinator(of: store).rows(for: keys, in: store, context: self)
    }

    /// The stored row of `key` in `store` (`nil` when it is gone), read through the coordinator.
    func storedRow(for key: StoreKey, in store: NSPersistentStore) throws -> StoreRow? {
        try storeCoordinator(of: store).row(for: key, in: store, context: self)
    }

    /// Gives `objects` (all new, all of `store`) the permanent IDs the store makes for
    /// them; ancestors that know an object by its temporary ID move to the new one too.
    func adoptPermanentIDs(for objects: [NSManagedObject], from store: NSPersistentStore) throws {
        guard !objects.isEmpty else { return }
        let ids = try storeCoordinator(of: store).obtainPermanentIDs(for: objects, in: store, context: self)
        for (object, id) in zip(objects, ids) {
            let temporaryID = object.objectID
            register(object, permanentID: id)
            if parent != nil { ancestorsAdopt(id, for: temporaryID) }
        }
    }
}
