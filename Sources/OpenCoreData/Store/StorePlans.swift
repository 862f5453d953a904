import Foundation

/// A SELECT over an entity table and where each table column lands in its result.
///
/// A class: a plan is handed out at every statement (each look-up by ID), and a reference
/// costs one retain where a struct of three strings and two collections cost five.
final class SelectPlan {
    /// `SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZNAME … FROM ZX t0`, without WHERE or ORDER BY.
    let selectSQL: String
    /// The SELECT of one row by primary key.
    let byKeySQL: String
    /// The SELECT of rows by a list of primary keys, by list length (``SelectPlan/batchSizes``).
    let byKeysSQL: [Int: String]
    /// Result column of each table column, -1 when not selected.
    let resultColumn: [Int32]
    /// Whether result column 0 holds Z_ENT (else every row is of `rootNumber`).
    let readsEntity: Bool
    let rootNumber: Int

    init(selectSQL: String, byKeySQL: String, byKeysSQL: [Int: String], resultColumn: [Int32], readsEntity: Bool, rootNumber: Int) {
        self.selectSQL = selectSQL
        self.byKeySQL = byKeySQL
        self.byKeysSQL = byKeysSQL
        self.resultColumn = resultColumn
        self.readsEntity = readsEntity
        self.rootNumber = rootNumber
    }

    /// IN-list lengths for fetching by keys: a few fixed sizes keep the statement cache
    /// small (a shorter list is padded by repeating a key).
    static let batchSizes = [8, 64, 512]
}

/// One bound value of an INSERT or UPDATE, in column order.
struct WriteSlot {
    enum Kind {
        case attribute(AttributeStorage)
        /// One element of a composite attribute: its value in the slot's dictionary.
        case compositeElement(AttributeStorage)
        /// A to-one's destination key.
        case foreignKey
        /// A to-one's destination entity number.
        case foreignEntity
    }

    let kind: Kind
    /// The attribute's or relationship's name: its key in the row's `toOne`.
    let name: String
    /// The property's slot in the entity's property table: where an attribute's value is
    /// in the row's ``PropertyValues``, and what a changed to-one is noted as.
    let slot: Int
    /// The attribute, for attribute slots.
    let attribute: NSAttributeDescription?
    /// The column written.
    let column: String

    /// Whether the column names a file of external binary data.
    var isExternal: Bool {
        if case .attribute(.externalBinary) = kind { return true }
        return false
    }
}

/// The INSERT and UPDATE of one entity.
struct WritePlan {
    /// The entity's table, `ZX`.
    let tableName: String
    /// `INSERT INTO ZX(Z_PK, Z_ENT, Z_OPT, …) VALUES(?, ?, ?, …)`.
    let insertSQL: String
    let slots: [WriteSlot]
    /// Names of the external-data columns, for reading the files a row refers to.
    let externalColumns: [String]
    /// `DELETE FROM ZX WHERE Z_PK = ?`.
    let deleteSQL: String
    /// `DELETE FROM ZX WHERE Z_PK = ? AND Z_OPT = ?`: Core Data's delete of a row whose
    /// version the object knows, which deletes nothing when the row moved on.
    let versionedDeleteSQL: String
    /// `DELETE FROM Z_5TAGS WHERE Z_5NOTES = ?` for each join-table column, and
    /// `UPDATE ZX SET Z5ITEMS = NULL WHERE Z5ITEMS = ?` for each hidden to-many key, that
    /// may hold a key of the entity.
    let unlinkSQL: [String]
}

extension WritePlan {
    /// `UPDATE ZX SET ZA = ?, …, Z_OPT = ? WHERE Z_PK = ? AND Z_OPT = ?`, setting the columns
    /// of `slots` (a subset of ``slots``, in its order) and the version.
    func updateSQL(setting slots: [WriteSlot]) -> String {
        let assignments = (slots.map { "\($0.column) = ?" } + ["Z_OPT = ?"]).joined(separator: ", ")
        return "UPDATE \(tableName) SET \(assignments) WHERE Z_PK = ? AND Z_OPT = ?"
    }
}

/// SQL text and column plans, built once per entity and kept for the store's life.
struct StorePlans {
    private var selects: [Int: SelectPlan] = [:]
    private var writes: [Int: WritePlan] = [:]

