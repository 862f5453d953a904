import Foundation

extension NSManagedObjectContext {
    /// The objects (or IDs, dictionaries or count, per the request's `resultType`) that
    /// match `request`, taking the context's unsaved changes into account.
    ///
    /// The store filters, sorts and limits in SQL, as Core Data does, whenever the context
    /// has no unsaved changes that could change the answer; otherwise (and for predicates
    /// or sort descriptors SQL cannot express) the same request is evaluated in memory,
    /// with identical results. With `-com.apple.CoreData.SQLDebug 1` each fetch prints its
    /// SQL (and, as in Core Data, nothing about what was evaluated in memory).
    ///
    /// A request whose entity name the model does not know stops the program, as Core
    /// Data raises an exception for it.
    ///
    /// ```swift
    /// let request = NSFetchRequest<Trail>(entityName: "Trail")
    /// request.predicate = NSPredicate(format: "lengthKm > %@", NSNumber(value: 30))
    /// request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
    /// let longTrails = try context.fetch(request)
    /// ```
    ///
    /// - Parameter request: what to fetch: entity, predicate, sort, limits, result type.
    /// - Returns: the matching results, of the request's `ResultType`.
    /// - Throws: an `NSError` in `NSCocoaErrorDomain` when the store cannot be read, such
    ///   as ``NSSQLiteError`` with SQLite's code under ``NSSQLiteErrorDomain``; never an
    ///   empty result in place of an error.
    public func fetch<T>(_ request: NSFetchRequest<T>) throws -> [T] {
        checkQueue()
        return try readingQueryGeneration { try fetchInGeneration(request) }
    }

    /// ``fetch(_:)``, reading through the query generation already chosen.
    private func fetchInGeneration<T>(_ request: NSFetchRequest<T>) throws -> [T] {
        // A typed request names the program's class: remember its module for class lookup.
        if let type = T.self as? NSManagedObject.Type { ManagedObjectClasses.noteClass(type) }
        let entity = resolveEntity(of: request)
        var results: [Any] = []
        if let store = incrementalStore(holding: entity) {
            results = try fetchFromIncrementalStore(request, entity: entity, store: store)
        } else {
        switch request.resultType {
        case .countResultType:
            results = [NSNumber(value: try matchingCount(entity: entity, request: request))]
        case .managedObjectIDResultType:
            results = try matchingObjectIDs(entity: entity, request: request)
        case .dictionaryResultType:
            results = try dictionaryResults(for: request, entity: entity)
        default:
            let objects = try matchingObjects(entity: entity, request: request)
            if !request.returnsObjectsAsFaults, request.fetchBatchSize == 0 { objects.forEach { $0.fulfillFaultIfNeeded() } }
            if let keyPaths = request.relationshipKeyPathsForPrefetching, !keyPaths.isEmpty {
                try prefetchRelationships(keyPaths, of: objects)
            }
            // The objects as the request's type in one cast of the array, rather than one
            // `Any` per object cast back below (100,000 of them in a large fetch).
            if let typed = objects as? [T] { return typed }
            results = objects
        }
        }
        return results.map { result in
            guard let typed = result as? T else {
                fatalError("NSFetchRequest<\(T.self)> cannot return \(type(of: result)) results; match its result type to its resultType.")
            }
            return typed
        }
    }

