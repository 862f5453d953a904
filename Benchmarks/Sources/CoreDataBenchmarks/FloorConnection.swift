import Foundation
import GRDBSQLite

/// The database a read floor measures: the rows written by the floor's own insert, then a
/// read-only connection with the one statement the floor steps. Closed when released.
final class FloorConnection {
    let statement: OpaquePointer
    private let db: OpaquePointer

    convenience init(database url: URL, sql: String) throws {
        var writer = try RawSQLiteSubject(databaseURL: url)
        try writer.prepare(.insert)
        _ = try writer.run(.insert)
        writer = try RawSQLiteSubject(databaseURL: url)  // closes the writing connection
        try self.init(reading: url, sql: sql)
    }

    /// A read-only connection to rows the floor's insert wrote before, with `sql` prepared.
    init(reading url: URL, sql: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else {
            throw BenchmarkError("cannot open \(url.path)")
        }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            let message = String(cString: sqlite3_errmsg(db))
            sqlite3_close(db)
            throw BenchmarkError(message)
        }
        self.db = db
        self.statement = statement
    }

    deinit {
        sqlite3_finalize(statement)
        sqlite3_close(db)
    }
}
