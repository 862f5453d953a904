import Foundation

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
    /// A statement that could not be prepared; `code` is SQLite's extended result code.
    static func prepare(sql: String, code: Int32, message: String) -> NSError {
        coreDataError(NSSQLiteError, userInfo: [
            NSLocalizedDescriptionKey: "error during prepareSQL for SQL string '\(sql)' : \(message)",
            NSSQLiteErrorDomainKey: Int(code),
        ])
    }

    /// A statement that failed while running; `code` is SQLite's extended result code.
    static func execute(sql: String, code: Int32, message: String) -> NSError {
        coreDataError(NSSQLiteError, userInfo: [
            NSLocalizedDescriptionKey: "error during SQL execution for SQL string '\(sql)' : \(message)",
            NSSQLiteErrorDomainKey: Int(code),
        ])
    }

    /// A database file that could not be opened or read as a store.
    static func open(path: String, code: Int32, message: String) -> NSError {
        let name = (path as NSString).lastPathComponent
        let fileCode: Int
        let description: String
        switch code & 0xFF {
        case 26, 11:  // SQLITE_NOTADB, SQLITE_CORRUPT
            fileCode = 259  // NSFileReadCorruptFileError
            description = "The file “\(name)” couldn’t be opened because it isn’t in the correct format."
        case 13:  // SQLITE_FULL
            fileCode = 640  // NSFileWriteOutOfSpaceError
            description = "The file “\(name)” couldn’t be saved because there isn’t enough space."
        case 3, 23, 8:  // SQLITE_PERM, SQLITE_AUTH, SQLITE_READONLY
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
