import Foundation

/// Why a predicate or sort descriptor (or a part of one) is not translated to SQL.
///
/// Most reasons are this library's gaps, and the caller evaluates that part in memory.
/// Some are Core Data's own refusals: its SQLite store raises an exception for them
/// (`exception`), and so does a fetch from a SQLite store here.
struct SQLUntranslatable: Error, CustomStringConvertible {
    let reason: String
    /// The exception Core Data's SQLite store raises for this request, if it raises one.
    let exception: (name: CoreDataExceptionName, reason: String)?

    init(_ reason: String) {
        self.reason = reason
        exception = nil
    }

    /// A request Core Data's SQL generation refuses, with the exception it raises
    /// (`NSInvalidArgumentException` for all of them).
    static func raising(_ reason: String) -> SQLUntranslatable {
        SQLUntranslatable(reason: reason, exception: (.invalidArgument, reason))
    }

    private init(reason: String, exception: (name: CoreDataExceptionName, reason: String)?) {
        self.reason = reason
        self.exception = exception
    }

    var description: String { reason }

    /// Raises Core Data's exception for this refusal when Core Data's store raises one;
    /// else raises `otherwise` when given (work with no in-memory path, such as a batch
    /// request), else returns and the caller evaluates in memory.
    func raiseIfCoreDataRefuses(otherwise fallback: @autoclosure () -> String? = nil) {
        if let exception { raiseCoreDataException(exception.name, exception.reason) }
        if let reason = fallback() { raiseCoreDataException(.invalidArgument, reason) }
    }
}

/// Translates predicates and sort descriptors into SQL against Core Data's schema, with the
/// answers of Core Data's SQLite store.
///
/// - SQL's NULL logic, as Core Data's store uses it: `!=` is `<>`, and a comparison with a
///   NULL operand (`rating > 3` for a nil `rating`, `name != "x"` for a nil `name`) is
///   unknown, as is `NOT` of it, so the object is not fetched, although `evaluate(with:)`
///   in memory answers true for `nil != "x"` and `NOT (nil > 3)`. Only `== nil` and
///   `!= nil` (`IS NULL`, `IS NOT NULL`) test for NULL.
/// - Key paths through to-one relationships become `LEFT OUTER JOIN`s (a missing related
///   object reads as NULL); through to-many relationships, correlated
///   `EXISTS (SELECT 1 …)` subqueries (`ANY`, `ALL` as `NOT EXISTS … NOT`, so an element
///   whose comparison is unknown is no counterexample, `NONE`,
///   `CONTAINS` and `IN` on collections) and `(SELECT COUNT(*) …)` for `@count` and
///   `SUBQUERY(…).@count`; `@sum`, `@avg`, `@min`, `@max` as aggregate subqueries;
///   `x IN SUBQUERY(…)` as `x IN (SELECT tN.Z_PK …)`.
/// - String comparisons go through the functions of ``SQLFunctions``, which call the
///   in-memory comparison code, so folding and canonical equivalence are Foundation's.
/// - Values are bound, never spliced into the text.
///
/// Anything else throws ``SQLUntranslatable``: with Core Data's exception where Core Data's
/// store refuses the request too (the fetch raises it), else the caller evaluates in memory.
final class PredicateSQLTranslator {
    let schema: StoreSchema
    /// The scope of the fetched rows, alias `t0`.
    let root: SQLScope
    /// Tables (entity and join tables) the statement reads: pending changes to any of them
    /// make SQL answers stale.
    private(set) var tables: Set<String> = []
    private var aliasCount = 0

    init(schema: StoreSchema, entity: StoreEntity) {
        self.schema = schema
        root = SQLScope(alias: "t0", entity: entity.entity, table: entity.table, variable: nil, parent: nil, nullable: false)
        tables.insert(entity.table.name)
    }

    /// The `LEFT OUTER JOIN`s the root scope needs (after `FROM ZX t0`).
    var rootJoins: String { root.joinSQL }

    /// Runs `body`; if it throws, forgets the joins and tables it added, so that a part
    /// left to memory leaves no trace in the statement.
    func attempt<T>(_ body: () throws -> T) throws -> T {
        let saved = (root.joinSQL, root.joins, tables, aliasCount)
        do {
            return try body()
        } catch {
            (root.joinSQL, root.joins, tables, aliasCount) = saved
            throw error
        }
    }

    // MARK: Predicates

    /// The predicate as a WHERE condition on `t0`.
    func condition(_ predicate: NSPredicate) throws -> SQLFragment {
        try translate(predicate, in: root)
    }

    /// `keyPath IN values` on `t0`, the condition `%K IN %@` translates to, without making
    /// and parsing a predicate: for the long lists the library builds itself (a save's
    /// search for stored duplicates of a uniqueness constraint).
    func inCondition(keyPath: String, values: [Any]) throws -> SQLFragment {
        // The elements as they are: the container's checks (is it a string? which kind of
        // collection?) would bridge the whole array to Foundation to ask.
        try inList(try operand(forKeyPath: keyPath), elements: values, [])
    }

    /// ``inCondition(keyPath:values:)`` for a list of Swift strings: the same fragment,
    /// without boxing each string in an `Any` to look at its type and cast it back.
    func inCondition(keyPath: String, strings: [String]) throws -> SQLFragment {
        let left = try operand(forKeyPath: keyPath)
        guard left.nullTest != nil, let leftSQL = left.valueSQL, Self.takesStringList(left, []), !strings.isEmpty else {
            return try inList(left, elements: strings.map { $0 as Any }, [])
        }
        return Self.stringList(leftSQL, strings, nullable: left.isNullable)
    }

    private func translate(_ predicate: NSPredicate, in scope: SQLScope) throws -> SQLFragment {
        switch predicate.kind {
        case .value(let value): return .constant(value)
        // Core Data's messages; a block inside a compound is named by the compound.
        case .block: throw SQLUntranslatable.raising("Unknown predicate type for predicate: \(predicate)")
        case .tree: break
        }
        if let compound = predicate as? NSCompoundPredicate {
            for part in compound.predicates where !Self.isSQLPredicateKind(part) {
                throw SQLUntranslatable.raising("Problem with subpredicate \(part)")
            }
            switch compound.compoundPredicateType {
            case .and: return .compound(try compound.predicates.map { try translate($0, in: scope) }, and: true)
            case .or: return .compound(try compound.predicates.map { try translate($0, in: scope) }, and: false)
            case .not:
                guard let first = compound.predicates.first else { return .alwaysTrue }
                return try translate(first, in: scope).negated()
            }
        }
        if let comparison = predicate as? NSComparisonPredicate { return try translate(comparison, in: scope) }
        throw SQLUntranslatable.raising("Unknown predicate type for predicate: \(predicate)")
    }

    /// Whether Core Data's SQL generation knows the kind of `predicate`: a comparison, a
    /// compound, or TRUEPREDICATE / FALSEPREDICATE (not a block, not another subclass).
    private static func isSQLPredicateKind(_ predicate: NSPredicate) -> Bool {
        if case .block = predicate.kind { return false }
        if case .value = predicate.kind { return true }
        return predicate is NSCompoundPredicate || predicate is NSComparisonPredicate
    }

    private func translate(_ comparison: NSComparisonPredicate, in scope: SQLScope) throws -> SQLFragment {
        let op = comparison.effectiveOperator
        try refuseNilConstants(comparison, op)
        do {
            return try translateOperands(comparison, op, in: scope)
        } catch let refusal as SQLUntranslatable where refusal.exception != nil && Self.isSubqueryContainment(comparison, op) {
            // Core Data's containment SQL replaces whatever its operands raised with its own
            // message (the end of NSSQLSimpleWhereIntermediate's
            // `_generateSQLContainmentStringInContext:`).
            throw SQLUntranslatable.raising("unimplemented SQL generation for predicate : (\(comparison))")
        }
    }

