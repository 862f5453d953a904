import Foundation

/// Migrates a SQLite store file in place, in one exclusive transaction: a failure at any
/// step rolls everything back, so the store stays as it was, written by the old model and
/// openable with it.
///
/// A table whose rows keep their entity numbers and whose columns are copied unchanged
/// is altered where it is (`ALTER TABLE … RENAME COLUMN`, `ADD COLUMN`, `DROP COLUMN`),
/// which costs the same for ten rows or a million. Any other table is rebuilt: the old
/// one is renamed aside, the new one created as a new store would have it, the rows
/// copied with `INSERT … SELECT`, the old one dropped. Then the indexes, `Z_PRIMARYKEY`
/// and the metadata are written for the new model, and mandatory values are checked
/// before `COMMIT`.
final class SQLiteStoreMigration {
    let url: URL
    let plan: SQLiteMigrationPlan
    let configurationName: String?
    private let database: SQLiteDatabase
    private let external: ExternalBinaryStorage
    /// Added to the `Z_PK`s of an old entity's rows, when rows of several old tables meet
    /// in one new table; by old entity number.
    private var keyOffsets: [Int: Int64] = [:]

    init(url: URL, plan: SQLiteMigrationPlan, configurationName: String?) throws {
        self.url = url
        self.plan = plan
        self.configurationName = configurationName
        self.database = try SQLiteDatabase(path: url.path, create: false)
        // The derived-attribute triggers call the library's string functions.
        if let handle = database.handle { SQLFunctions.register(on: handle) }
        self.external = ExternalBinaryStorage(storeURL: url)
    }

    deinit { database.close() }

    /// Runs the migration; throws Core Data's 134110 with the reason when it fails.
    func run() throws {
        defer { database.close() }
        try database.execute("BEGIN EXCLUSIVE")
        do {
            try migrate()
            try database.execute("COMMIT")
        } catch {
            database.rollbackQuietly()
            throw MigrationErrors.failed(source: url, destination: url, error)
        }
    }

    private func migrate() throws {
        guard let metadata = try StoreMetadata.read(database) else {
            throw MigrationErrors.reason("The store has no metadata")
        }
        // Another process (or coordinator) migrated it while this one waited for the lock.
        if plan.destination.isConfiguration(withName: configurationName, compatibleWithStoreMetadata: metadata) { return }
        guard plan.source.isConfiguration(withName: configurationName, compatibleWithStoreMetadata: metadata) else {
            throw MigrationErrors.reason("The store was not written with the migration's source model")
        }
        let primaryKeys = try readPrimaryKeyTable()
        // The new model's derived attributes get triggers of their own, made after the rows move.
        let derived: DerivedAttributeSQL
        do { derived = try DerivedAttributeSQL(schema: plan.newSchema) } catch let unsupported as Derivation.Unsupported {
            throw MigrationErrors.reason(unsupported.message)
        }
        for drop in DerivedAttributeSQL.dropStatements(existing: try triggerNames()) { try database.executeUncached(drop) }
        try computeKeyOffsets()
        let inPlace = plan.newSchema.tables.compactMap { table in InPlaceTable(table: table, plan: plan, offsets: keyOffsets) }
        let inPlaceNames = Set(inPlace.map(\.table.name))
        let newIndexes = SchemaSQL.createIndexes(plan.newSchema)
        let kept = try dropIndexes(keeping: newIndexes, inPlace: inPlace)

        let rebuiltOld = plan.oldSchema.tables.map(\.name).filter { !inPlaceNames.contains($0) } + plan.oldSchema.joinTables.map(\.name)
        for name in rebuiltOld { try database.executeUncached("ALTER TABLE \(name) RENAME TO Z_OLD_\(name)") }
        for table in inPlace { try alterInPlace(table) }
        for table in plan.newSchema.tables where !inPlaceNames.contains(table.name) {
            try database.executeUncached(SchemaSQL.createTable(table))
            try copyRows(into: table)
        }
        for join in plan.newSchema.joinTables {
            try database.executeUncached(SchemaSQL.createJoinTable(join))
            try copyJoinRows(into: join)
        }
        for name in rebuiltOld { try database.executeUncached("DROP TABLE Z_OLD_\(name)") }
        for sql in newIndexes where !kept.contains(sql) { try database.executeUncached(sql) }
        try renumberHistory()
        try writePrimaryKeyTable(old: primaryKeys)
        for trigger in derived.createTriggers() { try database.executeUncached(trigger) }
        for update in derived.recomputeAll() { try database.executeUncached(update) }
        // Core Data's cached copy of the model that wrote the store describes the old model.
        if try database.tableExists("Z_MODELCACHE") { try database.executeUncached("DELETE FROM Z_MODELCACHE") }
        try checkMandatoryValues()
        var updated = StoreMetadata.initial(model: plan.destination, configurationName: configurationName, uuid: metadata[NSStoreUUIDKey] as? String ?? UUID().uuidString)
        for (key, value) in metadata where updated[key] == nil && !StoreMetadata.modelKeys.contains(key) { updated[key] = value }
        try StoreMetadata.write(updated, to: database)
    }

