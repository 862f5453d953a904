import Foundation

/// A batch update's new value for one attribute.
enum BatchUpdateValue {
    /// A constant, already converted to the attribute's stored Swift type (`nil`: NULL).
    case constant(Any?)
    /// An expression over the row's own attributes (`lengthKm * 2`), computed by SQLite.
    case expression(NSExpression)
}

/// What a set-based batch request did, for the context to report and to forget cached rows.
struct BatchOutcome {
    /// Rows of the request's entity changed or deleted (`sqlite3_changes`, so rows the
    /// delete rules reach are not counted, as in Core Data).
    var count = 0
    /// Their keys, when asked for (or known).
    var keys: [StoreKey]?
    /// Entity numbers whose cached rows may be stale now, or `nil` when `staleKeys` lists them.
    var staleEntities: Set<Int>?
    /// The rows changed or deleted, when a row-by-row delete knows them.
    var staleKeys: [StoreKey] = []
}

/// Batch updates and deletes run as Core Data's SQLite store runs them: one `UPDATE` or
/// one `DELETE` whose `WHERE` is the request's predicate translated to SQL, inside the
/// exclusive transaction of ``performSave(_:)``, without loading any row.
extension SQLiteStoreEngine {
    /// The rows `predicate` selects among `entity`'s (and its sub-entities' when asked), as
    /// a fetch of them would select them. A predicate SQL cannot express stops the program
    /// with Core Data's exception: a batch request has no in-memory fallback.
    func batchQuery(_ entity: NSEntityDescription, predicate: NSPredicate?, includesSubentities: Bool) throws -> (SQLFetchQuery, PredicateSQLTranslator) {
        let mapped = try storeEntity(entity)
        let translator = try self.translator(for: entity)
        var parts: [SQLFragment] = []
        if let test = SQLFetchQuery.entityCondition(mapped, includesSubentities: includesSubentities) { parts.append(test) }
        if let predicate {
            do {
                parts.append(try translator.condition(predicate))
            } catch let refusal as SQLUntranslatable {
                // A batch request has no in-memory path: what Core Data refuses raises its own
                // reason, the rest Core Data's message for a predicate it cannot generate SQL
                // for (reported from apps that hit it, e.g. kean/Pulse#74).
                refusal.raiseIfCoreDataRefuses(otherwise: "unimplemented SQL generation for predicate : (\(predicate.predicateFormat))")
            }
        }
        var query = SQLFetchQuery(entity: mapped)
        query.joins = translator.rootJoins
        if !parts.isEmpty {
            let combined = SQLFragment.compound(parts, and: true)
            if !combined.isAlwaysTrue { query.condition = combined }
        }
        return (query, translator)
    }

    // MARK: Batch update

    /// One value for one `?` of a batch statement, in parameter order.
    private enum BatchParameter {
        /// An attribute's value, bound as a save binds it.
        case value(Any?, AttributeStorage, NSAttributeDescription)
        case bind(SQLBind)
    }