    /// `x IN SUBQUERY(…)` (a key path of its elements too) or `SUBQUERY(…) CONTAINS x`.
    private static func isSubqueryContainment(_ comparison: NSComparisonPredicate, _ op: NSComparisonPredicate.Operator) -> Bool {
        guard comparison.comparisonPredicateModifier == .direct, op == .in || op == .contains else { return false }
        var collection = op == .in ? comparison.rightExpression : comparison.leftExpression
        if case .function("valueForKeyPath:", let base?, _) = collection.node { collection = base }
        if case .subquery = collection.node { return true }
        return false
    }

    private func translateOperands(_ comparison: NSComparisonPredicate, _ op: NSComparisonPredicate.Operator,
                                   in scope: SQLScope) throws -> SQLFragment {
        let options = comparison.options
        let left = try operand(comparison.leftExpression, in: scope)
        if op == .between, comparison.comparisonPredicateModifier == .direct, let bounds = try keyPathBounds(comparison.rightExpression, in: scope) {
            // `quantity BETWEEN {minimum, maximum}` with key paths among the bounds: Core Data's
            // `(t0.ZQUANTITY BETWEEN t0.ZMINIMUM AND t0.ZMAXIMUM)`, the same test as these two.
            return try between(left, bounds.lower, bounds.upper, options, in: scope)
        }
        let right = try operand(comparison.rightExpression, in: scope)
        try refuseKeyPathContainment(comparison, op, left, right)
        switch comparison.comparisonPredicateModifier {
        case .direct:
            return try direct(left, op, right, options, in: scope)
        case .any, .all:
            let any = comparison.comparisonPredicateModifier == .any
            if case .toMany(let from, let relationship, let rest) = left {
                if any {
                    return try anyElement(from: from, relationship, rest, in: scope) { element, inner in
                        try self.direct(element, op, right, options, in: inner)
                    }
                }
                return try anyElement(from: from, relationship, rest, in: scope) { element, inner in
                    try self.direct(element, op, right, options, in: inner).negated()
                }.negated()
            }
            // A single value is its own one-element collection; nil is an empty one.
            guard let test = left.nullTest else { throw SQLUntranslatable("\(any ? "ANY" : "ALL") of a constant") }
            let body = try direct(left, op, right, options, in: scope)
            return any
                ? .compound([SQLFragment(" " + test + " IS NOT NULL"), body], and: true)
                : .compound([SQLFragment(" " + test + " IS NULL"), body.twoValued()], and: false)
        }
    }

    // MARK: Comparisons

    /// `name IN nickname`, `name CONTAINS nickname`: Core Data's containment SQL
    /// (NSSQLSimpleWhereIntermediate's `_generateSQLContainmentStringInContext:`) refuses
    /// a key path on both sides with `unimplemented SQL generation for predicate : (%@)
    /// (LHS and RHS both keypaths)`. Only single values are refused here: a to-many side
    /// (`rating IN hikes.distance`) keeps its EXISTS subquery.
    private func refuseKeyPathContainment(_ comparison: NSComparisonPredicate, _ op: NSComparisonPredicate.Operator,
                                          _ left: SQLOperand, _ right: SQLOperand) throws {
        guard op == .in || op == .contains, comparison.comparisonPredicateModifier == .direct,
            case .keyPath = comparison.leftExpression.node, case .keyPath = comparison.rightExpression.node
        else { return }
        for side in [left, right] {
            switch side {
            case .attribute, .object: continue
            default: return
            }
        }
        throw SQLUntranslatable.raising("unimplemented SQL generation for predicate : (\(comparison)) (LHS and RHS both keypaths)")
    }

    /// `x BETWEEN {lower, upper}`: Core Data's `( t0.ZX BETWEEN ? AND ?)`
    /// (NSSQLSimpleWhereIntermediate's `_generateSQLBetweenStringInContext:`; mlsite.net/blog/
    /// ?p=1150 quotes `t0.ZKEYWORD BETWEEN ? AND ?`) when both halves are plain SQL
    /// comparisons of the same value, the same test as `x >= lower AND x <= upper`, which is
    /// written instead where a half is not (a string compared with `[c]` or `[d]`, a bound
    /// of another type).
    private func between(_ left: SQLOperand, _ lower: SQLOperand, _ upper: SQLOperand, _ options: NSComparisonPredicate.Options,
                         in scope: SQLScope) throws -> SQLFragment {
        let atLeast = try direct(left, .greaterThanOrEqualTo, lower, options, in: scope)
        let atMost = try direct(left, .lessThanOrEqualTo, upper, options, in: scope)
        if let value = left.valueSQL, value.binds.isEmpty, !value.sql.contains("?") {
            let lowerPrefix = " \(value.sql) >= ", upperPrefix = " \(value.sql) <= "
            if atLeast.sql.hasPrefix(lowerPrefix), atMost.sql.hasPrefix(upperPrefix) {
                let a = atLeast.sql.dropFirst(lowerPrefix.count), b = atMost.sql.dropFirst(upperPrefix.count)
                if !a.contains(" "), !b.contains(" ") {
                    return SQLFragment("( \(value.sql) BETWEEN \(a) AND \(b))", atLeast.binds + atMost.binds, nullable: atLeast.nullable || atMost.nullable)
                }
            }
        }
        return .compound([atLeast, atMost], and: true)
    }

    /// The two bounds of `BETWEEN {a, b}` when either is not a constant (a key path, a
    /// function of one), as operands; nil for constant bounds, which ``direct`` handles.
    private func keyPathBounds(_ expression: NSExpression, in scope: SQLScope) throws -> (lower: SQLOperand, upper: SQLOperand)? {
        guard case .aggregate(let items) = expression.node, items.count == 2, !Self.isConstant(expression) else { return nil }
        return (try operand(items[0], in: scope), try operand(items[1], in: scope))
    }

    /// Core Data's refusals of a nil constant (NSSQLSimpleWhereIntermediate's
    /// `generateSQLStringInContext:`): on the left of any comparison but an ALL, `can't
    /// use NULL on left hand side`; on either side of `<`, `<=`, `>`, `>=`, `illegal
    /// comparison with NULL`. `evaluate(with:)` answers both in memory (false).
    private func refuseNilConstants(_ comparison: NSComparisonPredicate, _ op: NSComparisonPredicate.Operator) throws {
        func isNilConstant(_ expression: NSExpression) -> Bool {
            if case .constant(let value) = expression.node { return isNilValue(value) }
            return false
        }
        if comparison.comparisonPredicateModifier != .all, isNilConstant(comparison.leftExpression) {
            throw SQLUntranslatable.raising("can't use NULL on left hand side")
        }
        let ordering: Set<NSComparisonPredicate.Operator> = [.lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo]
        if ordering.contains(op), isNilConstant(comparison.rightExpression) {
            throw SQLUntranslatable.raising("illegal comparison with NULL")
        }
    }

