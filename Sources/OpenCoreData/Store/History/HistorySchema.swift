import Foundation

/// The tables where Core Data's SQLite store keeps persistent history, named as in stores
/// Core Data wrote (Notes, Photos): `ATRANSACTION` (one row per save), `ACHANGE` (one
/// row per object a save inserted, updated or deleted) and `ATRANSACTIONSTRING` (author,
/// context name, bundle and process IDs, each kept once and referred to by `Z_PK`). Rows
/// carry `Z_ENT` 16001 (change), 16002 (transaction) and 16003 (string) and a NULL `Z_OPT`.
///
/// What could not be confirmed from published stores is listed in LinuxDifferences.md:
/// the layout of `ZCOLUMNS` (here one bit per property of the entity, in the order of its
/// property table), the names of the tombstone columns (`ZTOMBSTONE0`, `ZTOMBSTONE1`, …
/// here), and how transaction numbers are allocated (here `AUTOINCREMENT`, so a number is
/// never used twice, even after every transaction has been purged).
enum HistorySchema {
    static let changeEntity: Int64 = 16001
    static let transactionEntity: Int64 = 16002
    static let stringEntity: Int64 = 16003

    static let createTransactionString = """
        CREATE TABLE IF NOT EXISTS ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR NOT NULL )
        """
    static let createTransaction = """
        CREATE TABLE IF NOT EXISTS ATRANSACTION ( Z_PK INTEGER PRIMARY KEY AUTOINCREMENT, Z_ENT INTEGER, Z_OPT INTEGER, \
        ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, \
        ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB )
        """
    static let createChange = """
        CREATE TABLE IF NOT EXISTS ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, \
        ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB )
        """
    static let indexes = [
        "CREATE UNIQUE INDEX IF NOT EXISTS Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC)",
        "CREATE INDEX IF NOT EXISTS Z_CHANGE_INDEX_TRANSACTIONID ON ACHANGE (ZTRANSACTIONID COLLATE BINARY ASC)",
        "CREATE INDEX IF NOT EXISTS Z_TRANSACTION_INDEX_TIMESTAMP ON ATRANSACTION (ZTIMESTAMP COLLATE BINARY ASC)",
    ]

    /// The preserved attributes of `entity` (inherited ones included), in property order:
    /// attribute `i` of this list is kept in tombstone column `ZTOMBSTONE<i>`. Values kept
    /// outside the database (external binary storage) are not preserved, as in Core Data.
    static func preservedAttributes(of entity: StoreEntity) -> [(column: Int, attribute: NSAttributeDescription, storage: AttributeStorage)] {
        entity.attributes.filter { $0.attribute.preservesValueInHistoryOnDeletion && $0.storage != .externalBinary }
            .map { ($0.column, $0.attribute, $0.storage) }
    }

    /// How many tombstone columns the schema's entities need.
    static func tombstoneCount(_ schema: StoreSchema) -> Int {
        schema.entities.map { preservedAttributes(of: $0).count }.max() ?? 0
    }

    /// Creates the history tables when missing and adds tombstone columns a newer model
    /// needs. The caller holds a transaction.
    static func create(in database: SQLiteDatabase, schema: StoreSchema) throws {
        try database.executeUncached(createTransactionString)
        try database.executeUncached(createTransaction)
        try database.executeUncached(createChange)
        for index in indexes { try database.executeUncached(index) }
        let existing = try tombstoneColumns(in: database)
        let needed = tombstoneCount(schema)
        if existing < needed {
            for number in existing..<needed { try database.executeUncached("ALTER TABLE ACHANGE ADD COLUMN ZTOMBSTONE\(number)") }
        }
    }

    /// The number of `ZTOMBSTONE<n>` columns `ACHANGE` has.
    static func tombstoneColumns(in database: SQLiteDatabase) throws -> Int {
        try database.withStatement("SELECT count(*) FROM pragma_table_info('ACHANGE') WHERE name LIKE 'ZTOMBSTONE%'") { statement in
            try statement.step() ? Int(statement.int64(0)) : 0
        }
    }

    /// Whether the store has history rows (a store that tracked history once).
    static func hasHistory(in database: SQLiteDatabase) throws -> Bool {
        guard try database.tableExists("ATRANSACTION") else { return false }
        return try database.withStatement("SELECT 1 FROM ATRANSACTION LIMIT 1") { statement in try statement.step() }
    }
}
