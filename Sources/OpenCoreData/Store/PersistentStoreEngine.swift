import Foundation

/// What contexts and the coordinator need from a store, whatever keeps its rows: the
/// boundary between the object graph and storage. Contexts reach it only through their
/// coordinator (see NSPersistentStoreCoordinator+Requests.swift), as in Core Data: fetches
/// and counts, saves, faults to fulfil, relationship values, permanent IDs, row versions
/// for optimistic locking, batch requests.
///
/// Two engines implement it: ``SQLiteStoreEngine`` (SQLite, in-memory and binary stores)
/// and ``IncrementalStoreEngine``, which hands each call to a public ``NSIncrementalStore``
/// subclass. Rows are addressed by ``StoreKey`` (entity number and primary key); an engine
/// maps those to whatever its storage uses.
///
/// Engines are shared by contexts on different queues: each implementation serializes its
/// own state and says how.
protocol PersistentStoreEngine: AnyObject {
    /// The store's UUID (`metadata[NSStoreUUIDKey]`).
    var identifier: String { get }
    /// The store's metadata.
    var metadata: [String: Any] { get }
    /// Replaces the metadata.
    func setMetadata(_ metadata: [String: Any]) throws

    /// The number rows of `entity` carry in their keys.
    func entityNumber(for entity: NSEntityDescription) -> Int
    /// The concrete entity of an entity number, `nil` when the store has none.
    func entity(forNumber number: Int) -> NSEntityDescription?

    /// The rows of `keys` the store holds (rows it does not hold are left out), for the
    /// context that asked (an incremental store receives it); `nil` when none did.
    func fetchRows(for keys: [StoreKey], context: NSManagedObjectContext?) throws -> [StoreRow]
    /// The row of `key`, `nil` when the store does not hold it: ``fetchRows(for:context:)``
    /// for one key (a fault firing, a look-up by ID).
    func fetchRow(for key: StoreKey, context: NSManagedObjectContext?) throws -> StoreRow?
    /// Every row of `entity` (and of its sub-entities when asked).
    func fetchRows(of entity: NSEntityDescription, includesSubentities: Bool, context: NSManagedObjectContext?) throws -> [StoreRow]
    /// The keys a relationship of the row `source` leads to (zero or one for a to-one).
    func destinationKeys(of relationship: NSRelationshipDescription, from source: StoreKey, context: NSManagedObjectContext?) throws -> [StoreKey]
    /// The rows a to-many relationship of the row `source` leads to, read in one go as Core
    /// Data fires a to-many fault; `nil` when the engine only knows the keys (the context
    /// then asks for ``destinationKeys(of:from:context:)`` and reads the rows in batches).
    func destinationRows(of relationship: NSRelationshipDescription, from source: StoreKey, context: NSManagedObjectContext?) throws -> [StoreRow]?
    /// The version each row of `keys` has in the store now (rows the store does not hold
    /// are left out): what optimistic locking compares with the version an object was read at.
    func versions(of keys: [StoreKey], context: NSManagedObjectContext?) throws -> [StoreKey: Int64]
    /// A value that changes whenever rows of `entity` change: what the fetched results
    /// controller's section cache compares.
    func contentToken(of entity: NSEntityDescription) throws -> [Int64]
    /// Closes the storage; idempotent.
    func close()

    // MARK: Requests a context sends through its coordinator

    /// The answer to a fetch of `entity` from `store` (this engine's store) for `context`:
    /// objects, object IDs, dictionaries or one `NSNumber` count, as the request's result
    /// type asks, with the context's unsaved changes merged when the request includes them.
    func execute<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription, in store: NSPersistentStore,
                    context: NSManagedObjectContext) throws -> [Any]
    /// How many objects `request` would return to `context`.
    func count<T>(for request: NSFetchRequest<T>, entity: NSEntityDescription, in store: NSPersistentStore,
                  context: NSManagedObjectContext) throws -> Int
    /// Permanent IDs of `store` for new objects, one per object, in the order given.
    func obtainPermanentIDs(for objects: [NSManagedObject], in store: NSPersistentStore, context: NSManagedObjectContext) throws -> [NSManagedObjectID]
    /// Runs a batch request (update, delete or insert) whose objects `store` holds.
    func execute(_ request: NSPersistentStoreRequest, in store: NSPersistentStore, context: NSManagedObjectContext) throws -> NSPersistentStoreResult
    /// Writes the plan's work for `store` all or nothing, after the context's merge policy
    /// settled the conflicts the store finds.
    func save(_ plan: SavePlan, to store: NSPersistentStore) throws -> StoreSaveResult
}

/// What a store wrote in a save.
struct StoreSaveResult {
    /// The rows written, with their objects: the objects' new snapshots.
    var rows: [(NSManagedObject, StoreRow)]
    /// Rows whose derived values the store computed while writing (SQL triggers): the
    /// context reads them again.
    var derivedKeys: [StoreKey] = []
}

