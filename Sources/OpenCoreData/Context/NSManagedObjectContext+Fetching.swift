import Foundation

extension NSManagedObjectContext {
    /// The objects (or IDs, dictionaries or count, per the request's `resultType`) that
    /// match `request`, taking the context's unsaved changes into account.
    ///
    /// A SQLite store filters, sorts and limits in SQL, as Core Data does. When the request
    /// includes pending changes (the default) and the context has unsaved changes to the
    /// entity, the store's answer is merged with them: deleted objects are dropped, and
    /// inserted and updated objects are judged by `evaluate(with:)` in memory (Foundation's
    /// rules, not SQL's), then everything is sorted and limited. With
    /// `-com.apple.CoreData.SQLDebug 1` each fetch prints its SQL.
    ///
    /// A request whose entity name the model does not know stops the program, as Core
    /// Data raises an exception for it; so does a predicate or sort descriptor Core Data's
    /// SQLite store cannot translate (a block predicate, a key path the entity does not
    /// have, a comparator block), with Core Data's `NSInvalidArgumentException` message.
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
        // Objects that this context evaluates itself (what a SQL store's engine asks of it)
        // come back as objects, not in an array of `Any` to be cast back one by one.
        if request.resultType == .managedObjectResultType, parent == nil, let coordinator = persistentStoreCoordinator,
            coordinator.evaluatesFetchInContext(of: entity) {
            return typedResults(try evaluateObjectFetch(request, entity: entity))
        }
        // A context with a parent answers from its parent; otherwise the coordinator asks the store.
        let results: [Any]
        if parent == nil, let coordinator = persistentStoreCoordinator {
            results = try coordinator.execute(request, entity: entity, with: self)
        } else {
            results = try evaluateFetch(request, entity: entity)
        }
        return results.map { result in
            guard let typed = result as? T else {
                fatalError("NSFetchRequest<\(T.self)> cannot return \(type(of: result)) results; match its result type to its resultType.")
            }
            return typed
        }
    }

    /// `objects` as the request's result type: the same array when that is `NSManagedObject`.
    private func typedResults<T>(_ objects: [NSManagedObject]) -> [T] {
        if T.self == NSManagedObject.self { return unsafeBitCast(objects, to: [T].self) }
        return objects.map { object in
            guard let typed = object as? T else {
                fatalError("NSFetchRequest<\(T.self)> cannot return \(type(of: object)) results; match its result type to its resultType.")
            }
            return typed
        }
    }

    /// The results of `request` from the stores' rows: filtered, sorted and counted in SQL
    /// where the store speaks SQL and the request allows, in memory otherwise. How a SQLite
    /// store answers the coordinator, and how a fetch across several stores is answered.
    func evaluateFetch<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription) throws -> [Any] {
        switch request.resultType {
        case .countResultType:
            return [NSNumber(value: try matchingCount(entity: entity, request: request))]
        case .managedObjectIDResultType:
            return try matchingObjectIDs(entity: entity, request: request)
        case .dictionaryResultType:
            return try dictionaryResults(for: request, entity: entity)
        default:
            return try evaluateObjectFetch(request, entity: entity)
        }
    }

    /// ``evaluateFetch(_:entity:)`` of a request for managed objects.
    private func evaluateObjectFetch<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription) throws -> [NSManagedObject] {
        let objects = try matchingObjects(entity: entity, request: request)
        if !request.returnsObjectsAsFaults, request.fetchBatchSize == 0 { objects.forEach { $0.fulfillFaultIfNeeded() } }
        if let keyPaths = request.relationshipKeyPathsForPrefetching, !keyPaths.isEmpty {
            try prefetchRelationships(keyPaths, of: objects)
        }
        return objects
    }

    /// The number of objects `request` matches, counted as ``evaluateFetch(_:entity:)`` fetches.
    func evaluateCount<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription) throws -> Int {
        try matchingCount(entity: entity, request: request)
    }

    /// How many objects `request` would return: `SELECT COUNT(*)` in the store when the
    /// context has no unsaved changes to the entity, else the store's matching rows merged
    /// with those changes, as ``fetch(_:)`` merges them.
    public func count<T>(for request: NSFetchRequest<T>) throws -> Int {
        checkQueue()
        let entity = resolveEntity(of: request)
        return try readingQueryGeneration {
            if parent == nil, let coordinator = persistentStoreCoordinator {
                return try coordinator.count(for: request, entity: entity, with: self)
            }
            return try evaluateCount(request, entity: entity)
        }
    }

    /// The request's entity, from the request or by name from the model.
    private func resolveEntity<T>(of request: NSFetchRequest<T>) -> NSEntityDescription {
        if let entity = request.entity { return entity }
        guard let name = request.entityName else {
            raiseCoreDataException(.internalInconsistency, "executeFetchRequest:error: A fetch request must have an entity.")
        }
        guard let entity = persistentStoreCoordinator?.managedObjectModel.entity(named: name) else {
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
        /// The context's unsaved objects SQL's answer is merged with.
        let pending: PendingObjects?
        var isComplete: Bool { residual == nil && memorySort == nil }
    }

    /// The context's unsaved changes to the fetched entity, which a fetch that includes
    /// pending changes merges with the store's answer, as Core Data does: the store's rows
    /// of updated and deleted objects are set aside, and the inserted and updated objects
    /// that match the predicate in memory take their place.
    private struct PendingObjects {
        /// Inserted objects, then updated ones (none deleted), each in the order they changed.
        let candidates: [NSManagedObject]
        /// Updated and deleted objects: the store's rows of them are out of date.
        let overridden: Set<ObjectIdentifier>
    }

    /// The stores whose configuration holds `entity`.
    private func stores(holding entity: NSEntityDescription) -> [NSPersistentStore] {
        persistentStoreCoordinator?.stores(holding: entity) ?? []
    }

    private func route<T>(entity: NSEntityDescription, request: NSFetchRequest<T>) throws -> FetchRoute {
        let holding = stores(holding: entity)
        // Only a SQLite engine runs SQL (a child of a context on an incremental store gets here).
        guard holding.count == 1, let store = holding.first, store.sqliteEngine != nil else { return .memory }
        let translator = try store.engine.translator(for: entity)

        var condition: SQLFragment?
        var residual: NSPredicate?
        if let predicate = request.predicate {
            do {
                condition = try translator.attempt { try translator.condition(predicate) }
            } catch let whole as SQLUntranslatable {
                raiseIfCoreDataRefuses(whole, in: store)
                // An AND keeps its translatable conjuncts in SQL.
                var translated: [SQLFragment] = []
                var rest: [NSPredicate] = []
                if let compound = predicate as? NSCompoundPredicate, compound.compoundPredicateType == .and {
                    for part in compound.predicates {
                        do {
                            translated.append(try translator.attempt { try translator.condition(part) })
                        } catch let error as SQLUntranslatable {
                            raiseIfCoreDataRefuses(error, in: store)
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
            } catch let error as SQLUntranslatable {
                raiseIfCoreDataRefuses(error, in: store)
                memorySort = descriptors
            }
        }
        // A child context asks its parent, whose unsaved state the store does not know; the
        // translation above still raises what the store would refuse.
        if parent != nil { return .memory }
        var pending: PendingObjects?
        if request.includesPendingChanges {
            pending = pendingObjects(of: entity, includesSubentities: request.includesSubentities)
            // What SQL cannot express is this library's gap: the whole request runs in memory.
            if pending != nil, residual != nil || memorySort != nil { return .memory }
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
            if let pending {
                // The offset and limit apply after the merge; the store returns enough rows
                // that those of changed objects can be set aside.
                if request.fetchLimit > 0 { query.limit = max(0, request.fetchOffset) + request.fetchLimit + pending.overridden.count }
            } else {
                query.limit = max(0, request.fetchLimit)
                query.offset = max(0, request.fetchOffset)
            }
        }
        return .sql(SQLRoute(store: store, query: query, includesSubentities: request.includesSubentities, residual: residual, memorySort: memorySort, pending: pending))
    }

    /// Raises the exception Core Data's SQLite store raises for a predicate or sort
    /// descriptor its SQL generation refuses (a block predicate, an unknown key path, a
    /// comparator). In-memory and binary stores evaluate in memory in Core Data, so they
    /// accept them.
    private func raiseIfCoreDataRefuses(_ error: SQLUntranslatable, in store: NSPersistentStore) {
        guard store.type == NSSQLiteStoreType else { return }
        error.raiseIfCoreDataRefuses()
    }

    /// The context's inserted, updated and deleted objects of `entity` (and its
    /// sub-entities when asked), or `nil` when it has none.
    private func pendingObjects(of entity: NSEntityDescription, includesSubentities: Bool) -> PendingObjects? {
        guard hasChanges else { return nil }
        func fetched(_ object: NSManagedObject) -> Bool {
            includesSubentities ? object.entity.isKindOf(entity: entity) : object.entity === entity
        }
        var candidates: [NSManagedObject] = []
        var overridden = Set<ObjectIdentifier>()
        for object in inserted.objects where fetched(object) && !object.state.isDeleted {
            candidates.append(object)
        }
        for object in updated.objects where fetched(object) {
            overridden.insert(ObjectIdentifier(object))
            if !object.state.isDeleted { candidates.append(object) }
        }
        for object in deleted.objects where fetched(object) {
            overridden.insert(ObjectIdentifier(object))
        }
        return candidates.isEmpty && overridden.isEmpty ? nil : PendingObjects(candidates: candidates, overridden: overridden)
    }

    // MARK: Running

    /// The objects matching the request, filtered, sorted and limited; when `counting`,
    /// only how many matter (no values are read that the answer does not need, no sort).
    private func matchingObjects<T>(entity: NSEntityDescription, request: NSFetchRequest<T>, counting: Bool = false) throws -> [NSManagedObject] {
        guard case .sql(let route) = try route(entity: entity, request: request) else {
            return try matchingObjectsInMemory(entity: entity, request: request)
        }
        let engine = route.store.engine
        // Rows when values are needed now; only keys for faults, IDs and batches.
        let sortsInMemory = route.pending != nil && !(request.sortDescriptors ?? []).isEmpty
        let wantsRows = !route.isComplete || (!counting && (sortsInMemory || request.resultType == .dictionaryResultType
            || (request.includesPropertyValues && request.fetchBatchSize == 0)))
        var objects: [NSManagedObject]
        if wantsRows {
            var tail: FetchLogTail?
            let rows = route.store.rowCache.store(try engine.fetchRows(route.query, includesSubentities: route.includesSubentities, tail: &tail))
            reserveRegistryCapacity(rows.count, in: route.store)
            let refreshes = request.shouldRefreshRefetchedObjects
            objects = rows.map { row in
                let object = object(for: row, in: route.store)
                if refreshes { refreshIfRefetched(object) }
                if object.state.isFault { object.state.heldRow = row }
                return object
            }
            tail?.write(objects: objects)
        } else {
            let keys = try engine.fetchKeys(route.query)
            reserveRegistryCapacity(keys.count, in: route.store)
            objects = keys.map { registeredObject(for: $0.self, in: route.store, request: request) }
        }
        if let pending = route.pending {
            objects = merged(objects, with: pending, request: request, sorting: !counting)
        } else {
            objects = finishInMemory(objects, route: route, request: request)
        }
        if request.fetchBatchSize > 0, request.resultType == .managedObjectResultType {
            assignFetchBatches(objects, size: request.fetchBatchSize, store: route.store)
        }
        return objects
    }

    /// The store's answer merged with the context's unsaved changes: stored objects that
    /// were updated or deleted are judged in memory, inserted and updated objects that now
    /// match are added, then the whole is sorted (in memory, as SQL sorted) and limited.
    private func merged<T>(_ stored: [NSManagedObject], with pending: PendingObjects, request: NSFetchRequest<T>, sorting: Bool) -> [NSManagedObject] {
        let predicate = request.predicate
        var result: [NSManagedObject] = []
        var kept = Set<ObjectIdentifier>()
        result.reserveCapacity(stored.count + pending.candidates.count)
        for object in stored {
            let id = ObjectIdentifier(object)
            if pending.overridden.contains(id) {
                guard !object.state.isDeleted, predicate?.evaluate(with: object) ?? true else { continue }
            }
            if kept.insert(id).inserted { result.append(object) }
        }
        for object in pending.candidates where !kept.contains(ObjectIdentifier(object)) {
            if predicate?.evaluate(with: object) ?? true {
                kept.insert(ObjectIdentifier(object))
                result.append(object)
            }
        }
        if let descriptors = request.sortDescriptors, !descriptors.isEmpty {
            if sorting { result = sortedObjects(result, using: descriptors) }
        } else if result.count > 1 {
            // Unsorted fetches come in primary-key order, unsaved objects last, as in memory.
            result = result.enumerated().sorted { a, b in
                let x = a.element.objectID.storeKey?.primaryKey ?? .max, y = b.element.objectID.storeKey?.primaryKey ?? .max
                return x != y ? x < y : a.offset < b.offset
            }.map(\.element)
        }
        return limited(result, request: request)
    }

    /// The object IDs matching the request; from keys alone when SQL answers all of it.
    private func matchingObjectIDs<T>(entity: NSEntityDescription, request: NSFetchRequest<T>) throws -> [NSManagedObjectID] {
        guard case .sql(let route) = try route(entity: entity, request: request), route.isComplete, route.pending == nil else {
            return try matchingObjects(entity: entity, request: request).map(\.objectID)
        }
        return try route.store.engine.fetchKeys(route.query).compactMap { key in
            objectID(for: key, in: route.store)
        }
    }

    /// The number of matching objects; `SELECT COUNT(*)` when SQL answers all of it.
    private func matchingCount<T>(entity: NSEntityDescription, request: NSFetchRequest<T>) throws -> Int {
        guard case .sql(let route) = try route(entity: entity, request: request), route.isComplete, route.pending == nil else {
            return try matchingObjects(entity: entity, request: request, counting: true).count
        }
        return try route.store.engine.countRows(route.query)
    }

    /// The object of a fetched row, refreshed first when the request asks for it.
    private func registeredObject<T>(for key: StoreKey, in store: NSPersistentStore, request: NSFetchRequest<T>) -> NSManagedObject {
        let object = object(for: key, in: store)
        if request.shouldRefreshRefetchedObjects { refreshIfRefetched(object) }
        return object
    }

    /// What `shouldRefreshRefetchedObjects` asks of a refetched object: an unchanged one
    /// that is not a fault turns back into one, to take the fetched values.
    private func refreshIfRefetched(_ object: NSManagedObject) {
        if !object.hasChanges, !object.state.isFault { refresh(object, mergeChanges: false) }
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
            let rows = store.rowCache.store(try storeCoordinator(of: store).rows(of: entity, includesSubentities: request.includesSubentities, in: store, context: self))
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
