import Foundation

/// The store boundary for an ``NSIncrementalStore`` subclass: turns the library's reads of
/// rows by key into calls of the subclass's public methods, and its nodes into rows.
///
/// Keys: an entity's number is its position in the model's entities sorted by name (plus
/// one); a reference object that is an integer is its own primary key, as Core Data's
/// object ID URIs show it (`…/Trail/p7`); any other reference object (a string, a UUID)
/// gets a negative key of its own, remembered for the store's life.
///
/// Thread-safe: the key tables and metadata are guarded by `lock`. Every call into the
/// subclass goes through ``serialized(_:)``, one at a time, as Core Data's coordinator
/// serializes the work of its stores: a store written for Core Data keeps its state
/// without locks of its own. The lock is recursive, because a store's `execute` makes
/// faults whose values it is asked for on the same thread.
final class IncrementalStoreEngine: PersistentStoreEngine {
    /// Serializes calls into the store's subclass.
    private let callLock = NSRecursiveLock()

    /// Runs `body`, which calls the store's methods, while no other thread does.
    func serialized<T>(_ body: () throws -> T) rethrows -> T {
        callLock.lock()
        defer { callLock.unlock() }
        return try body()
    }

    /// The store whose methods answer; set right after the store is made.
    var store: NSIncrementalStore? { storeHandle?.target.map { unsafeDowncast($0, to: NSIncrementalStore.self) } }
    /// The store's handle, held instead of a weak reference (``TargetHandle``).
    var storeHandle: TargetHandle<NSPersistentStore>?
    private let entitiesByNumber: [Int: NSEntityDescription]
    private let numbersByEntity: [ObjectIdentifier: Int]
    private let lock = NSLock()
    private var storedMetadata: [String: Any] = [:]
    private var keysByReference: [Int: [AnyHashable: Int64]] = [:]
    private var referencesByKey: [StoreKey: Any] = [:]
    private var nextSyntheticKey: Int64 = -1
    /// Counts saves, for ``contentToken(of:)``.
    private var saveCount: Int64 = 0

    init(model: NSManagedObjectModel?) {
        let entities = (model?.entities ?? []).sorted { ($0.name ?? "") < ($1.name ?? "") }
        var byNumber: [Int: NSEntityDescription] = [:]
        var byEntity: [ObjectIdentifier: Int] = [:]
        for (index, entity) in entities.enumerated() {
            byNumber[index + 1] = entity
            byEntity[ObjectIdentifier(entity)] = index + 1
        }
        entitiesByNumber = byNumber
        numbersByEntity = byEntity
    }

    // MARK: Metadata

    var identifier: String { metadata[NSStoreUUIDKey] as? String ?? "" }

    var metadata: [String: Any] {
        lock.lock(); defer { lock.unlock() }
        return storedMetadata
    }

    func setMetadata(_ metadata: [String: Any]) throws {
        lock.lock(); defer { lock.unlock() }
        storedMetadata = metadata
    }

    func close() {}

    // MARK: Keys and reference objects

    func entityNumber(for entity: NSEntityDescription) -> Int { numbersByEntity[ObjectIdentifier(entity)] ?? 0 }

    func entity(forNumber number: Int) -> NSEntityDescription? { entitiesByNumber[number] }

    /// The key of the object of `entity` a store knows as `reference`.
    func key(for entity: NSEntityDescription, referenceObject reference: Any) -> StoreKey {
        let number = entityNumber(for: entity)
        if let integer = Self.integerReference(reference) {
            return StoreKey(entityNumber: number, primaryKey: integer)
        }
        let hashable = (reference as? AnyHashable) ?? AnyHashable(String(describing: reference))
        lock.lock(); defer { lock.unlock() }
        if let known = keysByReference[number]?[hashable] { return StoreKey(entityNumber: number, primaryKey: known) }
        let key = StoreKey(entityNumber: number, primaryKey: nextSyntheticKey)
        nextSyntheticKey -= 1
        keysByReference[number, default: [:]][hashable] = key.primaryKey
        referencesByKey[key] = reference
        return key
    }

