import Foundation

/// The temporary triggers through which Core Data's SQLite store applies delete rules
/// during an ``NSBatchDeleteRequest``: one `AFTER DELETE` trigger per table whose rows the
/// batch deletes (the request's table and every table a cascade reaches), and one per join
/// table a many-to-many rule touches. The batch runs
///
/// ```
/// CREATE TEMPORARY TRIGGER IF NOT EXISTS ZQ_ZCOUNTRY_TRIGGER AFTER DELETE ON ZCOUNTRY FOR EACH ROW
///   BEGIN DELETE FROM ZTRAIL WHERE ZCOUNTRY = OLD.Z_PK;  END
/// DELETE FROM ZCOUNTRY WHERE Z_PK IN (SELECT t0.Z_PK FROM ZCOUNTRY t0 WHERE  t0.ZNAME = ?)
/// DROP TRIGGER IF EXISTS ZQ_ZCOUNTRY_TRIGGER
/// ```
///
/// The statement texts are Core Data's (`NSSQLiteAdapter`'s batch-delete trigger
/// generation, as its decompiled code shows them): cascade deletes the related rows;
/// nullify clears the other side's to-one (`UPDATE OR FAIL … SET ZX = NULL, Z_OPT =
/// (Z_OPT + 1) …`), raises a trigger violation when the other side is mandatory, bumps
/// the version of a to-many's owner, and removes join-table rows, whose own trigger bumps
/// (or, for cascade, deletes) the rows on the other side; no action does nothing; deny,
/// and a many-to-many whose rule is neither nullify nor cascade, fail the request.
/// Inside a trigger body, cascades come before other statements (Core Data sorts them
/// by kind; the exact order it picks is not confirmed).
struct BatchDeleteTriggers {
    /// `CREATE TEMPORARY TRIGGER …`, run before the `DELETE`.
    private(set) var creates: [String] = []
    /// `DROP TRIGGER IF EXISTS …`, run after it.
    private(set) var drops: [String] = []
    /// The tables whose rows the triggers delete or change (the deleted table included).
    private(set) var touchedTables: Set<String> = []
    /// Whether a cascade leads back to a table whose trigger is already running. SQLite
    /// does not fire a trigger from inside itself (recursive triggers are off), so such a
    /// graph (a tree whose children cascade) cannot be deleted by these triggers alone.
    private(set) var isCyclic = false

    private let schema: StoreSchema
    private var generated: Set<String> = []
    private var joinsGenerated: Set<String> = []
    /// Tables whose trigger generation is under way: a cascade into one of them is a cycle.
    private var running: [String] = []

    /// The triggers a batch delete of `entity`'s rows needs. Throws Core Data's error
    /// (`NSCoreDataError`, "Delete rule is not supported for batch deletes") for a rule the
    /// triggers cannot carry out.
    init(deleting entity: StoreEntity, schema: StoreSchema) throws {
        self.schema = schema
        try generate(entity.table)
    }

    // MARK: Entity tables

    private mutating func generate(_ table: StoreTable) throws {
        guard generated.insert(table.name).inserted else { return }
        touchedTables.insert(table.name)
        running.append(table.name)
        defer { running.removeLast() }
        var cascades: [String] = []
        var others: [String] = []
        for mapped in schema.entities where mapped.table === table {
            let declared = mapped.entity.propertyTable.relationships.filter { $0.entity === mapped.entity && !$0.isTransient }
            for relationship in declared.sorted(by: { $0.name < $1.name }) {
                switch relationship.deleteRule {
                case .noActionDeleteRule:
                    continue
                case .denyDeleteRule:
                    throw Self.unsupported(relationship)
                case .cascadeDeleteRule:
                    if let statement = try cascade(relationship, of: mapped) { cascades.append(statement) }
                case .nullifyDeleteRule:
                    others += try nullify(relationship, of: mapped)
                }
            }
        }
        let body = cascades + others
        guard !body.isEmpty else { return }
        let text = body.map { $0 + "; " }.joined()
        creates.append("CREATE TEMPORARY TRIGGER IF NOT EXISTS ZQ_\(table.name)_TRIGGER AFTER DELETE ON \(table.name) FOR EACH ROW BEGIN \(text) END")
        drops.append("DROP TRIGGER IF EXISTS ZQ_\(table.name)_TRIGGER")
    }

