import Foundation
// Implementation-only, so that programs importing OpenCoreData need no CSQLite module map.
// (`internal import` is not enough: SwiftPM's debug builds enable testing, and clients of a
// testable module load its internal imports too.) No CSQLite type appears in a stored
// property, so no client ever needs its layout.
@_implementationOnly import CSQLite

/// SQLite's storage classes: how a value is actually kept, whatever the column's type.
enum SQLiteStorageClass {
    case integer, real, text, blob, null
}

/// One prepared statement: bind values, step through rows, read columns.
///
/// Statements come from ``SQLiteDatabase/statement(_:)``, which caches them by SQL text
/// and finalizes them when the database closes. A statement is used by one caller at a
/// time (the store's lock serializes them): ``reset()`` starts each use.
///
/// Indexes are SQLite's: parameters count from 1, result columns from 0.
final class SQLiteStatement {
    /// The SQL text, as prepared and as the debug log prints it.
    let sql: String
    /// The prepared statement; invalid once ``finalize()`` ran (the database is closed).
    private let handle: OpaquePointer
    private var isFinalized = false
    private unowned let database: SQLiteDatabase
    /// The debug level captured at ``reset()``; 0 keeps binding and stepping free of logging.
    private var logLevel = 0
    /// Bound values waiting to be printed after the statement line. Not checked for
    /// overlapping access at run time (two checks per statement run, with nothing to log):
    /// only this class's methods touch it, under its engine's lock.
    @exclusivity(unchecked) private var pendingBindLog: [(Int32, String)] = []
    private var hasLoggedExecution = false
    /// The bytes of the text bound to the statement's parameters.
    private let boundText = BoundTextBuffer()
    /// The first failed binding since the last run, `SQLITE_OK` when none.
    private var bindFailure = SQLITE_OK
    /// Whether the statement was stepped or bound since SQLite last reset it and cleared
    /// its bindings. When not, ``reset()`` and ``endUse()`` have nothing to ask of SQLite:
    /// a look-up by ID hands a statement out (a reset), reads its row (a reset) and ends
    /// its use (a reset), and only one of the three follows a run.
    private var isDirty = false
    /// Whether a ``SQLiteDatabase/withStatement(_:_:)`` use is running: the cache neither
    /// evicts nor hands out a statement in use.
    var isInUse = false
    /// The database's use counter when the statement was last handed out: how the cache
    /// finds its least recently used statements.
    var lastUse: UInt64 = 0

