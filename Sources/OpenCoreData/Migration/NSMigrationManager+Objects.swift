import Foundation

extension NSMigrationManager: ExpressionMethodTarget {
    /// Associates a destination instance with the source instance it was made from.
    public func associate(sourceInstance: NSManagedObject, withDestinationInstance destinationInstance: NSManagedObject, for entityMapping: NSEntityMapping) {
        let name = entityMapping.name ?? ""
        associations[name, default: [:]][sourceInstance.objectID, default: []].append(destinationInstance)
        reverseAssociations[name, default: [:]][ObjectIdentifier(destinationInstance), default: []].append(sourceInstance)
    }

    /// The destination instances made from `sourceInstances` by the mapping named
    /// `mappingName` (every mapping when `nil`).
    public func destinationInstances(forEntityMappingName mappingName: String?, sourceInstances: [NSManagedObject]?) -> [NSManagedObject] {
        let tables = mappingName.map { associations[$0].map { [$0] } ?? [] } ?? Array(associations.values)
        return (sourceInstances ?? []).flatMap { source in tables.flatMap { $0[source.objectID] ?? [] } }
    }

    /// The source instances the mapping named `mappingName` made `destinationInstances` from.
    public func sourceInstances(forEntityMappingName mappingName: String, destinationInstances: [NSManagedObject]?) -> [NSManagedObject] {
        let table = reverseAssociations[mappingName] ?? [:]
        return (destinationInstances ?? []).flatMap { table[ObjectIdentifier($0)] ?? [] }
    }

    /// The variables a mapping's expressions see.
    func expressionVariables(source: NSManagedObject?, destination: NSManagedObject?, mapping: NSEntityMapping, policy: NSEntityMigrationPolicy) -> NSMutableDictionary {
        let variables = NSMutableDictionary()
        variables[NSMigrationManagerKey] = self
        variables[NSMigrationEntityMappingKey] = mapping
        variables[NSMigrationEntityPolicyKey] = policy
        if let source { variables[NSMigrationSourceObjectKey] = source }
        if let destination { variables[NSMigrationDestinationObjectKey] = destination }
        return variables
    }

    /// `FUNCTION($manager, …)`: the destination instances of source instances, as the
    /// relationship mappings of inferred and Xcode-made mapping models ask for them.
    func callExpressionMethod(_ name: String, arguments: [Any?]) -> Any? {
        switch name {
        case "destinationInstancesForEntityMappingNamed:sourceInstances:":
            let mappingName = arguments.first.flatMap { $0 as? String }
            return destinationInstances(forEntityMappingName: mappingName, sourceInstances: Self.objects(in: arguments.count > 1 ? arguments[1] : nil))
        case "destinationInstancesForSourceRelationshipNamed:sourceInstances:":
            return destinationInstances(forEntityMappingName: nil, sourceInstances: Self.objects(in: arguments.count > 1 ? arguments[1] : nil))
        default:
            cancelMigrationWithError(coreDataError(NSMigrationError, userInfo: [
                NSLocalizedDescriptionKey: MigrationErrors.migrationDescription, "reason": "NSMigrationManager does not answer \(name)",
            ]))
            return nil
        }
    }

    /// The managed objects in a value: one object, a set, an ordered set or an array.
    static func objects(in value: Any?) -> [NSManagedObject] {
        switch unwrapAny(value) {
        case let object as NSManagedObject: return [object]
        case let array as [Any]: return array.compactMap { $0 as? NSManagedObject }
        case let set as NSSet: return set.allObjects.compactMap { $0 as? NSManagedObject }
        case let ordered as NSOrderedSet: return ordered.array.compactMap { $0 as? NSManagedObject }
        case let set as Set<NSManagedObject>: return Array(set)
        default: return []
        }
    }

