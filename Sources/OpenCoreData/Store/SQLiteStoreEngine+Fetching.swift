import Foundation

extension SQLiteStoreEngine {
    /// All rows of `entity` (and of its sub-entities when `includesSubentities`), in Z_PK order.
    func fetchRows(of entity: NSEntityDescription, includesSubentities: Bool) throws -> [StoreRow] {
        lock.lock()
        defer { lock.unlock() }
        let mapped = try storeEntity(entity)
        let plan = plans.select(mapped, includesSubentities: includesSubentities, schema: schema)
        let (condition, bounds) = entityCondition(mapped, includesSubentities: includesSubentities)
        return try database.withStatement(plan.selectSQL + condition + " ORDER BY t0.Z_PK") { statement in
            for (offset, bound) in bounds.enumerated() { statement.bindKey(Int64(bound), at: Int32(offset + 1)) }
            return try readRows(statement, plan: plan, entityName: entity.name ?? "")
        }
    }

    /// The rows for `keys` (any entities), in the order of `keys`; rows that no longer exist
    /// are omitted. Keys are looked up per table in batches (`Z_PK IN (?, …)`, every value
    /// bound), so thousands of keys take a handful of statements.
    func fetchRows(for keys: [StoreKey]) throws -> [StoreRow] {
        lock.lock()
        defer { lock.unlock() }
        if keys.count == 1 { return try fetchRowLocked(for: keys[0]).map { [$0] } ?? [] }
        let clock = database.debugLevel >= 1 ? SQLDebugClock() : nil
        var keysByTable: [ObjectIdentifier: (root: StoreEntity, keys: [Int64])] = [:]
        for key in keys {
            guard let mapped = schema.entity(number: key.entityNumber), let root = schema.entity(mapped.table.root) else { continue }
            keysByTable[ObjectIdentifier(mapped.table), default: (root, [])].keys.append(key.primaryKey)
        }
        var found: [ObjectIdentifier: [Int64: StoreRow]] = [:]
        for (tableID, group) in keysByTable {
            let plan = plans.select(group.root, includesSubentities: true, schema: schema)
            var rows: [Int64: StoreRow] = [:]
            rows.reserveCapacity(group.keys.count)
            for chunk in PaddedKeyChunk.chunks(of: group.keys) {
                let chunkRows = try database.withStatement(plan.byKeysSQL[chunk.size]!) { statement in
                    chunk.bind(to: statement)
                    return try readRows(statement, plan: plan, logTotals: false)
                }
                for row in chunkRows { rows[row.key.primaryKey] = row }
            }
            found[tableID] = rows
        }
        var result: [StoreRow] = []
        result.reserveCapacity(keys.count)
        for key in keys {
            guard let mapped = schema.entity(number: key.entityNumber),
                let row = found[ObjectIdentifier(mapped.table)]?[key.primaryKey]
            else { continue }
            result.append(row)
        }
        if let clock { SQLDebugLog.totalFetchTime(clock.elapsed, rows: result.count) }
        return result
    }

    /// The row for one key (a fault firing, a look-up by ID), `nil` when the store no
    /// longer holds it: what ``fetchRows(for:)`` does for one key, with no arrays of one.
    func fetchRow(for key: StoreKey) throws -> StoreRow? {
        lock.lock()
        defer { lock.unlock() }
        return try fetchRowLocked(for: key)
    }

    /// The row for one key (faulting one object): `… WHERE t0.Z_PK = ?`.
    private func fetchRowLocked(for key: StoreKey) throws -> StoreRow? {
        let plan: SelectPlan
        if let last = lastKeyPlan, last.entityNumber == key.entityNumber {
            plan = last.plan
        } else {
            guard let mapped = schema.entity(number: key.entityNumber), let root = schema.entity(mapped.table.root) else { return nil }
            plan = plans.select(root, includesSubentities: true, schema: schema)
            lastKeyPlan = (key.entityNumber, plan)
        }
        return try database.withStatement(plan.byKeySQL) { statement in
            statement.bindKey(key.primaryKey, at: 1)
            return try readFirstRow(statement, plan: plan, decoder: &lastKeyDecoder)
        }
    }

