import Foundation
@_implementationOnly import CSQLite

extension SQLiteDatabase {
    /// Replaces this database's whole contents with those of `source`, with SQLite's
    /// online backup: one write transaction on this connection, so the file is either all
    /// old or all new, and other connections to it (and its write-ahead log) stay valid.
    func replaceContents(with source: SQLiteDatabase) throws {
        guard let handle, let sourceHandle = source.handle else {
            throw coreDataError(NSPersistentStoreOperationError, userInfo: [NSLocalizedDescriptionKey: "Cannot copy a store: a connection is closed."])
        }
        guard let backup = sqlite3_backup_init(handle, "main", sourceHandle, "main") else {
            let failure = SQLiteDatabase.failure(handle, sqlite3_errcode(handle))
            throw SQLiteError.execute(sql: "sqlite3_backup_init", code: failure.code, message: failure.message)
        }
        let step = sqlite3_backup_step(backup, -1)
        let finish = sqlite3_backup_finish(backup)
        guard step == SQLITE_DONE, finish == SQLITE_OK else {
            let failure = SQLiteDatabase.failure(handle, step == SQLITE_DONE ? finish : step)
            throw SQLiteError.execute(sql: "sqlite3_backup_step", code: failure.code, message: failure.message)
        }
    }
}