    /// `left op right` without a modifier.
    private func direct(_ left: SQLOperand, _ op: NSComparisonPredicate.Operator, _ right: SQLOperand,
                        _ options: NSComparisonPredicate.Options, in scope: SQLScope) throws -> SQLFragment {
        if case .constant(let a) = left, case .constant(let b) = right { return try staticComparison(a, op, b, options) }
        switch op {
        case .in:
            if case .subquery(let select, let element) = right { return try inSubquery(left, select, element) }
            if case .toMany(let from, let relationship, let rest) = right {
                return try anyElement(from: from, relationship, rest, in: scope) { element, inner in
                    try self.direct(left, .equalTo, element, options, in: inner)
                }
            }
            guard case .constant(let value) = right else { throw SQLUntranslatable("IN with a right side that is not a constant collection") }
            return try inList(left, value, options)
        case .contains:
            if case .subquery(let select, let element) = left { return try inSubquery(right, select, element) }
            if case .toMany(let from, let relationship, let rest) = left {
                return try anyElement(from: from, relationship, rest, in: scope) { element, inner in
                    try self.direct(element, .equalTo, right, options, in: inner)
                }
            }
            // `{a, b} CONTAINS x` is `x IN {a, b}`.
            if case .constant(let value) = left, let container = unwrapAny(value), PredicateValues.string(container) == nil,
                collectionOrDictionaryElements(container) != nil
            {
                return try inList(right, value, options)
            }
        case .between:
            guard case .constant(let value) = right else { throw SQLUntranslatable("BETWEEN with bounds that are not constant") }
            guard let bounds = unwrapAny(value).flatMap(collectionElements), bounds.count == 2 else { return known(false, left) }
            return try between(left, .constant(bounds[0]), .constant(bounds[1]), options, in: scope)
        default:
            break
        }
        // Core Data's store compares a to-many key path only under ANY, ALL or NONE.
        if case .toMany = left { throw SQLUntranslatable.raising("to-many key not allowed here") }
        if case .toMany = right { throw SQLUntranslatable.raising("to-many key not allowed here") }
        if case .subquery = left { throw SQLUntranslatable("a SUBQUERY compared other than by IN or its @count") }
        if case .subquery = right { throw SQLUntranslatable("a SUBQUERY compared other than by IN or its @count") }
        return try binary(left, op, right, options)
    }

    /// `x IN SUBQUERY(…)` (or `SUBQUERY(…) CONTAINS x`): ` x IN (SELECT t1.Z_PK FROM …)`, as
    /// NSSQLSimpleWhereIntermediate's containment SQL writes a SUBQUERY right-hand side
    /// (`<lhs> IN ` then the subquery's SQL; the comparison's options are not read there, so
    /// `[c]` and `[d]` compare exactly, as in Core Data's store).
    private func inSubquery(_ left: SQLOperand, _ select: SQLFragment, _ element: SQLOperand) throws -> SQLFragment {
        // A NULL among the selected values (an attribute, a to-one's key) makes an `x` not
        // found unknown, as SQL's IN does.
        let selectsNull = element.isNullable
        switch left {
        case .constant(let value):
            // A nil `x` is NULL in SQL: unknown for every row.
            guard let value, !isNilValue(value) else { return .unknown }
            let bind: SQLBind
            switch element {
            case .object(let ref):
                guard let key = Self.storeKey(of: value, in: ref.table, schema: schema) else { return .alwaysFalse }
                bind = .key(key)
            default:
                guard let kind = element.kind else { throw SQLUntranslatable("IN a SUBQUERY of \(element)") }
                guard case .bound(let bound) = try Self.bindValue(value, kind: kind) else { return .alwaysFalse }
                bind = bound
            }
            return SQLFragment(" ? IN \(select.sql)", [bind] + select.binds, nullable: selectsNull)
        case .object(let ref):
            guard case .object(let elementRef) = element else { throw SQLUntranslatable("an object IN a SUBQUERY of \(element)") }
            // Rows of another table are never the same object.
            guard elementRef.table === ref.table else { return known(false, left) }
            return SQLFragment(" \(ref.pk) IN \(select.sql)", select.binds, nullable: ref.nullable || selectsNull)
        case .attribute, .scalar:
            guard let kind = left.kind, kind == element.kind, let value = left.valueSQL else {
                throw SQLUntranslatable("\(left) IN a SUBQUERY of \(element)")
            }
            return SQLFragment(" \(value.sql) IN \(select.sql)", value.binds + select.binds, nullable: true)
        case .toMany:
            throw SQLUntranslatable.raising("to-many key not allowed here")
        case .subquery:
            throw SQLUntranslatable("a SUBQUERY IN a SUBQUERY")
        }
    }

    /// Both sides constant: the answer, computed now by the in-memory code.
    private func staticComparison(_ a: Any?, _ op: NSComparisonPredicate.Operator, _ b: Any?, _ options: NSComparisonPredicate.Options) throws -> SQLFragment {
        let prepared = PreparedComparison(operator: op, right: NSExpression(forConstantValue: b), options: options)
        if prepared.regexError != nil { throw SQLUntranslatable("an invalid regular expression") }
        return .constant(PredicateComparison.compare(PredicateScalar(a), op, prepared.hasConstant ? prepared.constant : PredicateScalar(b), options: options, prepared: prepared))
    }

    /// A comparison of two single values (columns, objects, scalars or one constant).
    private func binary(_ left: SQLOperand, _ op: NSComparisonPredicate.Operator, _ right: SQLOperand,
                        _ options: NSComparisonPredicate.Options) throws -> SQLFragment {
        // Objects: identity by primary key.
        if left.isObject || right.isObject { return try objectComparison(left, op, right) }
        // nil on one side.
        if case .constant(let value) = right, isNilValue(value) { return try nilComparison(left, op) }
        if case .constant(let value) = left, isNilValue(value) { return try nilComparison(right, op) }

        guard let kind = left.kind ?? right.kind else { throw SQLUntranslatable("a comparison of unsupported values") }
        if let leftKind = left.kind, let rightKind = right.kind, leftKind != rightKind {
            throw SQLUntranslatable("a comparison of a \(leftKind) with a \(rightKind) key path")
        }
        // Render each side: a column or scalar as SQL, a constant as a bound value.
        var parts: [(sql: String, binds: [SQLBind], nullable: Bool)] = []
        for side in [left, right] {
            switch side {
            case .constant(let value):
                switch try Self.bindValue(value!, kind: kind) {
                case .bound(let bind): parts.append(("?", [bind], false))
                case .mismatch: return known(op == .notEqualTo, left, right)
                }
            default:
                guard let sql = side.valueSQL else { throw SQLUntranslatable("a comparison of unsupported values") }
                parts.append((sql.sql, sql.binds, side.isNullable))
            }
        }
        let (a, b) = (parts[0], parts[1])
        let binds = a.binds + b.binds
        let nullable = a.nullable || b.nullable

        if kind == .string {
            let folding = !PredicateStrings.foldingOptions(options).isEmpty
            switch op {
            case .equalTo where !folding:
                return SQLFragment(" \(a.sql) = \(b.sql)", binds, nullable: nullable)
            case .notEqualTo where !folding:
                return SQLFragment(" \(a.sql) <> \(b.sql)", binds, nullable: nullable)
            case .lessThan where !folding, .lessThanOrEqualTo where !folding, .greaterThan where !folding,
                 .greaterThanOrEqualTo where !folding:
                // Plain SQL, compared by SQLite's BINARY collation (UTF-8 bytes), so an index
                // on the column serves it: Core Data's SQL for a string range is
                // `t0.ZKEYWORD BETWEEN ? AND ?` (mlsite.net/blog/?p=1150), the fast prefix
                // search `key >= lower AND key < upper` Apple recommends (WWDC 2013, 211).
                let symbol = [NSComparisonPredicate.Operator.lessThan: "<", .lessThanOrEqualTo: "<=", .greaterThan: ">", .greaterThanOrEqualTo: ">="][op]!
                return SQLFragment(" \(a.sql) \(symbol) \(b.sql)", binds, nullable: nullable)
            case .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
                return SQLFragment(" NSCoreDataStringCompare(\(a.sql), \(b.sql), \(op.rawValue), \(SQLFunctions.optionBits(options)), 0)", binds, nullable: nullable)
            case .beginsWith, .endsWith, .contains:
                return SQLFragment(" NSCoreDataStringSearch( \(a.sql), \(b.sql), \(SQLFunctions.searchFlags(op, options)), 0)", binds, nullable: nullable)
            case .like:
                return SQLFragment(" NSCoreDataLike( \(a.sql), \(b.sql), \(SQLFunctions.optionBits(options)))", binds, nullable: nullable)
            case .matches:
                // An invalid pattern raises when the first row with a value is matched, as
                // Core Data's NSCoreDataMatches does.
                return SQLFragment(" NSCoreDataMatches( \(a.sql), \(b.sql), \(SQLFunctions.optionBits(options)))", binds, nullable: nullable)
            default:
                throw SQLUntranslatable("operator \(op) on strings")
            }
        }
        switch op {
        case .equalTo:
            return SQLFragment(" \(a.sql) = \(b.sql)", binds, nullable: nullable)
        case .notEqualTo:
            return SQLFragment(" \(a.sql) <> \(b.sql)", binds, nullable: nullable)
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            let symbol = [NSComparisonPredicate.Operator.lessThan: "<", .lessThanOrEqualTo: "<=", .greaterThan: ">", .greaterThanOrEqualTo: ">="][op]!
            switch kind {
            case .binary: return known(false, left, right)
            case .uri: return SQLFragment(" \(a.sql) \(symbol) \(b.sql) COLLATE NSCollateCanonical", binds, nullable: nullable)
            default: return SQLFragment(" \(a.sql) \(symbol) \(b.sql)", binds, nullable: nullable)
            }
        case .beginsWith, .endsWith, .contains, .like, .matches:
            // String operators on anything else are false, as in memory (unknown on NULL).
            return known(false, left, right)
        default:
            throw SQLUntranslatable("operator \(op) on \(kind) values")
        }
    }