    /// `UPDATE OR FAIL ZX AS t0 SET ZA = ?, Z_OPT = (Z_OPT + 1) WHERE …`: sets `values` on
    /// every row `query` selects and adds one to each row's version. With `returningKeys`
    /// (or when the store records history) the keys are read first with the same
    /// condition, in the same transaction, as Core Data reads the IDs it returns.
    func batchUpdate(_ entity: NSEntityDescription, predicate: NSPredicate?, includesSubentities: Bool, values: [(NSAttributeDescription, BatchUpdateValue)], returningKeys: Bool, in transaction: SQLiteSaveTransaction) throws -> BatchOutcome {
        let query = try batchQuery(entity, predicate: predicate, includesSubentities: includesSubentities).0
        let mapped = query.entity
        var assignments: [String] = []
        var parameters: [BatchParameter] = []
        var slots = Set<Int>()
        for (attribute, value) in values {
            guard let slot = mapped.attributes.first(where: { $0.attribute === attribute || $0.attribute.name == attribute.name }) else {
                throw coreDataError(NSPersistentStoreOperationError, userInfo: [
                    NSLocalizedDescriptionKey: "The store has no column for \(mapped.entity.name ?? "").\(attribute.name)."
                ])
            }
            let column = mapped.table.columns[slot.column].name
            slots.insert(slot.slot)
            switch value {
            case .constant(let stored):
                assignments.append("\(column) = ?")
                parameters.append(.value(stored, slot.storage, slot.attribute))
            case .expression(let expression):
                let translated = try updateExpressionSQL(expression, in: mapped)
                // Core Data writes a key path's column after "= " and a function after " = ".
                if case .keyPath = expression.node {
                    assignments.append("\(column) = \(translated.sql)")
                } else {
                    assignments.append("\(column)  = \(translated.sql)")
                }
                parameters += translated.binds.map(BatchParameter.bind)
            }
        }
        var sql = "UPDATE OR FAIL \(mapped.table.name) AS t0 SET " + assignments.joined(separator: ", ") + ", Z_OPT = (Z_OPT + 1) "
        if let condition = Self.batchCondition(query) {
            sql += "WHERE " + condition.sql + " "
            parameters += condition.binds.map(BatchParameter.bind)
        }
        var outcome = BatchOutcome()
        if returningKeys || historyTracking { outcome.keys = try fetchKeys(query) }
        outcome.count = try database.withStatement(sql) { statement in
            for (offset, parameter) in parameters.enumerated() {
                let index = Int32(offset + 1)
                switch parameter {
                case .value(let value, let storage, let attribute):
                    try RowCodec.bind(value, storage: storage, attribute: attribute, to: statement, at: index, external: externalStorage)
                case .bind(let bind):
                    bind.bind(to: statement, at: index)
                }
            }
            try statement.execute()
            return statement.changes
        }
        if historyTracking, let keys = outcome.keys {
            for key in keys { try transaction.recordUpdate(key, slots: slots) }
        }
        outcome.staleEntities = Set(mapped.subtree)
        return outcome
    }

    /// The WHERE condition of a batch statement on `query`'s table: the query's own when it
    /// needs no join, else `t0.Z_PK IN (SELECT t0.Z_PK FROM … JOIN … WHERE …)` (an UPDATE or
    /// DELETE has no joins of its own); `nil` for every row.
    static func batchCondition(_ query: SQLFetchQuery) -> SQLFragment? {
        guard let condition = query.condition else { return nil }
        guard !query.joins.isEmpty else { return condition }
        let select = "SELECT t0.Z_PK FROM \(query.entity.table.name) t0\(query.joins) WHERE \(condition.sql)"
        return SQLFragment(" t0.Z_PK IN (\(select))", condition.binds)
    }

    /// An update value computed by SQLite: a constant, an attribute of the row itself, or
    /// arithmetic on them (`lengthKm * 2`). Anything else stops the program with Core Data's
    /// exception for an expression it cannot write as SQL.
    private func updateExpressionSQL(_ expression: NSExpression, in mapped: StoreEntity) throws -> SQLFragment {
        func invalid() -> Never {
            raiseCoreDataException(.invalidArgument, "Invalid expression (\(expression)) in propertiesToUpdate")
        }
        switch expression.node {
        case .constant(let value):
            guard let value = unwrapAny(value), !(value is NSNull) else { return SQLFragment("NULL") }
            guard case .bound(let bind)? = try? PredicateSQLTranslator.bindValue(value, kind: .number) else {
                if let text = value as? String { return SQLFragment("?", [.text(text)]) }
                invalid()
            }
            return SQLFragment("?", [bind])
        case .keyPath(_, let components):
            guard components.count == 1, let slot = mapped.attributes.first(where: { $0.attribute.name == components[0] }) else { invalid() }
            return SQLFragment(mapped.table.columns[slot.column].name)
        case .function(let name, _, let arguments):
            let operators = ["add:to:": "+", "from:subtract:": "-", "multiply:by:": "*", "divide:by:": "/", "modulus:by:": "%"]
            guard let symbol = operators[name], arguments.count == 2 else { invalid() }
            let left = try updateExpressionSQL(arguments[0], in: mapped)
            let right = try updateExpressionSQL(arguments[1], in: mapped)
            return SQLFragment("(\(left.sql) \(symbol) \(right.sql))", left.binds + right.binds)
        default:
            invalid()
        }
    }

    // MARK: Batch delete

