import Foundation

/// The requests a context sends through its coordinator, as an ``NSIncrementalStore``
/// receives them: fetches and saves through ``NSIncrementalStore/execute(_:with:)``, new
/// IDs through ``NSIncrementalStore/obtainPermanentIDs(for:)``, row versions through
/// ``NSIncrementalStore/newValuesForObject(with:with:)``. Every call into the store runs
/// through ``serialized(_:)``.
extension IncrementalStoreEngine {
    /// A fetch answered by the store's `execute(_:with:)`, which applies the predicate,
    /// sort descriptors, offset and limit itself (as Core Data requires of it).
    /// The context's unsaved changes to the entity are merged in memory: the store is then
    /// asked for every match without offset or limit, deleted objects are dropped,
    /// inserted and changed objects are tested against the predicate, and the merged list
    /// is sorted and limited. Dictionary results, as in Core Data, leave pending changes out.
    func execute<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription, in persistentStore: NSPersistentStore,
                    context: NSManagedObjectContext) throws -> [Any] {
        let store = try incrementalStore()
        let pending = request.includesPendingChanges && request.resultType != .dictionaryResultType
            ? Self.pendingObjects(of: entity, includesSubentities: request.includesSubentities, in: context) : []
        if pending.isEmpty {
            // As Core Data hands it over: a request the store can cast to
            // NSFetchRequest<NSFetchRequestResult>, whatever its result type in Swift.
            let storeRequest = request.copy(as: NSFetchRequestResult.self)
            storeRequest.entity = entity
            let result = try serialized { try store.execute(storeRequest, with: context) }
            switch request.resultType {
            case .countResultType:
                let numbers = try IncrementalStoreResults.array(result, of: NSNumber.self, store: store, request: request)
                return [numbers.first ?? NSNumber(value: 0)]
            case .managedObjectIDResultType:
                return try IncrementalStoreResults.array(result, of: NSManagedObjectID.self, store: store, request: request)
            case .dictionaryResultType:
                return try IncrementalStoreResults.array(result, of: [String: Any].self, store: store, request: request)
            default:
                let objects = try IncrementalStoreResults.array(result, of: NSManagedObject.self, store: store, request: request)
                if !request.returnsObjectsAsFaults { objects.forEach { $0.fulfillFaultIfNeeded() } }
                return objects
            }
        }
        let everything = request.copy(as: NSFetchRequestResult.self)
        everything.entity = entity
        everything.resultType = .managedObjectResultType
        everything.fetchLimit = 0
        everything.fetchOffset = 0
        let answer = try serialized { try store.execute(everything, with: context) }
        let stored = try IncrementalStoreResults.array(answer, of: NSManagedObject.self, store: store, request: everything)
        let changed = Set(pending.map(ObjectIdentifier.init))
        var merged = stored.filter { !changed.contains(ObjectIdentifier($0)) }
        merged += pending.filter { !$0.state.isDeleted && (request.predicate?.evaluate(with: $0) ?? true) }
        if let descriptors = request.sortDescriptors, !descriptors.isEmpty { merged = sortedObjects(merged, using: descriptors) }
        if request.fetchOffset > 0 { merged = Array(merged.dropFirst(request.fetchOffset)) }
        if request.fetchLimit > 0, merged.count > request.fetchLimit { merged = Array(merged.prefix(request.fetchLimit)) }
        switch request.resultType {
        case .countResultType: return [NSNumber(value: merged.count)]
        case .managedObjectIDResultType: return merged.map(\.objectID)
        default: return merged
        }
    }

    /// A count request answered by the store's `execute(_:with:)`.
    func count<T>(for request: NSFetchRequest<T>, entity: NSEntityDescription, in store: NSPersistentStore,
                  context: NSManagedObjectContext) throws -> Int {
        let counting = request.copy(as: NSNumber.self)
        counting.resultType = .countResultType
        return (try execute(counting, entity: entity, in: store, context: context).first as? NSNumber)?.intValue ?? 0
    }

    /// The inserted, updated and deleted objects of `entity` (or its sub-entities).
    private static func pendingObjects(of entity: NSEntityDescription, includesSubentities: Bool, in context: NSManagedObjectContext) -> [NSManagedObject] {
        guard context.hasChanges else { return [] }
        return (context.inserted.objects + context.updated.objects + context.deleted.objects).filter { object in
            includesSubentities ? object.entity.isKindOf(entity: entity) : object.entity === entity
        }
    }

    /// A batch request handed to the store's `execute(_:with:)`, as Core Data hands every
    /// request to an incremental store: the store runs it (or throws, and its error
    /// reaches the caller unchanged) and returns the request's result object.
    func execute(_ request: NSPersistentStoreRequest, in persistentStore: NSPersistentStore, context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        let store = try incrementalStore()
        let answer = try serialized { try store.execute(request, with: context) }
        guard let result = answer as? NSPersistentStoreResult else {
            throw coreDataError(NSPersistentStoreOperationError, userInfo: [
                NSLocalizedDescriptionKey: "\(type(of: store)) returned a \(type(of: answer)) for a \(type(of: request)), which needs an NSPersistentStoreResult."
            ])
        }
        return result
    }

    /// The store's `obtainPermanentIDs(for:)`, its answer checked: one permanent ID of
    /// the store per object.
    func obtainPermanentIDs(for objects: [NSManagedObject], in persistentStore: NSPersistentStore, context: NSManagedObjectContext) throws -> [NSManagedObjectID] {
        guard !objects.isEmpty else { return [] }
        let store = try incrementalStore()
        let ids = try serialized { try store.obtainPermanentIDs(for: objects) }
        guard ids.count == objects.count else {
            throw coreDataError(NSPersistentStoreOperationError, userInfo: [
                NSLocalizedDescriptionKey: "\(type(of: store)) returned \(ids.count) permanent IDs for \(objects.count) objects."
            ])
        }
        for (object, id) in zip(objects, ids) where id.isTemporaryID || id.persistentStore !== store {
            throw coreDataError(NSPersistentStoreOperationError, userInfo: [
                NSLocalizedDescriptionKey: "\(type(of: store)) returned \(id), which is not a permanent ID of the store, for \(object.objectID)."
            ])
        }
        return ids
    }

    /// The versions of the stores' nodes for `keys`, from `newValuesForObject(with:with:)`:
    /// Core Data's coordinator uses a node's version to detect conflicts.
    func versions(of keys: [StoreKey], context: NSManagedObjectContext?) throws -> [StoreKey: Int64] {
        var result: [StoreKey: Int64] = [:]
        for row in try fetchRows(for: keys, context: context) { result[row.key] = row.version }
        return result
    }

    /// The save as one ``NSSaveChangesRequest``. While the store is held (no other context
    /// reads or writes it in between), the updated and deleted objects' versions are
    /// compared with the store's nodes, and the context's merge policy settles any
    /// conflict, as for a SQLite store; then the new objects get permanent IDs from the
    /// store and the request is executed. Whatever the store throws reaches the caller of
    /// `save()` unchanged.
    func save(_ plan: SavePlan, to persistentStore: NSPersistentStore) throws -> StoreSaveResult {
        let store = try incrementalStore()
        let rows = try serialized { try plan.write(to: store) }
        noteSave()
        return StoreSaveResult(rows: rows)
    }

    /// The store whose methods answer, or an error once it is gone.
    private func incrementalStore() throws -> NSIncrementalStore {
        guard let store else {
            throw coreDataError(NSPersistentStoreOperationError, userInfo: [NSLocalizedDescriptionKey: "The incremental store was removed from its coordinator."])
        }
        return store
    }
}
