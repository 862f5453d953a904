import Foundation

/// What a batch insert does with a row whose uniqueness-constraint values are already
/// stored, as Core Data's SQLite store decides it from the context's merge policy.
enum BatchInsertConflicts {
    /// The error policy: `INSERT OR IGNORE`; the stored row stays and the new one is dropped.
    case ignore
    /// Any other policy: `ON CONFLICT(…) DO UPDATE SET Z_OPT = Z_OPT+1 , ZA = excluded.ZA …`,
    /// writing the attributes named (`nil`: every attribute) over the stored row.
    case update(attributes: [String]?)
}

/// Batch inserts as Core Data's SQLite store runs them: one prepared INSERT per row in the
/// save's transaction; for an entity with uniqueness constraints, the INSERT carries the
/// conflict clause its `_NSSQLGenerator` writes (`prepareInsertStatementWithRow:
/// includeConstraints:includeOnConflict:onConflictKeys:`, decompiled in public
/// repositories; the statements as SQL debug prints them in fatbobman.com's "Batch
/// Operations in Core Data"), so SQLite finds the stored duplicates itself.
extension SQLiteStoreEngine {
    /// Inserts `rows` of `entity` (attribute values as stored Swift values, in the slots of
    /// its property table), drawing their primary keys from `Z_PRIMARYKEY`; each new row
    /// starts at `Z_OPT` 1. The outcome counts the rows written (inserted or updated) and,
    /// with `returningKeys` or when the store records history, lists their keys.
    func batchInsert(_ rows: [PropertyValues], of entity: NSEntityDescription, conflicts: BatchInsertConflicts, returningKeys: Bool, in transaction: SQLiteSaveTransaction) throws -> BatchOutcome {
        var outcome = BatchOutcome(count: 0, keys: returningKeys ? [] : nil)
        guard !rows.isEmpty else { return outcome }
        let number = entityNumber(for: entity)
        let primaryKeys = try transaction.allocatePrimaryKeys(for: entity, count: rows.count)
        let newRows = zip(rows, primaryKeys).lazy.map { values, primaryKey in
            StoreRow(key: StoreKey(entityNumber: number, primaryKey: primaryKey), entity: entity, version: 1, attributes: values, toOne: [:])
        }
        let constraints = entity.applicableUniquenessConstraints
        if constraints.isEmpty {
            for row in newRows { try transaction.insert(row) }
            outcome.count = rows.count
            if returningKeys { outcome.keys = primaryKeys.map { StoreKey(entityNumber: number, primaryKey: $0) } }
            return outcome
        }
        let mapped = try storeEntity(entity)
        let updatedSlots = self.updatedSlots(conflicts, of: entity)
        guard let sql = try conflictInsertSQL(mapped, constraints: constraints, conflicts: conflicts) else {
            return try batchInsertRowByRow(zip(rows, newRows), conflicts: conflicts, updatedSlots: updatedSlots, returningKeys: returningKeys, in: transaction)
        }
        let returnsKey = returningKeys || historyTracking
        let sqlText = returnsKey ? sql + " RETURNING Z_PK, Z_ENT" : sql
        // History names the attributes the SET list writes: the constraints' own are not.
        let table = entity.propertyTable
        let constrained = Set(constraints.flatMap(\.names).compactMap { table.slotByName[$0] })
        let writtenSlots = (updatedSlots ?? Set(table.persistentAttributes.compactMap { table.slotByName[$0.name] })).subtracting(constrained)
        var updatedAny = false
        for row in newRows {
            switch try transaction.insert(row, conflictSQL: sqlText, returnsKey: returnsKey, updatedSlots: writtenSlots) {
            case .inserted:
                outcome.count += 1
                outcome.keys?.append(row.key)
            case .updated(let key):
                outcome.count += 1
                updatedAny = true
                if let key {
                    outcome.keys?.append(key)
                    outcome.staleKeys.append(key)
                }
            case .ignored:
                break
            }
        }
        // Updated rows whose keys SQLite did not return: any cached row of the table (of
        // any entity sharing it) may be stale.
        if updatedAny && !returnsKey { outcome.staleEntities = Set(schema.entity(mapped.table.root)?.subtree ?? mapped.subtree) }
        return outcome
    }

    /// `INSERT OR IGNORE INTO ZX(…) VALUES(…)`, or `INSERT INTO ZX(…) VALUES(…) ON CONFLICT(ZA)
    /// DO UPDATE SET Z_OPT = Z_OPT+1 , ZB = excluded.ZB …` with one `ON CONFLICT` per
    /// constraint; `nil` when a constraint has no `UNIQUE` index in the table for SQLite to
    /// find conflicts with (a sub-entity's constraint, or a store created without one).
    func conflictInsertSQL(_ mapped: StoreEntity, constraints: [(declaring: NSEntityDescription, names: [String])], conflicts: BatchInsertConflicts) throws -> String? {
        let table = mapped.table
        var targets: [[String]] = []
        for (declaring, names) in constraints {
            let columns = names.compactMap { name in declaring.propertiesByName[name].flatMap { table.column(for: $0)?.name } }
            guard columns.count == names.count else { return nil }
            targets.append(columns)
        }
        let unique = try uniqueIndexColumns(of: table.name)
        guard targets.allSatisfy({ unique.contains(Set($0.map { $0.uppercased() })) }) else { return nil }
        let plan = plans.write(mapped, schema: schema)
        switch conflicts {
        case .ignore:
            return "INSERT OR IGNORE INTO" + plan.insertSQL.dropFirst("INSERT INTO".count)
        case .update(let names):
            let slots = updatedSlots(conflicts, of: mapped.entity) ?? []
            let written = plan.slots.filter { slot in
                switch slot.kind {
                case .attribute, .compositeElement: return names == nil || slots.contains(slot.slot)
                case .foreignKey, .foreignEntity: return false
                }
            }.map(\.column)
            var sql = plan.insertSQL
            for target in targets {
                sql += " ON CONFLICT(" + target.joined(separator: " , ") + ") DO UPDATE SET Z_OPT = Z_OPT+1"
                for column in written where !target.contains(column) { sql += " , \(column) = excluded.\(column)" }
            }
            return sql
        }
    }