    /// `x == nil`, `x != nil`; every other operator with nil is unknown, as a comparison
    /// with NULL is in SQL.
    private func nilComparison(_ side: SQLOperand, _ op: NSComparisonPredicate.Operator) throws -> SQLFragment {
        guard let test = side.nullTest else { throw SQLUntranslatable("nil compared with \(side)") }
        switch op {
        case .equalTo: return SQLFragment(" " + test + " IS NULL", side.valueSQL?.binds ?? [])
        case .notEqualTo: return SQLFragment(" " + test + " IS NOT NULL", side.valueSQL?.binds ?? [])
        default: return .unknown
        }
    }

    /// `SELF == %@`, `trail == %@`, `trail != nil` and the like: objects are equal when they
    /// are the same row (an object and its object ID count as the same).
    private func objectComparison(_ left: SQLOperand, _ op: NSComparisonPredicate.Operator, _ right: SQLOperand) throws -> SQLFragment {
        let (objectSide, other) = left.isObject ? (left, right) : (right, left)
        guard case .object(let ref) = objectSide else { throw SQLUntranslatable("an object comparison") }
        switch other {
        case .constant(let value):
            if isNilValue(value) { return try nilComparison(objectSide, op) }
            guard op == .equalTo || op == .notEqualTo else {
                // Objects have no order; string operators on objects are false (unknown
                // for a nil relationship, as any comparison with NULL).
                if [.lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo, .beginsWith, .endsWith, .like, .matches, .contains].contains(op) {
                    return known(false, objectSide)
                }
                throw SQLUntranslatable("operator \(op) on objects")
            }
            guard let key = Self.storeKey(of: value!, in: ref.table, schema: schema) else { return known(op == .notEqualTo, objectSide) }
            return SQLFragment(" \(ref.pk) \(op == .equalTo ? "=" : "<>") ?", [.key(key)], nullable: ref.nullable)
        case .object(let otherRef) where otherRef.table === ref.table && (op == .equalTo || op == .notEqualTo):
            return SQLFragment(" \(ref.pk) \(op == .equalTo ? "=" : "<>") \(otherRef.pk)", nullable: ref.nullable || otherRef.nullable)
        default:
            throw SQLUntranslatable("an object compared with \(other)")
        }
    }

    /// `x IN {a, b, …}`: `x IN (?, ?)`, or one `NSCoreDataStringCompare` per element with
    /// `[c]`/`[d]`; a nil element adds `x IS NULL`; elements of another type never match;
    /// without any other element, a nil `x` is unknown, as in `x IN (…)`.
    private func inList(_ left: SQLOperand, _ value: Any?, _ options: NSComparisonPredicate.Options) throws -> SQLFragment {
        guard let container = unwrapAny(value), !(container is NSNull) else { return known(false, left) }
        if PredicateValues.string(container) != nil { throw SQLUntranslatable("IN with a string on the right (a substring test)") }
        guard let elements = collectionOrDictionaryElements(container) else { return known(false, left) }
        return try inList(left, elements: elements, options)
    }

    /// `x IN {a, b, …}` for the collection's `elements`.
    private func inList(_ left: SQLOperand, elements: [Any], _ options: NSComparisonPredicate.Options) throws -> SQLFragment {
        guard let test = left.nullTest, let leftSQL = left.valueSQL else { throw SQLUntranslatable("IN on \(left)") }
        // The usual list, a constraint check's or an import's: Swift strings against a string
        // column, bound as they are, in one pass (for a Swift string isNilValue says no and
        // bindValue binds its text, so the fragment is the one the general path makes).
        if Self.takesStringList(left, options), !elements.isEmpty, elements.allSatisfy({ Swift.type(of: $0) == String.self }) {
            return Self.stringList(leftSQL, elements.lazy.map { $0 as! String }, nullable: left.isNullable)
        }
        let hasNil = elements.contains { isNilValue($0) }
        let values = elements.filter { !isNilValue($0) }
        // `x IN ()` is false in SQLite, for a NULL `x` too.
        if elements.isEmpty { return .alwaysFalse }
        var binds: [SQLBind] = []
        if case .object(let ref) = left {
            for element in values {
                if let key = Self.storeKey(of: element, in: ref.table, schema: schema) { binds.append(.key(key)) }
            }
        } else {
            guard let kind = left.kind ?? nil else { throw SQLUntranslatable("IN on \(left)") }
            if kind == .string, !PredicateStrings.foldingOptions(options).isEmpty {
                var tests: [SQLFragment] = []
                for element in values {
                    guard let text = PredicateValues.string(element) else { continue }
                    tests.append(SQLFragment(" NSCoreDataStringCompare(\(leftSQL.sql), ?, \(NSComparisonPredicate.Operator.equalTo.rawValue), \(SQLFunctions.optionBits(options)), 0)", leftSQL.binds + [.text(text)], nullable: true))
                }
                if hasNil { tests.append(SQLFragment(" " + test + " IS NULL", leftSQL.binds)) }
                return tests.isEmpty ? known(false, left) : .compound(tests, and: false)
            }
            for element in values {
                if case .bound(let bind) = try Self.bindValue(element, kind: kind) { binds.append(bind) }
            }
        }
        var tests: [SQLFragment] = []
        if !binds.isEmpty {
            var all = leftSQL.binds
            all.append(contentsOf: binds)
            tests.append(SQLFragment(" \(leftSQL.sql) IN (\(SQLPlaceholders.list(binds.count)))", all, nullable: left.isNullable))
        }
        if hasNil { tests.append(SQLFragment(" " + test + " IS NULL", leftSQL.binds)) }
        return tests.isEmpty ? known(false, left) : .compound(tests, and: false)
    }

    /// Whether an `IN` list on `left` may bind Swift strings as they are: a string
    /// attribute compared without case or diacritic folding.
    private static func takesStringList(_ left: SQLOperand, _ options: NSComparisonPredicate.Options) -> Bool {
        !left.isObject && left.kind == .string && PredicateStrings.foldingOptions(options).isEmpty
    }

    /// ` left IN (?, …)` binding `strings` (at least one) as text: for a Swift string
    /// isNilValue says no and bindValue binds its text, so this is the fragment the
    /// general path makes.
    private static func stringList<Strings: Collection<String>>(_ leftSQL: SQLFragment, _ strings: Strings, nullable: Bool) -> SQLFragment {
        var all = leftSQL.binds
        all.reserveCapacity(all.count + strings.count)
        for string in strings { all.append(.text(string)) }
        return .compound([SQLFragment(" \(leftSQL.sql) IN (\(SQLPlaceholders.list(strings.count)))", all, nullable: nullable)], and: false)
    }

