import Foundation

extension SQLiteStoreEngine {
    /// The rows of `destination` (sub-entities included) whose foreign key `keyColumn`
    /// holds one of `owners`: `SELECT 0, t0.Z_PK, t0.Z_OPT, … FROM ZHIKE t0 WHERE
    /// t0.ZTRAIL IN (?, …) ORDER BY t0.Z_PK`, one statement per 512 owners.
    ///
    /// Prefetching a one-to-many relationship: each row names its owner in its to-one,
    /// so the pairing and the values arrive in the same statement.
    func fetchRows(of destination: StoreEntity, whereKey keyColumn: String, in owners: [Int64]) throws -> [StoreRow] {
        lock.lock()
        defer { lock.unlock() }
        let plan = plans.select(destination, includesSubentities: true, schema: schema)
        let (entityTest, bounds) = entityCondition(destination, includesSubentities: true)
        var rows: [StoreRow] = []
        for chunk in PaddedKeyChunk.chunks(of: owners) {
            let keyTest = "t0.\(keyColumn) IN (\(chunk.placeholders))"
            let condition = entityTest.isEmpty ? " WHERE  " + keyTest : entityTest + " AND " + keyTest
            try database.withStatement(plan.selectSQL + condition + " ORDER BY t0.Z_PK") { statement in
                var index: Int32 = 1
                for bound in bounds {
                    statement.bindKey(Int64(bound), at: index)
                    index += 1
                }
                chunk.bind(to: statement, from: index)
                try readRows(statement, plan: plan, appendingTo: &rows, entityName: destination.entity.name)
            }
        }
        return rows
    }
}