    /// The SELECT of `entity`'s columns (with its sub-entities' when `includesSubentities`).
    mutating func select(_ entity: StoreEntity, includesSubentities: Bool, schema: StoreSchema) -> SelectPlan {
        let key = includesSubentities ? -entity.number : entity.number
        if let plan = selects[key] { return plan }
        let table = entity.table
        let members = includesSubentities ? Array(entity.subtree) : [entity.number]
        var selected = Set<Int>()
        for number in members {
            guard let member = schema.entity(number: number) else { continue }
            for attribute in member.attributes { selected.insert(attribute.column) }
            for element in member.compositeElements { selected.insert(element.column) }
            for toOne in member.toOnes {
                selected.insert(toOne.column)
                if let entityColumn = toOne.entityColumn { selected.insert(entityColumn) }
            }
        }
        var resultColumn = [Int32](repeating: -1, count: table.columns.count)
        var parts = [table.hasSubentities ? "t0.Z_ENT" : "0", "t0.Z_PK", "t0.Z_OPT"]
        for index in table.columns.indices where selected.contains(index) {
            resultColumn[index] = Int32(parts.count)
            parts.append("t0." + table.columns[index].name)
        }
        let rootNumber = schema.entity(table.root)?.number ?? entity.number
        let select = "SELECT \(parts.joined(separator: ", ")) FROM \(table.name) t0"
        var byKeys: [Int: String] = [:]
        for size in SelectPlan.batchSizes {
            byKeys[size] = select + " WHERE t0.Z_PK IN (" + SQLPlaceholders.list(size) + ")"
        }
        let plan = SelectPlan(
            selectSQL: select, byKeySQL: select + " WHERE t0.Z_PK = ?", byKeysSQL: byKeys, resultColumn: resultColumn,
            readsEntity: table.hasSubentities, rootNumber: rootNumber)
        selects[key] = plan
        return plan
    }

    /// The INSERT and UPDATE of `entity`.
    mutating func write(_ entity: StoreEntity, schema: StoreSchema) -> WritePlan {
        if let plan = writes[entity.number] { return plan }
        let table = entity.table
        var byColumn: [Int: WriteSlot] = [:]
        // A derived attribute's column is the store's to compute (DerivedAttributeSQL).
        for attribute in entity.attributes where !(attribute.attribute is NSDerivedAttributeDescription) {
            byColumn[attribute.column] = WriteSlot(kind: .attribute(attribute.storage), name: attribute.attribute.name, slot: attribute.slot, attribute: attribute.attribute, column: table.columns[attribute.column].name)
        }
        for element in entity.compositeElements {
            // The name is the element's path in the dictionary (names cannot hold dots).
            byColumn[element.column] = WriteSlot(kind: .compositeElement(element.storage), name: element.path.joined(separator: "."), slot: element.slot, attribute: element.element, column: table.columns[element.column].name)
        }
        for toOne in entity.toOnes {
            let name = toOne.relationship.name
            let slot = entity.entity.propertyTable.slotByName[name]!
            byColumn[toOne.column] = WriteSlot(kind: .foreignKey, name: name, slot: slot, attribute: nil, column: table.columns[toOne.column].name)
            if let entityColumn = toOne.entityColumn {
                byColumn[entityColumn] = WriteSlot(kind: .foreignEntity, name: name, slot: slot, attribute: nil, column: table.columns[entityColumn].name)
            }
        }
        let columns = byColumn.keys.sorted()
        let names = columns.map { table.columns[$0].name }
        let insertColumns = (["Z_PK", "Z_ENT", "Z_OPT"] + names).joined(separator: ", ")
        let placeholders = SQLPlaceholders.list(names.count + 3)
        let plan = WritePlan(
            tableName: table.name,
            insertSQL: "INSERT INTO \(table.name)(\(insertColumns)) VALUES(\(placeholders))",
            slots: columns.map { byColumn[$0]! },
            externalColumns: entity.attributes.filter { $0.storage == .externalBinary }.map { table.columns[$0.column].name },
            deleteSQL: "DELETE FROM \(table.name) WHERE Z_PK = ?",
            versionedDeleteSQL: "DELETE FROM \(table.name) WHERE Z_PK = ? AND Z_OPT = ?",
            unlinkSQL: schema.joinTableColumns(referencing: entity).map { "DELETE FROM \($0.table.name) WHERE \($0.column) = ?" }
                + schema.toManyKeyColumns(referencing: entity).map { "UPDATE \($0.table.name) SET \($0.column) = NULL WHERE \($0.column) = ?" })
        writes[entity.number] = plan
        return plan
    }
}