    init(database: SQLiteDatabase, sql: String) throws {
        self.database = database
        self.sql = sql
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            let failure = SQLiteDatabase.failure(database.handle, code)
            throw SQLiteError.prepare(sql: sql, code: failure.code, message: failure.message)
        }
        handle = statement
    }

    deinit { finalize() }

    /// Releases the statement; idempotent.
    func finalize() {
        if !isFinalized { sqlite3_finalize(handle) }
        isFinalized = true
    }

    /// Readies the statement for a new use: clears the previous run and its bindings, and
    /// takes the database's debug level.
    func reset() {
        clearRunAndBindings()
        bindFailure = SQLITE_OK
        logLevel = database.debugLevel
        hasLoggedExecution = false
        if !pendingBindLog.isEmpty { pendingBindLog.removeAll(keepingCapacity: true) }
    }

    /// Ends a scoped use: the statement stops where it is (releasing any read lock) and
    /// lets go of its bound values, so that large blobs are not kept alive.
    func endUse() {
        isInUse = false
        guard !isFinalized else { return }
        clearRunAndBindings()
    }

    /// Resets the statement in SQLite and clears its bindings, unless nothing ran or was
    /// bound since the last time (both calls would then change nothing).
    private func clearRunAndBindings() {
        guard isDirty else { return }
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        boundText.bindingsCleared()
        isDirty = false
    }

    /// Readies the statement for running again with new values for every parameter: the
    /// cheap form of ``reset()`` for a statement run many times in a row (rows of a save).
    func rewind() {
        sqlite3_reset(handle)
        bindFailure = SQLITE_OK
        hasLoggedExecution = false
        if !pendingBindLog.isEmpty { pendingBindLog.removeAll(keepingCapacity: true) }
    }

    // MARK: Binding

    /// Binds an integer that Core Data binds untyped (primary keys, entity numbers,
    /// versions), logged as `(int64)5`.
    func bindKey(_ value: Int64, at index: Int32) {
        check(sqlite3_bind_int64(handle, index, value))
        if logLevel >= 2 { pendingBindLog.append((index, "(int64)\(value)")) }
    }

    /// Binds an attribute's integer, logged as the number.
    func bind(_ value: Int64, at index: Int32) {
        check(sqlite3_bind_int64(handle, index, value))
        if logLevel >= 2 { pendingBindLog.append((index, String(value))) }
    }

    /// Binds a floating-point number, logged as the number.
    func bind(_ value: Double, at index: Int32) {
        check(sqlite3_bind_double(handle, index, value))
        if logLevel >= 2 { pendingBindLog.append((index, String(value))) }
    }

    /// Binds a date's seconds since 2001-01-01, logged as `(timestamp)599529600.000000`.
    func bindTimestamp(_ value: Double, at index: Int32) {
        check(sqlite3_bind_double(handle, index, value))
        if logLevel >= 2 { pendingBindLog.append((index, "(timestamp)" + String(format: "%f", value))) }
    }

    /// Binds text, logged in double quotes. The bytes are copied into the statement's
    /// ``BoundTextBuffer`` and bound in place (`SQLITE_STATIC`): no allocation by SQLite.
    func bind(_ value: String, at index: Int32) {
        // The bytes read where the string keeps them (a native string, small or not):
        // `withUTF8` is mutating, and the copy it needs cost a retain and a release per
        // string bound. A bridged string without contiguous UTF-8 takes that copy.
        if value.utf8.withContiguousStorageIfAvailable({ bindText($0, at: index) }) == nil {
            var contiguous = value
            contiguous.withUTF8 { bindText($0, at: index) }
        }
        if logLevel >= 2 { pendingBindLog.append((index, "\"\(value)\"")) }
    }

    /// Binds UTF-8 `bytes` as text: copied into ``BoundTextBuffer`` and bound in place.
    private func bindText(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int32) {
        if bytes.count > 0 {
            let stored = boundText.store(UnsafeRawBufferPointer(bytes), for: index)
            check(sqlite3_bind_text64(handle, index, stored.assumingMemoryBound(to: CChar.self), UInt64(bytes.count), nil, UInt8(SQLITE_UTF8)))
        } else {
            // A non-NULL pointer, so that SQLite stores an empty string rather than NULL.
            check(sqlite3_bind_text(handle, index, "", 0, csqlite_transient()))
        }
    }

    /// Keeps this run of the statement out of the SQL debug log (until the next
    /// ``reset()``): for bookkeeping queries of the library's own that Core Data does not print.
    func silence() { logLevel = 0 }

    /// Binds a numeral as text (a decimal, which the column's numeric affinity converts),
    /// logged unquoted, as Core Data logs an `NSDecimalNumber`.
    func bindNumeral(_ value: String, at index: Int32) {
        let level = logLevel
        logLevel = 0
        bind(value, at: index)
        logLevel = level
        if logLevel >= 2 { pendingBindLog.append((index, value)) }
    }

    /// Binds bytes (copied by SQLite), logged with their length.
    func bind(_ value: Data, at index: Int32) {
        value.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress {
                check(sqlite3_bind_blob64(handle, index, base, UInt64(bytes.count), csqlite_transient()))
            } else {
                check(sqlite3_bind_zeroblob(handle, index, 0))
            }
        }
        if logLevel >= 2 { pendingBindLog.append((index, "<NSData length=\(value.count)>")) }
    }

    /// Binds NULL, logged as `nil`.
    func bindNull(at index: Int32) {
        check(sqlite3_bind_null(handle, index))
        if logLevel >= 2 { pendingBindLog.append((index, "nil")) }
    }

    /// Remembers a failed binding (a value too big, a bad index): ``step()`` reports it
    /// rather than running with a missing value.
    private func check(_ code: Int32) {
        isDirty = true
        if code != SQLITE_OK, bindFailure == SQLITE_OK { bindFailure = code }
    }

    // MARK: Running

    /// Advances to the next row; `false` once the statement is done.
    @discardableResult
    func step() throws -> Bool {
        if logLevel >= 1 && !hasLoggedExecution { logExecution() }
        if bindFailure != SQLITE_OK {
            let code = bindFailure
            bindFailure = SQLITE_OK
            throw SQLiteError.execute(sql: sql, code: code, message: "binding a value failed: " + String(cString: sqlite3_errstr(code)))
        }
        isDirty = true
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let failure = SQLiteDatabase.failure(database.handle, code)
            let error = SQLiteError.execute(sql: sql, code: failure.code, message: failure.message)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Runs a statement that returns no rows.
    func execute() throws {
        while try step() {}
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE on the connection.
    var changes: Int { Int(sqlite3_changes(database.handle)) }

    /// The rowid of the connection's last successful INSERT (an upsert's update leaves it).
    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(database.handle) }

    private func logExecution() {
        hasLoggedExecution = true
        SQLDebugLog.statement(sql)
        for (index, value) in pendingBindLog { SQLDebugLog.binding(index, value) }
        pendingBindLog.removeAll(keepingCapacity: true)
        if logLevel >= 4 { database.logQueryPlan(for: sql) }
    }

    // MARK: Reading columns

    /// The number of result columns.
    var columnCount: Int32 { sqlite3_column_count(handle) }

    /// Whether column `index` of the current row is NULL.
    func isNull(_ index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

    /// The storage class of column `index` (`SQLITE_INTEGER` 1, `SQLITE_FLOAT` 2,
    /// `SQLITE_TEXT` 3, `SQLITE_BLOB` 4, `SQLITE_NULL` 5).
    func columnType(_ index: Int32) -> Int32 { sqlite3_column_type(handle, index) }

    /// The storage class of column `index` of the current row.
    func storageClass(_ index: Int32) -> SQLiteStorageClass {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: .integer
        case SQLITE_FLOAT: .real
        case SQLITE_TEXT: .text
        case SQLITE_BLOB: .blob
        default: .null
        }
    }

    func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    /// Column `index` of the current row, for reading its storage class and then its
    /// value with one call into SQLite's locked API instead of two or three.
    func column(_ index: Int32) -> SQLiteColumn { SQLiteColumn(statement: handle, index: index) }

    func double(_ index: Int32) -> Double { sqlite3_column_double(handle, index) }

    /// Column `index` as UTF-8 text.
    func string(_ index: Int32) -> String {
        guard let text = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// Column `index` as bytes.
    func data(_ index: Int32) -> Data {
        guard let bytes = sqlite3_column_blob(handle, index) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, index)))
    }

    /// Calls `body` with column `index`'s bytes without copying them; valid only inside.
    func withBytes<T>(_ index: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let bytes = sqlite3_column_blob(handle, index)
        let count = Int(sqlite3_column_bytes(handle, index))
        return try body(UnsafeRawBufferPointer(start: bytes, count: bytes == nil ? 0 : count))
    }
}

