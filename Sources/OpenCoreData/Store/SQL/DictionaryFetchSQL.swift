import Foundation

// Dictionary results in one SQL statement, as Core Data's SQLite store computes them.
//
// Core Data's SQL for such requests, as printed at `-com.apple.CoreData.SQLDebug 1`
// (fatbobman.com, "在 Core Data 中查询和使用 count 的若干方法", 2022):
//
//     SELECT t0.ZBIRTHOFYEAR, COUNT( t0.ZBIRTHOFYEAR) FROM ZITEM t0 GROUP BY  t0.ZBIRTHOFYEAR
//     SELECT t0.ZBIRTHOFYEAR, COUNT( t0.ZBIRTHOFYEAR) AS __var0 FROM ZITEM t0
//       GROUP BY  t0.ZBIRTHOFYEAR HAVING __var0 > ?
//     SELECT total( t0.ZATTACHMENTCOUNT) FROM ZITEM t0
//
// `sum:` is SQLite's `total()` (0, not NULL, over no rows); a having predicate names a
// result column by an alias `__varN`. The values are the store's: Apple documents that
// dictionary results do not reflect the context's pending changes (`includesPendingChanges`,
// "Special Considerations").

extension FetchDictionaryResults {
    /// The results as the store computes them in one statement; `nil` when the request needs
    /// the in-memory path (an entity in several stores, or a part SQL cannot express here).
    func resultsInSQL(columns: [Column], groupKeys: [String]?) throws -> [NSDictionary]? {
        guard let coordinator = context.persistentStoreCoordinator else { return nil }
        let holding = coordinator.persistentStores.filter { store in
            (coordinator.managedObjectModel.entities(forConfigurationName: store.configurationName) ?? []).contains { $0 === entity }
        }
        // Only a SQLite store runs SQL; another (an incremental store) takes the in-memory path.
        guard holding.count == 1, let engine = holding[0].sqliteEngine else { return nil }
        let store = holding[0]
        // A predicate Core Data's SQLite store refuses raises its exception here too.
        if store.type == NSSQLiteStoreType, let predicate = request.predicate {
            do {
                _ = try engine.translator(for: entity).condition(predicate)
            } catch let error as SQLUntranslatable {
                error.raiseIfCoreDataRefuses()
            }
        }
        let statement: DictionaryFetchStatement
        do {
            statement = try DictionaryFetchSQL(request: request, entity: entity, engine: engine, typed: typed)
                .statement(columns: columns, groupKeys: groupKeys)
        } catch is SQLUntranslatable {
            return nil
        }
        let rows = try engine.fetchDictionaryRows(statement)
        return rows.map { values in
            var row: [String: Any] = [:]
            for (column, raw) in zip(statement.columns, values) {
                var value = raw
                if let key = value as? StoreKey {
                    value = coordinator.objectID(for: key, in: store) ?? NSManagedObjectID.orphan(key: key, store: store)
                }
                if let value = column.finish(value) { row[column.key] = value }
            }
            return NSDictionary(dictionary: row)
        }
    }
}

/// One key of the result dictionaries: where its value is in the statement's row, and how
/// it becomes the value Core Data returns.
struct DictionaryFetchColumn {
    let key: String
    /// The first of its result columns, `-1` for a constant.
    var index: Int32
    /// The raw value at `index` (a ``StoreKey`` for an object, made an object ID later).
    let read: (SQLiteStatement, Int32) throws -> Any?
    /// The value as returned: typed as the expression description asks.
    let finish: (Any?) -> Any?
}

/// A dictionary fetch as SQL, its bound values and its columns.
struct DictionaryFetchStatement {
    let sql: String
    let binds: [SQLBind]
    let columns: [DictionaryFetchColumn]
}

