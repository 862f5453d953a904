import Foundation

/// The SQLite triggers that keep derived attributes up to date, and the statements that
/// compute them for rows already stored.
///
/// Core Data's SQLite store computes derived attributes in the database with triggers, so
/// a value changes when a save (or a batch update) writes what it depends on, whoever
/// writes it. As in Core Data's stores, the triggers are named `Z_DA_<TABLE>_<Entity>_<attribute>`
/// with a suffix, call `NSCoreDataCanonical`, `NSCoreDataToLower`, `NSCoreDataToUpper`
/// and `NSCoreDataNow()`, and report each value they write through
/// `NSCoreDataDATriggerUpdatedAffectedObjectValue('<TABLE>', Z_ENT, Z_PK, '<attribute>', <column>)`,
/// so the saving context can update its objects. The statements' exact text beyond these
/// names is this library's (see LinuxDifferences.md).
struct DerivedAttributeSQL {
    /// One derived attribute's column and how it is computed.
    struct Target {
        let entity: StoreEntity
        let attribute: NSDerivedAttributeDescription
        let column: String
        let derivation: Derivation
    }

    let targets: [Target]
    private let schema: StoreSchema

    /// The derived attributes of `schema`'s entities (each where it is declared).
    ///
    /// - Throws: ``Derivation/Unsupported`` naming the first attribute whose derivation the
    ///   store cannot compute.
    init(schema: StoreSchema) throws {
        self.schema = schema
        var targets: [Target] = []
        for mapped in schema.entities {
            for case let attribute as NSDerivedAttributeDescription in mapped.entity.declaredProperties.sorted(by: { $0.name < $1.name }) where !attribute.isTransient {
                guard let column = mapped.table.column(for: attribute) else { continue }
                let derivation = try Derivation(attribute, of: mapped.entity)
                try Self.checkStored(derivation, schema: schema, owner: "\(mapped.entity.name ?? "?").\(attribute.name)")
                targets.append(Target(entity: mapped, attribute: attribute, column: column.name, derivation: derivation))
            }
        }
        self.targets = targets
    }

    /// Whether some entity has a derived attribute.
    var isEmpty: Bool { targets.isEmpty }

    private static func checkStored(_ derivation: Derivation, schema: StoreSchema, owner: String) throws {
        func stored(_ property: NSPropertyDescription) -> Bool {
            guard let entity = property.entity, let mapped = schema.entity(entity) else { return false }
            return mapped.table.column(for: property) != nil
        }
        switch derivation {
        case .value(let attribute, let toOne, _):
            if let toOne, !stored(toOne) { throw Derivation.Unsupported(message: "The derivation of \(owner) crosses \(toOne.name), which is not stored in this store.") }
            if !stored(attribute) { throw Derivation.Unsupported(message: "The derivation of \(owner) reads \(attribute.name), which is not stored in this store.") }
        case .count(let toMany), .sum(let toMany, _), .extreme(let toMany, _, _):
            guard schema.toMany(toMany) != nil else { throw Derivation.Unsupported(message: "The derivation of \(owner) counts \(toMany.name), which is not stored in this store.") }
            if let attribute = derivation.memberAttribute, !stored(attribute) {
                throw Derivation.Unsupported(message: "The derivation of \(owner) reads \(attribute.name) of each member, which is not stored in this store.")
            }
        case .now: break
        }
    }

    // MARK: SQL

    /// Every `CREATE TRIGGER` statement.
    func createTriggers() -> [String] {
        targets.flatMap(triggers(for:))
    }

    /// Statements that compute every derived value of the rows already stored (after a
    /// migration). `now()` is filled in only where it has no value yet.
    func recomputeAll() -> [String] {
        targets.map { target in
            var conditions: [String] = []
            if case .now = target.derivation { conditions.append("\(target.column) IS NULL") }
            if let range = entityRange(target.entity, prefix: "") { conditions.append(range) }
            let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
            return "UPDATE \(target.entity.table.name) SET \(target.column) = \(valueSQL(target))\(whereClause)"
        }
    }

    /// `DROP TRIGGER` for each trigger this library creates, by the names found in the file.
    static func dropStatements(existing names: [String]) -> [String] {
        names.filter { $0.hasPrefix(triggerPrefix) }.map { "DROP TRIGGER IF EXISTS \($0)" }
    }

    static let triggerPrefix = "Z_DA_"