    /// The names of the file's triggers.
    private func triggerNames() throws -> [String] {
        try database.withStatement("SELECT name FROM sqlite_master WHERE type = 'trigger'") { statement in
            var names: [String] = []
            while try statement.step() { names.append(statement.string(0)) }
            return names
        }
    }

    // MARK: Primary keys

    private func readPrimaryKeyTable() throws -> [Int: (name: String, max: Int64)] {
        try database.withStatement("SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY") { statement in
            var rows: [Int: (String, Int64)] = [:]
            while try statement.step() { rows[Int(statement.int64(0))] = (statement.string(1), statement.int64(2)) }
            return rows
        }
    }

    /// Persistent history names each changed object by entity number and `Z_PK`: moves
    /// it along with its row. Changes of entities the new model drops get entity 0, which
    /// names nothing, so that they are never taken for another entity's objects.
    private func renumberHistory() throws {
        guard try database.tableExists("ACHANGE") else { return }
        let entities = plan.moves.map { "WHEN \($0.old.number) THEN \($0.new.number)" }.joined(separator: " ")
        let keys = plan.moves.compactMap { move in
            keyOffsets[move.old.number].map { "WHEN \(move.old.number) THEN ZENTITYPK + \($0)" }
        }.joined(separator: " ")
        let newKey = keys.isEmpty ? "ZENTITYPK" : "CASE ZENTITY \(keys) ELSE ZENTITYPK END"
        let newEntity = entities.isEmpty ? "0" : "CASE ZENTITY \(entities) ELSE 0 END"
        // SQLite computes every new value from the row as it was.
        try database.executeUncached("UPDATE ACHANGE SET ZENTITYPK = \(newKey), ZENTITY = \(newEntity)")
    }

    /// Gives the rows of each extra old table landing in a new table keys above those of
    /// the tables before it, so that `Z_PK`s stay unique.
    private func computeKeyOffsets() throws {
        for table in plan.newSchema.tables {
            let oldTables = uniqueTables(plan.moves.filter { $0.new.table === table }.map(\.old.table))
            guard oldTables.count > 1 else { continue }
            var offset: Int64 = 0
            for oldTable in oldTables {
                for move in plan.moves where move.new.table === table && move.old.table === oldTable { keyOffsets[move.old.number] = offset }
                offset += try maxKey(of: oldTable)
            }
        }
    }

    private func maxKey(of table: StoreTable) throws -> Int64 {
        let rows = try database.withStatement("SELECT max(Z_PK) FROM \(table.name)") { statement in
            try statement.step() && !statement.isNull(0) ? statement.int64(0) : 0
        }
        let recorded = try database.withStatement("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?") { maxStatement in
            maxStatement.bindKey(Int64(plan.oldSchema.entity(table.root)?.number ?? 0), at: 1)
            return try maxStatement.step() ? maxStatement.int64(0) : 0
        }
        return Swift.max(rows, recorded)
    }

    private func uniqueTables(_ tables: [StoreTable]) -> [StoreTable] {
        var seen: Set<ObjectIdentifier> = []
        return tables.filter { seen.insert(ObjectIdentifier($0)).inserted }.sorted { $0.name < $1.name }
    }