/// Builds the statement of a dictionary fetch with the predicate translator: the predicate
/// becomes the WHERE clause, key paths through to-one relationships `LEFT OUTER JOIN`s, as
/// in object fetches. Throws ``SQLUntranslatable`` for what it does not express (per-row
/// arithmetic, `median:`, `mode:`, `stddev:`, to-many arguments, ...), which the caller
/// then computes in memory.
private final class DictionaryFetchSQL {
    let request: NSFetchRequest<NSFetchRequestResult>
    let entity: NSEntityDescription
    let engine: SQLiteStoreEngine
    let translator: PredicateSQLTranslator
    let mapped: StoreEntity
    let typed: (Any?, NSAttributeType) -> Any?

    /// The SELECT terms by result key, and the alias given to those a having predicate or
    /// a sort names.
    private var terms: [(key: String, sql: String, kind: SQLValueKind?, isAggregate: Bool)] = []
    private var aliases: [String: String] = [:]

    init(request: NSFetchRequest<NSFetchRequestResult>, entity: NSEntityDescription, engine: SQLiteStoreEngine,
         typed: @escaping (Any?, NSAttributeType) -> Any?) throws {
        self.request = request
        self.entity = entity
        self.engine = engine
        self.translator = try engine.translator(for: entity)
        self.mapped = try engine.storeEntity(entity)
        self.typed = typed
    }

    func statement(columns: [FetchDictionaryResults.Column], groupKeys: [String]?) throws -> DictionaryFetchStatement {
        let hasAggregate = columns.contains(where: \.isAggregate)
        let grouping = groupKeys != nil || hasAggregate
        if hasAggregate, groupKeys == nil, columns.contains(where: { !$0.isAggregate }) {
            throw SQLUntranslatable("plain columns beside aggregates without propertiesToGroupBy")
        }
        var select: [String] = []
        var outputs: [DictionaryFetchColumn] = []
        for column in columns {
            let (sql, output) = try self.column(column)
            var placed = output
            placed.index = sql.isEmpty ? -1 : Int32(select.count)
            select.append(contentsOf: sql)
            outputs.append(placed)
        }

        // WHERE: the entity's rows, then the predicate.
        var condition: SQLFragment?
        let entityTest = SQLFetchQuery.entityCondition(mapped, includesSubentities: request.includesSubentities)
        let predicate = try request.predicate.map { try translator.condition($0) }
        let parts = [entityTest, predicate].compactMap { $0 }
        if !parts.isEmpty {
            let combined = SQLFragment.compound(parts, and: true)
            if !combined.isAlwaysTrue { condition = combined }
        }
        var groupBy = ""
        if let groupKeys {
            groupBy = " GROUP BY  " + (try groupKeys.map { try groupTerm($0) }).joined(separator: ", ")
        }
        let having = try request.havingPredicate.map { try havingCondition($0) }
        let orderBy = try orderTerms(grouping: grouping)

        // The SELECT list last: a having predicate or sort may have given a term an alias.
        var list = select
        for (key, alias) in aliases {
            if let index = outputs.first(where: { $0.key == key })?.index, index >= 0 { list[Int(index)] += " AS " + alias }
        }
        var sql = "SELECT " + (request.returnsDistinctResults ? "DISTINCT " : "") + list.joined(separator: ", ")
        sql += " FROM \(mapped.table.name) t0" + translator.rootJoins
        if let condition { sql += " WHERE " + condition.sql }
        sql += groupBy
        if let having { sql += " HAVING" + having.sql }
        if let orderBy { sql += " ORDER BY " + orderBy }
        var limits = SQLFetchQuery(entity: mapped)
        limits.limit = max(0, request.fetchLimit)
        limits.offset = max(0, request.fetchOffset)
        sql += limits.limitClause
        return DictionaryFetchStatement(sql: sql, binds: (condition?.binds ?? []) + (having?.binds ?? []), columns: outputs)
    }

    // MARK: Columns

