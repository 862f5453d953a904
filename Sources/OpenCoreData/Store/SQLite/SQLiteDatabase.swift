import Foundation
// Implementation-only, so that programs importing OpenCoreData need no CSQLite module map.
// (`internal import` is not enough: SwiftPM's debug builds enable testing, and clients of a
// testable module load its internal imports too.) No CSQLite type appears in a stored
// property, so no client ever needs its layout.
@_implementationOnly import CSQLite

/// One SQLite connection: opening, pragmas, the statement cache, transactions, closing.
///
/// Not thread-safe by itself: ``SQLiteStoreEngine`` serializes every use behind its lock.
final class SQLiteDatabase {
    /// The connection; `nil` once closed.
    private(set) var handle: OpaquePointer?
    /// The file, or `nil` for an in-memory database.
    let path: String?
    /// Prepared statements by SQL text (each knows the tick of its last use); finalized on
    /// close. Bounded: see ``statementCacheCapacity``.
    private var cache: [String: SQLiteStatement] = [:]
    /// The cached statement handed out last, checked before the cache.
    private var lastCached: SQLiteStatement?
    /// Counts statement uses, to find the least recently used.
    private var useTick: UInt64 = 0
    /// How many prepared statements the cache keeps. Past it, the least recently used
    /// quarter is dropped (a store whose SQL varies, such as `IN (?, ?, …)` lists of many
    /// lengths, would otherwise keep every statement it ever prepared).
    var statementCacheCapacity = 256
    /// The number of statements cached now.
    var cachedStatementCount: Int { cache.count }
    /// The SQL debug level for statements run now; refreshed at each ``statement(_:)``.
    private(set) var debugLevel = SQLDebugLog.level

