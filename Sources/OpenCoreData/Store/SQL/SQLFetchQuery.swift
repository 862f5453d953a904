import Foundation

/// A fetch translated to SQL: the rows of one entity (and its sub-entities), filtered,
/// ordered and limited by SQLite.
///
/// ```
/// SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZNAME … FROM ZTRAIL t0 LEFT OUTER JOIN ZCOUNTRY t1 ON …
///   WHERE  NSCoreDataStringSearch( t1.ZNAME, ?, 385, 0) ORDER BY t0.ZNAME COLLATE NSCollateFinderlike, t0.Z_PK LIMIT 10
/// ```
struct SQLFetchQuery {
    let entity: StoreEntity
    /// `LEFT OUTER JOIN`s after `FROM Z… t0`.
    var joins = ""
    /// The WHERE condition (entity test and predicate), `nil` for none.
    var condition: SQLFragment?
    /// `ORDER BY` terms; `nil` orders by primary key.
    var orderBy: String?
    var limit = 0
    var offset = 0

    /// ` WHERE … ORDER BY … LIMIT …` after the FROM clause and joins.
    var tail: String {
        var sql = joins
        if let condition { sql += " WHERE " + condition.sql }
        sql += " ORDER BY " + (orderBy ?? "t0.Z_PK")
        sql += limitClause
        return sql
    }

    var limitClause: String {
        if limit > 0 { return offset > 0 ? " LIMIT \(limit) OFFSET \(offset)" : " LIMIT \(limit)" }
        return offset > 0 ? " LIMIT -1 OFFSET \(offset)" : ""
    }

    var binds: [SQLBind] { condition?.binds ?? [] }

    /// The condition choosing `entity`'s rows in its table, as Core Data writes it.
    static func entityCondition(_ entity: StoreEntity, includesSubentities: Bool) -> SQLFragment? {
        let table = entity.table
        if !table.hasSubentities { return nil }
        if includesSubentities {
            if entity.entity === table.root { return nil }
            if entity.subtree.count > 1 {
                return SQLFragment("( t0.Z_ENT >= ? AND  t0.Z_ENT <= ?)", [.key(Int64(entity.subtree.lowerBound)), .key(Int64(entity.subtree.upperBound))])
            }
        }
        return SQLFragment(" t0.Z_ENT = ?", [.key(Int64(entity.number))])
    }
}

extension SQLiteStoreEngine {
    /// A translator for fetches of `entity` from this store.
    func translator(for entity: NSEntityDescription) throws -> PredicateSQLTranslator {
        PredicateSQLTranslator(schema: schema, entity: try storeEntity(entity))
    }

    /// The rows `query` selects, in its order (`SELECT 0, t0.Z_PK, t0.Z_OPT, … FROM …`).
    /// At SQL debug level 3 and above the last lines of the fetch's log go to `tail`, for
    /// the caller to print with the objects it makes (``FetchLogTail``).
    func fetchRows(_ query: SQLFetchQuery, includesSubentities: Bool, tail: UnsafeMutablePointer<FetchLogTail?>? = nil) throws -> [StoreRow] {
        lock.lock()
        defer { lock.unlock() }
        let plan = plans.select(query.entity, includesSubentities: includesSubentities, schema: schema)
        return try database.withStatement(plan.selectSQL + query.tail) { statement in
            query.binds.bind(to: statement)
            return try readRows(statement, plan: plan, tail: tail)
        }
    }

    /// The keys of the rows `query` selects, without their values
    /// (`SELECT t0.Z_ENT, t0.Z_PK FROM …`, `SELECT 0, t0.Z_PK …` for a table of one entity).
    func fetchKeys(_ query: SQLFetchQuery) throws -> [StoreKey] {
        lock.lock()
        defer { lock.unlock() }
        let table = query.entity.table
        let rootNumber = schema.entity(table.root)?.number ?? query.entity.number
        let sql = "SELECT \(table.hasSubentities ? "t0.Z_ENT" : "0"), t0.Z_PK FROM \(table.name) t0" + query.tail
        let logging = database.debugLevel >= 1
        let clock = SQLDebugClock()
        let keys = try database.withStatement(sql) { statement in
            query.binds.bind(to: statement)
            var keys: [StoreKey] = []
            while try statement.step() {
                let number = table.hasSubentities ? Int(statement.int64(0)) : rootNumber
                keys.append(StoreKey(entityNumber: number, primaryKey: statement.int64(1)))
            }
            return keys
        }
        if logging {
            SQLDebugLog.connectionFetchTime(clock.elapsed)
            SQLDebugLog.totalFetchTime(clock.elapsed, rows: keys.count)
        }
        return keys
    }

    /// How many rows `query` selects: `SELECT COUNT(*) FROM ZX` without a condition,
    /// `SELECT COUNT(*) FROM ZX t0 … WHERE …` with one, and a count over the limited
    /// selection when the query has a limit or offset.
    func countRows(_ query: SQLFetchQuery) throws -> Int {
        lock.lock()
        defer { lock.unlock() }
        let clock = SQLDebugClock()
        let table = query.entity.table.name
        let sql: String
        if query.limit > 0 || query.offset > 0 {
            sql = "SELECT COUNT(*) FROM (SELECT t0.Z_PK FROM \(table) t0" + query.tail + ")"
        } else if query.condition == nil && query.joins.isEmpty {
            sql = "SELECT COUNT(*) FROM \(table)"
        } else {
            var text = "SELECT COUNT(*) FROM \(table) t0" + query.joins
            if let condition = query.condition { text += " WHERE " + condition.sql }
            sql = text
        }
        let count = try database.withStatement(sql) { statement in
            query.binds.bind(to: statement)
            return try statement.step() ? Int(statement.int64(0)) : 0
        }
        if database.debugLevel >= 1 { SQLDebugLog.countTime(clock.elapsed, count: count) }
        return count
    }
}
