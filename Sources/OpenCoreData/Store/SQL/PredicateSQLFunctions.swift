import Foundation

/// The functions of `NSExpression` in a predicate, as Core Data's SQLite store writes them
/// (its `NSSQLFunctionExpressionIntermediate`): arithmetic between key paths and constants
/// (`price * quantity > 100` is `(t0.ZPRICE * t0.ZQUANTITY) > ?`), `abs:`, `uppercase:`
/// and the others it knows; the functions it does not know raise its exception.
///
/// SQL computes the value, so the answers are SQL's: a NULL operand makes the value NULL
/// (the comparison unknown, the object not fetched), dividing two integers truncates
/// (`7 / 2` is 3, as in memory), dividing by zero is NULL.
extension PredicateSQLTranslator {
    /// Two-argument functions, written `(a <symbol> b)`.
    static let infixFunctionSQL: [String: String] = [
        "add:to:": " + ", "from:subtract:": " - ", "multiply:by:": " * ", "divide:by:": " / ", "modulus:by:": " % ",
        "bitwiseAnd:with:": " & ", "bitwiseOr:with:": " | ", "leftshift:by:": " << ", "rightshift:by:": " >> ",
    ]

    /// One-argument functions, written `<prefix>x)`.
    static let prefixFunctionSQL: [String: String] = [
        "abs:": "abs(", "onesComplement:": "(~", "noindex:": "+(",
        "uppercase:": "NSCoreDataToUpper(", "lowercase:": "NSCoreDataToLower(",
    ]

    /// The aggregate functions Core Data's store writes in SQL, with the SQL function its
    /// `generateSQLStringInContext:` names for each: `max`, `min`, `avg`, and `total` for
    /// `sum:` (so a sum over no rows is 0, where SQL's SUM would be NULL). Of a to-many key
    /// path it is a correlated subquery, the function upper-cased as its subqueries write
    /// trailing functions (`(SELECT TOTAL(t1.ZDISTANCE) FROM ZHIKE t1 WHERE …)`); of an
    /// attribute of the fetched entity, an uncorrelated one over the whole table
    /// (`(SELECT avg(t1.ZDISTANCE) FROM ZHIKE t1)`), every row's value compared with the
    /// table's aggregate, where `evaluate(with:)` aggregates the one object's value.
    static let aggregateFunctionSQL: [String: String] = [
        "sum:": "total", "average:": "avg", "min:": "min", "max:": "max",
    ]

    /// Functions Core Data's store translates that this library still evaluates in memory
    /// (an aggregate of a SUBQUERY variable's key path, `sum:($h.distance)`), so they raise
    /// nothing. A cast or an index of a key path
    /// (`CAST(rating, 'NSString')`, `hikes[FIRST]`, `tags[0]`, `hikes[SIZE]`) is not here:
    /// `castObject:toType:` and `objectFrom:withIndex:` are not among the selectors
    /// NSSQLFunctionExpressionIntermediate writes, so Core Data's store raises for them (a
    /// cast of constants is computed once, before any SQL).
    static let functionsLeftToMemory: Set<String> = [
        "sum:", "count:", "min:", "max:", "average:",
    ]

    /// Core Data's message for a function its store cannot write in SQL (`sqrt:`, `floor:`,
    /// `FUNCTION(x, 'customSelector')`, …).
    static let unsupportedFunctionMessage = "Unsupported function type passed to SQL store"