    /// `answer` for every row, except unknown where one of `sides` (those that may be
    /// NULL) is NULL: a comparison with a NULL operand is unknown in SQL.
    private func known(_ answer: Bool, _ sides: SQLOperand...) -> SQLFragment {
        .known(answer, unlessNull: sides.filter { !$0.isConstant && $0.isNullable }.compactMap(\.valueSQL))
    }

    // MARK: To-many relationships

    /// `EXISTS (SELECT 1 FROM <destination> tN WHERE <link> AND <body>)`: some element of
    /// the to-many relationship (the path `rest` applied to each, flattened as key-value
    /// coding flattens nested collections) satisfies `body`.
    private func anyElement(from position: SQLPosition, _ relationship: NSRelationshipDescription, _ rest: [String], in scope: SQLScope,
                            _ body: (SQLOperand, SQLScope) throws -> SQLFragment) throws -> SQLFragment {
        let sub = try enter(relationship, from: position, in: scope, variable: nil)
        let element = try resolve(rest, from: sub.position, in: sub)
        let inner: SQLFragment
        if case .toMany(let from, let nested, let nestedRest) = element {
            inner = try anyElement(from: from, nested, nestedRest, in: sub, body)
        } else {
            inner = try body(element, sub)
        }
        return exists(sub, inner)
    }

    private func exists(_ sub: SQLScope, _ inner: SQLFragment) -> SQLFragment {
        if inner.isAlwaysFalse { return .alwaysFalse }
        let condition = SQLFragment.compound([SQLFragment(sub.link), inner], and: true)
        return SQLFragment(" EXISTS (SELECT 1 FROM \(sub.from)\(sub.joinSQL) WHERE \(condition.sql))", condition.binds)
    }

    /// A scope over the destinations of `relationship` from `position`.
    private func enter(_ relationship: NSRelationshipDescription, from position: SQLPosition, in scope: SQLScope, variable: String?) throws -> SQLScope {
        guard let storage = schema.toMany(relationship), let destination = relationship.destinationEntity else {
            throw SQLUntranslatable("relationship \(relationship.name) is not stored")
        }
        let alias = newAlias()
        switch storage {
        case .foreignKey(let mapped, let keyColumn, _), .hiddenKey(let mapped, let keyColumn, _):
            let sub = SQLScope(alias: alias, entity: destination, table: mapped.table, variable: variable, parent: scope, nullable: false)
            sub.from = "\(mapped.table.name) \(alias)"
            sub.link = " \(alias).\(keyColumn) = \(position.alias).Z_PK"
            tables.insert(mapped.table.name)
            return sub
        case .joinTable(let join, let ownColumn, let otherColumn, _, let mapped):
            let joinAlias = newAlias()
            let sub = SQLScope(alias: alias, entity: destination, table: mapped.table, variable: variable, parent: scope, nullable: false)
            sub.from = "\(join.name) \(joinAlias) JOIN \(mapped.table.name) \(alias) ON \(alias).Z_PK = \(joinAlias).\(otherColumn)"
            sub.link = " \(joinAlias).\(ownColumn) = \(position.alias).Z_PK"
            tables.insert(join.name)
            tables.insert(mapped.table.name)
            return sub
        }
    }

    /// `@count`, `@sum.x`, `@avg.x`, `@min.x`, `@max.x` of a to-many relationship; a path
    /// that goes on past the relationship stays a ``SQLOperand/toMany(_:_:_:)``. Core Data's
    /// store rewrites the operators as the functions `sum:`, `average:`, `min:`, `max:`
    /// (NSExpression's `_NSCoreDataSQLPredicateCategories`), so `@sum` is TOTAL and `@avg`
    /// AVG, NULL over no elements (``toManyAggregate(_:from:_:_:in:)``).
    func toMany(from position: SQLPosition, _ relationship: NSRelationshipDescription, _ rest: [String], in scope: SQLScope) throws -> SQLOperand {
        guard let first = rest.first, first.hasPrefix("@") else { return .toMany(position, relationship, rest) }
        let functions = ["@sum": "TOTAL", "@avg": "AVG", "@min": "MIN", "@max": "MAX"]
        if first == "@count" {
            guard rest.count == 1 else { throw SQLUntranslatable("a key path after @count") }
            let sub = try enter(relationship, from: position, in: scope, variable: nil)
            return .scalar(aggregate(sub, "COUNT(*)", owner: position), .number, nullable: position.nullable)
        }
        guard let function = functions[first] else { throw SQLUntranslatable("collection operator \(first)") }
        guard rest.count == 2 else { throw SQLUntranslatable("\(first) of something other than a numeric attribute") }
        return try toManyAggregate(function, from: position, relationship, rest[1], in: scope)
    }

    /// `(SELECT <FUNCTION>(tN.<column>) FROM … WHERE <link>)`: `sum:`, `average:`, `min:` or
    /// `max:` of a to-many key path (see ``aggregateFunctionSQL``). NULL over no elements,
    /// except TOTAL's 0.
    func toManyAggregate(_ function: String, from position: SQLPosition, _ relationship: NSRelationshipDescription, _ key: String,
                         in scope: SQLScope) throws -> SQLOperand {
        let sub = try enter(relationship, from: position, in: scope, variable: nil)
        let ordersDates = function == "MIN" || function == "MAX"
        guard case .attribute(let column, let kind) = try resolve([key], from: sub.position, in: sub),
            kind == .number || (kind == .date && ordersDates)
        else { throw SQLUntranslatable("\(function) of something other than a numeric attribute") }
        let nullable = position.nullable || function != "TOTAL"
        return .scalar(aggregate(sub, "\(function)(\(column))", owner: position), kind, nullable: nullable)
    }

    /// `(SELECT <function>(tN.<column>) FROM <table> tN)`: `sum:`, `average:`, `min:` or
    /// `max:` of an attribute of the fetched entity, over every row of its table, as Core
    /// Data's `_generateUncorrelatedSubqueryStringWithSymbol:` writes it for a WHERE clause
    /// (no `Z_ENT` restriction: sub-entities sharing the table count too).
    func wholeTableAggregate(_ function: String, of key: String) throws -> SQLOperand {
        let alias = newAlias()
        let position = SQLPosition(alias: alias, entity: root.entity, table: root.table, nullable: false)
        let ordersDates = function == "min" || function == "max"
        guard case .attribute(let column, let kind) = try resolve([key], from: position, in: root),
            kind == .number || (kind == .date && ordersDates)
        else { throw SQLUntranslatable("\(function) of something other than a numeric attribute") }
        return .scalar(SQLFragment("(SELECT \(function)(\(column)) FROM \(root.table.name) \(alias))"), kind, nullable: function != "total")
    }

    /// `(SELECT <function> FROM … WHERE <link> [AND <condition>])`, or NULL when the owner
    /// row is missing (a nil to-one on the way), as a key path through nil is nil.
    private func aggregate(_ sub: SQLScope, _ function: String, owner: SQLPosition, condition: SQLFragment? = nil) -> SQLFragment {
        let whereClause = SQLFragment.compound([SQLFragment(sub.link)] + (condition.map { [$0] } ?? []), and: true)
        let select = "(SELECT \(function) FROM \(sub.from)\(sub.joinSQL) WHERE \(whereClause.sql))"
        if owner.nullable {
            return SQLFragment("CASE WHEN \(owner.alias).Z_PK IS NULL THEN NULL ELSE \(select) END", whereClause.binds)
        }
        return SQLFragment(select, whereClause.binds)
    }

    // MARK: Operands

