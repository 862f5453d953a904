import Foundation

/// A value bound to one `?` of a generated statement. Values are always bound, never
/// written into the SQL text.
enum SQLBind: Equatable {
    /// A primary key or entity number, logged as `(int64)5` as Core Data logs them.
    case key(Int64)
    case integer(Int64)
    case real(Double)
    /// A date's seconds since 2001-01-01.
    case timestamp(Double)
    case text(String)
    case blob(Data)

    func bind(to statement: SQLiteStatement, at index: Int32) {
        switch self {
        case .key(let value): statement.bindKey(value, at: index)
        case .integer(let value): statement.bind(value, at: index)
        case .real(let value): statement.bind(value, at: index)
        case .timestamp(let value): statement.bindTimestamp(value, at: index)
        case .text(let value): statement.bind(value, at: index)
        case .blob(let value): statement.bind(value, at: index)
        }
    }

    /// How tests and the chapter see a bound value.
    var debugDescription: String {
        switch self {
        case .key(let value): return "(int64)\(value)"
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .timestamp(let value): return "(timestamp)" + String(format: "%f", value)
        case .text(let value): return "\"\(value)\""
        case .blob(let value): return "<NSData length=\(value.count)>"
        }
    }
}

extension Array where Element == SQLBind {
    /// Binds every value in order, from parameter `start`.
    func bind(to statement: SQLiteStatement, from start: Int32 = 1) {
        for (offset, value) in enumerated() { value.bind(to: statement, at: start + Int32(offset)) }
    }
}

/// A piece of SQL with the values its `?`s take, in order.
///
/// Boolean fragments follow Core Data's spacing: an atom starts with a space
/// (` t0.ZNAME = ?`), a compound is parenthesized (`( t0.ZA = ? AND  t0.ZB > ?)`), so a
/// statement reads `WHERE  t0.ZNAME = ?` as Core Data's SQL debug output does.
struct SQLFragment {
    var sql: String
    var binds: [SQLBind]
    /// Whether the fragment can evaluate to NULL (a comparison on a column that may be NULL).
    /// Core Data's SQLite store filters with SQL's three-valued logic: a comparison with a
    /// NULL operand is unknown, `NOT unknown` is unknown, and a row is fetched only when its
    /// condition is true. Only ``twoValued()`` (a single value under `ALL`) reads NULL as false.
    var nullable: Bool

    init(_ sql: String, _ binds: [SQLBind] = [], nullable: Bool = false) {
        self.sql = sql
        self.binds = binds
        self.nullable = nullable
    }

    static let alwaysTrue = SQLFragment(" 1")
    static let alwaysFalse = SQLFragment(" 0")

    /// `1` or `0`.
    static func constant(_ value: Bool) -> SQLFragment { value ? alwaysTrue : alwaysFalse }

    var isAlwaysTrue: Bool { sql == SQLFragment.alwaysTrue.sql }
    var isAlwaysFalse: Bool { sql == SQLFragment.alwaysFalse.sql }

    /// `(a AND b …)` / `(a OR b …)`, simplifying constant operands away.
    static func compound(_ parts: [SQLFragment], and: Bool) -> SQLFragment {
        var kept: [SQLFragment] = []
        for part in parts {
            if and ? part.isAlwaysFalse : part.isAlwaysTrue { return part }
            if and ? part.isAlwaysTrue : part.isAlwaysFalse { continue }
            kept.append(part)
        }
        if kept.isEmpty { return constant(and) }
        if kept.count == 1 { return kept[0] }
        return SQLFragment(
            "(" + kept.map(\.sql).joined(separator: and ? " AND " : " OR ") + ")", kept.flatMap(\.binds),
            nullable: kept.contains { $0.nullable })
    }

    /// ` NOT (p)`, in SQL's logic: `NOT` of an unknown comparison is unknown, so
    /// `NOT (rating > 3)` leaves out objects whose `rating` is nil, as Core Data's store does.
    func negated() -> SQLFragment {
        if isAlwaysTrue { return .alwaysFalse }
        if isAlwaysFalse { return .alwaysTrue }
        return SQLFragment(" NOT (" + sql + ")", binds, nullable: nullable)
    }

    /// The fragment with NULL read as false, for places that need a plain 0 or 1.
    func twoValued() -> SQLFragment {
        nullable ? SQLFragment(" IFNULL(" + sql + ", 0)", binds) : self
    }

    /// An answer known without reading `value` except when it is NULL: then the comparison
    /// has a NULL operand and is unknown, as every such comparison in SQL (`name == 42` is
    /// false, `name != 42` true, both unknown for a nil `name`).
    static func known(_ answer: Bool, unlessNull values: [SQLFragment]) -> SQLFragment {
        guard !values.isEmpty else { return constant(answer) }
        let test = values.map { $0.sql + " IS NULL" }.joined(separator: " OR ")
        return SQLFragment(" CASE WHEN \(test) THEN NULL ELSE \(answer ? 1 : 0) END", values.flatMap(\.binds), nullable: true)
    }

    /// A comparison with a nil constant other than `==`/`!=` (`rating > nil`): unknown for
    /// every row, as `t0.ZRATING > NULL` is in SQL.
    static let unknown = SQLFragment(" NULL", nullable: true)
}
