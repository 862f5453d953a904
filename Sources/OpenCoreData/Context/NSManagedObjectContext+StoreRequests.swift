import Foundation

extension NSManagedObjectContext {
    /// Runs a store request: an ``NSAsynchronousFetchRequest``, an ``NSBatchUpdateRequest``,
    /// ``NSBatchDeleteRequest`` or ``NSBatchInsertRequest`` (or a plain ``NSFetchRequest``).
    ///
    /// Batch requests write to the store directly and at once, in one transaction: they do
    /// not validate, do not touch this context's objects and ignore its unsaved changes.
    /// Merge their effects with ``mergeChanges(fromRemoteContextSave:into:)``.
    ///
    /// ```swift
    /// let favourites = NSBatchUpdateRequest(entityName: "Trail")
    /// favourites.predicate = NSPredicate(format: "rating >= 4.5")
    /// favourites.propertiesToUpdate = ["isFavorite": true]
    /// favourites.resultType = .updatedObjectIDsResultType
    /// let result = try context.execute(favourites) as! NSBatchUpdateResult
    /// let ids = result.result as! [NSManagedObjectID]
    /// NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: ids],
    ///                                     into: [context])
    /// ```
    ///
    /// - Parameter request: the request to run.
    /// - Returns: the request's result object (``NSBatchUpdateResult``, …); cast it.
    /// - Throws: an `NSError` in `NSCocoaErrorDomain` when the store cannot run the
    ///   request: ``NSSQLiteError``, or ``NSCoreDataError`` (134060) for a batch delete of
    ///   an entity with a deny rule. Nothing is written then.
    @discardableResult
    public func execute(_ request: NSPersistentStoreRequest) throws -> NSPersistentStoreResult {
        try HistoryOrigin.recording(for: self) {
            guard let coordinator = persistentStoreCoordinator else { return try request.execute(in: self) }
            return try coordinator.execute(request, with: self)
        }
    }

    // MARK: Fetches

    /// A plain fetch request through `execute(_:)`: fetched at once, the objects in an
    /// ``NSAsynchronousFetchResult``'s `finalResult`.
    func executeFetchAsStoreRequest<T>(_ request: NSFetchRequest<T>) throws -> NSPersistentStoreResult {
        let objects = try fetch(request)
        let wrapper = NSAsynchronousFetchRequest(fetchRequest: request, completionBlock: nil)
        let result = NSAsynchronousFetchResult(fetchRequest: wrapper, context: self, progress: nil)
        result.finalResult = objects
        return result
    }

    /// Starts an asynchronous fetch on the context's queue and returns its result at once.
    ///
    /// The progress is created here, so it becomes a child of the caller's current
    /// `Progress` if there is one. On the queue: if the result was cancelled, the completion
    /// block gets `NSUserCancelledError`; otherwise the fetch runs, `totalUnitCount` becomes
    /// the number of results and `completedUnitCount` counts up to it (a cancel in between
    /// stops it), then the completion block gets the results.
    func executeAsynchronousFetch<T>(_ request: NSAsynchronousFetchRequest<T>) -> NSPersistentStoreResult {
        let progress = Progress(totalUnitCount: Int64(max(request.estimatedResultCount, 0)))
        let result = NSAsynchronousFetchResult(fetchRequest: request, context: self, progress: progress)
        perform {
            defer { request.completionBlock?(result) }
            func cancelled() -> Bool {
                guard result.cancelRequested || progress.isCancelled else { return false }
                result.finalResult = nil
                result.operationError = coreDataError(CocoaError.userCancelled.rawValue, userInfo: [NSLocalizedDescriptionKey: "The fetch was cancelled."])
                return true
            }
            if cancelled() { return }
            do {
                let objects = try self.fetch(request.fetchRequest)
                progress.totalUnitCount = Int64(objects.count)
                for index in objects.indices {
                    if cancelled() { return }
                    progress.completedUnitCount = Int64(index + 1)
                }
                result.finalResult = objects
            } catch {
                result.operationError = error
            }
        }
        return result
    }

    // MARK: Batch requests

