import Foundation

extension SQLiteStoreEngine {
    /// `(owner, destination)` pairs of a to-many relationship for many owners at once:
    /// `SELECT t0.ZTRAIL, t0.Z_ENT, t0.Z_PK FROM ZHIKE t0 WHERE  t0.ZTRAIL IN (?, …)`, or
    /// the join table's two columns for a many-to-many relationship.
    func destinationKeys(of relationship: NSRelationshipDescription, fromOwners owners: [Int64]) throws -> [(Int64, StoreKey)] {
        lock.lock()
        defer { lock.unlock() }
        guard let storage = schema.toMany(relationship) else { return [] }
        var pairs: [(Int64, StoreKey)] = []
        for chunk in PaddedKeyChunk.chunks(of: owners) {
            let placeholders = chunk.placeholders
            let sql: String
            let fixedEntity: Int?
            switch storage {
            case .foreignKey(let destination, let keyColumn, _), .hiddenKey(let destination, let keyColumn, _):
                let table = destination.table
                fixedEntity = table.hasSubentities ? nil : destination.number
                sql = "SELECT t0.\(keyColumn), \(table.hasSubentities ? "t0.Z_ENT" : "0"), t0.Z_PK FROM \(table.name) t0 WHERE  t0.\(keyColumn) IN (\(placeholders)) ORDER BY t0.Z_PK"
            case .joinTable(let join, let ownColumn, let otherColumn, _, let destination):
                let table = destination.table
                fixedEntity = table.hasSubentities ? nil : destination.number
                sql = "SELECT t1.\(ownColumn), \(table.hasSubentities ? "t0.Z_ENT" : "0"), t0.Z_PK FROM \(table.name) t0 JOIN \(join.name) t1 ON t0.Z_PK = t1.\(otherColumn) WHERE  t1.\(ownColumn) IN (\(placeholders)) ORDER BY t0.Z_PK"
            }
            try database.withStatement(sql) { statement in
                chunk.bind(to: statement)
                while try statement.step() {
                    let number = fixedEntity ?? Int(statement.int64(1))
                    pairs.append((statement.int64(0), StoreKey(entityNumber: number, primaryKey: statement.int64(2))))
                }
            }
        }
        return pairs
    }
}