    /// The SELECT terms of one column (none for a constant) and how to read it.
    private func column(_ column: FetchDictionaryResults.Column) throws -> ([String], DictionaryFetchColumn) {
        switch column {
        case .value(let key):
            let (sql, kind, attribute) = try attributeColumn(key)
            terms.append((key, sql, kind, false))
            return ([sql], attributeReader(key: key, attribute: attribute, finish: { $0 }))
        case .relationship(let key):
            guard let toOne = mapped.toOnes.first(where: { $0.relationship.name == key }) else {
                throw SQLUntranslatable("relationship \(key) is not stored")
            }
            var sql = ["t0." + mapped.table.columns[toOne.column].name]
            if let entityColumn = toOne.entityColumn { sql.append("t0." + mapped.table.columns[entityColumn].name) }
            terms.append((key, sql[0], nil, false))
            let hasEntityColumn = toOne.entityColumn != nil
            let number = toOne.destinationNumber
            return (sql, DictionaryFetchColumn(key: key, index: 0, read: { statement, index in
                guard !statement.isNull(index) else { return nil }
                let entityNumber = hasEntityColumn && !statement.isNull(index + 1) ? Int(statement.int64(index + 1)) : number
                return StoreKey(entityNumber: entityNumber, primaryKey: statement.int64(index))
            }, finish: { $0 }))
        case .objectID(let key):
            let hasEntityColumn = mapped.table.hasSubentities
            let number = mapped.number
            terms.append((key, "t0.Z_PK", nil, false))
            return (hasEntityColumn ? ["t0.Z_ENT", "t0.Z_PK"] : ["t0.Z_PK"], DictionaryFetchColumn(key: key, index: 0, read: { statement, index in
                hasEntityColumn
                    ? StoreKey(entityNumber: Int(statement.int64(index)), primaryKey: statement.int64(index + 1))
                    : StoreKey(entityNumber: number, primaryKey: statement.int64(index))
            }, finish: { $0 }))
        case .expression(let key, let expression, let type):
            let typed = self.typed
            switch expression.node {
            case .constant(let value):
                return ([], DictionaryFetchColumn(key: key, index: -1, read: { _, _ in value }, finish: { typed($0, type) }))
            case .keyPath(let keyPath, _):
                let (sql, kind, attribute) = try attributeColumn(keyPath)
                terms.append((key, sql, kind, false))
                return ([sql], attributeReader(key: key, attribute: attribute, finish: { typed($0, type) }))
            default:
                throw SQLUntranslatable("expression \(expression)")
            }
        case .aggregate(let key, let function, let argument, let type):
            let (sql, kind, attribute) = try aggregateTerm(function, argument)
            terms.append((key, sql, kind, true))
            let typed = self.typed
            if let attribute {
                // min: and max: are values of the attribute: read as the attribute is.
                return ([sql], attributeReader(key: key, attribute: attribute, finish: { typed($0, type) }))
            }
            return ([sql], DictionaryFetchColumn(key: key, index: 0, read: { statement, index in
                Self.plainValue(statement, index)
            }, finish: { typed($0, type) }))
        }
    }

    /// `t0.ZNAME`, `t1.ZNAME` (joined) for an attribute key path, with its kind and attribute.
    private func attributeColumn(_ keyPath: String) throws -> (String, SQLValueKind, NSAttributeDescription) {
        guard case .attribute(let sql, let kind) = try translator.operand(forKeyPath: keyPath), let attribute = attribute(at: keyPath) else {
            throw SQLUntranslatable("\(keyPath) is not an attribute")
        }
        return (sql, kind, attribute)
    }

    /// The attribute a key path through to-one relationships ends in.
    private func attribute(at keyPath: String) -> NSAttributeDescription? {
        var current = entity
        let components = splitKeyPath(keyPath)
        for component in components.dropLast() {
            guard let relationship = current.propertyTable.byName[component] as? NSRelationshipDescription, !relationship.isToMany,
                let destination = relationship.destinationEntity
            else { return nil }
            current = destination
        }
        guard let last = components.last, let attribute = current.propertyTable.byName[last] as? NSAttributeDescription,
            !(attribute is NSCompositeAttributeDescription), AttributeStorage(attribute) != nil
        else { return nil }
        return attribute
    }

    private func attributeReader(key: String, attribute: NSAttributeDescription, finish: @escaping (Any?) -> Any?) -> DictionaryFetchColumn {
        let storage = AttributeStorage(attribute)!
        let external = engine.externalStorage
        return DictionaryFetchColumn(key: key, index: 0, read: { statement, index in
            try RowCodec.read(statement, column: index, storage: storage, attribute: attribute, external: external)
        }, finish: finish)
    }

