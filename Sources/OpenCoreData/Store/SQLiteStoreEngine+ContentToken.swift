import Foundation
@_implementationOnly import CSQLite

extension SQLiteStoreEngine {
    /// A token that changes whenever a row of `entity`'s table is inserted, updated or
    /// deleted: the row count, the sum of the rows' versions (`Z_OPT`, raised by every
    /// update) and the largest primary key (never reused, so an insert raises it). The
    /// fetched results controller's section cache compares it to tell whether the rows it
    /// was computed from are unchanged. Read without SQL debug output: it is the library's
    /// bookkeeping, not a statement Core Data runs.
    func contentToken(of entity: NSEntityDescription) throws -> [Int64] {
        lock.lock()
        defer { lock.unlock() }
        let table = try storeEntity(entity).table.name
        guard let handle = database.handle else { return [] }
        var statement: OpaquePointer?
        let sql = "SELECT COUNT(*), TOTAL(Z_OPT), MAX(Z_PK) FROM \(table)"
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            let failure = SQLiteDatabase.failure(handle, sqlite3_errcode(handle))
            throw SQLiteError.prepare(sql: sql, code: failure.code, message: failure.message)
        }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { return [] }
        return [sqlite3_column_int64(statement, 0), Int64(sqlite3_column_double(statement, 1)), sqlite3_column_int64(statement, 2)]
    }
}