    /// How many objects `request` would return: `SELECT COUNT(*)` in the store when the
    /// context's unsaved changes cannot change the answer, else counted in memory.
    public func count<T>(for request: NSFetchRequest<T>) throws -> Int {
        checkQueue()
        let entity = resolveEntity(of: request)
        if let store = incrementalStore(holding: entity) {
            let counting = request.copy(as: NSNumber.self)
            counting.resultType = .countResultType
            return (try fetchFromIncrementalStore(counting, entity: entity, store: store).first as? NSNumber)?.intValue ?? 0
        }
        return try readingQueryGeneration { try matchingCount(entity: entity, request: request) }
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

    // MARK: Choosing SQL or memory

    /// How a request runs: in SQL against one store (with whatever SQL could not express
    /// left for memory), or wholly in memory.
    private enum FetchRoute {
        case memory
        case sql(SQLRoute)
    }

    private struct SQLRoute {
        let store: NSPersistentStore
        let query: SQLFetchQuery
        let includesSubentities: Bool
        /// Conjuncts of the predicate SQL could not express, evaluated on the rows SQL returns.
        let residual: NSPredicate?
        /// Sort descriptors SQL could not express; offset and limit then apply in memory too.
        let memorySort: [NSSortDescriptor]?
        var isComplete: Bool { residual == nil && memorySort == nil }
    }

    /// The stores whose configuration holds `entity`.
    private func stores(holding entity: NSEntityDescription) -> [NSPersistentStore] {
        guard let coordinator = persistentStoreCoordinator else { return [] }
        return coordinator.persistentStores.filter { store in
            (coordinator.managedObjectModel.entities(forConfigurationName: store.configurationName) ?? []).contains { $0 === entity }
        }
    }

    private func route<T>(entity: NSEntityDescription, request: NSFetchRequest<T>) throws -> FetchRoute {
        // A child context asks its parent, whose unsaved state the store does not know.
        if parent != nil { return .memory }
        let holding = stores(holding: entity)
        guard holding.count == 1, let store = holding.first else { return .memory }
        let translator = try store.engine.translator(for: entity)

        var condition: SQLFragment?
        var residual: NSPredicate?
        if let predicate = request.predicate {
            do {
                condition = try translator.attempt { try translator.condition(predicate) }
            } catch is SQLUntranslatable {
                // An AND keeps its translatable conjuncts in SQL.
                var translated: [SQLFragment] = []
                var rest: [NSPredicate] = []
                if let compound = predicate as? NSCompoundPredicate, compound.compoundPredicateType == .and {
                    for part in compound.predicates {
                        do {
                            translated.append(try translator.attempt { try translator.condition(part) })
                        } catch is SQLUntranslatable {
                            rest.append(part)
                        }
                    }
                } else {
                    rest = [predicate]
                }
                if !translated.isEmpty { condition = .compound(translated, and: true) }
                residual = rest.count == 1 ? rest[0] : NSCompoundPredicate(andPredicateWithSubpredicates: rest)
            }
        }
        var orderBy: String?
        var memorySort: [NSSortDescriptor]?
        if let descriptors = request.sortDescriptors, !descriptors.isEmpty {
            do {
                orderBy = try translator.attempt { try translator.orderBy(descriptors) }
            } catch is SQLUntranslatable {
                memorySort = descriptors
            }
        }
        // Core Data prints nothing when it evaluates part of a fetch in memory; nor does this.
        if request.includesPendingChanges, pendingChanges(affecting: translator.tables, in: store) != nil {
            return .memory
        }
        let mapped = try store.engine.storeEntity(entity)
        var query = SQLFetchQuery(entity: mapped)
        query.joins = translator.rootJoins
        let entityTest = SQLFetchQuery.entityCondition(mapped, includesSubentities: request.includesSubentities)
        let parts = [entityTest, condition].compactMap { $0 }
        if !parts.isEmpty {
            let combined = SQLFragment.compound(parts, and: true)
            if !combined.isAlwaysTrue { query.condition = combined }
        }
        query.orderBy = orderBy
        if residual == nil, memorySort == nil {
            query.limit = max(0, request.fetchLimit)
            query.offset = max(0, request.fetchOffset)
        }
        return .sql(SQLRoute(store: store, query: query, includesSubentities: request.includesSubentities, residual: residual, memorySort: memorySort))
    }

    /// The names of the changed entities whose tables the statement reads, or `nil` when
    /// the context's inserts, updates and deletes cannot affect it.
    private func pendingChanges(affecting tables: Set<String>, in store: NSPersistentStore) -> String? {
        guard hasChanges else { return nil }
        var names: [String] = []
        for list in [inserted, updated, deleted] {
            for object in list.objects {
                guard let table = store.engine.sqlSchema?.entity(object.entity)?.table.name, tables.contains(table) else { continue }
                let name = object.entity.name ?? "?"
                if !names.contains(name) { names.append(name) }
            }
        }
        return names.isEmpty ? nil : names.sorted().joined(separator: ", ")
    }

    // MARK: Running

    /// The objects matching the request, filtered, sorted and limited.
    private func matchingObjects<T>(entity: NSEntityDescription, request: NSFetchRequest<T>) throws -> [NSManagedObject] {
        guard case .sql(let route) = try route(entity: entity, request: request) else {
            return try matchingObjectsInMemory(entity: entity, request: request)
        }
        let engine = route.store.engine
        // Rows when values are needed now; only keys for faults, IDs and batches.
        let wantsRows = !route.isComplete || request.resultType == .dictionaryResultType
            || (request.includesPropertyValues && request.fetchBatchSize == 0)
        var objects: [NSManagedObject]
        if wantsRows {
            var tail: FetchLogTail?
            let rows = route.store.rowCache.store(try engine.fetchRows(route.query, includesSubentities: route.includesSubentities, tail: &tail))
            reserveRegistryCapacity(rows.count)
            objects = rows.map { row in
                let object = registeredObject(for: row.key, in: route.store, request: request)
                if object.state.isFault { object.state.heldRow = row }
                return object
            }
            tail?.write(objects: objects)
        } else {
            let keys = try engine.fetchKeys(route.query)
            reserveRegistryCapacity(keys.count)
            objects = keys.map { registeredObject(for: $0.self, in: route.store, request: request) }
        }
        objects = finishInMemory(objects, route: route, request: request)
        if request.fetchBatchSize > 0, request.resultType == .managedObjectResultType {
            assignFetchBatches(objects, size: request.fetchBatchSize, store: route.store)
        }
        return objects
    }

    /// The object IDs matching the request; from keys alone when SQL answers all of it.
    private func matchingObjectIDs<T>(entity: NSEntityDescription, request: NSFetchRequest<T>) throws -> [NSManagedObjectID] {
        guard case .sql(let route) = try route(entity: entity, request: request), route.isComplete else {
            return try matchingObjects(entity: entity, request: request).map(\.objectID)
        }
        return try route.store.engine.fetchKeys(route.query).compactMap { key in
            objectID(for: key, in: route.store)
        }
    }

    /// The number of matching objects; `SELECT COUNT(*)` when SQL answers all of it.
    private func matchingCount<T>(entity: NSEntityDescription, request: NSFetchRequest<T>) throws -> Int {
        guard case .sql(let route) = try route(entity: entity, request: request), route.isComplete else {
            return try matchingObjects(entity: entity, request: request).count
        }
        return try route.store.engine.countRows(route.query)
    }

    /// The object of a fetched row, refreshed first when the request asks for it.
    private func registeredObject<T>(for key: StoreKey, in store: NSPersistentStore, request: NSFetchRequest<T>) -> NSManagedObject {
        let object = object(for: key, in: store)
        if request.shouldRefreshRefetchedObjects, !object.hasChanges, !object.state.isFault {
            refresh(object, mergeChanges: false)
        }
        return object
    }

    /// The permanent ID of a row (IDs are equal by value; no object is registered).
    private func objectID(for key: StoreKey, in store: NSPersistentStore) -> NSManagedObjectID? {
        persistentStoreCoordinator?.objectID(for: key, in: store) ?? NSManagedObjectID.orphan(key: key, store: store)
    }

    /// What SQL left over: the residual predicate, the sort, then offset and limit.
    private func finishInMemory<T>(_ objects: [NSManagedObject], route: SQLRoute, request: NSFetchRequest<T>) -> [NSManagedObject] {
        guard !route.isComplete else { return objects }
        var result = objects
        if let residual = route.residual { result = result.filter { residual.evaluate(with: $0) } }
        if let descriptors = route.memorySort { result = sortedObjects(result, using: descriptors) }
        return limited(result, request: request)
    }

    private func limited<T>(_ objects: [NSManagedObject], request: NSFetchRequest<T>) -> [NSManagedObject] {
        var result = objects
        if request.fetchOffset > 0 { result = Array(result.dropFirst(request.fetchOffset)) }
        if request.fetchLimit > 0, result.count > request.fetchLimit { result = Array(result.prefix(request.fetchLimit)) }
        return result
    }

    /// The request evaluated in memory: every row of the entity from every store, the
    /// context's inserted objects added and deleted ones dropped (when the request includes
    /// pending changes), then filtered with `evaluate(with:)`, sorted and limited.
    private func matchingObjectsInMemory<T>(entity: NSEntityDescription, request: NSFetchRequest<T>) throws -> [NSManagedObject] {
        var candidates: [NSManagedObject] = []
        if parent != nil {
            // The parent answers with its own unsaved changes; this context's are added
            // (pending changes are never left out of a child's fetch: its parent holds them).
            let ids = try candidateIDs(of: entity, includesSubentities: request.includesSubentities)
            candidates = objects(forParentIDs: ids).filter { !$0.state.isDeleted }
            if request.predicate != nil || !(request.sortDescriptors ?? []).isEmpty || !request.returnsObjectsAsFaults {
                fulfillFaultsFromParent(candidates)
            }
            if request.shouldRefreshRefetchedObjects {
                for object in candidates where !object.hasChanges && !object.state.isFault { refresh(object, mergeChanges: false) }
            }
        }
        for store in stores(holding: entity) where parent == nil {
            let rows = store.rowCache.store(try store.engine.fetchRows(of: entity, includesSubentities: request.includesSubentities, context: self))
            candidates.reserveCapacity(candidates.count + rows.count)
            for row in rows {
                let object = registeredObject(for: row.key, in: store, request: request)
                if object.state.isFault { object.state.heldRow = row }
                if request.includesPendingChanges, object.state.isDeleted { continue }
                candidates.append(object)
            }
        }
        if request.includesPendingChanges, parent == nil {
            for object in inserted.objects where !object.state.isDeleted {
                let matches = request.includesSubentities ? object.entity.isKindOf(entity: entity) : object.entity === entity
                if matches { candidates.append(object) }
            }
        }
        if let predicate = request.predicate {
            candidates = candidates.filter { predicate.evaluate(with: $0) }
        }
        if let descriptors = request.sortDescriptors, !descriptors.isEmpty {
            candidates = sortedObjects(candidates, using: descriptors)
        }
        return limited(candidates, request: request)
    }
}
