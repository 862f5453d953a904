import Foundation

/// How an attribute's value is kept in its column.
enum AttributeStorage {
    case integer16, integer32, integer64, boolean
    case decimal, double, float, date
    case string, uri
    case binary
    /// Binary data that may live in a file beside the store (a marker byte leads the column).
    case externalBinary
    case uuid, transformable

    /// Whether a stored value reads back without its attribute's description or the
    /// store's external files: every storage but external binary data and transformables.
    var readsPlain: Bool { self != .externalBinary && self != .transformable }

    /// The storage for `attribute`, or `nil` when the attribute has no column.
    init?(_ attribute: NSAttributeDescription) {
        switch attribute.attributeType {
        case .integer16AttributeType: self = .integer16
        case .integer32AttributeType: self = .integer32
        case .integer64AttributeType: self = .integer64
        case .booleanAttributeType: self = .boolean
        case .decimalAttributeType: self = .decimal
        case .doubleAttributeType: self = .double
        case .floatAttributeType: self = .float
        case .dateAttributeType: self = .date
        case .stringAttributeType: self = .string
        case .URIAttributeType: self = .uri
        case .binaryDataAttributeType: self = attribute.allowsExternalBinaryDataStorage ? .externalBinary : .binary
        case .UUIDAttributeType: self = .uuid
        case .transformableAttributeType: self = .transformable
        case .undefinedAttributeType, .objectIDAttributeType, .compositeAttributeType: return nil
        }
    }

    /// The column type Core Data declares.
    var sqlType: String {
        switch self {
        case .integer16, .integer32, .integer64, .boolean: "INTEGER"
        case .decimal: "DECIMAL"
        case .double, .float: "FLOAT"
        case .date: "TIMESTAMP"
        case .string, .uri: "VARCHAR"
        case .binary, .externalBinary, .uuid, .transformable: "BLOB"
        }
    }

    /// Where the column goes in `CREATE TABLE`: integers, then to-one keys, then other
    /// numbers and dates, then text, then blobs, each group by name (the order seen in
    /// stores Core Data wrote).
    var columnGroup: Int {
        switch self {
        case .integer16, .integer32, .integer64, .boolean: 0
        case .decimal, .double, .float, .date: 2
        case .string, .uri: 3
        case .binary, .externalBinary, .uuid, .transformable: 4
        }
    }
}

/// A column of an entity table, beyond `Z_PK`, `Z_ENT` and `Z_OPT`.
struct StoreColumn {
    enum Role {
        case attribute(NSAttributeDescription, AttributeStorage)
        /// The destination's primary key of a to-one relationship.
        case foreignKey(NSRelationshipDescription)
        /// The destination's Z_ENT, when the destination entity has sub-entities.
        case foreignEntity(NSRelationshipDescription)
        /// The position of this row in the ordered to-many inverse of the to-one.
        case orderKey(NSRelationshipDescription)
        /// The source's primary key of a to-many relationship that has no inverse (declared on
        /// another entity, `Z<n><REL>`): Core Data keeps such a relationship as a hidden key on
        /// the destination rows.
        case toManyKey(NSRelationshipDescription)
        /// The position of this row in that inverse-less to-many, when it is ordered.
        case toManyOrderKey(NSRelationshipDescription)
    }

    let name: String
    let role: Role

    var sqlType: String {
        if case .attribute(_, let storage) = role { return storage.sqlType }
        return "INTEGER"
    }

    fileprivate var sortGroup: Int {
        if case .attribute(_, let storage) = role { return storage.columnGroup }
        return 1
    }
}

