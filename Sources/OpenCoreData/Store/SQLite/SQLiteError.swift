import Foundation
internal import CSQLite

/// The userInfo key under which Core Data reports SQLite's own result code.
let NSSQLiteErrorDomainKey = "NSSQLiteErrorDomain"

/// The `NSError`s the SQLite layer throws, shaped as Core Data's.
///
/// A failing statement is `NSSQLiteError` (134180) in `NSCocoaErrorDomain`, with SQLite's
/// extended result code under `NSSQLiteErrorDomain` (as Core Data reports it, e.g.
/// `NSSQLiteErrorDomain=264` for `SQLITE_READONLY_RECOVERY`) and a description carrying
/// the SQL and SQLite's message. A file that cannot be opened as a database gets the
/// Foundation file codes Core Data uses: 259 (`NSFileReadCorruptFileError`) when it is
/// not a database or is corrupt, 640 when the disk is full, 257 when permission is
/// denied, 256 otherwise, each with `NSFilePath` and `NSSQLiteErrorDomain`.
enum SQLiteError {
    /// SQLite's message for the last failure on `db`, or its generic text for `code`.
    static func message(_ db: OpaquePointer?, code: Int32) -> String {
        if let db, let text = sqlite3_errmsg(db) { return String(cString: text) }
        return String(cString: sqlite3_errstr(code))
    }

    /// A statement that could not be prepared.
    static func prepare(_ db: OpaquePointer?, code: Int32, sql: String) -> NSError {
        let extended = db.map { sqlite3_extended_errcode($0) } ?? code
        return coreDataError(NSSQLiteError, userInfo: [
            NSLocalizedDescriptionKey: "error during prepareSQL for SQL string '\(sql)' : \(message(db, code: code))",
            NSSQLiteErrorDomainKey: Int(extended),
        ])
    }

    /// A statement that failed while running.
    static func execute(_ db: OpaquePointer?, code: Int32, sql: String) -> NSError {
        let extended = db.map { sqlite3_extended_errcode($0) } ?? code
        return coreDataError(NSSQLiteError, userInfo: [
            NSLocalizedDescriptionKey: "error during SQL execution for SQL string '\(sql)' : \(message(db, code: code))",
            NSSQLiteErrorDomainKey: Int(extended),
        ])
    }

    /// A database file that could not be opened or read as a store.
    static func open(path: String, code: Int32, message: String) -> NSError {
        let primary = code & 0xFF
        let name = (path as NSString).lastPathComponent
        let fileCode: Int
        let description: String
        switch primary {
        case SQLITE_NOTADB, SQLITE_CORRUPT:
            fileCode = 259  // NSFileReadCorruptFileError
            description = "The file “\(name)” couldn’t be opened because it isn’t in the correct format."
        case SQLITE_FULL:
            fileCode = 640  // NSFileWriteOutOfSpaceError
            description = "The file “\(name)” couldn’t be saved because there isn’t enough space."
        case SQLITE_PERM, SQLITE_AUTH, SQLITE_READONLY:
            fileCode = 257  // NSFileReadNoPermissionError
            description = "The file “\(name)” couldn’t be opened because you don’t have permission to view it."
        default:
            fileCode = 256  // NSFileReadUnknownError
            description = "The file “\(name)” couldn’t be opened."
        }
        return coreDataError(fileCode, userInfo: [
            NSLocalizedDescriptionKey: description,
            NSFilePathErrorKey: path,
            NSSQLiteErrorDomainKey: Int(code),
            NSLocalizedFailureReasonErrorKey: "SQLite error \(code): \(message)",
        ])
    }
}