    /// What an expression stands for in SQL.
    func operand(_ expression: NSExpression, in scope: SQLScope) throws -> SQLOperand {
        switch expression.node {
        case .constant(let value):
            return .constant(value)
        case .evaluatedObject:
            return .object(scope.position.objectRef)
        case .keyPath(_, let components):
            return try resolve(components, from: scope.position, in: scope)
        case .variable(let name):
            // Core Data's message (NSSQLVariableExpressionIntermediate) for a variable no
            // SUBQUERY binds: the fetch request's predicate was not given its values.
            guard let bound = scope.scope(forVariable: name) else {
                throw SQLUntranslatable.raising("unable to resolve variable expression: \(expression)")
            }
            return .object(bound.position.objectRef)
        case .subquery(let collection, let variable, let predicate):
            return try subqueryElements(collection, variable, predicate, trailing: [], in: scope)
        case .function("valueForKeyPath:", let base?, let arguments):
            guard let key = arguments.first?.constantValue.flatMap({ PredicateValues.string($0) }) else {
                throw SQLUntranslatable("a key path that is not constant")
            }
            var components = splitKeyPath(key)
            var base = base
            // `SUBQUERY(…).@sum.distance` parses as a key path on a key path on the SUBQUERY.
            if case .function("valueForKeyPath:", let inner?, let innerArguments) = base.node, case .subquery = inner.node,
                let innerKey = innerArguments.first?.constantValue.flatMap({ PredicateValues.string($0) })
            {
                components = splitKeyPath(innerKey) + components
                base = inner
            }
            if case .subquery(let collection, let variable, let predicate) = base.node {
                if components == ["@count"] { return try subqueryCount(collection, variable, predicate, in: scope) }
                if components.count == 2, let function = Self.subqueryAggregates[components[0]] {
                    return try subqueryAggregate(function, of: components[1], collection, variable, predicate, in: scope)
                }
                if components.contains(where: { $0.hasPrefix("@") }) {
                    throw SQLUntranslatable("a collection operator after a SUBQUERY other than @count, @sum, @avg, @min, @max")
                }
                return try subqueryElements(collection, variable, predicate, trailing: components, in: scope)
            }
            switch try operand(base, in: scope) {
            case .object(let ref):
                return try resolve(components, from: position(of: ref, in: scope), in: scope)
            case .toMany(let from, let relationship, let rest):
                return try toMany(from: from, relationship, rest + components, in: scope)
            default:
                throw SQLUntranslatable("a key path on \(base)")
            }
        case .function(let name, let target, let arguments) where !Self.isConstant(expression):
            // `FUNCTION(x, 'selector')`: Core Data's store knows no selector of an object.
            if target != nil, !ExpressionFunctions.isKnown(name) {
                throw SQLUntranslatable.raising(Self.unsupportedFunctionMessage)
            }
            return try functionOperand(name, arguments, in: scope)
        default:
            if Self.isConstant(expression) {
                return .constant(expression.value(of: nil, PredicateEvaluationContext(variables: [:])))
            }
            throw SQLUntranslatable("expression \(expression)")
        }
    }

    /// `SUBQUERY(collection, $x, predicate).@count`.
    private func subqueryCount(_ collection: NSExpression, _ variable: String, _ predicate: NSPredicate, in scope: SQLScope) throws -> SQLOperand {
        let (from, relationship) = try subqueryCollection(collection, variable, predicate, in: scope)
        let sub = try enter(relationship, from: from, in: scope, variable: variable)
        let condition = try translate(predicate, in: sub)
        return .scalar(aggregate(sub, "COUNT(*)", owner: from, condition: condition), .number, nullable: from.nullable)
    }

    /// The to-many relationship a SUBQUERY ranges over, and the row it starts from. Core
    /// Data's refusals: a collection that is not a key path (NSSQLIntermediate's
    /// `_generateSQLForSubqueryExpression:trailingKeypath:inContext:`: `Unsupported subquery
    /// collection expression type`), a key path to an attribute (NSSQLSubqueryExpression-
    /// Intermediate: `Can't have a non-relationship collection element in a subquery%@`,
    /// the SUBQUERY expression written straight after).
    private func subqueryCollection(_ collection: NSExpression, _ variable: String, _ predicate: NSPredicate,
                                    in scope: SQLScope) throws -> (SQLPosition, NSRelationshipDescription) {
        switch collection.node {
        case .keyPath, .function: break
        default: throw SQLUntranslatable.raising("Unsupported subquery collection expression type")
        }
        switch try operand(collection, in: scope) {
        case .toMany(let from, let relationship, let rest) where rest.isEmpty:
            return (from, relationship)
        case .attribute:
            let subquery = NSExpression(forSubquery: collection, usingIteratorVariable: variable, predicate: predicate)
            throw SQLUntranslatable.raising("Can't have a non-relationship collection element in a subquery\(subquery)")
        default:
            throw SQLUntranslatable("a SUBQUERY over something other than a to-many relationship")
        }
    }

    /// `SUBQUERY(collection, $x, predicate)`, or a key path of its elements
    /// (`SUBQUERY(…).name`): `(SELECT tN.Z_PK FROM … WHERE <link> AND <predicate>)`, the
    /// values NSSQLSubqueryExpressionIntermediate selects without a trailing function (its
    /// variable column, the destination's primary key, or the trailing key path's column),
    /// usable on the right of IN (the containment SQL of NSSQLSimpleWhereIntermediate writes
    /// `<lhs> IN ` and the subquery's SQL for a SUBQUERY right-hand side).
    private func subqueryElements(_ collection: NSExpression, _ variable: String, _ predicate: NSPredicate, trailing: [String],
                                  in scope: SQLScope) throws -> SQLOperand {
        let (from, relationship) = try subqueryCollection(collection, variable, predicate, in: scope)
        let sub = try enter(relationship, from: from, in: scope, variable: variable)
        // Core Data joins for the trailing key path before it writes the predicate.
        let element = try resolve(trailing, from: sub.position, in: sub)
        let selected: SQLFragment
        switch element {
        case .attribute(let column, _): selected = SQLFragment(column)
        case .object(let ref): selected = SQLFragment(ref.pk)
        default: throw SQLUntranslatable("a to-many key path after a SUBQUERY")
        }
        let condition = try translate(predicate, in: sub)
        let whereClause = SQLFragment.compound([SQLFragment(sub.link), condition], and: true)
        let select = SQLFragment("(SELECT \(selected.sql) FROM \(sub.from)\(sub.joinSQL) WHERE \(whereClause.sql))", whereClause.binds)
        return .subquery(select, element: element)
    }

    /// The SQL function of each collection operator after a SUBQUERY: NSSQLSubqueryExpression-
    /// Intermediate writes a trailing `@sum`, `@avg`, `@min`, `@max` upper-cased (`AVG` for
    /// `@avg`); unlike a key path's operators they are not rewritten as `sum:` and the
    /// others first, so `@sum` is SUM, NULL where no element matches.
    static let subqueryAggregates = ["@sum": "SUM", "@avg": "AVG", "@min": "MIN", "@max": "MAX"]

    /// `SUBQUERY(collection, $x, predicate).@sum.key` (or `@avg`, `@min`, `@max`):
    /// `(SELECT SUM(tN.<column>) FROM … WHERE <link> AND <predicate>)`.
    private func subqueryAggregate(_ function: String, of key: String, _ collection: NSExpression, _ variable: String, _ predicate: NSPredicate,
                                   in scope: SQLScope) throws -> SQLOperand {
        let (from, relationship) = try subqueryCollection(collection, variable, predicate, in: scope)
        let sub = try enter(relationship, from: from, in: scope, variable: variable)
        let ordersDates = function == "MIN" || function == "MAX"
        guard case .attribute(let column, let kind) = try resolve([key], from: sub.position, in: sub),
            kind == .number || (kind == .date && ordersDates)
        else { throw SQLUntranslatable("\(function) of something other than a numeric attribute") }
        let condition = try translate(predicate, in: sub)
        return .scalar(aggregate(sub, "\(function)(\(column))", owner: from, condition: condition), kind, nullable: true)
    }

    /// Whether the expression's value is the same for every object (no key paths, no
    /// variables, no random numbers): it is computed once, in memory.
    static func isConstant(_ expression: NSExpression) -> Bool {
        switch expression.node {
        case .constant: return true
        case .aggregate(let items): return items.allSatisfy(isConstant)
        case .function(let name, let operand, let arguments):
            return operand == nil && !name.hasPrefix("random") && arguments.allSatisfy(isConstant)
        default: return false
        }
    }

