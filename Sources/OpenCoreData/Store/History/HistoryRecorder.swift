import Foundation

/// Writes one save's persistent history inside its transaction: the `ATRANSACTION` row
/// at the first change, then one `ACHANGE` row per object inserted, updated or deleted.
///
/// An object changed twice in one transaction keeps one change, as in Core Data: updates
/// merge their columns, an update after an insert stays an insert, and a deletion
/// replaces an update (keeping the tombstone, read from the row before it goes).
final class HistoryRecorder {
    private unowned let engine: SQLiteStoreEngine
    private let database: SQLiteDatabase
    /// The transaction's number (its `Z_PK`), once a change has been recorded.
    private(set) var transactionNumber: Int64?
    /// The change recorded for each row so far: its `Z_PK`, type and updated slots.
    private var recorded: [StoreKey: (changeID: Int64, type: NSPersistentHistoryChangeType, slots: Set<Int>?)] = [:]

    init(engine: SQLiteStoreEngine, database: SQLiteDatabase) {
        self.engine = engine
        self.database = database
    }

    func recordInsert(_ key: StoreKey) throws {
        guard recorded[key] == nil else { return }
        let id = try insertChange(.insert, key: key, columns: nil)
        recorded[key] = (id, .insert, nil)
    }

    /// Records an update of the properties in `slots` (slots of the entity's property
    /// table; `nil`: unknown, every property).
    func recordUpdate(_ key: StoreKey, slots: Set<Int>?) throws {
        if let known = recorded[key] {
            guard known.type == .update else { return }
            let merged: Set<Int>? = known.slots.flatMap { old in slots.map { old.union($0) } }
            try database.withStatement("UPDATE ACHANGE SET ZCOLUMNS = ? WHERE Z_PK = ?") { statement in
                try bindColumns(merged, key: key, to: statement, at: 1)
                statement.bindKey(known.changeID, at: 2)
                try statement.execute()
            }
            recorded[key] = (known.changeID, .update, merged)
            return
        }
        let id = try insertChange(.update, key: key, columns: slots)
        recorded[key] = (id, .update, slots)
    }

    /// Records the deletion of `key`, copying its preserved attributes into the change's
    /// tombstone columns. Call before the row is deleted.
    func recordDelete(_ key: StoreKey) throws {
        if let known = recorded[key] {
            guard known.type == .update else { return }
            try database.withStatement("DELETE FROM ACHANGE WHERE Z_PK = ?") { remove in
                remove.bindKey(known.changeID, at: 1)
                try remove.execute()
            }
        }
        let mapped = try engine.storeEntity(number: key.entityNumber)
        let preserved = HistorySchema.preservedAttributes(of: mapped)
        let transaction = try beginTransactionIfNeeded()
        var columns = "Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID"
        var values = "?, ?, ?, ?, ?"
        for (index, attribute) in preserved.enumerated() {
            columns += ", ZTOMBSTONE\(index)"
            values += ", t0." + mapped.table.columns[attribute.column].name
        }
        // Copied by SQLite as stored: the tombstone reads back with the attribute's own codec.
        let inserted = try database.withStatement("INSERT INTO ACHANGE(\(columns)) SELECT \(values) FROM \(mapped.table.name) t0 WHERE t0.Z_PK = ?") { insert in
            insert.bindKey(HistorySchema.changeEntity, at: 1)
            insert.bindKey(Int64(NSPersistentHistoryChangeType.delete.rawValue), at: 2)
            insert.bindKey(Int64(key.entityNumber), at: 3)
            insert.bindKey(key.primaryKey, at: 4)
            insert.bindKey(transaction, at: 5)
            insert.bindKey(key.primaryKey, at: 6)
            try insert.execute()
            return insert.changes
        }
        guard inserted == 1 else { return }   // no such row: nothing was deleted
        recorded[key] = (lastInsertedRow(), .delete, nil)
    }

    // MARK: Rows