    /// Deletes the rows `fetch` matches (its predicate, sub-entities, and limit and offset
    /// in its sort order) and applies the delete rules: in SQL with
    /// ``batchDeleteInSQL(_:orderBy:returningKeys:in:)`` when it can, else row by row.
    func batchDelete(_ fetch: NSFetchRequest<NSFetchRequestResult>, entity: NSEntityDescription, returningKeys: Bool, in transaction: SQLiteSaveTransaction) throws -> BatchOutcome {
        var (query, translator) = try batchQuery(entity, predicate: fetch.predicate, includesSubentities: fetch.includesSubentities)
        query.limit = max(0, fetch.fetchLimit)
        query.offset = max(0, fetch.fetchOffset)
        var orderBy: String?
        if query.limit > 0 || query.offset > 0, let descriptors = fetch.sortDescriptors, !descriptors.isEmpty {
            do {
                orderBy = try translator.orderBy(descriptors)
            } catch let refusal as SQLUntranslatable {
                refusal.raiseIfCoreDataRefuses(otherwise: "unimplemented SQL generation for sort descriptors \(descriptors)")
            }
            query.joins = translator.rootJoins
        }
        if let outcome = try batchDeleteInSQL(query, orderBy: orderBy, returningKeys: returningKeys, in: transaction) { return outcome }
        var keyQuery = query
        keyQuery.orderBy = orderBy
        let keys = try fetchKeys(keyQuery)
        let result = try batchDelete(keys, in: transaction)
        let deleted = Set(result.deleted)
        let targets = keys.filter(deleted.contains)
        return BatchOutcome(count: targets.count, keys: targets, staleEntities: nil, staleKeys: result.deleted + Array(result.changed))
    }

    /// `DELETE FROM ZX WHERE Z_PK IN (SELECT t0.Z_PK FROM ZX t0 WHERE …)`, with the
    /// temporary triggers of ``BatchDeleteTriggers`` applying the delete rules, created
    /// before and dropped after it. `query`'s limit and offset (and order, with them)
    /// choose the rows as a fetch would. With `returningKeys` the keys are read first.
    ///
    /// Returns `nil`, doing nothing, when the store records history, when a cascade cycles
    /// back to a table being deleted, or when a table involved keeps binary data in
    /// external files: the caller then deletes row by row (``batchDelete(_:in:)``), which
    /// records every change and removes the files.
    private func batchDeleteInSQL(_ query: SQLFetchQuery, orderBy: String?, returningKeys: Bool, in transaction: SQLiteSaveTransaction) throws -> BatchOutcome? {
        let mapped = query.entity
        let triggers = try BatchDeleteTriggers(deleting: mapped, schema: schema)
        let tables = triggers.touchedTables
        let affected = schema.entities.filter { tables.contains($0.table.name) }
        if historyTracking || triggers.isCyclic || affected.contains(where: \.hasExternalData) { return nil }

        var select = "SELECT t0.Z_PK FROM \(mapped.table.name) t0" + query.joins
        if let condition = query.condition { select += " WHERE " + condition.sql }
        if query.limit > 0 || query.offset > 0 { select += " ORDER BY " + (orderBy ?? "t0.Z_PK") + query.limitClause }
        let sql = "DELETE FROM \(mapped.table.name) WHERE Z_PK IN (\(select))"

        var outcome = BatchOutcome()
        if returningKeys {
            var keyQuery = query
            keyQuery.orderBy = orderBy
            outcome.keys = try fetchKeys(keyQuery)
        }
        for create in triggers.creates { try database.execute(create) }
        do {
            outcome.count = try database.withStatement(sql) { statement in
                query.binds.bind(to: statement)
                try statement.execute()
                return statement.changes
            }
        } catch let error as NSError {
            throw Self.batchDeleteFailure(error)
        }
        for drop in triggers.drops { try database.execute(drop) }
        outcome.staleEntities = Set(affected.map(\.number))
        return outcome
    }

    /// A trigger's `RAISE(FAIL, 'Batch delete failed due to …')` as Core Data reports it;
    /// any other error unchanged.
    static func batchDeleteFailure(_ error: NSError) -> NSError {
        let description = error.localizedDescription
        guard let range = description.range(of: "Batch delete failed due to ") else { return error }
        return triggerViolation(String(description[range.upperBound...]))
    }
}