    /// `Z_PRIMARYKEY` for the new model. A migrated entity keeps the `Z_NAME` the store
    /// had for it (as Core Data keeps an entity's old name after a rename); a root's
    /// `Z_MAX` never goes below a key already handed out.
    private func writePrimaryKeyTable(old: [Int: (name: String, max: Int64)]) throws {
        try database.executeUncached("DELETE FROM Z_PRIMARYKEY")
        for mapped in plan.newSchema.entities {
            let move = plan.move(toNew: mapped.entity)
            let previous = move.flatMap { old[$0.old.number] }
            var maximum = previous?.max ?? 0
            if mapped.superNumber == 0 {
                let stored = try database.withStatement("SELECT max(Z_PK) FROM \(mapped.table.name)") { statement in
                    try statement.step() && !statement.isNull(0) ? statement.int64(0) : 0
                }
                maximum = Swift.max(maximum, stored)
                for other in plan.moves where other.new.table === mapped.table && other.old.superNumber == 0 {
                    maximum = Swift.max(maximum, (old[other.old.number]?.max ?? 0) + (keyOffsets[other.old.number] ?? 0))
                }
            }
            try database.withStatement("INSERT INTO Z_PRIMARYKEY(Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES(?, ?, ?, ?)") { insert in
                insert.bindKey(Int64(mapped.number), at: 1)
                insert.bind(previous?.name ?? mapped.entity.name ?? "", at: 2)
                insert.bindKey(Int64(mapped.superNumber), at: 3)
                insert.bindKey(maximum, at: 4)
                try insert.execute()
            }
        }
    }

    // MARK: Indexes

    /// Drops every index except those the new schema declares identically on a table
    /// altered in place over columns it keeps; returns the kept ones' SQL.
    private func dropIndexes(keeping newIndexes: [String], inPlace: [InPlaceTable]) throws -> Set<String> {
        let existing = try database.withStatement("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL") { statement in
            var existing: [(name: String, table: String, sql: String)] = []
            while try statement.step() { existing.append((statement.string(0), statement.string(1), statement.string(2))) }
            return existing
        }
        let wanted = Set(newIndexes)
        // Only the indexes of the store's own entity and join tables: tables Core Data
        // keeps beside them (persistent history, CloudKit mirroring) keep theirs.
        let storeTables = Set(plan.oldSchema.tables.map(\.name) + plan.oldSchema.joinTables.map(\.name))
        var kept: Set<String> = []
        for index in existing where storeTables.contains(index.table) {
            if wanted.contains(index.sql), let table = inPlace.first(where: { $0.table.name == index.table }), table.keepsIndex(index.sql) {
                kept.insert(index.sql)
                continue
            }
            try database.executeUncached("DROP INDEX \(index.name)")
        }
        return kept
    }

    // MARK: Tables altered in place

    private func alterInPlace(_ work: InPlaceTable) throws {
        let name = work.table.name
        for column in work.drops { try database.executeUncached("ALTER TABLE \(name) DROP COLUMN \(column)") }
        for (old, new) in work.renames { try database.executeUncached("ALTER TABLE \(name) RENAME COLUMN \(old) TO \(new)") }
        for column in work.additions { try database.executeUncached("ALTER TABLE \(name) ADD COLUMN \(column.name) \(column.sqlType)") }
        for fill in work.fills {
            try database.withStatement("UPDATE \(name) SET \(fill.column) = \(fill.onlyNull ? "COALESCE(\(fill.column), ?)" : "?") WHERE Z_ENT >= ? AND Z_ENT <= ?") { statement in
                try RowCodec.bind(fill.value, storage: fill.storage, attribute: fill.attribute, to: statement, at: 1, external: external)
                statement.bindKey(Int64(fill.entities.lowerBound), at: 2)
                statement.bindKey(Int64(fill.entities.upperBound), at: 3)
                try statement.execute()
            }
        }
        for (column, sql) in work.relationshipFills {
            try database.executeUncached("UPDATE \(name) SET \(column) = \(sql)")
        }
    }

    // MARK: Tables rebuilt