    /// The stores of this context's coordinator that hold `entity` (and that the request's
    /// `affectedStores` allows).
    private func stores(holding entity: NSEntityDescription, allowed: [NSPersistentStore]?) throws -> [NSPersistentStore] {
        guard let coordinator = persistentStoreCoordinator else {
            throw coreDataError(NSPersistentStoreOperationError, userInfo: [NSLocalizedDescriptionKey: "The context has no persistent store coordinator."])
        }
        return coordinator.persistentStores.filter { store in
            if let allowed, !allowed.contains(where: { $0 === store }) { return false }
            let members = coordinator.managedObjectModel.entities(forConfigurationName: store.configurationName) ?? []
            return members.contains { $0 === entity }
        }
    }

    /// A context of its own on this context's coordinator, with no changes. Keep it alive
    /// while using its objects (objects hold their context weakly).
    func makeScratchContext() -> NSManagedObjectContext {
        let scratch = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        scratch.persistentStoreCoordinator = persistentStoreCoordinator
        return scratch
    }

    /// Forgets the cached rows a batch request changed or deleted, so that faults fire
    /// from the store again.
    private static func forgetRows(_ outcome: BatchOutcome, in store: NSPersistentStore) {
        if let entities = outcome.staleEntities { store.rowCache.removeRows(ofEntities: entities) }
        for key in outcome.staleKeys { store.rowCache.remove(key) }
    }

    /// The IDs of `keys` in `store`.
    private func objectIDs(_ keys: [StoreKey]?, in store: NSPersistentStore) -> [NSManagedObjectID] {
        guard let coordinator = persistentStoreCoordinator else { return [] }
        return (keys ?? []).compactMap { coordinator.objectID(for: $0, in: store) }
    }

    /// Runs as one `UPDATE` in the store (see ``SQLiteStoreEngine/batchUpdate(_:predicate:includesSubentities:values:returningKeys:in:)``);
    /// the context's unsaved changes play no part.
    func executeBatchUpdate(_ request: NSBatchUpdateRequest) throws -> NSPersistentStoreResult {
        guard let model = persistentStoreCoordinator?.managedObjectModel else {
            throw coreDataError(NSPersistentStoreOperationError, userInfo: [NSLocalizedDescriptionKey: "The context has no persistent store coordinator."])
        }
        let entity = request.entity(in: model)
        let table = entity.propertyTable
        var updates: [(NSAttributeDescription, BatchUpdateValue)] = []
        for (key, value) in (request.propertiesToUpdate ?? [:]).sorted(by: { "\($0.key.base)" < "\($1.key.base)" }) {
            let name = (key.base as? String) ?? (key.base as? NSPropertyDescription)?.name ?? "\(key.base)"
            guard let attribute = table.persistentAttributes.first(where: { $0.name == name }) else {
                raiseCoreDataException(.invalidArgument, "Invalid property name '\(name)' in propertiesToUpdate for entity \(entity.name ?? "(null)")")
            }
            if attribute is NSDerivedAttributeDescription {
                raiseCoreDataException(.invalidArgument, "Invalid property for update (can't batch update derived attributes) \(name)/\(entity.name ?? "(null)")")
            }
            if let expression = value as? NSExpression, expression.expressionType != .constantValue {
                updates.append((attribute, .expression(expression)))
            } else {
                let constant: Any? = (value as? NSExpression).map { $0.constantValue } ?? value
                updates.append((attribute, .constant(try Self.storedValue(constant, for: attribute))))
            }
        }
        let wantsIDs = request.resultType == .updatedObjectIDsResultType
        var updatedIDs: [NSManagedObjectID] = []
        var updatedCount = 0
        for store in try stores(holding: entity, allowed: request.affectedStores) {
            var outcome = BatchOutcome()
            try store.engine.performSave { transaction in
                outcome = try store.engine.batchUpdate(entity, predicate: request.predicate, includesSubentities: request.includesSubentities,
                                                       values: updates, returningKeys: wantsIDs, in: transaction)
            }
            Self.forgetRows(outcome, in: store)
            updatedCount += outcome.count
            if wantsIDs { updatedIDs += objectIDs(outcome.keys, in: store) }
        }
        switch request.resultType {
        case .statusOnlyResultType: return NSBatchUpdateResult(result: NSNumber(value: true), resultType: .statusOnlyResultType)
        case .updatedObjectIDsResultType: return NSBatchUpdateResult(result: updatedIDs, resultType: .updatedObjectIDsResultType)
        case .updatedObjectsCountResultType: return NSBatchUpdateResult(result: NSNumber(value: updatedCount), resultType: .updatedObjectsCountResultType)
        }
    }

