import Foundation

/// The SQLite engine behind the store boundary: the context a read is for changes nothing
/// in SQL, so these forward to the engine's own reads.
extension SQLiteStoreEngine: PersistentStoreEngine {
    func fetchRows(for keys: [StoreKey], context: NSManagedObjectContext?) throws -> [StoreRow] {
        try fetchRows(for: keys)
    }

    func fetchRows(of entity: NSEntityDescription, includesSubentities: Bool, context: NSManagedObjectContext?) throws -> [StoreRow] {
        try fetchRows(of: entity, includesSubentities: includesSubentities)
    }

    func destinationKeys(of relationship: NSRelationshipDescription, from source: StoreKey, context: NSManagedObjectContext?) throws -> [StoreKey] {
        try destinationKeys(of: relationship, from: source)
    }
}
