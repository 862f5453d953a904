import Foundation

/// The SQLite engine behind the store boundary. Reads ignore the context they are for
/// (nothing in SQL depends on it). Fetches and counts are answered by the context's fetch
/// machinery, which filters, sorts and counts in SQL through the engine's SQL seam
/// (``PersistentStoreEngine/sqlite(for:)``) and in memory what SQL cannot express.
extension SQLiteStoreEngine: PersistentStoreEngine {
    func fetchRows(for keys: [StoreKey], context: NSManagedObjectContext?) throws -> [StoreRow] {
        try fetchRows(for: keys)
    }

    func fetchRow(for key: StoreKey, context: NSManagedObjectContext?) throws -> StoreRow? {
        try fetchRow(for: key)
    }

    func fetchRows(of entity: NSEntityDescription, includesSubentities: Bool, context: NSManagedObjectContext?) throws -> [StoreRow] {
        try fetchRows(of: entity, includesSubentities: includesSubentities)
    }

    func destinationKeys(of relationship: NSRelationshipDescription, from source: StoreKey, context: NSManagedObjectContext?) throws -> [StoreKey] {
        try destinationKeys(of: relationship, from: source)
    }

    func destinationRows(of relationship: NSRelationshipDescription, from source: StoreKey, context: NSManagedObjectContext?) throws -> [StoreRow]? {
        try destinationRows(of: relationship, from: source)
    }

    func versions(of keys: [StoreKey], context: NSManagedObjectContext?) throws -> [StoreKey: Int64] {
        try versions(of: keys)
    }

    func execute<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription, in store: NSPersistentStore,
                    context: NSManagedObjectContext) throws -> [Any] {
        try context.evaluateFetch(request, entity: entity)
    }

    func count<T>(for request: NSFetchRequest<T>, entity: NSEntityDescription, in store: NSPersistentStore,
                  context: NSManagedObjectContext) throws -> Int {
        try context.evaluateCount(request, entity: entity)
    }

    /// The library's batch requests, run in SQL (each request's own implementation).
    func execute(_ request: NSPersistentStoreRequest, in store: NSPersistentStore, context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        try request.execute(in: context)
    }

    /// Keys drawn from `Z_PRIMARYKEY`, a block per entity, in the order the objects were
    /// inserted (the order a save gives keys in).
    func obtainPermanentIDs(for objects: [NSManagedObject], in store: NSPersistentStore, context: NSManagedObjectContext) throws -> [NSManagedObjectID] {
        var ids: [ObjectIdentifier: NSManagedObjectID] = [:]
        ids.reserveCapacity(objects.count)
        for (entity, group) in SavePlan.byEntity(objects) {
            let keys = try allocatePrimaryKeys(for: entity, count: group.count)
            let number = entityNumber(for: entity)
            for (object, primaryKey) in zip(group, keys) {
                ids[ObjectIdentifier(object)] = NSManagedObjectID(store: store, key: StoreKey(entityNumber: number, primaryKey: primaryKey), entity: entity)
            }
        }
        return objects.map { ids[ObjectIdentifier($0)]! }
    }

    /// One SQL transaction: conflicts are found and settled while it holds the store's
    /// write lock, then the rows are written.
    func save(_ plan: SavePlan, to store: NSPersistentStore) throws -> StoreSaveResult {
        var readingVersions = false
        while true {
            _ = derivedValueReports.drain()
            var rows: [(NSManagedObject, StoreRow)] = []
            do {
                try performSave { transaction in
                    rows = try plan.write(to: store, in: transaction, readingVersions: readingVersions)
                }
                return StoreSaveResult(rows: rows, derivedKeys: derivedValueReports.drain())
            } catch is StaleRowVersion where !readingVersions {
                // A row moved on since it was read: rolled back, nothing changed. Again,
                // reading the versions first, so the merge policy sees the conflicts.
                readingVersions = true
            }
        }
    }
}