    /// The reference object a key was made from; an integer for positive keys.
    func referenceObject(for key: StoreKey) -> Any {
        if key.primaryKey > 0 { return Int(key.primaryKey) }
        lock.lock(); defer { lock.unlock() }
        return referencesByKey[key] ?? Int(key.primaryKey)
    }

    /// A reference object that is a positive whole number (not a Boolean), as Int64.
    private static func integerReference(_ reference: Any) -> Int64? {
        switch reference {
        case is Bool: return nil
        case let value as Int: return value > 0 ? Int64(value) : nil
        case let value as Int64: return value > 0 ? value : nil
        case let value as Int32: return value > 0 ? Int64(value) : nil
        case let value as UInt: return value > 0 && value <= UInt(Int64.max) ? Int64(value) : nil
        case let number as NSNumber:
            let kind = String(cString: number.objCType)
            guard kind != "d", kind != "f", number.int64Value > 0 else { return nil }
            return number.int64Value
        default: return nil
        }
    }

    // MARK: Reads

    func fetchRows(for keys: [StoreKey], context: NSManagedObjectContext?) throws -> [StoreRow] {
        guard let store else { return [] }
        let context = try readingContext(context)
        var rows: [StoreRow] = []
        rows.reserveCapacity(keys.count)
        for key in keys {
            guard let entity = entity(forNumber: key.entityNumber) else { continue }
            let objectID = NSManagedObjectID(store: store, key: key, entity: entity)
            try serialized {
                let node = try store.newValuesForObject(with: objectID, with: context)
                rows.append(try row(from: node, key: key, entity: entity, context: context))
            }
        }
        return rows
    }

    func fetchRow(for key: StoreKey, context: NSManagedObjectContext?) throws -> StoreRow? {
        try fetchRows(for: [key], context: context).first
    }