/// The table of one inheritance tree: `Z<ROOT>`, holding the rows of every entity in it.
final class StoreTable {
    let name: String
    let root: NSEntityDescription
    /// Columns after `Z_PK, Z_ENT, Z_OPT`, in `CREATE TABLE` order.
    fileprivate(set) var columns: [StoreColumn] = []
    /// Column index by the property (or, for order keys, the to-one) it belongs to.
    fileprivate(set) var columnByProperty: [ObjectIdentifier: Int] = [:]
    fileprivate(set) var entityColumnByRelationship: [ObjectIdentifier: Int] = [:]
    fileprivate(set) var orderColumnByRelationship: [ObjectIdentifier: Int] = [:]
    /// Hidden key and order columns of inverse-less to-manys pointing into this tree.
    fileprivate(set) var toManyKeyColumnByRelationship: [ObjectIdentifier: Int] = [:]
    fileprivate(set) var toManyOrderColumnByRelationship: [ObjectIdentifier: Int] = [:]
    /// Whether any entity in the tree has a sub-entity, so rows are told apart by Z_ENT.
    var hasSubentities: Bool { !root.subentities.isEmpty }

    /// The column of an attribute or to-one relationship declared in this tree.
    func column(for property: NSPropertyDescription) -> StoreColumn? {
        columnByProperty[ObjectIdentifier(property)].map { columns[$0] }
    }

    init(root: NSEntityDescription) {
        self.root = root
        self.name = "Z" + (root.name ?? "").uppercased()
    }
}

/// Where an entity's values live in its table.
/// Its tables of columns are set while the schema is built and only read after (each
/// row decoded reads them), so they are not checked for overlapping access at run time.
final class StoreEntity {
    let entity: NSEntityDescription
    let number: Int
    /// The Z_ENT of the superentity, 0 for a root.
    let superNumber: Int
    let table: StoreTable
    /// The entity and its descendants: a contiguous range, because numbering is depth first.
    fileprivate(set) var subtree: ClosedRange<Int>
    /// Each stored attribute (inherited ones included) with its column index and its slot
    /// in a row's ``PropertyValues``.
    @exclusivity(unchecked) fileprivate(set) var attributes: [(column: Int, attribute: NSAttributeDescription, storage: AttributeStorage, slot: Int)] = []
    /// `attributes` in the order of their slots: the order a row is decoded in, so that
    /// each value is moved into a slot not yet written (``SlotWriter``).
    @exclusivity(unchecked) fileprivate(set) var attributesInSlotOrder: [(column: Int, attribute: NSAttributeDescription, storage: AttributeStorage, slot: Int)] = []
    /// Each to-one relationship with its key column, its entity column (when the
    /// destination has sub-entities) and the destination's own number.
    @exclusivity(unchecked) fileprivate(set) var toOnes: [(column: Int, entityColumn: Int?, relationship: NSRelationshipDescription, destinationNumber: Int)] = []
    /// Each element of a composite attribute (inherited ones included): its column, and the
    /// composite's slot, whose value is the dictionary of the elements' values.
    /// `path` leads from the composite's dictionary to the element's value.
    @exclusivity(unchecked) fileprivate(set) var compositeElements: [(column: Int, composite: NSCompositeAttributeDescription, element: NSAttributeDescription, path: [String], storage: AttributeStorage, slot: Int)] = []
    /// Whether some attribute may keep its data in a file.
    var hasExternalData: Bool { attributes.contains { $0.storage == .externalBinary } }

    fileprivate init(entity: NSEntityDescription, number: Int, superNumber: Int, table: StoreTable) {
        self.entity = entity
        self.number = number
        self.superNumber = superNumber
        self.table = table
        self.subtree = number...number
    }

    /// Column indexes this entity writes on insert and update: attributes and to-one keys,
    /// never order keys (those belong to the owning to-many).
    var writtenColumns: [Int] {
        var indexes = attributes.map(\.column)
        for toOne in toOnes {
            indexes.append(toOne.column)
            if let entityColumn = toOne.entityColumn { indexes.append(entityColumn) }
        }
        return indexes.sorted()
    }
}

/// A many-to-many (or inverse-less to-many) relationship's join table `Z_<n><REL>`.
final class StoreJoinTable {
    let name: String
    /// The relationship the table is named after.
    let canonical: NSRelationshipDescription
    /// Holds the primary keys of the canonical relationship's source objects.
    let sourceColumn: String
    /// Holds the primary keys of the canonical relationship's destination objects.
    let destinationColumn: String
    /// Order of destinations within a source, when the canonical relationship is ordered.
    let destinationOrderColumn: String?
    /// Order of sources within a destination, when the inverse is ordered.
    let sourceOrderColumn: String?