/// One column of a statement's current row, read through SQLite's value for it
/// (`sqlite3_column_value`): the storage class and then the value cost one call that takes
/// the connection's mutex, where `sqlite3_column_type` and `sqlite3_column_int64` (or
/// `_text` and `_bytes`) take it two or three times. Decoding a row reads each column so.
///
/// SQLite calls such a value unprotected: its readers are safe while no other thread uses
/// the connection, which the store's lock guarantees for every statement (see
/// ``SQLiteStatement``). Valid until the statement steps, resets or is finalized; the
/// readers convert as the `sqlite3_column_*` functions do (they share SQLite's code).
struct SQLiteColumn {
    private let value: OpaquePointer?

    init(statement handle: OpaquePointer, index: Int32) {
        value = sqlite3_column_value(handle, index)
    }

    /// The storage class of the value.
    var storageClass: SQLiteStorageClass {
        guard let value else { return .null }
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return .integer
        case SQLITE_FLOAT: return .real
        case SQLITE_TEXT: return .text
        case SQLITE_BLOB: return .blob
        default: return .null
        }
    }

    var int64: Int64 { value.map { sqlite3_value_int64($0) } ?? 0 }

    var double: Double { value.map { sqlite3_value_double($0) } ?? 0 }

    /// The value as UTF-8 text (ill-formed sequences repaired, as ``SQLiteStatement/string(_:)``).
    var string: String {
        guard let value, let text = sqlite3_value_text(value) else { return "" }
        let count = Int(sqlite3_value_bytes(value))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The value as bytes.
    var data: Data {
        guard let value, let bytes = sqlite3_value_blob(value) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_value_bytes(value)))
    }

    /// Calls `body` with the value's bytes without copying them; valid only inside.
    func withBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        guard let value else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        let bytes = sqlite3_value_blob(value)
        let count = Int(sqlite3_value_bytes(value))
        return try body(UnsafeRawBufferPointer(start: bytes, count: bytes == nil ? 0 : count))
    }
}