    /// An INTEGER as Int64, a REAL as Double, TEXT as String; NULL as nil.
    static func plainValue(_ statement: SQLiteStatement, _ index: Int32) -> Any? {
        switch statement.storageClass(index) {
        case .null: return nil
        case .integer: return statement.int64(index)
        case .real: return statement.double(index)
        case .text: return statement.string(index)
        case .blob: return statement.data(index)
        }
    }

    /// `COUNT( t0.ZX)`, `total( t0.ZX)`, `AVG( t0.ZX)`, `MIN( t0.ZX)`, `MAX( t0.ZX)`; the
    /// attribute is returned for min and max, whose values are the attribute's.
    private func aggregateTerm(_ function: String, _ argument: NSExpression) throws -> (String, SQLValueKind, NSAttributeDescription?) {
        // count:(SELF) counts the rows, by primary key, as count: of a to-one counts its keys.
        if function == "count:", case .evaluatedObject = argument.node { return ("COUNT( t0.Z_PK)", .number, nil) }
        guard case .keyPath(let keyPath, _) = argument.node else { throw SQLUntranslatable("\(function) of \(argument)") }
        if function == "count:" {
            switch try translator.operand(forKeyPath: keyPath) {
            case .attribute(let sql, _): return ("COUNT( \(sql))", .number, nil)
            case .object(let ref): return ("COUNT( \(ref.pk))", .number, nil)
            case .toMany(let position, let relationship, let rest) where rest.isEmpty && position.alias == "t0":
                return ("COUNT( \(try translator.leftJoin(toMany: relationship)).Z_PK)", .number, nil)
            default: throw SQLUntranslatable("count: of \(keyPath)")
            }
        }
        let (sql, kind, attribute) = try attributeColumn(keyPath)
        switch function {
        case "sum:" where kind == .number: return ("total( \(sql))", .number, nil)
        case "average:" where kind == .number: return ("AVG( \(sql))", .number, nil)
        case "min:" where kind == .number || kind == .date: return ("MIN( \(sql))", kind, attribute)
        case "max:" where kind == .number || kind == .date: return ("MAX( \(sql))", kind, attribute)
        default: throw SQLUntranslatable("\(function) of \(keyPath)")
        }
    }

    // MARK: Grouping, having, sorting

    private func groupTerm(_ keyPath: String) throws -> String {
        switch try translator.operand(forKeyPath: keyPath) {
        case .attribute(let sql, _): return sql
        case .object(let ref): return ref.pk
        default: throw SQLUntranslatable("grouping by \(keyPath)")
        }
    }

    /// The alias of a result column (`__var0`, ...), given on first use.
    private func alias(for key: String) -> String {
        if let alias = aliases[key] { return alias }
        let alias = "__var\(aliases.count)"
        aliases[key] = alias
        return alias
    }

    /// The having predicate over result columns (`$total > 100`, `total > 100`) and
    /// aggregates (`sum:(lengthKm) > 100`).
    private func havingCondition(_ predicate: NSPredicate) throws -> SQLFragment {
        if case .value(let value) = predicate.kind { return .constant(value) }
        if let compound = predicate as? NSCompoundPredicate {
            let parts = try compound.predicates.map { try havingCondition($0) }
            switch compound.compoundPredicateType {
            case .and: return .compound(parts, and: true)
            case .or: return .compound(parts, and: false)
            case .not: return parts.first?.negated() ?? .alwaysTrue
            }
        }
        guard let comparison = predicate as? NSComparisonPredicate, comparison.comparisonPredicateModifier == .direct,
            comparison.options.isEmpty
        else { throw SQLUntranslatable("having predicate \(predicate)") }
        let symbols: [NSComparisonPredicate.Operator: String] = [
            .equalTo: "=", .notEqualTo: "<>", .lessThan: "<", .lessThanOrEqualTo: "<=", .greaterThan: ">", .greaterThanOrEqualTo: ">=",
        ]
        guard let symbol = symbols[comparison.effectiveOperator] else { throw SQLUntranslatable("operator in having predicate \(predicate)") }
        let left = try havingOperand(comparison.leftExpression)
        let right = try havingOperand(comparison.rightExpression)
        guard let kind = left.kind ?? right.kind else { throw SQLUntranslatable("having predicate \(predicate)") }
        var sides: [String] = []
        var binds: [SQLBind] = []
        for side in [left, right] {
            if let sql = side.sql {
                sides.append(sql)
            } else {
                guard let value = side.constant, case .bound(let bind) = try PredicateSQLTranslator.bindValue(value, kind: kind) else {
                    throw SQLUntranslatable("a constant in having predicate \(predicate)")
                }
                sides.append("?")
                binds.append(bind)
            }
        }
        return SQLFragment(" \(sides[0]) \(symbol) \(sides[1])", binds, nullable: true)
    }