    init(name: String, canonical: NSRelationshipDescription, sourceColumn: String, destinationColumn: String, destinationOrderColumn: String?, sourceOrderColumn: String?) {
        self.name = name
        self.canonical = canonical
        self.sourceColumn = sourceColumn
        self.destinationColumn = destinationColumn
        self.destinationOrderColumn = destinationOrderColumn
        self.sourceOrderColumn = sourceOrderColumn
    }

    /// All columns in `CREATE TABLE` order.
    var columns: [String] { [sourceColumn, destinationColumn] + [destinationOrderColumn, sourceOrderColumn].compactMap { $0 } }
}

/// How a to-many relationship is stored, seen from its source.
enum StoreToMany {
    /// One-to-many: the destinations' table holds the inverse's key (and order) column.
    case foreignKey(destination: StoreEntity, keyColumn: String, orderColumn: String?)
    /// A to-many without inverse: the destinations' table holds a hidden key column
    /// (`Z<n><REL>`, and `Z_FOK_<n><REL>` when ordered), written by the to-many itself.
    case hiddenKey(destination: StoreEntity, keyColumn: String, orderColumn: String?)
    /// Many-to-many: rows of a join table, `ownColumn` holding the source's key.
    case joinTable(StoreJoinTable, ownColumn: String, otherColumn: String, orderColumn: String?, destination: StoreEntity)
}

/// Core Data's SQLite schema for a model: entity numbers, tables, columns, join tables.
///
/// Numbering (Z_ENT): root entities sorted by name, each followed depth first by its
/// descendants (sub-entities sorted by name), from 1. Each tree's subtree is therefore a
/// contiguous range, which is how Core Data fetches an entity with its sub-entities
/// (`t0.Z_ENT >= ? AND t0.Z_ENT <= ?`).
///
/// Naming, as in stores Core Data wrote (Photos, Notes apps, Apple's docsets):
/// - a tree's table `Z<ROOT>`; columns `Z<NAME>`, a later colliding name suffixed 1, 2, …;
/// - a to-one: `Z<REL>`, plus `Z<n>_<REL>` (n: the destination's number) when the
///   destination has sub-entities, plus `Z_FOK_<REL>` when its inverse is ordered;
/// - a to-many without inverse: a hidden key `Z<n><REL>` (n: the source's number) on the
///   destination rows;
/// - many-to-many: `Z_<n><REL>` named after the side whose entity number is smaller (for
///   two relationships of one entity, the larger name); each column named by an entity's
///   number and the relationship leading to its rows (`Z_5NOTES`, `Z_13TAGS`); a
///   relationship that is its own inverse has `REFLEXIVE`; ordered sides add `Z_FOK_…`.
final class StoreSchema {
    /// Entities in Z_ENT order.
    let entities: [StoreEntity]
    let tables: [StoreTable]
    let joinTables: [StoreJoinTable]
    private let byEntity: [ObjectIdentifier: StoreEntity]
    private let toManyByRelationship: [ObjectIdentifier: StoreToMany]

    /// The schema of the configuration's entities (with their whole inheritance trees).
    init(model: NSManagedObjectModel, configurationName: String?) {
        let members = model.entities(forConfigurationName: configurationName) ?? model.entities
        var rootsByID: [ObjectIdentifier: NSEntityDescription] = [:]
        for entity in members { rootsByID[ObjectIdentifier(entity.rootEntity)] = entity.rootEntity }
        let roots = rootsByID.values.sorted { ($0.name ?? "") < ($1.name ?? "") }

        var ordered: [StoreEntity] = []
        var byEntity: [ObjectIdentifier: StoreEntity] = [:]
        var tables: [StoreTable] = []
        for root in roots {
            let table = StoreTable(root: root)
            tables.append(table)
            func number(_ entity: NSEntityDescription, superNumber: Int) -> StoreEntity {
                let mapped = StoreEntity(entity: entity, number: ordered.count + 1, superNumber: superNumber, table: table)
                ordered.append(mapped)
                byEntity[ObjectIdentifier(entity)] = mapped
                var last = mapped.number
                for child in entity.subentities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
                    last = number(child, superNumber: mapped.number).subtree.upperBound
                }
                mapped.subtree = mapped.number...last
                return mapped
            }
            _ = number(root, superNumber: 0)
        }
        self.entities = ordered
        self.tables = tables
        self.byEntity = byEntity