    /// Runs as one `DELETE` in the store, with temporary triggers for the delete rules
    /// (see ``SQLiteStoreEngine/batchDelete(_:entity:returningKeys:in:)``).
    func executeBatchDelete(_ request: NSBatchDeleteRequest) throws -> NSPersistentStoreResult {
        guard let coordinator = persistentStoreCoordinator else {
            throw coreDataError(NSPersistentStoreOperationError, userInfo: [NSLocalizedDescriptionKey: "The context has no persistent store coordinator."])
        }
        if let ids = request.objectIDs, let first = ids.first, ids.contains(where: { $0.entity !== first.entity }) {
            throw coreDataError(NSCoreDataError, userInfo: [
                NSLocalizedDescriptionKey: "The object IDs of an NSBatchDeleteRequest must all be of one entity.",
            ])
        }
        guard let entity = request.fetchRequest.resolvedEntity(in: coordinator.managedObjectModel) else {
            if request.objectIDs?.isEmpty == true { return Self.deleteResult([], count: 0, request.resultType) }
            raiseCoreDataException(.internalInconsistency, "NSFetchRequest could not locate an NSEntityDescription for entity name '\(request.fetchRequest.entityName ?? "(null)")'")
        }
        if request.objectIDs?.isEmpty == true { return Self.deleteResult([], count: 0, request.resultType) }
        let wantsIDs = request.resultType == .resultTypeObjectIDs
        var deletedIDs: [NSManagedObjectID] = []
        var deletedCount = 0
        for store in try stores(holding: entity, allowed: request.affectedStores ?? request.fetchRequest.affectedStores) {
            if let blocking = store.engine.relationshipBlockingBatchDelete(from: [entity]) {
                throw BatchDeleteTriggers.unsupported(blocking)
            }
            let fetch = request.fetchRequest.copy(as: NSFetchRequestResult.self)
            if let ids = request.objectIDs {
                // Only this store's objects: IDs of another store name rows of its own.
                let mine = ids.filter { $0.persistentStore === store }
                guard !mine.isEmpty else { continue }
                fetch.predicate = NSPredicate(format: "self IN %@", argumentArray: [mine])
            }
            var outcome = BatchOutcome()
            try store.engine.performSave { transaction in
                outcome = try store.engine.batchDelete(fetch, entity: entity, returningKeys: wantsIDs, in: transaction)
            }
            Self.forgetRows(outcome, in: store)
            deletedCount += outcome.count
            if wantsIDs { deletedIDs += objectIDs(outcome.keys, in: store) }
        }
        return Self.deleteResult(deletedIDs, count: deletedCount, request.resultType)
    }

    private static func deleteResult(_ ids: [NSManagedObjectID], count: Int, _ type: NSBatchDeleteRequestResultType) -> NSBatchDeleteResult {
        switch type {
        case .resultTypeStatusOnly: return NSBatchDeleteResult(result: NSNumber(value: true), resultType: type)
        case .resultTypeObjectIDs: return NSBatchDeleteResult(result: ids, resultType: type)
        case .resultTypeCount: return NSBatchDeleteResult(result: NSNumber(value: count), resultType: type)
        }
    }

