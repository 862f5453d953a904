import Foundation

extension NSManagedObjectContext {
    /// The objects (or IDs, dictionaries or count, per the request's `resultType`) that
    /// match `request`, taking the context's unsaved changes into account.
    ///
    /// A request whose entity name the model does not know stops the program, as Core
    /// Data raises an exception for it.
    public func fetch<T>(_ request: NSFetchRequest<T>) throws -> [T] {
        // A typed request names the program's class: remember its module for class lookup.
        if let type = T.self as? NSManagedObject.Type { ManagedObjectClasses.noteClass(type) }
        let entity = resolveEntity(of: request)
        let objects = request.resultType == .dictionaryResultType ? [] : try matchingObjects(entity: entity, request: request)
        let results: [Any]
        switch request.resultType {
        case .countResultType:
            results = [NSNumber(value: objects.count)]
        case .managedObjectIDResultType:
            results = objects.map(\.objectID)
        case .dictionaryResultType:
            results = try dictionaryResults(for: request, entity: entity)
        default:
            if !request.returnsObjectsAsFaults { objects.forEach { $0.fulfillFaultIfNeeded() } }
            results = objects
        }
        return results.map { result in
            guard let typed = result as? T else {
                fatalError("NSFetchRequest<\(T.self)> cannot return \(type(of: result)) results; match its result type to its resultType.")
            }
            return typed
        }
    }

    /// How many objects `request` would return.
    public func count<T>(for request: NSFetchRequest<T>) throws -> Int {
        let entity = resolveEntity(of: request)
        return try matchingObjects(entity: entity, request: request).count
    }

    /// The request's entity, from the request or by name from the model.
    private func resolveEntity<T>(of request: NSFetchRequest<T>) -> NSEntityDescription {
        if let entity = request.entity { return entity }
        guard let name = request.entityName else {
            raiseCoreDataException(.internalInconsistency, "executeFetchRequest:error: A fetch request must have an entity.")
        }
        guard let entity = persistentStoreCoordinator?.managedObjectModel.entitiesByName[name] else {
            raiseCoreDataException(.internalInconsistency, "NSFetchRequest could not locate an NSEntityDescription for entity name '\(name)'")
        }
        return entity
    }

    /// The objects matching the request, filtered, sorted and limited.
    private func matchingObjects<T>(entity: NSEntityDescription, request: NSFetchRequest<T>) throws -> [NSManagedObject] {
        var candidates: [NSManagedObject] = []
        let stores = persistentStoreCoordinator?.persistentStores ?? []
        for store in stores {
            let members = persistentStoreCoordinator?.managedObjectModel.entities(forConfigurationName: store.configurationName) ?? []
            guard members.contains(where: { $0 === entity }) else { continue }
            let rows = try store.engine.fetchRows(of: entity, includesSubentities: request.includesSubentities)
            store.rowCache.store(rows)
            candidates.reserveCapacity(candidates.count + rows.count)
            for row in rows {
                let object = object(for: row.key, in: store)
                if request.shouldRefreshRefetchedObjects, !object.hasChanges, !object.state.isFault {
                    refresh(object, mergeChanges: false)
                }
                if request.includesPendingChanges, object.state.isDeleted { continue }
                candidates.append(object)
            }
        }
        if request.includesPendingChanges {
            for object in inserted.objects where !object.state.isDeleted {
                let matches = request.includesSubentities ? object.entity.isKindOf(entity: entity) : object.entity === entity
                if matches { candidates.append(object) }
            }
        }
        if let predicate = request.predicate {
            candidates = candidates.filter { predicate.evaluate(with: $0) }
        }
        if let descriptors = request.sortDescriptors, !descriptors.isEmpty {
            candidates = sortedStably(candidates, by: descriptors)
        }
        if request.fetchOffset > 0 {
            candidates = Array(candidates.dropFirst(request.fetchOffset))
        }
        if request.fetchLimit > 0, candidates.count > request.fetchLimit {
            candidates = Array(candidates.prefix(request.fetchLimit))
        }
        return candidates
    }

    /// `objects` in the order the descriptors give, ties kept in their original order.
    private func sortedStably(_ objects: [NSManagedObject], by descriptors: [NSSortDescriptor]) -> [NSManagedObject] {
        objects.enumerated().sorted { left, right in
            for descriptor in descriptors {
                switch descriptor.compare(left.element, to: right.element) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: continue
                }
            }
            return left.offset < right.offset
        }.map(\.element)
    }
}