    /// `INSERT INTO new (…) SELECT … FROM Z_OLD_old WHERE Z_ENT = ?`, once per entity moving
    /// into `table`.
    private func copyRows(into table: StoreTable) throws {
        for move in plan.moves where move.new.table === table {
            var values: [(Any?, AttributeStorage, NSAttributeDescription)] = []
            var expressions: [String] = []
            let own = Set(move.new.entity.properties.map(ObjectIdentifier.init))
            for column in table.columns {
                expressions.append(try expression(for: column, of: move, owns: own, values: &values))
            }
            let offset = keyOffsets[move.old.number] ?? 0
            let names = ["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map(\.name)
            let selected = ["Z_PK + \(offset)", "\(move.new.number)", "Z_OPT"] + expressions
            let sql = "INSERT INTO \(table.name) (\(names.joined(separator: ", "))) SELECT \(selected.joined(separator: ", ")) FROM Z_OLD_\(move.old.table.name) WHERE Z_ENT = \(move.old.number)"
            let statement = try SQLiteStatement(database: database, sql: sql)
            defer { statement.finalize() }
            for (index, value) in values.enumerated() {
                try RowCodec.bind(value.0, storage: value.1, attribute: value.2, to: statement, at: Int32(index + 1), external: external)
            }
            try statement.execute()
        }
    }

    private func expression(for column: StoreColumn, of move: SQLiteMigrationPlan.Move, owns own: Set<ObjectIdentifier>, values: inout [(Any?, AttributeStorage, NSAttributeDescription)]) throws -> String {
        switch column.role {
        case .attribute(let attribute, let storage):
            let owner: NSPropertyDescription = attribute.storedOwner
            guard own.contains(ObjectIdentifier(owner)), let source = plan.attributeSource(of: attribute, in: move) else { return "NULL" }
            switch source {
            case .value(let value):
                guard let value else { return "NULL" }
                values.append((value, storage, attribute))
                return "?"
            case .column(let name, let oldStorage):
                let carried = SQLiteMigrationPlan.converted(name, from: oldStorage, to: storage)
                guard !attribute.isOptional, let fallback = attribute.defaultValue else { return carried }
                values.append((fallback, storage, attribute))
                return "COALESCE(\(carried), ?)"
            }
        case .foreignKey(let relationship):
            guard own.contains(ObjectIdentifier(relationship)), let old = plan.sourceRelationship(of: relationship, in: move),
                let oldColumn = move.old.table.column(for: old)?.name
            else { return "NULL" }
            return remappedKey(oldColumn, relationship: old, table: move.old.table)
        case .foreignEntity(let relationship):
            guard own.contains(ObjectIdentifier(relationship)), let old = plan.sourceRelationship(of: relationship, in: move) else { return "NULL" }
            return destinationEntityNumber(of: old, table: move.old.table)
        case .orderKey(let relationship):
            guard own.contains(ObjectIdentifier(relationship)), let old = plan.sourceRelationship(of: relationship, in: move) else { return "NULL" }
            return plan.oldSchema.orderColumn(of: old, in: move.old.table) ?? "Z_PK"
        case .toManyKey(let relationship), .toManyOrderKey(let relationship):
            guard let owner = relationship.entity, let ownerMove = plan.move(toNew: owner),
                let old = plan.sourceRelationship(of: relationship, in: ownerMove)
            else { return "NULL" }
            let isKey: Bool
            if case .toManyKey = column.role { isKey = true } else { isKey = false }
            let index = isKey ? move.old.table.toManyKeyColumnByRelationship[ObjectIdentifier(old)] : move.old.table.toManyOrderColumnByRelationship[ObjectIdentifier(old)]
            return index.map { move.old.table.columns[$0].name } ?? "NULL"
        }
    }

    /// The old key column, with the key offset of the rows it points at.
    private func remappedKey(_ column: String, relationship old: NSRelationshipDescription, table: StoreTable) -> String {
        guard let destination = old.destinationEntity, let mapped = plan.oldSchema.entity(destination) else { return column }
        let numbers = Array(mapped.subtree)
        let offsets = numbers.map { keyOffsets[$0] ?? 0 }
        if offsets.allSatisfy({ $0 == 0 }) && numbers.allSatisfy({ plan.moveByOldNumber[$0] != nil }) { return column }
        if let entityIndex = table.entityColumnByRelationship[ObjectIdentifier(old)] {
            let entityColumn = table.columns[entityIndex].name
            let cases = numbers.filter { plan.moveByOldNumber[$0] != nil }.map { "WHEN \($0) THEN \(column) + \(keyOffsets[$0] ?? 0)" }
            return cases.isEmpty ? "NULL" : "CASE \(entityColumn) \(cases.joined(separator: " ")) ELSE NULL END"
        }
        guard plan.moveByOldNumber[mapped.number] != nil else { return "NULL" }
        return "\(column) + \(keyOffsets[mapped.number] ?? 0)"
    }

    /// The new entity number of the object a to-one points at.
    private func destinationEntityNumber(of old: NSRelationshipDescription, table: StoreTable) -> String {
        guard let destination = old.destinationEntity, let mapped = plan.oldSchema.entity(destination),
            let keyColumn = table.column(for: old)?.name
        else { return "NULL" }
        if let entityIndex = table.entityColumnByRelationship[ObjectIdentifier(old)] {
            let entityColumn = table.columns[entityIndex].name
            let cases = Array(mapped.subtree).compactMap { number in plan.moveByOldNumber[number].map { "WHEN \(number) THEN \($0.new.number)" } }
            return cases.isEmpty ? "NULL" : "CASE \(entityColumn) \(cases.joined(separator: " ")) ELSE NULL END"
        }
        guard let move = plan.moveByOldNumber[mapped.number] else { return "NULL" }
        return "CASE WHEN \(keyColumn) IS NULL THEN NULL ELSE \(move.new.number) END"
    }

    /// Copies a many-to-many's pairs from the old join table that held its source
    /// relationship, columns swapped when the old table was named after the other side.
    private func copyJoinRows(into join: StoreJoinTable) throws {
        let relationship = join.canonical
        guard let owner = relationship.entity, let move = plan.move(toNew: owner), let old = plan.sourceRelationship(of: relationship, in: move),
            case .joinTable(let oldJoin, let ownColumn, let otherColumn, let orderColumn, _)? = plan.oldSchema.toMany(old)
        else { return }
        let involved = [old.entity, old.destinationEntity].compactMap { $0 }.compactMap(plan.oldSchema.entity).flatMap { Array($0.subtree) }
        guard involved.allSatisfy({ (keyOffsets[$0] ?? 0) == 0 }) else {
            throw MigrationErrors.reason("Cannot migrate many-to-many relationship \(owner.name ?? "").\(relationship.name): its entities' rows move into a shared table")
        }
        let inverseOrder = oldJoin.canonical === old ? oldJoin.sourceOrderColumn : oldJoin.destinationOrderColumn
        var names = [join.sourceColumn, join.destinationColumn]
        var selected = [ownColumn, otherColumn]
        if let order = join.destinationOrderColumn { names.append(order); selected.append(orderColumn ?? "0") }
        if let order = join.sourceOrderColumn { names.append(order); selected.append(inverseOrder ?? "0") }
        try database.executeUncached("INSERT INTO \(join.name) (\(names.joined(separator: ", "))) SELECT \(selected.joined(separator: ", ")) FROM Z_OLD_\(oldJoin.name)")
    }

    // MARK: Checking

    /// Error 134110 naming the entity and attribute (or relationship) when a row of the
    /// new store lacks a mandatory value.
    private func checkMandatoryValues() throws {
        for mapped in plan.newSchema.entities {
            for property in mapped.entity.declaredProperties where !property.isOptional && !property.isTransient {
                guard let column = mapped.table.column(for: property) else { continue }
                let missing: Int64? = try database.withStatement("SELECT Z_ENT FROM \(mapped.table.name) WHERE Z_ENT >= ? AND Z_ENT <= ? AND \(column.name) IS NULL LIMIT 1") { statement in
                    statement.bindKey(Int64(mapped.subtree.lowerBound), at: 1)
                    statement.bindKey(Int64(mapped.subtree.upperBound), at: 2)
                    return try statement.step() ? statement.int64(0) : nil
                }
                guard let missing else { continue }
                let entityName = plan.newSchema.entity(number: Int(missing))?.entity.name ?? mapped.entity.name ?? ""
                let isAttribute = property is NSAttributeDescription
                throw MigrationErrors.validation(
                    entity: entityName, property: property.name, isAttribute: isAttribute,
                    reason: isAttribute ? "Validation error missing attribute values on mandatory destination attribute" : "Validation error missing relationship values on mandatory destination relationship")
            }
        }
    }
}

extension SQLiteMigrationPlan {
    /// SQL reading column `name` of `old` storage as `new` storage.
    static func converted(_ name: String, from old: AttributeStorage, to new: AttributeStorage) -> String {
        if old == new { return name }
        switch new {
        case .double, .float: return "CAST(\(name) AS REAL)"
        case .integer16, .integer32, .integer64, .boolean: return "CAST(\(name) AS INTEGER)"
        default: return name
        }
    }
}
