import Foundation
import GRDBSQLite

/// The floor: SQLite's C API with prepared statements, one transaction per write phase,
/// on the same table layout OpenCoreData writes.
struct RawSQLiteSubject: Subject {
    static let name = "SQLite C API"
    private let path: String
    private var connection: Connection?
    private var keys: [Int64] = []

    /// The open connection, closed (checkpointing the WAL) when the subject goes away.
    final class Connection {
        let db: OpaquePointer
        init(_ db: OpaquePointer) { self.db = db }
        deinit { sqlite3_close(db) }
    }

    init(databaseURL: URL) throws { path = databaseURL.path }

    mutating func prepare(_ phase: Phase) throws {
        let db = try open()
        connection = Connection(db)
        guard phase == .fetchByID else { return }
        var all: [Int64] = []
        try sqliteQuery(db, "SELECT Z_PK FROM ZITEM ORDER BY Z_PK") { all.append(sqlite3_column_int64($0, 0)) }
        keys = ItemValues.lookupPositions().map { all[$0] }
    }

    mutating func run(_ phase: Phase) throws -> Int {
        let db = connection!.db
        switch phase {
        case .insert:
            try sqliteExec(db, """
                CREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR,
                ZCATEGORY VARCHAR, ZPRICE FLOAT, ZQUANTITY INTEGER, ZCREATEDAT TIMESTAMP, ZISACTIVE INTEGER,
                ZNOTES VARCHAR, ZCODE INTEGER)
                """)
            return try Self.insertRows(db, count: ItemValues.count)
        case .fetchAll, .fetchAllTyped:
            var checksum = 0
            try sqliteQuery(db, "SELECT Z_PK, Z_ENT, Z_OPT, ZNAME, ZCATEGORY, ZPRICE, ZQUANTITY, ZCREATEDAT, ZISACTIVE, ZNOTES, ZCODE FROM ZITEM") { row in
                let name = String(cString: sqlite3_column_text(row, 3))
                checksum &+= name.utf8.count &+ Int(sqlite3_column_int64(row, 6))
            }
            return checksum
        case .fetchBatched, .fetchBatchedRefreshing:
            // What a batched fetch asks of SQLite: every primary key first, then the rows
            // of each batch of 20 by key.
            var keys: [Int64] = []
            try sqliteQuery(db, "SELECT Z_PK FROM ZITEM ORDER BY Z_PK") { keys.append(sqlite3_column_int64($0, 0)) }
            let statement = try prepareStatement(db, "SELECT Z_PK, Z_ENT, Z_OPT, ZNAME, ZCATEGORY, ZPRICE, ZQUANTITY, ZCREATEDAT, ZISACTIVE, ZNOTES, ZCODE FROM ZITEM WHERE Z_PK IN (" + Array(repeating: "?", count: 20).joined(separator: ", ") + ")")
            defer { sqlite3_finalize(statement) }
            var checksum = 0
            var start = 0
            while start < keys.count {
                let batch = keys[start..<min(start + 20, keys.count)]
                for slot in 0..<20 {
                    // A short last batch repeats its last key in the unused parameters.
                    sqlite3_bind_int64(statement, Int32(slot + 1), batch[min(batch.startIndex + slot, batch.endIndex - 1)])
                }
                while sqlite3_step(statement) == SQLITE_ROW {
                    checksum &+= String(cString: sqlite3_column_text(statement, 3)).utf8.count &+ Int(sqlite3_column_int64(statement, 6))
                }
                sqlite3_reset(statement)
                start += batch.count
            }
            return checksum
        case .fetchByID:
            let statement = try prepareStatement(db, "SELECT Z_PK, Z_ENT, Z_OPT, ZNAME, ZCATEGORY, ZPRICE, ZQUANTITY, ZCREATEDAT, ZISACTIVE, ZNOTES, ZCODE FROM ZITEM WHERE Z_PK = ?")
            defer { sqlite3_finalize(statement) }
            var checksum = 0
            for key in keys {
                sqlite3_bind_int64(statement, 1, key)
                guard sqlite3_step(statement) == SQLITE_ROW else { throw BenchmarkError("row \(key) missing") }
                checksum &+= String(cString: sqlite3_column_text(statement, 3)).utf8.count
                sqlite3_reset(statement)
            }
            return checksum
        case .updateAll:
            return try Self.updateEveryRow(db)
        case .deleteAll:
            return try Self.deleteEveryRow(db)
        }
    }

    private func open() throws -> OpaquePointer {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK, let db else { throw BenchmarkError("cannot open \(path)") }
        // The durability OpenCoreData uses (and GRDB is configured with): WAL, fsync at commit.
        try sqliteExec(db, "PRAGMA journal_mode = WAL")
        try sqliteExec(db, "PRAGMA synchronous = FULL")
        return db
    }
}