    /// `Z_ENT BETWEEN a AND b` when the table holds other entities' rows too.
    private func entityRange(_ entity: StoreEntity, prefix: String) -> String? {
        guard entity.table.hasSubentities else { return nil }
        return "\(entity.subtree.lowerBound) <= \(prefix)Z_ENT AND \(prefix)Z_ENT <= \(entity.subtree.upperBound)"
    }

    /// The value of `target` for the row of its table being updated (its columns
    /// unqualified in an `UPDATE … SET`).
    private func valueSQL(_ target: Target) -> String {
        let table = target.entity.table.name
        switch target.derivation {
        case .now:
            return "NSCoreDataNow()"
        case .value(let attribute, let toOne, let function):
            var value: String
            if let toOne, let columns = toOneColumns(toOne), let column = columnName(attribute) {
                value = "(SELECT d.\(column) FROM \(columns.table) d WHERE d.Z_PK = \(table).\(columns.key))"
            } else {
                value = "\(table).\(columnName(attribute) ?? "NULL")"
            }
            if let function { value = "\(function.sqlName)(\(value))" }
            return value
        case .count(let toMany):
            return aggregateSQL(toMany, outer: table, select: nil, attribute: nil)
        case .sum(let toMany, let attribute):
            return aggregateSQL(toMany, outer: table, select: "IFNULL(SUM(d.\(columnName(attribute) ?? "NULL")), 0)", attribute: attribute)
        case .extreme(let toMany, let attribute, let maximum):
            return aggregateSQL(toMany, outer: table, select: "\(maximum ? "MAX" : "MIN")(d.\(columnName(attribute) ?? "NULL"))", attribute: attribute)
        }
    }

    /// `select` nil counts, as Core Data's store does: `(SELECT IFNULL(COUNT(ZLIST), 0) FROM ZITEM WHERE ZLIST = ZLIST.Z_PK)`.
    private func aggregateSQL(_ toMany: NSRelationshipDescription, outer: String, select: String?, attribute: NSAttributeDescription?) -> String {
        switch schema.toMany(toMany) {
        case .foreignKey(let destination, let keyColumn, _)?, .hiddenKey(let destination, let keyColumn, _)?:
            let select = select ?? "IFNULL(COUNT(d.\(keyColumn)), 0)"
            return "(SELECT \(select) FROM \(destination.table.name) d WHERE d.\(keyColumn) = \(outer).Z_PK)"
        case .joinTable(let join, let ownColumn, let otherColumn, _, let destination)?:
            guard let select else { return "(SELECT IFNULL(COUNT(j.\(ownColumn)), 0) FROM \(join.name) j WHERE j.\(ownColumn) = \(outer).Z_PK)" }
            return "(SELECT \(select) FROM \(join.name) j JOIN \(destination.table.name) d ON d.Z_PK = j.\(otherColumn) WHERE j.\(ownColumn) = \(outer).Z_PK)"
        case nil:
            return "NULL"
        }
    }

    private func columnName(_ property: NSPropertyDescription) -> String? {
        guard let entity = property.entity, let mapped = schema.entity(entity) else { return nil }
        return mapped.table.column(for: property)?.name
    }

    /// The destination's table and the source's key column of a to-one.
    private func toOneColumns(_ toOne: NSRelationshipDescription) -> (table: String, key: String)? {
        guard let destination = toOne.destinationEntity, let mappedDestination = schema.entity(destination),
            let key = columnName(toOne) else { return nil }
        return (mappedDestination.table.name, key)
    }

    /// `UPDATE <table> SET <column> = <value> WHERE <rows>`, restricted to the entity's rows,
    /// then the report of each value written (`NSCoreDataDATriggerUpdatedAffectedObjectValue`).
    private func update(_ target: Target, rows: String, inserting: Bool = false) -> String {
        var conditions = [rows]
        if let range = entityRange(target.entity, prefix: "") { conditions.append(range) }
        let rowsSQL = conditions.joined(separator: " AND ")
        let table = target.entity.table.name
        let report = inserting ? "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue" : "NSCoreDataDATriggerUpdatedAffectedObjectValue"
        return "UPDATE \(table) SET \(target.column) = \(valueSQL(target)) WHERE \(rowsSQL);"
            + " SELECT \(report)('\(table)', Z_ENT, Z_PK, '\(target.attribute.name)', \(target.column)) FROM \(table) WHERE \(rowsSQL);"
    }