    /// Opens (creating when missing) the database at `path`, or an in-memory one for `nil`.
    ///
    /// Throws the file error Core Data reports (259 for a file that is not a database)
    /// when the file cannot be opened or read.
    /// With `create` false, a missing file is an error instead of a new database.
    init(path: String?, create: Bool = true) throws {
        self.path = path
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path ?? ":memory:", &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let failure = SQLiteDatabase.failure(db, code)
            sqlite3_close_v2(db)
            throw SQLiteError.open(path: path ?? ":memory:", code: failure.code, message: failure.message)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        // Another process (or a second coordinator) may hold the write lock briefly.
        sqlite3_busy_timeout(db, 10_000)
        if debugLevel >= 1, let path {
            SQLDebugLog.write("annotation: Connecting to sqlite database file at \"\(path)\"")
        }
        // sqlite3_open_v2 does not read the file; reading the schema does, and fails for a
        // file that is not a database or is damaged.
        var statement: OpaquePointer?
        let check = sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &statement, nil)
        let stepped = check == SQLITE_OK ? sqlite3_step(statement) : check
        sqlite3_finalize(statement)
        if stepped != SQLITE_ROW {
            let failure = SQLiteDatabase.failure(db, stepped)
            sqlite3_close_v2(db)
            handle = nil
            throw SQLiteError.open(path: path ?? ":memory:", code: failure.code, message: failure.message)
        }
    }

    deinit { close() }

    /// How long a statement waits for another connection's lock (another coordinator or
    /// process writing the same file) before it fails with `SQLITE_BUSY`.
    func setBusyTimeout(seconds: TimeInterval) {
        guard let handle else { return }
        sqlite3_busy_timeout(handle, Int32(max(0, min(seconds * 1000, Double(Int32.max)))))
    }

    /// Whether the connection is still open.
    var isOpen: Bool { handle != nil }

    /// Finalizes every cached statement and closes the connection; idempotent.
    func close() {
        for statement in cache.values where !statement.isInUse { statement.finalize() }
        cache.removeAll()
        lastCached = nil
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// The prepared statement for `sql`, from the cache or newly prepared, reset for use.
    ///
    /// The library's code uses statements through ``withStatement(_:_:)``, which resets
    /// the statement when the use ends, or (for statements run row after row in one save)
    /// through ``SQLiteSaveTransaction``, which holds them in use until the save ends. A
    /// statement the cache drops meanwhile stays valid for whoever holds it (it is
    /// finalized when the last holder lets go).
    func statement(_ sql: String) throws -> SQLiteStatement {
        guard isOpen else { throw closedError() }
        debugLevel = SQLDebugLog.level
        useTick &+= 1
        let statement: SQLiteStatement
        if let last = lastCached, !last.isInUse, last.sql == sql {
            // The SQL of the previous use again (look-ups by ID one after another): no
            // hashing of the text. (`==` compares no characters when both are one string.)
            statement = last
        } else if let cached = cache[sql] {
            // A use nested inside a scoped use of the same SQL gets a statement of its
            // own, so the outer one keeps its place.
            if cached.isInUse {
                statement = try SQLiteStatement(database: self, sql: sql)
            } else {
                statement = cached
                lastCached = cached
            }
        } else {
            statement = try SQLiteStatement(database: self, sql: sql)
            cache[sql] = statement
            lastCached = statement
            if cache.count > statementCacheCapacity { evictLeastRecentlyUsed() }
        }
        statement.lastUse = useTick
        statement.reset()
        return statement
    }

    /// Runs `body` with the prepared statement for `sql`, then resets the statement,
    /// however `body` ends: a statement is never left half-stepped, holding a read lock,
    /// or bound to old values. A use nested inside a use of the same SQL gets a statement
    /// of its own, so the outer one keeps its place.
    func withStatement<T>(_ sql: String, _ body: (SQLiteStatement) throws -> T) throws -> T {
        let statement = try self.statement(sql)
        statement.isInUse = true
        defer { statement.endUse() }
        return try body(statement)
    }

    /// Drops the least recently used quarter of the cache (never a statement in use).
    private func evictLeastRecentlyUsed() {
        let idle = cache.filter { !$0.value.isInUse }.sorted { $0.value.lastUse < $1.value.lastUse }
        for (sql, statement) in idle.prefix(max(1, cache.count / 4)) {
            cache[sql] = nil
            if statement === lastCached { lastCached = nil }
        }
    }

    /// Runs SQL without parameters through the statement cache (e.g. `BEGIN EXCLUSIVE`).
    func execute(_ sql: String) throws {
        try withStatement(sql) { try $0.execute() }
    }

    /// Runs one or more statements that are not worth caching (schema creation).
    func executeUncached(_ sql: String) throws {
        guard let handle else { throw closedError() }
        debugLevel = SQLDebugLog.level
        if debugLevel >= 1 { SQLDebugLog.statement(sql) }
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if let message { sqlite3_free(message) }
        guard code == SQLITE_OK else {
            let failure = SQLiteDatabase.failure(handle, code)
            throw SQLiteError.execute(sql: sql, code: failure.code, message: failure.message)
        }
    }

    /// Runs a pragma and returns its first result as text, logging it as Core Data logs
    /// pragmas (the statement, then `sql execution time`).
    @discardableResult
    func pragma(_ sql: String) throws -> String? {
        let clock = SQLDebugClock()
        return try withStatement(sql) { statement in
            let value = try statement.step() ? statement.string(0) : nil
            while try statement.step() {}
            if debugLevel >= 1 { SQLDebugLog.executionTime(clock.elapsed) }
            return value
        }
    }

    /// Whether a table named `name` exists.
    func tableExists(_ name: String) throws -> Bool {
        try withStatement("SELECT TBL_NAME FROM SQLITE_MASTER WHERE TBL_NAME = ?") { statement in
            statement.bind(name, at: 1)
            return try statement.step()
        }
    }

    /// The first column of the first row of `sql` as an integer, run without the SQL
    /// debug log: for polls of the store's own bookkeeping, which Core Data does not log.
    func quietInteger(_ sql: String) throws -> Int64? {
        guard let handle else { throw closedError() }
        var statement: OpaquePointer?
        var code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        if code == SQLITE_OK { code = sqlite3_step(statement) }
        switch code {
        case SQLITE_ROW: return sqlite3_column_int64(statement, 0)
        case SQLITE_DONE, SQLITE_OK: return nil
        default:
            let failure = SQLiteDatabase.failure(handle, code)
            throw SQLiteError.execute(sql: sql, code: failure.code, message: failure.message)
        }
    }

    /// The rowid of the last row an INSERT on this connection added.
    var lastInsertedRowID: Int64 {
        guard let handle else { return 0 }
        return sqlite3_last_insert_rowid(handle)
    }

    /// Whether a transaction is open on the connection.
    var isInTransaction: Bool {
        guard let handle else { return false }
        return sqlite3_get_autocommit(handle) == 0
    }

    /// Rolls back the open transaction, if any, ignoring errors: used on failure paths.
    func rollbackQuietly() {
        guard isInTransaction else { return }
        _ = try? execute("ROLLBACK")
    }

    /// SQLite's extended result code and message for the last failure on `db` (whose
    /// primary code is `code`).
    static func failure(_ db: OpaquePointer?, _ code: Int32) -> (code: Int32, message: String) {
        guard let db else { return (code, String(cString: sqlite3_errstr(code))) }
        let extended = sqlite3_extended_errcode(db)
        return (extended != 0 ? extended : code, String(cString: sqlite3_errmsg(db)))
    }

    private func closedError() -> NSError {
        coreDataError(NSCoreDataError, userInfo: [NSLocalizedDescriptionKey: "Attempted to perform an operation without an open database"])
    }
}