    func fetchRows(of entity: NSEntityDescription, includesSubentities: Bool, context: NSManagedObjectContext?) throws -> [StoreRow] {
        guard let store, let name = entity.name else { return [] }
        let context = try readingContext(context)
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: name)
        request.entity = entity
        request.resultType = .managedObjectIDResultType
        request.includesSubentities = includesSubentities
        let result = try serialized { try store.execute(request, with: context) }
        let ids = try IncrementalStoreResults.array(result, of: NSManagedObjectID.self, store: store, request: request)
        return try fetchRows(for: ids.compactMap(\.storeKey), context: context)
    }

    /// An incremental store answers a to-many relationship with object IDs only
    /// (`newValue(forRelationship:forObjectWith:with:)`).
    func destinationRows(of relationship: NSRelationshipDescription, from source: StoreKey, context: NSManagedObjectContext?) throws -> [StoreRow]? {
        nil
    }

    func destinationKeys(of relationship: NSRelationshipDescription, from source: StoreKey, context: NSManagedObjectContext?) throws -> [StoreKey] {
        guard let store, let entity = entity(forNumber: source.entityNumber) else { return [] }
        let context = try readingContext(context)
        let objectID = NSManagedObjectID(store: store, key: source, entity: entity)
        let value = try serialized { try store.newValue(forRelationship: relationship, forObjectWith: objectID, with: context) }
        return try Self.objectIDs(in: value, relationship: relationship, store: store).compactMap(\.storeKey)
    }

    /// The object IDs a relationship value holds: one ID, `NSNull`, or a collection of IDs.
    static func objectIDs(in value: Any, relationship: NSRelationshipDescription, store: NSIncrementalStore) throws -> [NSManagedObjectID] {
        switch AttributeValues.unwrapped(value) {
        case nil: return []
        case let id as NSManagedObjectID: return [id]
        case let value? where AttributeValues.isNull(value): return []
        case let ids as [NSManagedObjectID]: return ids
        case let ids as Set<NSManagedObjectID>: return Array(ids)
        case let ordered as NSOrderedSet: return try ordered.array.map { try objectID($0, relationship: relationship, store: store) }
        case let array as [Any]: return try array.map { try objectID($0, relationship: relationship, store: store) }
        case let other?:
            throw badValue("\(type(of: other))", for: relationship, store: store)
        }
    }

    private static func objectID(_ value: Any, relationship: NSRelationshipDescription, store: NSIncrementalStore) throws -> NSManagedObjectID {
        guard let id = value as? NSManagedObjectID else { throw badValue("\(type(of: value))", for: relationship, store: store) }
        return id
    }

    private static func badValue(_ what: String, for property: NSPropertyDescription, store: NSIncrementalStore) -> NSError {
        coreDataError(NSPersistentStoreOperationError, userInfo: [
            NSLocalizedDescriptionKey: "\(type(of: store)) returned a value of type \(what) for \(property.entity?.name ?? "?").\(property.name), which needs \(property is NSRelationshipDescription ? "object IDs" : "a value of its attribute type")."
        ])
    }

    /// The row a node describes: attributes converted to their stored types, to-one
    /// relationships from the node or, when it has none, from the store.
    private func row(from node: NSIncrementalStoreNode, key: StoreKey, entity: NSEntityDescription, context: NSManagedObjectContext) throws -> StoreRow {
        guard let store else { throw coreDataError(NSPersistentStoreOperationError) }
        let table = entity.propertyTable
        var attributes = PropertyValues(table: table)
        var toOne = ToOneKeys()
        let values = node.allValues
        for property in entity.properties where !property.isTransient {
            if let attribute = property as? NSAttributeDescription {
                guard let given = AttributeValues.unwrapped(values[attribute.name]), !AttributeValues.isNull(given) else { continue }
                guard let stored = AttributeValues.convert(given, to: attribute.attributeType) else {
                    throw Self.badValue("\(type(of: given))", for: attribute, store: store)
                }
                attributes[attribute.name] = stored
            } else if let relationship = property as? NSRelationshipDescription, !relationship.isToMany {
                let value = try values[relationship.name]
                    ?? store.newValue(forRelationship: relationship, forObjectWith: node.objectID, with: context)
                if let destination = try Self.objectIDs(in: value, relationship: relationship, store: store).first?.storeKey {
                    toOne[relationship.name] = destination
                }
            }
        }
        return StoreRow(key: key, entity: entity, version: Int64(clamping: node.version), attributes: attributes, toOne: toOne)
    }

    /// The context a store method receives: the one asking, else a short-lived context on
    /// the store's coordinator (Core Data always passes one to `newValuesForObject`).
    private func readingContext(_ context: NSManagedObjectContext?) throws -> NSManagedObjectContext {
        if let context { return context }
        guard let coordinator = store?.persistentStoreCoordinator else {
            throw coreDataError(NSPersistentStoreOperationError, userInfo: [NSLocalizedDescriptionKey: "The incremental store was removed from its coordinator."])
        }
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = coordinator
        return reader
    }

    // MARK: Writes

    /// Notes a save, so that tokens of every entity change.
    func noteSave() {
        lock.lock(); defer { lock.unlock() }
        saveCount += 1
    }

    /// The number of saves through this coordinator: an incremental store cannot say
    /// what changed in its storage, so a fetched results cache is trusted only until the
    /// next save.
    func contentToken(of entity: NSEntityDescription) throws -> [Int64] {
        lock.lock(); defer { lock.unlock() }
        return [saveCount]
    }
}

/// Checks what a store's `execute` returned for a fetch.
enum IncrementalStoreResults {
    /// `result` as an array of `T`, or an error naming the store and what it returned.
    static func array<T, R>(_ result: Any, of type: T.Type, store: NSIncrementalStore, request: NSFetchRequest<R>) throws -> [T] {
        if let typed = result as? [T] { return typed }
        if let items = result as? [Any] {
            var typed: [T] = []
            typed.reserveCapacity(items.count)
            for item in items {
                guard let value = item as? T else { throw wrongResult("an element of type \(Swift.type(of: item))", store: store, request: request, expected: T.self) }
                typed.append(value)
            }
            return typed
        }
        throw wrongResult("a \(Swift.type(of: result))", store: store, request: request, expected: T.self)
    }

    private static func wrongResult<R>(_ what: String, store: NSIncrementalStore, request: NSFetchRequest<R>, expected: Any.Type) -> NSError {
        coreDataError(NSPersistentStoreOperationError, userInfo: [
            NSLocalizedDescriptionKey: "\(type(of: store)) returned \(what) for a fetch of \(request.entityName ?? "?") that needs an array of \(expected)."
        ])
    }
}