    /// Walks `components` from `position`: attributes become columns, to-one relationships
    /// joins, a to-many relationship stops the walk.
    private func resolve(_ components: [String], from start: SQLPosition, in scope: SQLScope) throws -> SQLOperand {
        var position = start
        var index = 0
        while index < components.count {
            let key = components[index]
            let isLast = index == components.count - 1
            if key == "self" || key == "SELF" {
                index += 1
                if isLast { return .object(position.objectRef) }
                continue
            }
            if key.hasPrefix("@") { throw SQLUntranslatable("collection operator \(key) on a single object") }
            guard let property = position.entity.propertyTable.byName[key] else {
                throw keyPathNotFound(components)
            }
            if var attribute = property as? NSAttributeDescription {
                // `address.city` (or `address.geo.lat`): the column of one element of a composite.
                if let composite = attribute as? NSCompositeAttributeDescription, !isLast,
                    let leaf = composite.leafElements.first(where: { $0.path == Array(components[(index + 1)...]) })
                {
                    attribute = leaf.element
                } else {
                    guard isLast else { throw SQLUntranslatable("a key path through attribute \(key)") }
                }
                guard let column = position.table.column(for: attribute), case .attribute(_, let storage) = column.role else {
                    // A transient attribute has no column: Core Data's store does not know the key.
                    throw keyPathNotFound(components)
                }
                guard let kind = SQLValueKind(storage) else { throw SQLUntranslatable("attribute \(key) of type \(storage)") }
                return .attribute("\(position.alias).\(column.name)", kind)
            }
            guard let relationship = property as? NSRelationshipDescription else { throw SQLUntranslatable("property \(key)") }
            if relationship.isToMany {
                return try toMany(from: position, relationship, Array(components[(index + 1)...]), in: scope)
            }
            guard let column = position.table.column(for: relationship),
                let destination = relationship.destinationEntity, let mapped = schema.entity(destination)
            else { throw SQLUntranslatable("relationship \(key) is not stored") }
            if isLast {
                return .object(SQLObjectRef(pk: "\(position.alias).\(column.name)", table: mapped.table, nullable: true, position: nil, via: (position, relationship)))
            }
            position = join(position, relationship, in: scope)
            index += 1
        }
        return .object(position.objectRef)
    }

    /// Core Data's exception for a key path its store has no column for (a misspelt key,
    /// a transient attribute), naming the whole key path and the fetched entity as the
    /// store knows it, however deep the missing key is: `keypath nmae not found in entity
    /// <NSSQLEntity Trail id=2>` (crash reports quoted in public issues show both forms,
    /// e.g. `keypath market.remoteID not found in entity <NSSQLEntity Item id=1>`).
    private func keyPathNotFound(_ components: [String]) -> SQLUntranslatable {
        let number = schema.entity(root.entity).map { String($0.number) } ?? "0"
        return .raising("keypath \(components.joined(separator: ".")) not found in entity <NSSQLEntity \(root.entity.name ?? "(null)") id=\(number)>")
    }

    /// The row an object reference names, joining it in when it is a foreign key.
    private func position(of ref: SQLObjectRef, in scope: SQLScope) throws -> SQLPosition {
        if let position = ref.position { return position }
        guard let (from, relationship) = ref.via else { throw SQLUntranslatable("a key path on an object") }
        return join(from, relationship, in: scope)
    }

    /// `LEFT OUTER JOIN <destination> tN ON <alias>.<FK> = tN.Z_PK`, once per path.
    private func join(_ position: SQLPosition, _ relationship: NSRelationshipDescription, in scope: SQLScope) -> SQLPosition {
        let key = position.alias + "." + relationship.name
        if let existing = scope.joins[key] { return existing }
        let destination = relationship.destinationEntity!
        let mapped = schema.entity(destination)!
        let column = position.table.column(for: relationship)!
        let alias = newAlias()
        scope.joinSQL += " LEFT OUTER JOIN \(mapped.table.name) \(alias) ON \(position.alias).\(column.name) = \(alias).Z_PK"
        tables.insert(mapped.table.name)
        let joined = SQLPosition(alias: alias, entity: destination, table: mapped.table, nullable: true)
        scope.joins[key] = joined
        return joined
    }

    private func newAlias() -> String {
        aliasCount += 1
        return "t\(aliasCount)"
    }

    /// What a key path from `t0` stands for: an attribute's column or a to-one's foreign key,
    /// joining to-one relationships on the way. For the columns of dictionary results.
    func operand(forKeyPath keyPath: String) throws -> SQLOperand {
        try resolve(splitKeyPath(keyPath), from: root.position, in: root)
    }

    /// `LEFT OUTER JOIN <destination> tN ON t0.Z_PK = tN.<FK>` for a one-to-many relationship
    /// of `t0`, as Core Data joins one to count its objects (`COUNT( t1.Z_PK)`); the alias.
    func leftJoin(toMany relationship: NSRelationshipDescription) throws -> String {
        guard case .foreignKey(let mapped, let keyColumn, _)? = schema.toMany(relationship) else {
            throw SQLUntranslatable("a join over relationship \(relationship.name)")
        }
        let alias = newAlias()
        root.joinSQL += " LEFT OUTER JOIN \(mapped.table.name) \(alias) ON t0.Z_PK = \(alias).\(keyColumn)"
        tables.insert(mapped.table.name)
        return alias
    }

    // MARK: Sorting

    /// `ORDER BY` terms for `descriptors` (without the keywords), each string attribute
    /// with the collation of its selector, ending with `t0.Z_PK` so that ties keep the
    /// order the in-memory sort (stable, over rows in primary-key order) gives them.
    func orderBy(_ descriptors: [NSSortDescriptor]) throws -> String {
        var terms: [String] = []
        for descriptor in descriptors {
            // Core Data's store sorts only by selector; these are its messages.
            guard descriptor.block == nil else {
                throw SQLUntranslatable.raising("unsupported NSSortDescriptor (comparator blocks are not supported)")
            }
            guard let key = descriptor.key else {
                throw SQLUntranslatable("a sort descriptor without a key")
            }
            let operand = try resolve(splitKeyPath(key), from: root.position, in: root)
            if case .toMany = operand { throw SQLUntranslatable.raising("to-many key not allowed here") }
            guard case .attribute(let column, let kind) = operand else {
                throw SQLUntranslatable("sorting by \(key), which is not an attribute")
            }
            terms.append(try Self.orderTerm(column, kind: kind, key: key, descriptor: descriptor))
        }
        terms.append("t0.Z_PK")
        return terms.joined(separator: ", ")
    }

    /// One `ORDER BY` term: `column` with the collation a string or URI needs for
    /// `descriptor`'s method, and `DESC` when it sorts descending.
    static func orderTerm(_ column: String, kind: SQLValueKind, key: String, descriptor: NSSortDescriptor) throws -> String {
        var term = column
        switch kind {
        case .string: term += " COLLATE " + SQLFunctions.collationName(descriptor.method)
        case .uri: term += " COLLATE NSCollateCanonical"
        case .binary: throw SQLUntranslatable("sorting by binary attribute \(key)")
        case .number, .date, .uuid: break
        }
        return descriptor.ascending ? term : term + " DESC"
    }

    // MARK: Constants

    enum Binding {
        case bound(SQLBind)
        /// The constant can never equal a value of the column's type.
        case mismatch
    }