    /// Core Data's three stages, object by object: create the destination instances of
    /// every mapping, then their relationships, then validate and save.
    func migrateObjects(from sourceURL: URL, sourceType: String = NSSQLiteStoreType, sourceOptions: [AnyHashable: Any]?, mapping: NSMappingModel,
                        to destinationURL: URL, type destinationType: String, options destinationOptions: [AnyHashable: Any]?) throws {
        cancellation = nil
        associations = [:]
        reverseAssociations = [:]
        let sourceCoordinator = NSPersistentStoreCoordinator(managedObjectModel: sourceModel)
        var readOnly = sourceOptions ?? [:]
        readOnly[NSReadOnlyPersistentStoreOption] = true
        readOnly[NSMigratePersistentStoresAutomaticallyOption] = false
        try sourceCoordinator.addPersistentStore(ofType: sourceType, configurationName: nil, at: sourceURL, options: readOnly)
        let destinationCoordinator = NSPersistentStoreCoordinator(managedObjectModel: destinationModel)
        try destinationCoordinator.addPersistentStore(ofType: destinationType, configurationName: nil, at: destinationURL, options: destinationOptions)
        sourceContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        sourceContext.persistentStoreCoordinator = sourceCoordinator
        destinationContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        destinationContext.persistentStoreCoordinator = destinationCoordinator
        defer {
            sourceContext = nil
            destinationContext = nil
        }
        let mappings = mapping.entityMappings ?? []
        let policies = try mappings.map { entityMapping -> NSEntityMigrationPolicy in
            guard let type = NSEntityMigrationPolicy.policyClass(named: entityMapping.entityMigrationPolicyClassName) else {
                throw coreDataError(NSEntityMigrationPolicyError, userInfo: [
                    NSLocalizedDescriptionKey: "Can't find the entity migration policy class \(entityMapping.entityMigrationPolicyClassName ?? "") of mapping \(entityMapping.name ?? "").",
                    "reason": "Couldn't create mapping policy for class named (\(entityMapping.entityMigrationPolicyClassName ?? ""))",
                ])
            }
            let policy = type.init()
            policy.runningManager = self
            return policy
        }
        let steps = Float(max(1, mappings.count * 3))
        var done: Float = 0
        func advance() { done += 1; migrationProgress = min(0.99, done / steps) }
        func check() throws { if let cancellation { throw cancelled(cancellation) } }

        // Stage 1: instances.
        for (entityMapping, policy) in zip(mappings, policies) {
            currentEntityMapping = entityMapping
            try policy.begin(entityMapping, with: self)
            if let sourceName = entityMapping.sourceEntityName, entityMapping.mappingType != .removeEntityMappingType, entityMapping.destinationEntityName != nil || entityMapping.mappingType == .customEntityMappingType {
                for source in try sourceInstances(of: sourceName, mapping: entityMapping) {
                    try policy.createDestinationInstances(forSource: source, in: entityMapping, manager: self)
                    try check()
                }
            }
            try policy.endInstanceCreation(forMapping: entityMapping, manager: self)
            advance()
        }
        // Stage 2: relationships.
        for (entityMapping, policy) in zip(mappings, policies) {
            currentEntityMapping = entityMapping
            let made = (associations[entityMapping.name ?? ""] ?? [:]).values.flatMap { $0 }
            for destination in made {
                try policy.createRelationships(forDestination: destination, in: entityMapping, manager: self)
                try check()
            }
            try policy.endRelationshipCreation(forMapping: entityMapping, manager: self)
            advance()
        }
        // Stage 3: validation and save.
        for (entityMapping, policy) in zip(mappings, policies) {
            currentEntityMapping = entityMapping
            try policy.performCustomValidation(forMapping: entityMapping, manager: self)
            try check()
            try policy.end(entityMapping, manager: self)
            advance()
        }
        var saveError: Error?
        destinationContext.performAndWait {
            do { try destinationContext.save() } catch { saveError = error }
        }
        if let saveError {
            let inner = saveError as NSError
            throw coreDataError(NSMigrationError, userInfo: [
                NSLocalizedDescriptionKey: MigrationErrors.migrationDescription,
                "reason": inner.localizedDescription, NSUnderlyingErrorKey: inner,
            ])
        }
        // Keys of your own in the source's metadata go along, as an in-place migration keeps them.
        if let written = destinationCoordinator.persistentStores.first, let read = sourceCoordinator.persistentStores.first {
            var merged = written.metadata ?? [:]
            for (key, value) in read.metadata ?? [:] where merged[key] == nil && !StoreMetadata.modelKeys.contains(key) { merged[key] = value }
            // Written now: the migrated store gets no further save.
            try written.engine.setMetadata(merged)
        }
        for store in destinationCoordinator.persistentStores { try destinationCoordinator.remove(store) }
        for store in sourceCoordinator.persistentStores { try sourceCoordinator.remove(store) }
    }

    /// The instances an entity mapping migrates: its source expression's, or every
    /// instance of the source entity itself (sub-entities have mappings of their own).
    private func sourceInstances(of entityName: String, mapping: NSEntityMapping) throws -> [NSManagedObject] {
        if let expression = mapping.sourceExpression {
            let variables = NSMutableDictionary()
            variables[NSMigrationManagerKey] = self
            variables["context"] = sourceContext
            return Self.objects(in: expression.expressionValue(with: nil, context: variables))
        }
        let request = NSFetchRequest<NSManagedObject>(entityName: entityName)
        request.includesSubentities = false
        return try sourceContext.fetch(request)
    }

    private func cancelled(_ error: Error) -> NSError {
        let inner = error as NSError
        if inner.domain == NSCocoaErrorDomain, inner.code == NSMigrationCancelledError || inner.code == NSEntityMigrationPolicyError { return inner }
        return coreDataError(NSMigrationCancelledError, userInfo: [
            NSLocalizedDescriptionKey: "The migration was cancelled.", NSUnderlyingErrorKey: inner, "reason": inner.localizedDescription,
        ])
    }
}