        for table in tables {
            StoreSchema.layOutColumns(of: table, entities: ordered.filter { $0.table === table }, all: ordered, byEntity: byEntity)
        }
        let (joinTables, toMany) = StoreSchema.mapToManyRelationships(ordered, byEntity: byEntity)
        self.joinTables = joinTables
        self.toManyByRelationship = toMany
    }

    /// The mapping of `entity`, if the store holds it.
    func entity(_ entity: NSEntityDescription) -> StoreEntity? { byEntity[ObjectIdentifier(entity)] }

    /// The mapping of entity number `number`.
    func entity(number: Int) -> StoreEntity? {
        number >= 1 && number <= entities.count ? entities[number - 1] : nil
    }

    /// Every hidden key column (inverse-less to-many) that may hold a key of `entity`, with
    /// its table: cleared when such a source row is deleted.
    func toManyKeyColumns(referencing entity: StoreEntity) -> [(table: StoreTable, column: String)] {
        var result: [(StoreTable, String)] = []
        for table in tables {
            for column in table.columns {
                guard case .toManyKey(let relationship) = column.role, let source = relationship.entity,
                    self.entity(source).map({ $0.subtree.contains(entity.number) }) == true
                else { continue }
                result.append((table, column.name))
            }
        }
        return result
    }

    /// How the to-many `relationship` is stored.
    func toMany(_ relationship: NSRelationshipDescription) -> StoreToMany? {
        toManyByRelationship[ObjectIdentifier(relationship)]
    }

    /// Every relationship stored in a join table, with the column holding its source's keys.
    func joinTableColumns(referencing entity: StoreEntity) -> [(table: StoreJoinTable, column: String)] {
        var result: [(StoreJoinTable, String)] = []
        for join in joinTables {
            let canonical = join.canonical
            if let source = canonical.entity, self.entity(source).map({ $0.subtree.contains(entity.number) }) == true {
                result.append((join, join.sourceColumn))
            }
            if let destination = canonical.destinationEntity, self.entity(destination).map({ $0.subtree.contains(entity.number) }) == true,
                join.destinationColumn != join.sourceColumn
            {
                result.append((join, join.destinationColumn))
            }
        }
        return result
    }

    // MARK: Laying out columns

    /// Names every column of a tree's table (colliding names get 1, 2, … in Z_ENT order)
    /// and records each entity's attribute and to-one columns.
    private static func layOutColumns(of table: StoreTable, entities: [StoreEntity], all: [StoreEntity], byEntity: [ObjectIdentifier: StoreEntity]) {
        var used: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]
        func unique(_ base: String) -> String {
            if used.insert(base).inserted { return base }
            var suffix = 1
            while !used.insert(base + String(suffix)).inserted { suffix += 1 }
            return base + String(suffix)
        }
        var columns: [StoreColumn] = []
        var byProperty: [ObjectIdentifier: Int] = [:]
        var entityColumns: [ObjectIdentifier: Int] = [:]
        var orderColumns: [ObjectIdentifier: Int] = [:]
        for mapped in entities {
            for property in mapped.entity.declaredProperties.sorted(by: { $0.name < $1.name }) where !property.isTransient {
                if let composite = property as? NSCompositeAttributeDescription {
                    // One column per element, `Z<COMPOSITE>_<ELEMENT>` (`Z<A>_<B>_<C>` inside a
                    // nested composite; Core Data's naming of flattened elements is not confirmed).
                    for (path, element) in composite.leafElements {
                        guard let storage = AttributeStorage(element) else { continue }
                        byProperty[ObjectIdentifier(element)] = columns.count
                        columns.append(StoreColumn(name: unique("Z" + ([composite.name] + path).joined(separator: "_").uppercased()), role: .attribute(element, storage)))
                    }
                } else if let attribute = property as? NSAttributeDescription, let storage = AttributeStorage(attribute) {
                    byProperty[ObjectIdentifier(attribute)] = columns.count
                    columns.append(StoreColumn(name: unique("Z" + attribute.name.uppercased()), role: .attribute(attribute, storage)))
                } else if let relationship = property as? NSRelationshipDescription, !relationship.isToMany,
                    let destination = relationship.destinationEntity, byEntity[ObjectIdentifier(destination)] != nil
                {
                    let key = unique("Z" + relationship.name.uppercased())
                    let stem = String(key.dropFirst())
                    byProperty[ObjectIdentifier(relationship)] = columns.count
                    columns.append(StoreColumn(name: key, role: .foreignKey(relationship)))
                    if !destination.subentities.isEmpty, let destinationNumber = byEntity[ObjectIdentifier(destination)]?.number {
                        // Named by the destination's number (ZACCOUNT1 goes with Z9_ACCOUNT1, 9 being Account).
                        entityColumns[ObjectIdentifier(relationship)] = columns.count
                        columns.append(StoreColumn(name: unique("Z\(destinationNumber)_" + stem), role: .foreignEntity(relationship)))
                    }
                    if let inverse = relationship.inverseRelationship, inverse.isToMany, inverse.isOrdered, !inverse.isTransient {
                        orderColumns[ObjectIdentifier(relationship)] = columns.count
                        columns.append(StoreColumn(name: unique("Z_FOK_" + stem), role: .orderKey(relationship)))
                    }
                }
            }
        }
        // Inverse-less to-manys of any entity whose destination lives in this tree.
        var toManyKeys: [ObjectIdentifier: Int] = [:]
        var toManyOrders: [ObjectIdentifier: Int] = [:]
        for source in all {
            for case let relationship as NSRelationshipDescription in source.entity.declaredProperties.sorted(by: { $0.name < $1.name })
            where isStoredAsHiddenKey(relationship) {
                guard let destination = relationship.destinationEntity, byEntity[ObjectIdentifier(destination)]?.table === table else { continue }
                let key = unique("Z\(source.number)" + relationship.name.uppercased())
                toManyKeys[ObjectIdentifier(relationship)] = columns.count
                columns.append(StoreColumn(name: key, role: .toManyKey(relationship)))
                if relationship.isOrdered {
                    toManyOrders[ObjectIdentifier(relationship)] = columns.count
                    columns.append(StoreColumn(name: unique("Z_FOK_" + key.dropFirst()), role: .toManyOrderKey(relationship)))
                }
            }
        }
        // CREATE TABLE order: by group then name, a key's entity and order columns after it.
        func sortKey(_ column: StoreColumn) -> (Int, String, Int) {
            switch column.role {
            case .attribute: return (column.sortGroup, column.name, 0)
            case .foreignKey(let r): return (1, columns[byProperty[ObjectIdentifier(r)]!].name, 0)
            case .foreignEntity(let r): return (1, columns[byProperty[ObjectIdentifier(r)]!].name, 1)
            case .orderKey(let r): return (1, columns[byProperty[ObjectIdentifier(r)]!].name, 2)
            case .toManyKey: return (1, column.name, 0)
            case .toManyOrderKey(let r): return (1, columns[toManyKeys[ObjectIdentifier(r)]!].name, 2)
            }
        }
        let order = columns.indices.sorted { sortKey(columns[$0]) < sortKey(columns[$1]) }
        var newIndex: [Int] = Array(repeating: 0, count: columns.count)
        for (position, old) in order.enumerated() { newIndex[old] = position }
        table.columns = order.map { columns[$0] }
        table.columnByProperty = byProperty.mapValues { newIndex[$0] }
        table.entityColumnByRelationship = entityColumns.mapValues { newIndex[$0] }
        table.orderColumnByRelationship = orderColumns.mapValues { newIndex[$0] }
        table.toManyKeyColumnByRelationship = toManyKeys.mapValues { newIndex[$0] }
        table.toManyOrderColumnByRelationship = toManyOrders.mapValues { newIndex[$0] }

        for mapped in entities {
            let slots = mapped.entity.propertyTable.slotByName
            for property in mapped.entity.properties where !property.isTransient {
                if let composite = property as? NSCompositeAttributeDescription, let slot = slots[composite.name] {
                    for (path, element) in composite.leafElements {
                        guard let column = table.columnByProperty[ObjectIdentifier(element)], case .attribute(_, let storage) = table.columns[column].role else { continue }
                        mapped.compositeElements.append((column, composite, element, path, storage, slot))
                    }
                    continue
                }
                guard let column = table.columnByProperty[ObjectIdentifier(property)] else { continue }
                if let attribute = property as? NSAttributeDescription, let storage = AttributeStorage(attribute) {
                    mapped.attributes.append((column, attribute, storage, slots[attribute.name]!))
                } else if let relationship = property as? NSRelationshipDescription, let destination = relationship.destinationEntity,
                    let destinationNumber = byEntity[ObjectIdentifier(destination)]?.number
                {
                    mapped.toOnes.append((column, table.entityColumnByRelationship[ObjectIdentifier(relationship)], relationship, destinationNumber))
                }
            }
            mapped.attributes.sort { $0.column < $1.column }
            mapped.attributesInSlotOrder = mapped.attributes.sorted { $0.slot < $1.slot }
            mapped.compositeElements.sort { $0.column < $1.column }
            mapped.toOnes.sort { $0.column < $1.column }
        }
    }

    /// The order-key column (`Z_FOK_…`) of a to-one whose inverse is an ordered to-many.
    func orderColumn(of toOne: NSRelationshipDescription, in table: StoreTable) -> String? {
        table.orderColumnByRelationship[ObjectIdentifier(toOne)].map { table.columns[$0].name }
    }

    // MARK: To-many relationships

    private static func mapToManyRelationships(_ entities: [StoreEntity], byEntity: [ObjectIdentifier: StoreEntity]) -> ([StoreJoinTable], [ObjectIdentifier: StoreToMany]) {
        var joinTables: [StoreJoinTable] = []
        var joinByCanonical: [ObjectIdentifier: StoreJoinTable] = [:]
        var result: [ObjectIdentifier: StoreToMany] = [:]
        for mapped in entities {
            for case let relationship as NSRelationshipDescription in mapped.entity.declaredProperties
            where relationship.isToMany && !relationship.isTransient {
                guard let destinationEntity = relationship.destinationEntity, let destination = byEntity[ObjectIdentifier(destinationEntity)] else { continue }
                let inverse = relationship.inverseRelationship
                if isStoredAsHiddenKey(relationship) {
                    // No inverse: a hidden key on the destination rows (`Z<n><REL>`).
                    let table = destination.table
                    guard let keyIndex = table.toManyKeyColumnByRelationship[ObjectIdentifier(relationship)] else { continue }
                    let order = table.toManyOrderColumnByRelationship[ObjectIdentifier(relationship)].map { table.columns[$0].name }
                    result[ObjectIdentifier(relationship)] = .hiddenKey(destination: destination, keyColumn: table.columns[keyIndex].name, orderColumn: order)
                    continue
                }
                if let inverse, !inverse.isToMany, !inverse.isTransient {
                    // One-to-many: the destination rows carry the inverse's key.
                    let table = destination.table
                    guard let keyIndex = table.columnByProperty[ObjectIdentifier(inverse)] else { continue }
                    let order = table.orderColumnByRelationship[ObjectIdentifier(inverse)].map { table.columns[$0].name }
                    result[ObjectIdentifier(relationship)] = .foreignKey(destination: destination, keyColumn: table.columns[keyIndex].name, orderColumn: order)
                    continue
                }
                let canonical = canonicalRelationship(relationship, byEntity: byEntity)
                let join: StoreJoinTable
                if let existing = joinByCanonical[ObjectIdentifier(canonical)] {
                    join = existing
                } else {
                    join = makeJoinTable(canonical, byEntity: byEntity)
                    joinByCanonical[ObjectIdentifier(canonical)] = join
                    joinTables.append(join)
                }
                if relationship === canonical {
                    result[ObjectIdentifier(relationship)] = .joinTable(join, ownColumn: join.sourceColumn, otherColumn: join.destinationColumn, orderColumn: join.destinationOrderColumn, destination: destination)
                } else {
                    result[ObjectIdentifier(relationship)] = .joinTable(join, ownColumn: join.destinationColumn, otherColumn: join.sourceColumn, orderColumn: join.sourceOrderColumn, destination: destination)
                }
            }
        }
        return (joinTables, result)
    }

    /// Whether a to-many relationship has no (stored) inverse, so that Core Data keeps it as
    /// a hidden key column on the destination rows.
    fileprivate static func isStoredAsHiddenKey(_ relationship: NSRelationshipDescription) -> Bool {
        guard relationship.isToMany, !relationship.isTransient else { return false }
        guard let inverse = relationship.inverseRelationship else { return true }
        return inverse.isTransient
    }

    /// The side of a many-to-many pair that names its join table: the one whose entity has
    /// the smaller Z_ENT; for two relationships of one entity, the larger name (as in
    /// Apple's stores: `Z_8RELATEDNODESINVERSE` for `relatedNodes`/`relatedNodesInverse`).
    private static func canonicalRelationship(_ relationship: NSRelationshipDescription, byEntity: [ObjectIdentifier: StoreEntity]) -> NSRelationshipDescription {
        guard let inverse = relationship.inverseRelationship, inverse.isToMany, inverse !== relationship,
            let own = relationship.entity.flatMap({ byEntity[ObjectIdentifier($0)] }),
            let other = inverse.entity.flatMap({ byEntity[ObjectIdentifier($0)] })
        else { return relationship }
        if own.number != other.number { return own.number < other.number ? relationship : inverse }
        return relationship.name >= inverse.name ? relationship : inverse
    }

    private static func makeJoinTable(_ canonical: NSRelationshipDescription, byEntity: [ObjectIdentifier: StoreEntity]) -> StoreJoinTable {
        let sourceNumber = canonical.entity.flatMap { byEntity[ObjectIdentifier($0)]?.number } ?? 0
        let destinationNumber = canonical.destinationEntity.flatMap { byEntity[ObjectIdentifier($0)]?.number } ?? 0
        let name = canonical.name.uppercased()
        let inverse = canonical.inverseRelationship
        let reflexive = inverse === canonical
        // The column holding an entity's keys is named by its number and the relationship
        // leading to it; for a relationship that is its own inverse, the second is REFLEXIVE.
        let sourceColumn = "Z_\(sourceNumber)" + (reflexive ? name : (inverse?.name.uppercased() ?? name))
        let destinationColumn = reflexive ? "REFLEXIVE" : "Z_\(destinationNumber)" + name
        func orderColumn(for column: String) -> String {
            column.hasPrefix("Z_") ? "Z_FOK_" + column.dropFirst(2) : "FOK_" + column
        }
        let destinationOrder = canonical.isOrdered ? orderColumn(for: destinationColumn) : nil
        let sourceOrder = (inverse?.isOrdered == true && !reflexive) ? orderColumn(for: sourceColumn) : nil
        return StoreJoinTable(
            name: "Z_\(sourceNumber)" + name, canonical: canonical, sourceColumn: sourceColumn, destinationColumn: destinationColumn,
            destinationOrderColumn: destinationOrder, sourceOrderColumn: sourceOrder)
    }
}