extension RawSQLiteSubject {
    /// The floor's write phases on an open connection, one transaction each; the write
    /// floor's level 1 runs the same functions.
    static func insertRows(_ db: OpaquePointer, count: Int) throws -> Int {
        try sqliteExec(db, "BEGIN EXCLUSIVE")
        let statement = try prepareStatement(db, "INSERT INTO ZITEM VALUES (?, 1, 1, ?, ?, ?, ?, ?, ?, ?, ?)")
        defer { sqlite3_finalize(statement) }
        for index in 0..<count {
            bindItem(statement, index: index)
            try sqliteStep(db, statement)
            sqlite3_reset(statement)
        }
        try sqliteExec(db, "COMMIT")
        return count
    }

    /// Reads every row's primary key and version, then writes each row, as an object layer
    /// does when it saves changed objects one by one.
    static func updateEveryRow(_ db: OpaquePointer) throws -> Int {
        var rows: [(Int64, Int64, Int64)] = []
        var checksum = 0
        try sqliteQuery(db, "SELECT Z_PK, Z_OPT, ZQUANTITY FROM ZITEM") {
            rows.append((sqlite3_column_int64($0, 0), sqlite3_column_int64($0, 1), sqlite3_column_int64($0, 2)))
        }
        try sqliteExec(db, "BEGIN EXCLUSIVE")
        let statement = try prepareStatement(db, "UPDATE ZITEM SET ZQUANTITY = ?, Z_OPT = ? WHERE Z_PK = ? AND Z_OPT = ?")
        defer { sqlite3_finalize(statement) }
        for (key, version, quantity) in rows {
            sqlite3_bind_int64(statement, 1, quantity + 1)
            checksum &+= Int(quantity + 1)
            sqlite3_bind_int64(statement, 2, version + 1)
            sqlite3_bind_int64(statement, 3, key)
            sqlite3_bind_int64(statement, 4, version)
            try sqliteStep(db, statement)
            sqlite3_reset(statement)
        }
        try sqliteExec(db, "COMMIT")
        return checksum
    }

    /// Reads every primary key, then deletes each row.
    static func deleteEveryRow(_ db: OpaquePointer) throws -> Int {
        var keys: [Int64] = []
        try sqliteQuery(db, "SELECT Z_PK FROM ZITEM") { keys.append(sqlite3_column_int64($0, 0)) }
        try sqliteExec(db, "BEGIN EXCLUSIVE")
        let statement = try prepareStatement(db, "DELETE FROM ZITEM WHERE Z_PK = ?")
        defer { sqlite3_finalize(statement) }
        for key in keys {
            sqlite3_bind_int64(statement, 1, key)
            try sqliteStep(db, statement)
            sqlite3_reset(statement)
        }
        try sqliteExec(db, "COMMIT")
        return keys.count
    }
}

// Running statements on a C-API connection, with errors that name the statement: shared by
// the C subject and the write floor.

func sqliteExec(_ db: OpaquePointer, _ sql: String) throws {
    guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
        throw BenchmarkError("\(sql): \(String(cString: sqlite3_errmsg(db)))")
    }
}

func prepareStatement(_ db: OpaquePointer, _ sql: String) throws -> OpaquePointer {
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
        throw BenchmarkError("\(sql): \(String(cString: sqlite3_errmsg(db)))")
    }
    return statement
}

func sqliteQuery(_ db: OpaquePointer, _ sql: String, _ body: (OpaquePointer) throws -> Void) throws {
    let statement = try prepareStatement(db, sql)
    defer { sqlite3_finalize(statement) }
    while sqlite3_step(statement) == SQLITE_ROW { try body(statement) }
}

func sqliteStep(_ db: OpaquePointer, _ statement: OpaquePointer) throws {
    guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchmarkError(String(cString: sqlite3_errmsg(db))) }
    guard sqlite3_changes(db) == 1 else { throw BenchmarkError("a write changed \(sqlite3_changes(db)) rows, not 1") }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Binds row `index` of the workload to the floor's `INSERT INTO ZITEM VALUES (?, 1, 1, …)`
/// (primary key, then the eight attributes in column order).
func bindItem(_ statement: OpaquePointer, index: Int) {
    let item = ItemValues(index: index)
    sqlite3_bind_int64(statement, 1, Int64(index + 1))
    bindText(statement, 2, item.name)
    bindText(statement, 3, item.category)
    sqlite3_bind_double(statement, 4, item.price)
    sqlite3_bind_int64(statement, 5, Int64(item.quantity))
    sqlite3_bind_double(statement, 6, item.createdAt.timeIntervalSinceReferenceDate)
    sqlite3_bind_int64(statement, 7, item.isActive ? 1 : 0)
    bindText(statement, 8, item.notes)
    sqlite3_bind_int64(statement, 9, item.code)
}

/// Binds `text` at `index`; SQLite copies it (`SQLITE_TRANSIENT`).
func bindText(_ statement: OpaquePointer, _ index: Int32, _ text: String) {
    sqlite3_bind_text(statement, index, text, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
}