extension PersistentStoreEngine {
    /// The rows of `keys`, read without a context (prefetching, batches).
    func fetchRows(for keys: [StoreKey]) throws -> [StoreRow] { try fetchRows(for: keys, context: nil) }

    /// Every row of `entity`, read without a context.
    func fetchRows(of entity: NSEntityDescription, includesSubentities: Bool) throws -> [StoreRow] {
        try fetchRows(of: entity, includesSubentities: includesSubentities, context: nil)
    }

    /// The destination keys of a relationship, read without a context.
    func destinationKeys(of relationship: NSRelationshipDescription, from source: StoreKey) throws -> [StoreKey] {
        try destinationKeys(of: relationship, from: source, context: nil)
    }

    // MARK: SQL-only work

    // The SQL seam. Work that only a SQL store does (the SQL fetch plans of a SQLite
    // store's fetches, batch requests in SQL, constraint checks, copying the database)
    // goes through here, reached from the SQLite engine's answers to the requests above;
    // another engine answers with Core Data's unsupported-request error instead of a trap.

    /// The SQLite engine behind this store, or the error for a store that has none.
    func sqlite(for work: String) throws -> SQLiteStoreEngine {
        if let engine = self as? SQLiteStoreEngine { return engine }
        throw coreDataError(NSPersistentStoreUnsupportedRequestTypeError, userInfo: [
            NSLocalizedDescriptionKey: "\(work) needs a SQLite, in-memory or binary store; this store is a \(type(of: self))."
        ])
    }

    func translator(for entity: NSEntityDescription) throws -> PredicateSQLTranslator {
        try sqlite(for: "Translating a predicate to SQL").translator(for: entity)
    }

    func storeEntity(_ entity: NSEntityDescription) throws -> StoreEntity {
        try sqlite(for: "Mapping an entity to a table").storeEntity(entity)
    }

    func fetchRows(_ query: SQLFetchQuery, includesSubentities: Bool, tail: UnsafeMutablePointer<FetchLogTail?>? = nil) throws -> [StoreRow] {
        try sqlite(for: "A SQL fetch").fetchRows(query, includesSubentities: includesSubentities, tail: tail)
    }

    func fetchKeys(_ query: SQLFetchQuery) throws -> [StoreKey] {
        try sqlite(for: "A SQL fetch").fetchKeys(query)
    }

    func countRows(_ query: SQLFetchQuery) throws -> Int {
        try sqlite(for: "A SQL count").countRows(query)
    }

    func destinationKeys(of relationship: NSRelationshipDescription, fromOwners owners: [Int64]) throws -> [(Int64, StoreKey)] {
        try sqlite(for: "Prefetching a to-many relationship in SQL").destinationKeys(of: relationship, fromOwners: owners)
    }

    func performSave(_ body: (SQLiteSaveTransaction) throws -> Void) throws {
        try sqlite(for: "A SQL transaction").performSave(body)
    }

    func batchUpdate(_ entity: NSEntityDescription, predicate: NSPredicate?, includesSubentities: Bool, values: [(NSAttributeDescription, BatchUpdateValue)], returningKeys: Bool, in transaction: SQLiteSaveTransaction) throws -> BatchOutcome {
        try sqlite(for: "A batch update").batchUpdate(entity, predicate: predicate, includesSubentities: includesSubentities, values: values, returningKeys: returningKeys, in: transaction)
    }

    func batchDelete(_ fetch: NSFetchRequest<NSFetchRequestResult>, entity: NSEntityDescription, returningKeys: Bool, in transaction: SQLiteSaveTransaction) throws -> BatchOutcome {
        try sqlite(for: "A batch delete").batchDelete(fetch, entity: entity, returningKeys: returningKeys, in: transaction)
    }

    func batchInsert(_ rows: [PropertyValues], of entity: NSEntityDescription, conflicts: BatchInsertConflicts, returningKeys: Bool, in transaction: SQLiteSaveTransaction) throws -> BatchOutcome {
        try sqlite(for: "A batch insert").batchInsert(rows, of: entity, conflicts: conflicts, returningKeys: returningKeys, in: transaction)
    }

    func copyDatabase(to url: URL) throws {
        try sqlite(for: "Copying a store file").copyDatabase(to: url)
    }

    /// The schema of a SQL store; `nil` for another store, which has no tables.
    var sqlSchema: StoreSchema? { (self as? SQLiteStoreEngine)?.schema }

    /// See ``SQLiteStoreEngine/relationshipBlockingBatchDelete(from:)``; `nil` for a store
    /// that runs no batch delete.
    func relationshipBlockingBatchDelete(from entities: [NSEntityDescription]) -> NSRelationshipDescription? {
        (self as? SQLiteStoreEngine)?.relationshipBlockingBatchDelete(from: entities)
    }
}
