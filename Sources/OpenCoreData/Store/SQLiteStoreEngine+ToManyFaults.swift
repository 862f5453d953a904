import Foundation

// A to-many relationship fault fired in one statement, as Core Data fires it: the
// destination rows themselves, selected by the owner's key, not their keys first and the
// rows after. At `-com.apple.CoreData.SQLDebug 1` Core Data prints, for a trail's hikes,
//
//     CoreData: sql: SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZDATE, … FROM ZHIKE t0 WHERE  t0.ZTRAIL = ?
//
// and for a many-to-many relationship it joins the join table.

extension SQLiteStoreEngine {
    /// The rows `relationship` (to-many) of the row `source` leads to, read in one
    /// statement: `SELECT 0, t0.Z_PK, t0.Z_OPT, … FROM ZHIKE t0 WHERE  t0.ZTRAIL = ?`, or
    /// `… FROM ZHIKER t0 JOIN Z_2HIKERS t1 ON t0.Z_PK = t1.Z_3HIKERS WHERE  t1.Z_2HIKES = ?`
    /// through a join table. An ordered relationship's rows come in its order.
    func destinationRows(of relationship: NSRelationshipDescription, from source: StoreKey) throws -> [StoreRow] {
        lock.lock()
        defer { lock.unlock() }
        guard relationship.isToMany, let storage = schema.toMany(relationship) else {
            throw coreDataError(NSPersistentStoreOperationError, userInfo: [NSLocalizedDescriptionKey: "The store does not hold relationship \(relationship.entity?.name ?? "").\(relationship.name)."])
        }
        let destination: StoreEntity
        var sql: String
        var binds: [Int64] = [source.primaryKey]
        switch storage {
        case .foreignKey(let mapped, let keyColumn, let orderColumn), .hiddenKey(let mapped, let keyColumn, let orderColumn):
            destination = mapped
            sql = " WHERE  t0.\(keyColumn) = ?"
            if mapped.entity !== mapped.table.root {
                sql += " AND ( t0.Z_ENT >= ? AND  t0.Z_ENT <= ?)"
                binds += [Int64(mapped.subtree.lowerBound), Int64(mapped.subtree.upperBound)]
            }
            if let orderColumn { sql += " ORDER BY t0.\(orderColumn), t0.Z_PK" }
        case .joinTable(let join, let ownColumn, let otherColumn, let orderColumn, let mapped):
            destination = mapped
            sql = " JOIN \(join.name) t1 ON t0.Z_PK = t1.\(otherColumn) WHERE  t1.\(ownColumn) = ?"
            if let orderColumn { sql += " ORDER BY t1.\(orderColumn), t0.Z_PK" }
        }
        let plan = plans.select(destination, includesSubentities: true, schema: schema)
        return try database.withStatement(plan.selectSQL + sql) { statement in
            for (offset, value) in binds.enumerated() { statement.bindKey(value, at: Int32(offset + 1)) }
            return try readRows(statement, plan: plan)
        }
    }
}
