import Foundation
import GRDBSQLite

/// The floor: the same work written directly against SQLite's C API, on the tables Core
/// Data would create, each write phase in one transaction.
struct RawSQLiteGraph: GraphSubject {
    static let name = "SQLite C API"
    private let path: String
    private var start: Int64 = 0

    init(databaseURL: URL) throws { path = databaseURL.path }

    mutating func prepare(_ phase: GraphPhase) throws {
        let db = try open()
        defer { sqlite3_close(db) }
        try exec(db, "CREATE TABLE IF NOT EXISTS ZTRAIL (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR)")
        try exec(db, "CREATE TABLE IF NOT EXISTS ZHIKE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZDISTANCE INTEGER, ZTRAIL INTEGER, ZNOTE VARCHAR)")
        try exec(db, "CREATE INDEX IF NOT EXISTS ZHIKE_ZTRAIL_INDEX ON ZHIKE (ZTRAIL)")
        try exec(db, "CREATE TABLE IF NOT EXISTS ZNODE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPARENT INTEGER, ZNAME VARCHAR)")
        try exec(db, "CREATE INDEX IF NOT EXISTS ZNODE_ZPARENT_INDEX ON ZNODE (ZPARENT)")
        try exec(db, "BEGIN EXCLUSIVE")
        switch phase {
        case .traverse:
            try exec(db, "INSERT INTO ZTRAIL VALUES (1, 1, 1, 'Te Araroa')")
            let insert = try prepareStatement(db, "INSERT INTO ZHIKE VALUES (?, 2, 1, ?, 1, ?)")
            defer { sqlite3_finalize(insert) }
            for index in 0..<GraphSizes.hikes {
                sqlite3_bind_int64(insert, 1, Int64(index + 1))
                sqlite3_bind_int64(insert, 2, GraphSizes.distance(index))
                bindText(insert, 3, "hike \(index)")
                try step(db, insert)
                sqlite3_reset(insert)
            }
            start = 1
        case .cascade:
            let insert = try prepareStatement(db, "INSERT INTO ZNODE VALUES (?, 3, 1, ?, ?)")
            defer { sqlite3_finalize(insert) }
            var key: Int64 = 0
            func node(_ name: String, parent: Int64?) throws -> Int64 {
                key += 1
                sqlite3_bind_int64(insert, 1, key)
                if let parent { sqlite3_bind_int64(insert, 2, parent) } else { sqlite3_bind_null(insert, 2) }
                bindText(insert, 3, name)
                try step(db, insert)
                sqlite3_reset(insert)
                return key
            }
            let root = try node("root", parent: nil)
            for branchIndex in 0..<GraphSizes.branches {
                let branch = try node("branch \(branchIndex)", parent: root)
                for leafIndex in 0..<GraphSizes.leavesPerBranch { _ = try node("leaf \(branchIndex).\(leafIndex)", parent: branch) }
            }
            start = root
        }
        try exec(db, "COMMIT")
    }

    mutating func run(_ phase: GraphPhase) throws -> Int64 {
        let db = try open()
        defer { sqlite3_close(db) }
        switch phase {
        case .traverse:
            // Follow the relationship: the hikes whose foreign key is the trail's key.
            let select = try prepareStatement(db, "SELECT Z_PK, ZDISTANCE FROM ZHIKE WHERE ZTRAIL = ?")
            defer { sqlite3_finalize(select) }
            sqlite3_bind_int64(select, 1, start)
            var total: Int64 = 0
            while sqlite3_step(select) == SQLITE_ROW { total += sqlite3_column_int64(select, 1) }
            return total
        case .cascade:
            // The whole subtree in one recursive statement, in one transaction.
            try exec(db, "BEGIN EXCLUSIVE")
            let delete = try prepareStatement(db, """
                WITH RECURSIVE subtree(pk) AS (SELECT ? UNION ALL SELECT ZNODE.Z_PK FROM ZNODE JOIN subtree ON ZNODE.ZPARENT = subtree.pk)
                DELETE FROM ZNODE WHERE Z_PK IN subtree
                """)
            sqlite3_bind_int64(delete, 1, start)
            try step(db, delete)
            let deleted = Int64(sqlite3_changes(db))
            sqlite3_finalize(delete)
            try exec(db, "COMMIT")
            var left: Int64 = -1
            let count = try prepareStatement(db, "SELECT COUNT(*) FROM ZNODE")
            defer { sqlite3_finalize(count) }
            if sqlite3_step(count) == SQLITE_ROW { left = sqlite3_column_int64(count, 0) }
            return deleted * 10 + left
        }
    }

    private func open() throws -> OpaquePointer {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK, let db else { throw BenchmarkError("cannot open \(path)") }
        try exec(db, "PRAGMA journal_mode = WAL")
        return db
    }

    private func exec(_ db: OpaquePointer, _ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw BenchmarkError("\(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
    }

    private func prepareStatement(_ db: OpaquePointer, _ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw BenchmarkError("\(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
        return statement
    }

    private func step(_ db: OpaquePointer, _ statement: OpaquePointer) throws {
        guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchmarkError(String(cString: sqlite3_errmsg(db))) }
    }

    private func bindText(_ statement: OpaquePointer, _ index: Int32, _ text: String) {
        sqlite3_bind_text(statement, index, text, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
    }
}