    /// The statement deleting what `relationship` of a deleted row leads to, after making
    /// sure the destination's table has its own trigger.
    private mutating func cascade(_ relationship: NSRelationshipDescription, of mapped: StoreEntity) throws -> String? {
        guard let destination = relationship.destinationEntity.flatMap(schema.entity) else { return nil }
        let statement: String
        if !relationship.isToMany {
            guard let column = toOneColumn(relationship, of: mapped) else { return nil }
            statement = "DELETE FROM \(destination.table.name) WHERE Z_PK = OLD.\(column)"
        } else {
            switch schema.toMany(relationship) {
            case .foreignKey(let rows, let keyColumn, _)?, .hiddenKey(let rows, let keyColumn, _)?:
                statement = "DELETE FROM \(rows.table.name) WHERE \(keyColumn) = OLD.Z_PK"
            case .joinTable(let join, let ownColumn, _, _, _)?:
                try generateJoin(join)
                statement = "DELETE FROM \(join.name) WHERE \(ownColumn) = OLD.Z_PK"
            case nil:
                return nil
            }
        }
        if running.contains(destination.table.name) { isCyclic = true }
        try generate(destination.table)
        return statement
    }

    /// The statements carrying out a nullify rule (none when the other side keeps nothing).
    private mutating func nullify(_ relationship: NSRelationshipDescription, of mapped: StoreEntity) throws -> [String] {
        guard let destination = relationship.destinationEntity.flatMap(schema.entity) else { return [] }
        let table = destination.table.name
        let inverse = relationship.inverseRelationship.flatMap { $0.isTransient ? nil : $0 }
        let mandatory = inverse.map { !$0.isOptional } ?? false
        let on = "\(mapped.entity.name ?? "")/\(relationship.name)"
        if !relationship.isToMany {
            guard let column = toOneColumn(relationship, of: mapped) else { return [] }
            if mandatory {
                return ["SELECT RAISE(FAIL, 'Batch delete failed due to mandatory OTO nullify inverse on \(on)') FROM \(table) WHERE Z_PK = OLD.\(column)"]
            }
            guard let inverse else { return [] }
            touchedTables.insert(table)
            if inverse.isToMany {
                return ["UPDATE OR FAIL \(table) SET Z_OPT = (Z_OPT + 1) WHERE Z_PK = OLD.\(column)"]
            }
            guard let owner = inverse.entity.flatMap(schema.entity), let (key, entityColumn) = toOneColumns(inverse, of: owner) else { return [] }
            let clears = ([key] + [entityColumn].compactMap { $0 }).map { "\($0) = NULL" }.joined(separator: ", ")
            return ["UPDATE OR FAIL \(table) SET \(clears), Z_OPT = (Z_OPT + 1) WHERE \(key) = OLD.Z_PK"]
        }
        switch schema.toMany(relationship) {
        case .foreignKey(_, let keyColumn, let orderColumn)?:
            if mandatory {
                // Core Data's own message spells it "manadatory" here.
                return ["SELECT RAISE(FAIL, 'Batch delete failed due to manadatory OTM nullify inverse on \(on)') FROM \(table) WHERE \(keyColumn) = OLD.Z_PK"]
            }
            touchedTables.insert(table)
            var clears = [keyColumn]
            if relationship.isOrdered, let orderColumn {
                clears.append(orderColumn)
            } else if let inverse, let owner = inverse.entity.flatMap(schema.entity), let entityColumn = toOneColumns(inverse, of: owner)?.entity {
                clears.append(entityColumn)
            }
            let assignments = clears.map { "\($0) = NULL" }.joined(separator: ", ")
            return ["UPDATE OR FAIL \(table) SET \(assignments), Z_OPT = (Z_OPT + 1) WHERE \(keyColumn) = OLD.Z_PK"]
        case .joinTable(let join, let ownColumn, let otherColumn, _, _)?:
            try generateJoin(join)
            let removal = "DELETE FROM \(join.name) WHERE \(ownColumn) = OLD.Z_PK"
            guard mandatory else { return [removal] }
            let check = "WITH ZCTE_INTERMEDIATE AS (SELECT \(ownColumn), \(otherColumn) FROM \(join.name) WHERE \(ownColumn) = OLD.Z_PK) "
                + "SELECT RAISE(FAIL, 'Batch delete failed due to mandatory MTM nullify inverse on \(on)') FROM ZCTE_INTERMEDIATE T0 "
                + "WHERE (0 == (SELECT COUNT(*) FROM \(join.name) T1 where T1.\(otherColumn) = T0.\(otherColumn) and T1.\(ownColumn) != OLD.Z_PK))"
            // Core Data's trigger runs only the check here; the join rows are removed too so
            // that no row is left pointing at a deleted object.
            return [check, removal]
        case .hiddenKey?, nil:
            // A to-many without inverse: nothing on the other side refers back.
            return []
        }
    }

