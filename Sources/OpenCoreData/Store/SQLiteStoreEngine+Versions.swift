import Foundation

extension SQLiteStoreEngine {
    /// The current version (Z_OPT) of each row of `keys` that still exists, read a few
    /// hundred keys per statement (`SELECT Z_PK, Z_OPT FROM ZX WHERE Z_PK IN (?, …)`):
    /// what a save compares its objects' snapshots with before it writes. Not written to
    /// the SQL debug log: Core Data's log shows the version test in the UPDATE instead.
    func versions(of keys: [StoreKey]) throws -> [StoreKey: Int64] {
        lock.lock()
        defer { lock.unlock() }
        var byTable: [String: [StoreKey]] = [:]
        for key in keys {
            guard let mapped = schema.entity(number: key.entityNumber) else { continue }
            byTable[mapped.table.name, default: []].append(key)
        }
        var result: [StoreKey: Int64] = [:]
        result.reserveCapacity(keys.count)
        for (table, tableKeys) in byTable {
            var byPrimaryKey: [Int64: StoreKey] = [:]
            for key in tableKeys { byPrimaryKey[key.primaryKey] = key }
            let primaryKeys = Array(byPrimaryKey.keys)
            var start = 0
            while start < primaryKeys.count {
                let chunk = primaryKeys[start..<min(start + 500, primaryKeys.count)]
                start += chunk.count
                let marks = SQLPlaceholders.list(chunk.count)
                try database.withStatement("SELECT Z_PK, Z_OPT FROM \(table) WHERE Z_PK IN (\(marks))") { statement in
                    statement.silence()
                    for (offset, primaryKey) in chunk.enumerated() { statement.bindKey(primaryKey, at: Int32(offset + 1)) }
                    while try statement.step() {
                        if let key = byPrimaryKey[statement.int64(0)] { result[key] = statement.int64(1) }
                    }
                }
            }
        }
        return result
    }
}