    /// The number of rows of `entity` (and of its sub-entities when `includesSubentities`).
    func countRows(of entity: NSEntityDescription, includesSubentities: Bool) throws -> Int {
        lock.lock()
        defer { lock.unlock() }
        let clock = SQLDebugClock()
        let mapped = try storeEntity(entity)
        let (condition, bounds) = entityCondition(mapped, includesSubentities: includesSubentities)
        let count = try database.withStatement("SELECT COUNT(*) FROM \(mapped.table.name) t0" + condition) { statement in
            for (offset, bound) in bounds.enumerated() { statement.bindKey(Int64(bound), at: Int32(offset + 1)) }
            return try statement.step() ? Int(statement.int64(0)) : 0
        }
        if database.debugLevel >= 1 { SQLDebugLog.countTime(clock.elapsed, count: count) }
        return count
    }

    /// The destinations of a to-many relationship of `source`: through the inverse's
    /// foreign key (one-to-many) or the join table (many-to-many); in stored order for
    /// ordered relationships, else in Z_PK order. For a to-one, its one destination.
    func destinationKeys(of relationship: NSRelationshipDescription, from source: StoreKey) throws -> [StoreKey] {
        lock.lock()
        defer { lock.unlock() }
        if !relationship.isToMany { return try toOneDestination(of: relationship, from: source) }
        guard let storage = schema.toMany(relationship) else {
            throw coreDataError(NSPersistentStoreOperationError, userInfo: [NSLocalizedDescriptionKey: "The store does not hold relationship \(relationship.entity?.name ?? "").\(relationship.name)."])
        }
        let sql: String
        var binds: [Int64] = [source.primaryKey]
        switch storage {
        case .foreignKey(let destination, let keyColumn, let orderColumn), .hiddenKey(let destination, let keyColumn, let orderColumn):
            let table = destination.table
            let isWholeTable = destination.entity === table.root
            let filter = isWholeTable ? "" : " AND (t0.Z_ENT >= ? AND t0.Z_ENT <= ?)"
            let order = orderColumn.map { "t0.\($0), t0.Z_PK" } ?? "t0.Z_PK"
            sql = "SELECT t0.Z_ENT, t0.Z_PK FROM \(table.name) t0 WHERE t0.\(keyColumn) = ?\(filter) ORDER BY \(order)"
            if !isWholeTable { binds += [Int64(destination.subtree.lowerBound), Int64(destination.subtree.upperBound)] }
        case .joinTable(let join, let ownColumn, let otherColumn, let orderColumn, let destination):
            let order = orderColumn.map { "t1.\($0), t0.Z_PK" } ?? "t0.Z_PK"
            sql = "SELECT t0.Z_ENT, t0.Z_PK FROM \(destination.table.name) t0 JOIN \(join.name) t1 ON t0.Z_PK = t1.\(otherColumn) WHERE t1.\(ownColumn) = ? ORDER BY \(order)"
        }
        return try database.withStatement(sql) { statement in
            for (offset, value) in binds.enumerated() { statement.bindKey(value, at: Int32(offset + 1)) }
            var keys: [StoreKey] = []
            while try statement.step() { keys.append(StoreKey(entityNumber: Int(statement.int64(0)), primaryKey: statement.int64(1))) }
            return keys
        }
    }

    // MARK: Helpers

    /// The foreign key of a to-one relationship of `source`.
    private func toOneDestination(of relationship: NSRelationshipDescription, from source: StoreKey) throws -> [StoreKey] {
        let mapped = try storeEntity(number: source.entityNumber)
        guard let toOne = mapped.toOnes.first(where: { $0.relationship === relationship || $0.relationship.name == relationship.name }) else { return [] }
        let table = mapped.table
        var columns = "t0." + table.columns[toOne.column].name
        if let entityColumn = toOne.entityColumn { columns += ", t0." + table.columns[entityColumn].name }
        return try database.withStatement("SELECT \(columns) FROM \(table.name) t0 WHERE t0.Z_PK = ?") { statement in
            statement.bindKey(source.primaryKey, at: 1)
            guard try statement.step(), !statement.isNull(0) else { return [] }
            let number = toOne.entityColumn != nil && !statement.isNull(1) ? Int(statement.int64(1)) : toOne.destinationNumber
            return [StoreKey(entityNumber: number, primaryKey: statement.int64(0))]
        }
    }

    /// The WHERE clause choosing `entity`'s rows in its table, and the numbers it binds.
    func entityCondition(_ entity: StoreEntity, includesSubentities: Bool) -> (String, [Int]) {
        let table = entity.table
        if !table.hasSubentities { return ("", []) }
        if includesSubentities {
            if entity.entity === table.root { return ("", []) }
            if entity.subtree.count > 1 { return (" WHERE (t0.Z_ENT >= ? AND t0.Z_ENT <= ?)", [entity.subtree.lowerBound, entity.subtree.upperBound]) }
        }
        return (" WHERE t0.Z_ENT = ?", [entity.number])
    }

