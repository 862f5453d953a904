import Foundation

/// The way from a context to its stores. As in Core Data, a context does not talk to a
/// store itself: it hands each request (a fetch, a count, a save, a fault to fulfil, a
/// relationship to read, new objects needing IDs) to its coordinator, which sends it to
/// the store that holds the objects. Each store answers through its engine, the internal
/// ``PersistentStoreEngine`` protocol: SQL for the SQLite, in-memory and binary stores,
/// calls of the public methods for an ``NSIncrementalStore``.
extension NSPersistentStoreCoordinator {
    /// The stores whose configuration holds `entity`.
    func stores(holding entity: NSEntityDescription) -> [NSPersistentStore] {
        persistentStores.filter { store in
            (managedObjectModel.entities(forConfigurationName: store.configurationName) ?? []).contains { $0 === entity }
        }
    }

    /// The results of a fetch of `entity` for `context`, from the one store holding the
    /// entity; from every store's rows, evaluated in memory, when several do (or none).
    func execute<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription, with context: NSManagedObjectContext) throws -> [Any] {
        if let store = onlyStore(holding: entity) {
            return try store.engine.execute(request, entity: entity, in: store, context: context)
        }
        return try context.evaluateFetch(request, entity: entity)
    }

    /// Whether ``execute(_:entity:with:)`` answers a fetch of `entity` with the context's
    /// own ``NSManagedObjectContext/evaluateFetch(_:entity:)``: unless the one store holding
    /// the entity is an ``NSIncrementalStore``, which answers with its own results.
    func evaluatesFetchInContext(of entity: NSEntityDescription) -> Bool {
        guard let store = onlyStore(holding: entity) else { return true }
        return !store.isIncremental
    }

    /// How many objects a fetch of `entity` would return to `context`.
    func count<T>(for request: NSFetchRequest<T>, entity: NSEntityDescription, with context: NSManagedObjectContext) throws -> Int {
        if let store = onlyStore(holding: entity) {
            return try store.engine.count(for: request, entity: entity, in: store, context: context)
        }
        return try context.evaluateCount(request, entity: entity)
    }

    /// The one store holding `entity`, `nil` when several or none do.
    private func onlyStore(holding entity: NSEntityDescription) -> NSPersistentStore? {
        let stores = persistentStores
        if stores.count == 1 {
            let members = managedObjectModel.entities(forConfigurationName: stores[0].configurationName) ?? []
            return members.contains { $0 === entity } ? stores[0] : nil
        }
        let holding = self.stores(holding: entity)
        return holding.count == 1 ? holding[0] : nil
    }

    /// Runs a store request for `context`. A batch request whose objects one store holds
    /// goes to that store's engine (an incremental store receives it in `execute(_:with:)`);
    /// any other request runs as the library implements it. Internal: Core Data's public
    /// method of this name returns `Any` (an array for a fetch), which this one does not.
    func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        let targets = batchTargets(of: request)
        if targets.count == 1 { return try targets[0].engine.execute(request, in: targets[0], context: context) }
        return try request.execute(in: context)
    }

    /// The stores a batch request acts on: its affected stores, else those holding its
    /// entity; none for other requests.
    private func batchTargets(of request: NSPersistentStoreRequest) -> [NSPersistentStore] {
        let entity: NSEntityDescription?
        switch request {
        case let update as NSBatchUpdateRequest: entity = update.entity(in: managedObjectModel)
        case let insert as NSBatchInsertRequest: entity = insert.entity(in: managedObjectModel)
        case let delete as NSBatchDeleteRequest:
            entity = delete.fetchRequest.resolvedEntity(in: managedObjectModel) ?? delete.objectIDs?.first?.entity
            if let affected = request.affectedStores ?? delete.fetchRequest.affectedStores { return affected }
        default: return []
        }
        if let affected = request.affectedStores { return affected }
        return entity.map { stores(holding: $0) } ?? []
    }

    /// The stored rows of `keys` in `store` (those it holds): what fulfils faults.
    func rows(for keys: [StoreKey], in store: NSPersistentStore, context: NSManagedObjectContext?) throws -> [StoreRow] {
        try store.engine.fetchRows(for: keys, context: context)
    }

    /// The stored row of `key` in `store`, `nil` when the store does not hold it.
    func row(for key: StoreKey, in store: NSPersistentStore, context: NSManagedObjectContext?) throws -> StoreRow? {
        try store.engine.fetchRow(for: key, context: context)
    }

    /// Every stored row of `entity` in `store`.
    func rows(of entity: NSEntityDescription, includesSubentities: Bool, in store: NSPersistentStore, context: NSManagedObjectContext?) throws -> [StoreRow] {
        try store.engine.fetchRows(of: entity, includesSubentities: includesSubentities, context: context)
    }

    /// The keys a relationship of the row `source` in `store` leads to.
    func destinationKeys(of relationship: NSRelationshipDescription, from source: StoreKey, in store: NSPersistentStore,
                         context: NSManagedObjectContext?) throws -> [StoreKey] {
        try store.engine.destinationKeys(of: relationship, from: source, context: context)
    }

    /// The rows a to-many relationship of the row `source` in `store` leads to, when the
    /// store reads them in one go (`nil` when it gives keys only).
    func destinationRows(of relationship: NSRelationshipDescription, from source: StoreKey, in store: NSPersistentStore,
                         context: NSManagedObjectContext?) throws -> [StoreRow]? {
        try store.engine.destinationRows(of: relationship, from: source, context: context)
    }

    /// The versions the rows of `keys` have in `store` now (optimistic locking).
    func versions(of keys: [StoreKey], in store: NSPersistentStore, context: NSManagedObjectContext?) throws -> [StoreKey: Int64] {
        try store.engine.versions(of: keys, context: context)
    }

    /// Permanent IDs from `store` for new objects of `context`, one per object in order.
    func obtainPermanentIDs(for objects: [NSManagedObject], in store: NSPersistentStore, context: NSManagedObjectContext) throws -> [NSManagedObjectID] {
        guard !objects.isEmpty else { return [] }
        return try store.engine.obtainPermanentIDs(for: objects, in: store, context: context)
    }

    /// Writes a save plan's work for `store`; returns the rows written.
    func save(_ plan: SavePlan, to store: NSPersistentStore) throws -> StoreSaveResult {
        try store.engine.save(plan, to: store)
    }
}