    private func insertChange(_ type: NSPersistentHistoryChangeType, key: StoreKey, columns: Set<Int>?) throws -> Int64 {
        let transaction = try beginTransactionIfNeeded()
        try database.withStatement(
            "INSERT INTO ACHANGE(Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS) VALUES(?, ?, ?, ?, ?, ?)"
        ) { statement in
            statement.bindKey(HistorySchema.changeEntity, at: 1)
            statement.bindKey(Int64(type.rawValue), at: 2)
            statement.bindKey(Int64(key.entityNumber), at: 3)
            statement.bindKey(key.primaryKey, at: 4)
            statement.bindKey(transaction, at: 5)
            if type == .update { try bindColumns(columns, key: key, to: statement, at: 6) } else { statement.bindNull(at: 6) }
            try statement.execute()
        }
        return lastInsertedRow()
    }

    /// Binds the bit mask of `slots` (all of the entity's properties when `nil`).
    private func bindColumns(_ slots: Set<Int>?, key: StoreKey, to statement: SQLiteStatement, at index: Int32) throws {
        let entity = try engine.storeEntity(number: key.entityNumber).entity
        let count = entity.propertyTable.all.count
        statement.bind(HistoryColumns.mask(slots ?? Set(0..<count), propertyCount: count), at: index)
    }

    /// The `ATRANSACTION` row of this save, inserted at its first change.
    private func beginTransactionIfNeeded() throws -> Int64 {
        if let transactionNumber { return transactionNumber }
        let origin = HistoryOrigin.current
        // The strings first: each may run statements of its own.
        let texts = [origin?.author, HistoryOrigin.bundleID, origin?.contextName, HistoryOrigin.processID]
        let keys = try texts.map { text in try text.map(stringKey) }
        try database.withStatement(
            "INSERT INTO ATRANSACTION(Z_ENT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP) VALUES(?, ?, ?, ?, ?, ?)"
        ) { statement in
            statement.bindKey(HistorySchema.transactionEntity, at: 1)
            for (offset, key) in keys.enumerated() {
                let parameter = Int32(offset + 2)
                if let key { statement.bindKey(key, at: parameter) } else { statement.bindNull(at: parameter) }
            }
            statement.bind(Date().timeIntervalSinceReferenceDate, at: 6)
            try statement.execute()
        }
        let number = lastInsertedRow()
        transactionNumber = number
        return number
    }

    /// The `Z_PK` of `text` in `ATRANSACTIONSTRING`, added when new.
    private func stringKey(_ text: String) throws -> Int64 {
        let known = try database.withStatement("SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?") { select -> Int64? in
            select.bind(text, at: 1)
            return try select.step() ? select.int64(0) : nil
        }
        if let known { return known }
        try database.withStatement("INSERT INTO ATRANSACTIONSTRING(Z_ENT, ZNAME) VALUES(?, ?)") { insert in
            insert.bindKey(HistorySchema.stringEntity, at: 1)
            insert.bind(text, at: 2)
            try insert.execute()
        }
        return lastInsertedRow()
    }

    private func lastInsertedRow() -> Int64 { database.lastInsertedRowID }
}

/// The `ZCOLUMNS` bit mask: bit `i` (byte `i / 8`, bit `i % 8`) set when property slot
/// `i` of the entity's property table changed.
enum HistoryColumns {
    static func mask(_ slots: Set<Int>, propertyCount: Int) -> Data {
        var bytes = [UInt8](repeating: 0, count: max(1, (propertyCount + 7) / 8))
        for slot in slots where slot >= 0 && slot < propertyCount { bytes[slot / 8] |= UInt8(1 << (slot % 8)) }
        return Data(bytes)
    }

    static func slots(_ mask: Data) -> [Int] {
        var slots: [Int] = []
        for (index, byte) in mask.enumerated() {
            for bit in 0..<8 where byte & UInt8(1 << bit) != 0 { slots.append(index * 8 + bit) }
        }
        return slots
    }
}