    /// The property slots an upsert writes over a stored row; `nil` for every attribute.
    private func updatedSlots(_ conflicts: BatchInsertConflicts, of entity: NSEntityDescription) -> Set<Int>? {
        guard case .update(let names?) = conflicts else { return nil }
        let table = entity.propertyTable
        return Set(names.compactMap { table.slotByName[$0] })
    }

    /// The column sets of `table`'s unique indexes (its `UNIQUE` constraints among them),
    /// upper-cased; read from SQLite's catalogue without logging.
    private func uniqueIndexColumns(of table: String) throws -> Set<Set<String>> {
        let sql = "SELECT il.name, ii.name FROM pragma_index_list(?) AS il, pragma_index_info(il.name) AS ii WHERE il.\"unique\" = 1"
        var byIndex: [String: Set<String>] = [:]
        try database.withStatement(sql) { statement in
            statement.silence()
            statement.bind(table, at: 1)
            while try statement.step() { byIndex[statement.string(0), default: []].insert(statement.string(1).uppercased()) }
        }
        return Set(byIndex.values)
    }

    /// The batch insert for constraints SQLite cannot check (no `UNIQUE` index): each
    /// row's stored duplicate is looked up with a SELECT of its own, then kept (ignore)
    /// or written over (update).
    private func batchInsertRowByRow<Rows: Sequence>(_ rows: Rows, conflicts: BatchInsertConflicts, updatedSlots: Set<Int>?, returningKeys: Bool, in transaction: SQLiteSaveTransaction) throws -> BatchOutcome where Rows.Element == (PropertyValues, StoreRow) {
        var outcome = BatchOutcome(count: 0, keys: returningKeys ? [] : nil)
        for (values, row) in rows {
            guard let existing = try constrainedRow(matching: values, of: row.entity) else {
                try transaction.insert(row)
                outcome.count += 1
                outcome.keys?.append(row.key)
                continue
            }
            guard case .update = conflicts else { continue }
            try overwrite(existing, with: values, slots: updatedSlots, in: transaction)
            outcome.count += 1
            outcome.keys?.append(existing.key)
            outcome.staleKeys.append(existing.key)
        }
        return outcome
    }

    /// The stored row (key and version) that already holds the values `values` gives for
    /// one of `entity`'s uniqueness constraints, if any.
    func constrainedRow(matching values: PropertyValues, of entity: NSEntityDescription) throws -> StoreRow? {
        for (declaring, names) in entity.applicableUniquenessConstraints {
            let table = declaring.propertyTable
            var parts: [NSPredicate] = []
            for name in names {
                guard let value = values[name], let attribute = table.byName[name] as? NSAttributeDescription else { break }
                parts.append(NSPredicate(format: "%K == %@", name, AttributeValues.public(value, for: attribute)))
            }
            guard parts.count == names.count else { continue }
            let mapped = try storeEntity(declaring)
            let translator = try self.translator(for: declaring)
            var query = SQLFetchQuery(entity: mapped)
            query.joins = translator.rootJoins
            let condition = try translator.condition(NSCompoundPredicate(andPredicateWithSubpredicates: parts))
            query.condition = SQLFragment.compound([SQLFetchQuery.entityCondition(mapped, includesSubentities: true), condition].compactMap { $0 }, and: true)
            query.limit = 1
            if let row = try fetchRows(query, includesSubentities: true).first { return row }
        }
        return nil
    }

    /// Writes a batch insert's values over an existing row: the attributes in `slots`
    /// (`nil`: every attribute), no relationship, Z_OPT + 1.
    private func overwrite(_ existing: StoreRow, with values: PropertyValues, slots: Set<Int>?, in transaction: SQLiteSaveTransaction) throws {
        let table = existing.entity.propertyTable
        var written = SlotSet()
        for attribute in table.persistentAttributes {
            if let slot = table.slotByName[attribute.name], slots?.contains(slot) ?? true { written.insert(slot) }
        }
        let updated = StoreRow(key: existing.key, entity: existing.entity, version: existing.version + 1, attributes: values, toOne: [:])
        guard try transaction.update(updated, expectedVersion: existing.version, changedSlots: written) else {
            throw coreDataError(NSManagedObjectMergeError, userInfo: [NSLocalizedDescriptionKey: "The row \(existing.key) changed during the batch insert."])
        }
    }
}