    /// Steps through `statement`, turning each row into a ``StoreRow``.
    ///
    /// With `tail`, at SQL debug level 3 and above the lines that follow the connection
    /// time (the fetched objects, then the total time) are left to the caller, who has
    /// the objects: they go into `tail` instead of being printed.
    func readRows(_ statement: SQLiteStatement, plan: SelectPlan, logTotals: Bool = true, entityName: String? = nil,
                  tail: UnsafeMutablePointer<FetchLogTail?>? = nil) throws -> [StoreRow] {
        var rows: [StoreRow] = []
        try readRows(statement, plan: plan, appendingTo: &rows, logTotals: logTotals, entityName: entityName, tail: tail)
        return rows
    }

    /// ``readRows(_:plan:logTotals:entityName:tail:)`` appending to `rows`: statements that
    /// read a list of keys a chunk at a time fill one array, without an array per chunk
    /// copied into it (a retain and a release per row).
    func readRows(_ statement: SQLiteStatement, plan: SelectPlan, appendingTo rows: inout [StoreRow], logTotals: Bool = true,
                  entityName: String? = nil, tail: UnsafeMutablePointer<FetchLogTail?>? = nil) throws {
        var decoder: RowDecoder?
        try readEachRow(statement, plan: plan, decoder: &decoder, logTotals: logTotals, entityName: entityName, tail: tail) { rows.append($0) }
    }

    /// The first row ``readRows(_:plan:logTotals:entityName:tail:)`` would return, read
    /// and logged the same way, without an array for it: a look-up by key. `decoder` is
    /// used if it decodes the row's entity for `plan`, and left with the one used.
    func readFirstRow(_ statement: SQLiteStatement, plan: SelectPlan, decoder: inout RowDecoder?) throws -> StoreRow? {
        var first: StoreRow?
        try readEachRow(statement, plan: plan, decoder: &decoder) { row in
            if first == nil { first = row }
        }
        return first
    }

    /// Steps `statement` to its end, handing each row to `body` in order, and logs the
    /// fetch at the SQL debug level (see ``readRows(_:plan:logTotals:entityName:tail:)``).
    private func readEachRow(_ statement: SQLiteStatement, plan: SelectPlan, decoder: inout RowDecoder?, logTotals: Bool = true, entityName: String? = nil,
                             tail: UnsafeMutablePointer<FetchLogTail?>? = nil, _ body: (StoreRow) -> Void) throws {
        defer { statement.reset() }
        // The clock only runs for the log: unlogged, a look-up by ID reads no clock.
        let clock = database.debugLevel >= 1 ? SQLDebugClock() : nil
        var stepTime: TimeInterval = 0
        var rowCount = 0
        var firstEntity: NSEntityDescription?
        // `decoder` is the decoder of the concrete entity of the rows last read: made again
        // only when a row of another entity (or another plan's) comes.
        // The rows' read time, taken once at the first row rather than once per row.
        var firstReadAt: TimeInterval?
        while true {
            let stepStart = clock?.elapsed ?? 0
            guard try statement.step() else { break }
            if let clock { stepTime += clock.elapsed - stepStart }
            let number = plan.readsEntity ? Int(statement.int64(0)) : plan.rootNumber
            if decoder?.decodes(number, of: plan) != true {
                decoder = RowDecoder(entity: try storeEntity(number: number), plan: plan, external: externalStorage)
            }
            let readAt = firstReadAt ?? ProcessInfo.processInfo.systemUptime
            firstReadAt = readAt
            let row = try decoder!.decode(statement, readAt: readAt)
            if rowCount == 0 { firstEntity = row.entity }
            rowCount += 1
            body(row)
        }
        if let clock {
            SQLDebugLog.connectionFetchTime(stepTime)
            let name = entityName ?? firstEntity?.name ?? decoder?.entity.entity.name ?? ""
            if database.debugLevel >= 3, let tail {
                tail.pointee = FetchLogTail(statement: statement, entity: name, sql: statement.sql,
                                            rows: rowCount, seconds: logTotals ? clock.elapsed : nil)
                return
            }
            if database.debugLevel == 2 {
                SQLDebugLog.fetchSummary(statement: statement, entity: name, sql: statement.sql, rows: rowCount)
            }
            if logTotals { SQLDebugLog.totalFetchTime(clock.elapsed, rows: rowCount) }
        }
    }
}
