import Foundation

/// The SQL that creates a store's schema, as Core Data writes it.
enum SchemaSQL {
    static let createPrimaryKeyTable = "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)"
    static let createMetadataTable = "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)"
    static let createModelCacheTable = "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)"
    static let insertPrimaryKeyRow = "INSERT INTO Z_PRIMARYKEY(Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES(?, ?, ?, 0)"

    /// `CREATE TABLE Z<ROOT> ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, …,
    /// UNIQUE (ZNAME) )`: a `UNIQUE` table constraint for each uniqueness constraint the
    /// root entity declares, so that no writer can store a duplicate even outside a save's
    /// check. (Constraints of sub-entities are checked by the save only.)
    static func createTable(_ table: StoreTable) -> String {
        var columns = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"] + table.columns.map { "\($0.name) \($0.sqlType)" }
        for constraint in table.root.uniquenessConstraints {
            let names = constraint.compactMap { ($0 as? String) ?? ($0 as? NSPropertyDescription)?.name }
            let constrained = names.compactMap { name in table.root.propertiesByName[name].flatMap { table.column(for: $0)?.name } }
            if !constrained.isEmpty, constrained.count == names.count { columns.append("UNIQUE (\(constrained.joined(separator: ", ")))") }
        }
        return "CREATE TABLE \(table.name) ( \(columns.joined(separator: ", ")) )"
    }

    /// `CREATE TABLE Z_5TAGS ( Z_5NOTES INTEGER, Z_13TAGS INTEGER, PRIMARY KEY (Z_5NOTES, Z_13TAGS) )`.
    static func createJoinTable(_ join: StoreJoinTable) -> String {
        let columns = join.columns.map { "\($0) INTEGER" }.joined(separator: ", ")
        return "CREATE TABLE \(join.name) ( \(columns), PRIMARY KEY (\(join.sourceColumn), \(join.destinationColumn)) )"
    }

    /// Every index of the schema: indexed attributes (`Z_<Entity>_<attr>`), declared fetch
    /// and compound indexes, keys (`<TABLE>_<COLUMN>_INDEX`, to-one and hidden to-many keys)
    /// and the second column of each join table.
    ///
    /// Partial indexes are created without their `WHERE` clause, and R-tree indexes are
    /// not created: both need the predicate and spatial machinery of the fetching layer.
    static func createIndexes(_ schema: StoreSchema) -> [String] {
        var statements: [String] = []
        var names: Set<String> = []
        func add(_ name: String, _ sql: String) {
            if names.insert(name.uppercased()).inserted { statements.append(sql) }
        }
        for table in schema.tables {
            let members = schema.entities.filter { $0.table === table }
            for mapped in members {
                let entityName = mapped.entity.name ?? ""
                for property in mapped.entity.declaredProperties.sorted(by: { $0.name < $1.name }) where property.isIndexed && !property.isTransient {
                    guard property is NSAttributeDescription, let column = table.column(for: property) else { continue }
                    let name = "Z_\(entityName)_\(property.name)"
                    add(name, "CREATE INDEX \(name) ON \(table.name) (\(column.name) COLLATE BINARY ASC)")
                }
                for index in mapped.entity.indexes {
                    guard let sql = fetchIndex(index, entity: mapped.entity, table: table) else { continue }
                    add(sql.name, sql.statement)
                }
            }
            for column in table.columns {
                switch column.role {
                case .foreignKey, .toManyKey: break
                default: continue
                }
                let name = "\(table.name)_\(column.name)_INDEX"
                add(name, "CREATE INDEX \(name) ON \(table.name) (\(column.name))")
            }
        }
        for join in schema.joinTables {
            let name = "\(join.name)_\(join.destinationColumn)_INDEX"
            add(name, "CREATE INDEX \(name) ON \(join.name) (\(join.destinationColumn), \(join.sourceColumn))")
        }
        return statements
    }

    /// A declared index (`NSFetchIndexDescription`) as `CREATE INDEX`, or `nil` when an
    /// element names no stored property or is an R-tree element.
    private static func fetchIndex(_ index: NSFetchIndexDescription, entity: NSEntityDescription, table: StoreTable) -> (name: String, statement: String)? {
        let entityName = entity.name ?? ""
        var parts: [String] = []
        for element in index.elements {
            guard element.collationType == .binary else { return nil }
            let property = element.property ?? element.propertyName.flatMap { entity.propertiesByName[$0] }
            guard let property, let column = table.column(for: property) else { return nil }
            parts.append("\(column.name) COLLATE BINARY \(element.isAscending ? "ASC" : "DESC")")
        }
        guard !parts.isEmpty else { return nil }
        // Compound indexes read from a model file are named `<Entity>_<a>_<b>` already.
        let name = index.name.hasPrefix(entityName + "_") ? "Z_\(index.name)" : "Z_\(entityName)_\(index.name)"
        return (name, "CREATE INDEX \(name) ON \(table.name) (\(parts.joined(separator: ", ")))")
    }
}