    /// `value` bound for a column of `kind`, or `.mismatch` when predicate comparison would
    /// never find them equal or ordered (a string against a number, say).
    static func bindValue(_ value: Any, kind: SQLValueKind) throws -> Binding {
        let value = unwrapAny(value) ?? NSNull()
        switch kind {
        case .string:
            return PredicateValues.string(value).map { .bound(.text($0)) } ?? .mismatch
        case .number:
            guard let number = PredicateValues.number(value) else { return .mismatch }
            switch number {
            case .int(let int): return .bound(.integer(int))
            case .uint(let uint):
                if let int = Int64(exactly: uint) { return .bound(.integer(int)) }
                throw SQLUntranslatable("an unsigned number beyond Int64")
            case .double(let double): return .bound(.real(double))
            case .decimal(let decimal):
                if let int = Int64(exactly: NSDecimalNumber(decimal: decimal).doubleValue), Decimal(int) == decimal { return .bound(.integer(int)) }
                // Bound as the number column's double, as an NSDecimalNumber (objCType "d")
                // is bound for a Double or Float attribute.
                guard !decimal.isNaN else { throw SQLUntranslatable("a decimal constant that is not a number") }
                // Through its text: the double nearest the decimal, the one SQLite makes of the
                // same digits bound into a DECIMAL column (swift-corelibs-foundation's
                // doubleValue of 19.99 is 19.990000000000002, which would never match).
                guard let double = Double(NSDecimalNumber(decimal: decimal).stringValue) else {
                    throw SQLUntranslatable("a decimal constant \(decimal)")
                }
                return .bound(.real(double))
            }
        case .date:
            return PredicateValues.date(value).map { .bound(.timestamp($0.timeIntervalSinceReferenceDate)) } ?? .mismatch
        case .uuid:
            let uuid: UUID? = (value as? UUID) ?? (value as? NSUUID).map { $0 as UUID }
            return uuid.map { id in .bound(.blob(withUnsafeBytes(of: id.uuid) { Data($0) })) } ?? .mismatch
        case .uri:
            guard let url = (value as? URL) ?? (value as? NSURL).map({ $0 as URL }) else { return .mismatch }
            guard url.baseURL == nil else { throw SQLUntranslatable("a relative URL constant") }
            return .bound(.text(url.absoluteString))
        case .binary:
            if let data = value as? Data { return .bound(.blob(data)) }
            if let data = value as? NSData { return .bound(.blob(Data(referencing: data))) }
            return .mismatch
        }
    }

    /// The primary key of `value` (a managed object or object ID) when it is a saved row of
    /// `table`; `nil` when it cannot be a row there (another table, a temporary ID).
    static func storeKey(of value: Any, in table: StoreTable, schema: StoreSchema) -> Int64? {
        let id: NSManagedObjectID
        switch unwrapAny(value) {
        case let object as NSManagedObject: id = object.objectID
        case let objectID as NSManagedObjectID: id = objectID
        default: return nil
        }
        guard let key = id.storeKey, let mapped = schema.entity(number: key.entityNumber), mapped.table === table,
            mapped.entity === id.entity
        else { return nil }
        return key.primaryKey
    }
}

// MARK: - Scopes and operands

/// The types of values SQL compares the way predicates do.
enum SQLValueKind: String {
    case string, number, date, uuid, uri, binary

    init?(_ storage: AttributeStorage) {
        switch storage {
        case .string: self = .string
        case .uri: self = .uri
        case .integer16, .integer32, .integer64, .boolean, .double, .float: self = .number
        // A decimal is compared and sorted by SQL as a number, as in Core Data's store, which
        // binds its text into a DECIMAL column (see ``RowCodec``): an integer or REAL there.
        // One of more than 15 digits is kept whole as its text in a BLOB (Core Data's column
        // would hold the nearest REAL), and SQL orders a BLOB after every number: a
        // difference listed in LinuxDifferences.md.
        case .decimal: self = .number
        case .date: self = .date
        case .uuid: self = .uuid
        case .binary: self = .binary
        case .externalBinary, .transformable: return nil
        }
    }
}

/// A row reachable in SQL: `t0`, a joined to-one destination, a to-many element.
struct SQLPosition {
    let alias: String
    let entity: NSEntityDescription
    let table: StoreTable
    /// Whether the row may be missing (a `LEFT OUTER JOIN`).
    let nullable: Bool

    var objectRef: SQLObjectRef { SQLObjectRef(pk: alias + ".Z_PK", table: table, nullable: nullable, position: self, via: nil) }
}

/// An object in SQL: its primary key expression and its table.
struct SQLObjectRef {
    let pk: String
    let table: StoreTable
    let nullable: Bool
    /// Set when the object is a row in the statement.
    let position: SQLPosition?
    /// Set when the object is a to-one's foreign key, joined in on demand.
    let via: (SQLPosition, NSRelationshipDescription)?
}

/// One side of a comparison.
indirect enum SQLOperand: CustomStringConvertible {
    case constant(Any?)
    /// A column (`t0.ZNAME`).
    case attribute(String, SQLValueKind)
    case object(SQLObjectRef)
    /// A to-many relationship from a row, with the key path applied to each element.
    case toMany(SQLPosition, NSRelationshipDescription, [String])
    /// A computed value: `(SELECT COUNT(*) …)`.
    case scalar(SQLFragment, SQLValueKind, nullable: Bool)
    /// The elements a SUBQUERY keeps (or a key path of each): `(SELECT t1.Z_PK FROM …)`,
    /// with what one selected value is (an object or an attribute column), usable on the
    /// right of IN.
    case subquery(SQLFragment, element: SQLOperand)

    var isConstant: Bool { if case .constant = self { return true } else { return false } }
    var isObject: Bool { if case .object = self { return true } else { return false } }

    var kind: SQLValueKind? {
        switch self {
        case .attribute(_, let kind): return kind
        case .scalar(_, let kind, _): return kind
        default: return nil
        }
    }

    var isNullable: Bool {
        switch self {
        case .attribute: return true
        case .object(let ref): return ref.nullable
        case .scalar(_, _, let nullable): return nullable
        default: return false
        }
    }

    /// The SQL of the value (without its leading space).
    var valueSQL: SQLFragment? {
        switch self {
        case .attribute(let column, _): return SQLFragment(column)
        case .object(let ref): return SQLFragment(ref.pk)
        case .scalar(let fragment, _, _): return fragment
        default: return nil
        }
    }

    /// What `IS NULL` tests for this value.
    var nullTest: String? {
        switch self {
        case .attribute(let column, _): return column
        case .object(let ref): return ref.pk
        case .scalar(let fragment, _, _) where fragment.binds.isEmpty: return fragment.sql
        default: return nil
        }
    }

    var description: String {
        switch self {
        case .constant(let value): return "constant \(value.map { "\($0)" } ?? "nil")"
        case .attribute(let column, _): return column
        case .object(let ref): return ref.pk
        case .toMany(_, let relationship, let rest): return ([relationship.name] + rest).joined(separator: ".")
        case .scalar(let fragment, _, _): return fragment.sql
        case .subquery(let select, _): return select.sql
        }
    }
}

/// A FROM scope: the main query (`t0`) or a correlated subquery over a to-many
/// relationship, with the joins made inside it.
final class SQLScope {
    let alias: String
    let entity: NSEntityDescription
    let table: StoreTable
    /// The SUBQUERY variable bound to this scope's rows.
    let variable: String?
    let parent: SQLScope?
    let nullable: Bool
    /// `ZHIKE t1`, or a join table joined to its destination.
    var from = ""
    /// The condition tying the subquery to its owner row.
    var link = ""
    var joinSQL = ""
    var joins: [String: SQLPosition] = [:]

    init(alias: String, entity: NSEntityDescription, table: StoreTable, variable: String?, parent: SQLScope?, nullable: Bool) {
        self.alias = alias
        self.entity = entity
        self.table = table
        self.variable = variable
        self.parent = parent
        self.nullable = nullable
    }

    var position: SQLPosition { SQLPosition(alias: alias, entity: entity, table: table, nullable: nullable) }

    func scope(forVariable name: String) -> SQLScope? {
        var current: SQLScope? = self
        while let scope = current {
            if scope.variable == name { return scope }
            current = scope.parent
        }
        return nil
    }
}