    func executeBatchInsert(_ request: NSBatchInsertRequest) throws -> NSPersistentStoreResult {
        guard let coordinator = persistentStoreCoordinator else {
            throw coreDataError(NSPersistentStoreOperationError, userInfo: [NSLocalizedDescriptionKey: "The context has no persistent store coordinator."])
        }
        let entity = request.entity(in: coordinator.managedObjectModel)
        guard !entity.isAbstract else {
            raiseCoreDataException(.internalInconsistency, "Cannot create an instance of the abstract entity \(entity.name ?? "(null)").")
        }
        guard let store = try stores(holding: entity, allowed: request.affectedStores).first else {
            throw coreDataError(NSPersistentStoreOperationError, userInfo: [NSLocalizedDescriptionKey: "No store holds entity \(entity.name ?? "(null)")."])
        }
        let table = entity.propertyTable
        let attributes = table.persistentAttributes
        // Each row's values go straight into the slots a stored row keeps, converted once
        // by the objects' own conversion: no dictionary per row, no boxing per value.
        func row(from value: (String) -> Any?) throws -> PropertyValues {
            var values = PropertyValues(table: table)
            for (attribute, slot) in zip(attributes, table.persistentSlots) {
                if let given = AttributeValues.unwrapped(value(attribute.name)) {
                    values[slot] = try Self.storedValue(given, for: attribute)
                } else if slot < table.defaultSlots.count {
                    values[slot] = table.defaultSlots[slot]
                }
            }
            return values
        }
        var rows: [PropertyValues] = []
        // The attributes an upsert writes over a stored row: the first dictionary's keys
        // (Core Data's `onConflictKeys`), every attribute for the object handler.
        var givenNames: [String]?
        func given(_ keys: [Any]) {
            guard givenNames == nil else { return }
            let names = Set(keys.compactMap { $0 as? String })
            givenNames = attributes.map(\.name).filter(names.contains)
        }
        if let objects = request.objectsToInsert {
            if let first = objects.first { given(Array(first.keys)) }
            rows = try objects.map { dictionary in try row { dictionary[$0] } }
        } else if let handler = request.dictionaryHandler {
            while true {
                let dictionary = NSMutableDictionary()
                if handler(dictionary) { break }
                given(dictionary.allKeys.map { $0 as Any })
                rows.append(try row { dictionary.object(forKey: $0) })
            }
        } else if let handler = request.managedObjectHandler {
            let type = ManagedObjectClasses.objectClass(for: entity)
            while true {
                let object = type.init(entity: entity, insertInto: nil)
                if handler(object) { break }
                rows.append(try row { object.value(forKey: $0) })
            }
        }
        // Under the error policy a stored duplicate is ignored; under any other it is updated.
        let conflicts: BatchInsertConflicts = effectiveMergePolicy.mergeType == .errorMergePolicyType
            ? .ignore : .update(attributes: givenNames.flatMap { $0.isEmpty ? nil : $0 })
        var outcome = BatchOutcome()
        try store.engine.performSave { transaction in
            outcome = try store.engine.batchInsert(rows, of: entity, conflicts: conflicts, returningKeys: request.resultType == .objectIDs, in: transaction)
        }
        if let entities = outcome.staleEntities { store.rowCache.removeRows(ofEntities: entities) }
        for key in outcome.staleKeys { store.rowCache.remove(key) }
        switch request.resultType {
        case .statusOnly: return NSBatchInsertResult(result: NSNumber(value: true), resultType: .statusOnly)
        case .count: return NSBatchInsertResult(result: NSNumber(value: outcome.count), resultType: .count)
        case .objectIDs:
            let ids = (outcome.keys ?? []).compactMap { coordinator.objectID(for: $0, in: store) }
            return NSBatchInsertResult(result: ids, resultType: .objectIDs)
        }
    }

    /// `value` as the stored Swift type of `attribute` (`nil`, an empty `Optional` and
    /// `NSNull` give `nil`); throws when it is of the wrong kind. Batch requests skip
    /// validation but not typing.
    static func storedValue(_ value: Any?, for attribute: NSAttributeDescription) throws -> Any? {
        guard let given = value else { return nil }
        let type = attribute.attributeType
        // The usual case first, as `AttributeValues.stored` takes it: a value of the
        // attribute's kind converts at once, without unwrapping or an `NSNull` check.
        if !type.keepsAnyValue, let converted = AttributeValues.convert(given, to: type) { return converted }
        guard let value = AttributeValues.unwrapped(given), !AttributeValues.isNull(value) else { return nil }
        guard let converted = AttributeValues.convert(value, to: type) else {
            throw coreDataError(NSManagedObjectValidationError, userInfo: [
                NSLocalizedDescriptionKey: "Unacceptable type of value for attribute: property = \"\(attribute.name)\"; desired type = \(attribute.attributeValueClassName ?? "id"); given type = \(Swift.type(of: value)); value = \(cocoaPlainDescription(value)).",
                NSValidationKeyErrorKey: attribute.name,
            ])
        }
        return converted
    }
}
