import Foundation

/// The `ALTER TABLE` work that migrates one table where it is, when that is possible:
/// every old entity of the table moves into it with the same entity number and no key
/// offset, and every column is carried unchanged, added, or dropped.
struct InPlaceTable {
    /// A value written into an added (or newly mandatory) attribute column.
    struct Fill {
        let column: String
        let value: Any
        let storage: AttributeStorage
        let attribute: NSAttributeDescription
        /// The entity numbers whose rows get the value.
        let entities: ClosedRange<Int>
        /// Only where the column is NULL (optional became mandatory).
        let onlyNull: Bool
    }

    let table: StoreTable
    private(set) var drops: [String] = []
    private(set) var renames: [(old: String, new: String)] = []
    private(set) var additions: [StoreColumn] = []
    private(set) var fills: [Fill] = []
    /// Key-related columns computed with SQL after the table is altered: column, expression.
    private(set) var relationshipFills: [(String, String)] = []
    /// New columns carried from an old column of the same name.
    private var identity: Set<String> = []

    init?(table: StoreTable, plan: SQLiteMigrationPlan, offsets: [Int: Int64]) {
        guard let oldTable = plan.oldSchema.tables.first(where: { $0.name == table.name }) else { return nil }
        self.table = table
        let moves = plan.moves.filter { $0.new.table === table }
        let oldEntities = plan.oldSchema.entities.filter { $0.table === oldTable }
        guard moves.allSatisfy({ $0.old.table === oldTable && $0.old.number == $0.new.number && (offsets[$0.old.number] ?? 0) == 0 }),
            oldEntities.allSatisfy({ old in moves.contains { $0.old === old } })
        else { return nil }
        // Old column name → the new column that takes it over.
        var claimed: [String: String] = [:]
        func claim(_ old: String, by new: String) -> Bool {
            guard claimed[old] == nil else { return false }
            claimed[old] = new
            if old != new { renames.append((old, new)) } else { identity.insert(new) }
            return true
        }
        func owners(of property: NSPropertyDescription) -> [SQLiteMigrationPlan.Move] {
            moves.filter { move in move.new.entity.properties.contains { $0 === property } }
        }
        func unique<T: Equatable>(_ values: [T]) -> T?? {
            guard let first = values.first else { return .some(nil) }
            return values.allSatisfy({ $0 == first }) ? .some(first) : nil
        }
        for column in table.columns {
            switch column.role {
            case .attribute(let attribute, let storage):
                // A composite's element belongs to the entity of its composite.
                let owner: NSPropertyDescription = attribute.storedOwner
                let sources = owners(of: owner).map { plan.attributeSource(of: attribute, in: $0) }
                guard sources.allSatisfy({ $0 != nil }) else { return nil }
                let oldColumns = sources.compactMap { source -> String? in
                    if case .column(let name, let oldStorage)? = source, oldStorage == storage { return name }
                    return nil
                }
                let subtree = plan.newSchema.entity(owner.entity)?.subtree ?? 0...0
                if !oldColumns.isEmpty {
                    guard oldColumns.count == sources.count, case .some(let name?) = unique(oldColumns), claim(name, by: column.name) else { return nil }
                    if !attribute.isOptional, let fallback = attribute.defaultValue {
                        fills.append(Fill(column: column.name, value: fallback, storage: storage, attribute: attribute, entities: subtree, onlyNull: true))
                    }
                } else {
                    additions.append(column)
                    let values = sources.compactMap { source -> Any? in
                        if case .value(let value)? = source { return value ?? NSNull() }
                        return nil
                    }
                    guard values.count == sources.count else { return nil }
                    if let value = values.first, !(value is NSNull) {
                        // Different constants for different entities would need one fill each.
                        guard values.allSatisfy({ "\($0)" == "\(value)" }) else { return nil }
                        fills.append(Fill(column: column.name, value: value, storage: storage, attribute: attribute, entities: subtree, onlyNull: false))
                    }
                }
            case .foreignKey(let relationship):
                guard let oldName = Self.oldColumn(of: relationship, owners: owners(of: relationship), plan: plan, in: oldTable, offsets: offsets) else { return nil }
                if oldName.isEmpty { additions.append(column) } else if !claim(oldName, by: column.name) { return nil }
            case .foreignEntity(let relationship):
                // Every entity owning the to-one must take it from the same old relationship.
                let sources = owners(of: relationship).map { plan.sourceRelationship(of: relationship, in: $0) }
                guard sources.allSatisfy({ $0 === sources.first ?? nil }) else { return nil }
                guard let oldRelationship = sources.first ?? nil, let keyColumn = table.column(for: relationship)?.name,
                    let destination = oldRelationship.destinationEntity.flatMap(plan.oldSchema.entity)
                else {
                    additions.append(column)
                    continue
                }
                let cases = Array(destination.subtree).compactMap { number in plan.moveByOldNumber[number].map { (number, $0.new.number) } }
                if let entityIndex = oldTable.entityColumnByRelationship[ObjectIdentifier(oldRelationship)] {
                    guard claim(oldTable.columns[entityIndex].name, by: column.name) else { return nil }
                    if !cases.allSatisfy({ $0.0 == $0.1 }) {
                        let whens = cases.map { "WHEN \($0.0) THEN \($0.1)" }.joined(separator: " ")
                        relationshipFills.append((column.name, "CASE \(column.name) \(whens) ELSE NULL END"))
                        identity.remove(column.name)
                    }
                } else {
                    guard let move = plan.moveByOldNumber[destination.number] else { return nil }
                    additions.append(column)
                    relationshipFills.append((column.name, "CASE WHEN \(keyColumn) IS NULL THEN NULL ELSE \(move.new.number) END"))
                }
            case .orderKey(let relationship):
                let old = owners(of: relationship).first.flatMap { plan.sourceRelationship(of: relationship, in: $0) }
                if let old, let oldName = plan.oldSchema.orderColumn(of: old, in: oldTable) {
                    guard claim(oldName, by: column.name) else { return nil }
                } else {
                    additions.append(column)
                    if old != nil { relationshipFills.append((column.name, "Z_PK")) }
                }
            case .toManyKey(let relationship), .toManyOrderKey(let relationship):
                var isKey = false
                if case .toManyKey = column.role { isKey = true }
                let ownerMove = relationship.entity.flatMap(plan.move(toNew:))
                let old = ownerMove.flatMap { plan.sourceRelationship(of: relationship, in: $0) }
                let index = old.flatMap { isKey ? oldTable.toManyKeyColumnByRelationship[ObjectIdentifier($0)] : oldTable.toManyOrderColumnByRelationship[ObjectIdentifier($0)] }
                if let index {
                    guard claim(oldTable.columns[index].name, by: column.name) else { return nil }
                } else {
                    additions.append(column)
                }
            }
        }
        drops = oldTable.columns.map(\.name).filter { claimed[$0] == nil }
        // A rename onto a name another kept column still has would need a detour: rebuild.
        let keptOldNames = Set(claimed.keys)
        guard renames.allSatisfy({ !keptOldNames.contains($0.new) }) else { return nil }
    }

    /// The old key column a to-one is carried from: `""` when it is new, `nil` when the
    /// keys cannot stay as they are (their rows move, or some point at removed entities).
    private static func oldColumn(of relationship: NSRelationshipDescription, owners: [SQLiteMigrationPlan.Move], plan: SQLiteMigrationPlan, in oldTable: StoreTable, offsets: [Int: Int64]) -> String? {
        let olds = owners.map { plan.sourceRelationship(of: relationship, in: $0) }
        guard let first = olds.first, let old = first else { return olds.allSatisfy({ $0 == nil }) ? "" : nil }
        guard olds.allSatisfy({ $0 === old }), let column = oldTable.column(for: old)?.name,
            let destination = old.destinationEntity.flatMap(plan.oldSchema.entity),
            destination.subtree.allSatisfy({ plan.moveByOldNumber[$0] != nil && (offsets[$0] ?? 0) == 0 })
        else { return nil }
        return column
    }

    /// Whether an index whose SQL is unchanged can stay: it covers only columns carried
    /// under their old names.
    func keepsIndex(_ sql: String) -> Bool {
        let names = Set(table.columns.map(\.name))
        let tokens = sql.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }).map(String.init)
        return tokens.filter(names.contains).allSatisfy(identity.contains)
    }
}
