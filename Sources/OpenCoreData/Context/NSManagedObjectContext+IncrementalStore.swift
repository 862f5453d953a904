import Foundation

extension NSManagedObjectContext {
    /// The incremental store a fetch of `entity` goes to: the one store holding the entity,
    /// when it is an ``NSIncrementalStore`` and this context talks to stores (not a child).
    func incrementalStore(holding entity: NSEntityDescription) -> NSIncrementalStore? {
        guard parent == nil, let coordinator = persistentStoreCoordinator else { return nil }
        let stores = coordinator.persistentStores
        // The usual case, SQLite stores only, costs one pass over a short list.
        guard stores.contains(where: \.isIncremental) else { return nil }
        let holding = stores.filter { store in
            (coordinator.managedObjectModel.entities(forConfigurationName: store.configurationName) ?? []).contains { $0 === entity }
        }
        guard holding.count == 1 else { return nil }
        return holding[0] as? NSIncrementalStore
    }

    /// A fetch answered by an incremental store's `execute(_:with:)`, which applies the
    /// predicate, sort descriptors, offset and limit itself (as Core Data requires of it).
    /// The context's unsaved changes to the entity are merged in memory: the store is then
    /// asked for every match without offset or limit, deleted objects are dropped,
    /// inserted and changed objects are tested against the predicate, and the merged list
    /// is sorted and limited. Dictionary results, as in Core Data, leave pending changes out.
    func fetchFromIncrementalStore<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription, store: NSIncrementalStore) throws -> [Any] {
        let pending = request.includesPendingChanges && request.resultType != .dictionaryResultType
            ? pendingObjects(of: entity, includesSubentities: request.includesSubentities) : []
        if pending.isEmpty {
            // As Core Data hands it over: a request the store can cast to
            // NSFetchRequest<NSFetchRequestResult>, whatever its result type in Swift.
            let storeRequest = request.copy(as: NSFetchRequestResult.self)
            storeRequest.entity = entity
            let result = try store.incrementalEngine.serialized { try store.execute(storeRequest, with: self) }
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
        let answer = try store.incrementalEngine.serialized { try store.execute(everything, with: self) }
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

    /// The inserted, updated and deleted objects of `entity` (or its sub-entities).
    private func pendingObjects(of entity: NSEntityDescription, includesSubentities: Bool) -> [NSManagedObject] {
        guard hasChanges else { return [] }
        return (inserted.objects + updated.objects + deleted.objects).filter { object in
            includesSubentities ? object.entity.isKindOf(entity: entity) : object.entity === entity
        }
    }

    /// Gives `objects` (all new, all of `store`) the permanent IDs the store makes for them.
    func obtainPermanentIDs(for objects: [NSManagedObject], from store: NSIncrementalStore) throws {
        guard !objects.isEmpty else { return }
        let ids = try store.incrementalEngine.serialized { try store.obtainPermanentIDs(for: objects) }
        guard ids.count == objects.count else {
            throw coreDataError(NSPersistentStoreOperationError, userInfo: [
                NSLocalizedDescriptionKey: "\(type(of: store)) returned \(ids.count) permanent IDs for \(objects.count) objects."
            ])
        }
        for (object, id) in zip(objects, ids) {
            guard !id.isTemporaryID, id.persistentStore === store else {
                throw coreDataError(NSPersistentStoreOperationError, userInfo: [
                    NSLocalizedDescriptionKey: "\(type(of: store)) returned \(id), which is not a permanent ID of the store, for \(object.objectID)."
                ])
            }
            let temporaryID = object.objectID
            register(object, permanentID: id)
            if parent != nil { ancestorsAdopt(id, for: temporaryID) }
        }
    }
}
