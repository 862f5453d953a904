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
        let unique = Array(Set(owners)).sorted()
        var rows: [StoreRow] = []
        var start = 0
        while start < unique.count {
            let chunk = unique[start..<min(start + SelectPlan.batchSizes.last!, unique.count)]
            start += chunk.count
            // A few fixed list lengths keep the statement cache small; the last key repeats.
            let size = SelectPlan.batchSizes.first { $0 >= chunk.count }!
            let placeholders = Array(repeating: "?", count: size).joined(separator: ", ")
            let keyTest = "t0.\(keyColumn) IN (\(placeholders))"
            let condition = entityTest.isEmpty ? " WHERE  " + keyTest : entityTest + " AND " + keyTest
            rows += try database.withStatement(plan.selectSQL + condition + " ORDER BY t0.Z_PK") { statement in
                var index: Int32 = 1
                for bound in bounds {
                    statement.bindKey(Int64(bound), at: index)
                    index += 1
                }
                for owner in chunk + Array(repeating: chunk.last!, count: size - chunk.count) {
                    statement.bindKey(owner, at: index)
                    index += 1
                }
                return try readRows(statement, plan: plan, entityName: destination.entity.name)
            }
        }
        return rows
    }
}
