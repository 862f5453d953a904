import Foundation
// Implementation-only, as in SQLiteDatabase.swift.
@_implementationOnly import CSQLite

extension SQLiteDatabase {
    /// The rows of `EXPLAIN QUERY PLAN <sql>`: SQLite's `id`, `parent`, `notused` and
    /// `detail` columns, one row per step of its plan. The statement is prepared apart from
    /// the cache and is never logged itself; unbound parameters read as NULL, which does
    /// not change the plan.
    func queryPlan(for sql: String) -> [(id: Int, parent: Int, notUsed: Int, detail: String)] {
        guard let handle else { return [] }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, "EXPLAIN QUERY PLAN " + sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            return []
        }
        defer { sqlite3_finalize(statement) }
        var rows: [(Int, Int, Int, String)] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            let detail = sqlite3_column_text(statement, 3).map { String(cString: $0) } ?? ""
            rows.append((Int(sqlite3_column_int64(statement, 0)), Int(sqlite3_column_int64(statement, 1)),
                         Int(sqlite3_column_int64(statement, 2)), detail))
        }
        return rows
    }

    /// At SQL debug level 4, Core Data follows a query with SQLite's plan for it:
    /// `CoreData: details: SQLite: EXPLAIN QUERY PLAN for <sql>`, then one indented line
    /// per row of the plan. Only queries (`SELECT`) are explained.
    func logQueryPlan(for sql: String) {
        guard sql.hasPrefix("SELECT") else { return }
        SQLDebugLog.write("details: SQLite: EXPLAIN QUERY PLAN for \(sql)")
        for row in queryPlan(for: sql) {
            SQLDebugLog.writeContinuation("    \(row.id) \(row.parent) \(row.notUsed) \(row.detail)")
        }
    }
}