    /// The value of the function `name` of `arguments` for each row, as SQL.
    func functionOperand(_ name: String, _ arguments: [NSExpression], in scope: SQLScope) throws -> SQLOperand {
        if let symbol = Self.infixFunctionSQL[name], arguments.count == 2 {
            let a = try functionArgument(arguments[0], of: name, in: scope)
            let b = try functionArgument(arguments[1], of: name, in: scope)
            for kind in [a.kind, b.kind] where kind != nil && kind != .number && kind != .date {
                throw SQLUntranslatable("\(name) of a \(kind!) value")
            }
            // A date plus or minus seconds is a date; anything else is a number.
            let dates = [a.kind, b.kind].filter { $0 == .date }.count
            let kind: SQLValueKind = dates == 1 && (name == "add:to:" || name == "from:subtract:") ? .date : .number
            let sql = "(\(a.sql.sql)\(symbol)\(b.sql.sql))"
            return .scalar(SQLFragment(sql, a.sql.binds + b.sql.binds), kind, nullable: a.nullable || b.nullable)
        }
        if let prefix = Self.prefixFunctionSQL[name], arguments.count == 1 {
            let x = try functionArgument(arguments[0], of: name, in: scope)
            let kind: SQLValueKind
            switch name {
            case "uppercase:", "lowercase:": kind = .string
            case "noindex:": kind = x.kind ?? .number
            default: kind = .number
            }
            if let argumentKind = x.kind, argumentKind != kind { throw SQLUntranslatable("\(name) of a \(argumentKind) value") }
            return .scalar(SQLFragment(prefix + x.sql.sql + ")", x.sql.binds), kind, nullable: x.nullable)
        }
        if name == "count:", arguments.count == 1,
            case .toMany(let from, let relationship, let rest) = try operand(arguments[0], in: scope), rest.isEmpty
        {
            return try toMany(from: from, relationship, ["@count"], in: scope)
        }
        if let function = Self.aggregateFunctionSQL[name], arguments.count == 1 {
            switch try operand(arguments[0], in: scope) {
            case .toMany(let from, let relationship, let rest) where rest.count == 1:
                return try toManyAggregate(function.uppercased(), from: from, relationship, rest[0], in: scope)
            case .attribute where scope === root:
                if case .keyPath(_, let components) = arguments[0].node, components.count == 1 {
                    return try wholeTableAggregate(function, of: components[0])
                }
            default:
                break
            }
        }
        if (name == "count:" || Self.aggregateFunctionSQL[name] != nil), arguments.count == 1, try isToOneOnlyKeyPath(arguments[0], in: scope) {
            // `count:(rating)`, `max:(trail.lengthKm)`: Core Data's correlated aggregate finds
            // no to-many relationship on the path (NSSQLFunctionExpressionIntermediate's
            // `_generateCorrelatedSubqueryStringWithSymbol:forExpression:inContext:`).
            throw SQLUntranslatable.raising("Invalid keypath (request for aggregate operation on a toOne-only keypath): \(arguments[0])")
        }
        if Self.functionsLeftToMemory.contains(name) { throw SQLUntranslatable("function \(name)") }
        throw SQLUntranslatable.raising(Self.unsupportedFunctionMessage)
    }

    /// Whether `expression` is a key path of the evaluated object that reaches an attribute
    /// or object without crossing a to-many relationship (what Core Data's store cannot
    /// aggregate in a correlated subquery). A single attribute of the fetched entity is
    /// not one here: `sum:`, `average:`, `min:`, `max:` aggregate its whole table.
    private func isToOneOnlyKeyPath(_ expression: NSExpression, in scope: SQLScope) throws -> Bool {
        guard case .keyPath = expression.node else { return false }
        switch try operand(expression, in: scope) {
        case .attribute, .object: return true
        default: return false
        }
    }

    /// One argument of a function: a column, a computed value, or a bound constant (`NULL`
    /// for nil); its kind when known.
    private func functionArgument(_ expression: NSExpression, of name: String, in scope: SQLScope) throws
        -> (sql: SQLFragment, kind: SQLValueKind?, nullable: Bool)
    {
        switch try operand(expression, in: scope) {
        case .constant(let value):
            guard let value = unwrapAny(value), !(value is NSNull) else { return (SQLFragment("NULL"), nil, true) }
            for kind in [SQLValueKind.number, .date, .string] {
                if case .bound(let bind) = try Self.bindValue(value, kind: kind) { return (SQLFragment("?", [bind]), kind, false) }
            }
            throw SQLUntranslatable("a constant \(value) as an argument of \(name)")
        case .attribute(let column, let kind):
            return (SQLFragment(column), kind, true)
        case .scalar(let fragment, let kind, let nullable):
            return (fragment, kind, nullable)
        case .toMany:
            // Core Data's store generates function arguments without to-many key paths.
            throw SQLUntranslatable.raising("to-many key not allowed here")
        case let other:
            throw SQLUntranslatable("\(other) as an argument of \(name)")
        }
    }
}