    /// One side of a having comparison: SQL (an alias, a column, an aggregate) or a constant.
    private func havingOperand(_ expression: NSExpression) throws -> (sql: String?, kind: SQLValueKind?, constant: Any?) {
        switch expression.node {
        case .constant(let value):
            return (nil, nil, value)
        case .variable(let name):
            guard let term = terms.first(where: { $0.key == name }) else { throw SQLUntranslatable("having variable $\(name)") }
            return (alias(for: name), term.kind ?? .number, nil)
        case .keyPath(let keyPath, _):
            if let term = terms.first(where: { $0.key == keyPath }) {
                return (term.isAggregate ? alias(for: keyPath) : term.sql, term.kind ?? .number, nil)
            }
            let (sql, kind, _) = try attributeColumn(keyPath)
            return (sql, kind, nil)
        case .function(let name, .none, let arguments) where FetchDictionaryResults.aggregateFunctions.contains(name) && arguments.count == 1:
            let (sql, kind, _) = try aggregateTerm(name, arguments[0])
            return (sql, kind, nil)
        default:
            throw SQLUntranslatable("having expression \(expression)")
        }
    }

    /// `ORDER BY` terms; `nil` without sort descriptors (Core Data then writes none).
    private func orderTerms(grouping: Bool) throws -> String? {
        guard let descriptors = request.sortDescriptors, !descriptors.isEmpty else { return nil }
        if !grouping, !request.returnsDistinctResults {
            // Rows of objects: as an object fetch orders them.
            return try translator.orderBy(descriptors)
        }
        var result: [String] = []
        for descriptor in descriptors {
            guard descriptor.block == nil, let key = descriptor.key else { throw SQLUntranslatable("a sort descriptor without a key") }
            if let column = terms.first(where: { $0.key == key }), column.isAggregate {
                result.append(descriptor.ascending ? alias(for: key) : alias(for: key) + " DESC")
            } else {
                let (sql, kind, _) = try attributeColumn(key)
                result.append(try PredicateSQLTranslator.orderTerm(sql, kind: kind, key: key, descriptor: descriptor))
            }
        }
        return result.joined(separator: ", ")
    }
}

extension SQLiteStoreEngine {
    /// The rows of a dictionary fetch, one raw value per column (see ``DictionaryFetchColumn``),
    /// timed and logged as Core Data logs a fetch.
    func fetchDictionaryRows(_ query: DictionaryFetchStatement) throws -> [[Any?]] {
        lock.lock()
        defer { lock.unlock() }
        let clock = SQLDebugClock()
        let rows = try database.withStatement(query.sql) { statement in
            query.binds.bind(to: statement)
            var rows: [[Any?]] = []
            while try statement.step() {
                var row: [Any?] = []
                row.reserveCapacity(query.columns.count)
                for column in query.columns { row.append(try column.read(statement, column.index)) }
                rows.append(row)
            }
            return rows
        }
        if database.debugLevel >= 1 {
            SQLDebugLog.connectionFetchTime(clock.elapsed)
            SQLDebugLog.totalFetchTime(clock.elapsed, rows: rows.count)
        }
        return rows
    }
}