    /// `CREATE TRIGGER IF NOT EXISTS Z_DA_<TABLE>_<Entity>_<attribute>_<SUFFIX> AFTER … ON <TABLE>`,
    /// `<TABLE>` being the table the trigger watches.
    private func trigger(_ target: Target, _ suffix: String, event: String, on table: String, when: String? = nil, body: String) -> String {
        let name = "\(Self.triggerPrefix)\(table)_\(target.entity.entity.name ?? "")_\(target.attribute.name)_\(suffix)"
        let condition = when.map { " WHEN \($0)" } ?? ""
        return "CREATE TRIGGER IF NOT EXISTS \(name) AFTER \(event) ON \(table) FOR EACH ROW\(condition) BEGIN \(body) END"
    }

    /// The triggers of one derived attribute: its own row when inserted, and every write
    /// that can change what it is computed from.
    private func triggers(for target: Target) -> [String] {
        let table = target.entity.table.name
        let ownRange = entityRange(target.entity, prefix: "NEW.")
        var result = [trigger(target, "INSERT", event: "INSERT", on: table, when: ownRange, body: update(target, rows: "Z_PK = NEW.Z_PK", inserting: true))]
        switch target.derivation {
        case .now:
            // Every save that changes the row bumps its version (Z_OPT); triggers do not.
            result.append(trigger(target, "UPDATE", event: "UPDATE OF Z_OPT", on: table, when: ownRange, body: update(target, rows: "Z_PK = NEW.Z_PK")))
        case .value(let attribute, let toOne, _):
            if let toOne, let columns = toOneColumns(toOne), let column = columnName(attribute) {
                let (destinationTable, keyColumn) = (columns.table, columns.key)
                result.append(trigger(target, "UPDATE", event: "UPDATE OF \(keyColumn)", on: table, when: ownRange, body: update(target, rows: "Z_PK = NEW.Z_PK")))
                result.append(trigger(target, "SOURCE_UPDATE", event: "UPDATE OF \(column)", on: destinationTable, body: update(target, rows: "\(keyColumn) = NEW.Z_PK")))
            } else if let column = columnName(attribute) {
                result.append(trigger(target, "UPDATE", event: "UPDATE OF \(column)", on: table, when: ownRange, body: update(target, rows: "Z_PK = NEW.Z_PK")))
            }
        case .count(let toMany), .sum(let toMany, _), .extreme(let toMany, _, _):
            let sumColumn = target.derivation.memberAttribute.flatMap(columnName)
            switch schema.toMany(toMany) {
            case .foreignKey(let destination, let keyColumn, _)?, .hiddenKey(let destination, let keyColumn, _)?:
                let members = destination.table.name
                result.append(trigger(target, "MEMBER_INSERT", event: "INSERT", on: members, body: update(target, rows: "Z_PK = NEW.\(keyColumn)")))
                result.append(trigger(target, "MEMBER_DELETE", event: "DELETE", on: members, body: update(target, rows: "Z_PK = OLD.\(keyColumn)")))
                result.append(trigger(target, "MEMBER_UPDATE_SET", event: "UPDATE OF \(keyColumn)", on: members, body: update(target, rows: "Z_PK IN (OLD.\(keyColumn), NEW.\(keyColumn))")))
                if let sumColumn {
                    result.append(trigger(target, "MEMBER_UPDATE", event: "UPDATE OF \(sumColumn)", on: members, body: update(target, rows: "Z_PK = NEW.\(keyColumn)")))
                }
            case .joinTable(let join, let ownColumn, let otherColumn, _, let destination)?:
                result.append(trigger(target, "INSERT", event: "INSERT", on: join.name, body: update(target, rows: "Z_PK = NEW.\(ownColumn)")))
                result.append(trigger(target, "DELETE", event: "DELETE", on: join.name, body: update(target, rows: "Z_PK = OLD.\(ownColumn)")))
                if let sumColumn {
                    result.append(trigger(target, "MEMBER_UPDATE", event: "UPDATE OF \(sumColumn)", on: destination.table.name,
                                          body: update(target, rows: "Z_PK IN (SELECT \(ownColumn) FROM \(join.name) WHERE \(otherColumn) = NEW.Z_PK)")))
                }
            case nil: break
            }
        }
        return result
    }
}

extension Derivation {
    /// The attribute of each member an aggregate reads (`@sum`, `@min`, `@max`).
    var memberAttribute: NSAttributeDescription? {
        switch self {
        case .sum(_, let attribute), .extreme(_, let attribute, _): return attribute
        default: return nil
        }
    }
}