    // MARK: Join tables

    /// The trigger on a join table: when a row goes, each side's rule applies to the row
    /// it names (for the side being deleted, that row is already gone and the statement
    /// does nothing).
    private mutating func generateJoin(_ join: StoreJoinTable) throws {
        guard joinsGenerated.insert(join.name).inserted else { return }
        touchedTables.insert(join.name)
        let canonical = join.canonical
        var parts = ""
        if let destination = canonical.destinationEntity.flatMap(schema.entity) {
            parts += try joinStatement(canonical, table: destination.table, column: join.destinationColumn)
        }
        if let inverse = canonical.inverseRelationship, let source = canonical.entity.flatMap(schema.entity) {
            parts += try joinStatement(inverse, table: source.table, column: join.sourceColumn)
        }
        creates.append("CREATE TEMPORARY TRIGGER IF NOT EXISTS ZQ_\(join.name)_TRIGGER AFTER DELETE ON \(join.name) FOR EACH ROW BEGIN \(parts) END")
        drops.append("DROP TRIGGER IF EXISTS ZQ_\(join.name)_TRIGGER")
    }

    private mutating func joinStatement(_ rule: NSRelationshipDescription, table: StoreTable, column: String) throws -> String {
        switch rule.deleteRule {
        case .nullifyDeleteRule:
            touchedTables.insert(table.name)
            return "UPDATE OR FAIL \(table.name) SET Z_OPT = (Z_OPT + 1) WHERE Z_PK = OLD.\(column) ; "
        case .cascadeDeleteRule:
            touchedTables.insert(table.name)
            return "DELETE FROM \(table.name) WHERE Z_PK = OLD.\(column) ; "
        case .noActionDeleteRule, .denyDeleteRule:
            throw Self.unsupported(rule)
        }
    }

    // MARK: Helpers

    private func toOneColumn(_ relationship: NSRelationshipDescription, of mapped: StoreEntity) -> String? {
        toOneColumns(relationship, of: mapped)?.key
    }

    /// The key column of a to-one (and its entity column, into a hierarchy), found on the
    /// entity that declares it or on one of its sub-entities' mappings.
    private func toOneColumns(_ relationship: NSRelationshipDescription, of mapped: StoreEntity) -> (key: String, entity: String?)? {
        let table = mapped.table
        guard let toOne = mapped.toOnes.first(where: { $0.relationship === relationship || $0.relationship.name == relationship.name }) else { return nil }
        return (table.columns[toOne.column].name, toOne.entityColumn.map { table.columns[$0].name })
    }

    /// Core Data's error for a delete rule a batch delete cannot carry out.
    static func unsupported(_ relationship: NSRelationshipDescription) -> NSError {
        coreDataError(NSCoreDataError, userInfo: [
            "Reason": "Delete rule is not supported for batch deletes",
            "Relationship": "\(relationship.entity?.name ?? "").\(relationship.name)",
        ])
    }
}
