import Foundation
import GRDB

/// GRDB.swift records: the strongest Swift peer, used the way its documentation teaches.
struct GRDBSubject: Subject {
    static let name = "GRDB 7.10.0"
    private let path: String
    private var dbQueue: DatabaseQueue?
    private var keys: [Int64] = []

    struct Item: Codable, FetchableRecord, MutablePersistableRecord {
        static let databaseTableName = "item"
        var id: Int64?
        var name: String
        var category: String
        var price: Double
        var quantity: Int32
        var createdAt: Date
        var isActive: Bool
        var notes: String
        var code: Int64
        mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
    }

    init(databaseURL: URL) throws { path = databaseURL.path }

    mutating func prepare(_ phase: Phase) throws {
        let dbQueue = try GRDBDatabase.open(path: path)
        self.dbQueue = dbQueue
        if phase == .fetchByID { keys = try GRDBDatabase.lookupKeys(in: dbQueue) }
    }

    mutating func run(_ phase: Phase) throws -> Int {
        let dbQueue = self.dbQueue!
        switch phase {
        case .insert:
            try dbQueue.write { db in
                try GRDBDatabase.createItemTable(in: db, createdAt: .datetime)
                for index in 0..<ItemValues.count {
                    let values = ItemValues(index: index)
                    var item = Item(
                        id: nil, name: values.name, category: values.category, price: values.price,
                        quantity: values.quantity, createdAt: values.createdAt, isActive: values.isActive,
                        notes: values.notes, code: values.code)
                    try item.insert(db)
                }
            }
            return ItemValues.count
        case .fetchAll, .fetchAllTyped, .fetchBatched, .fetchBatchedRefreshing:
            // A record type is already typed, and the documented fetch is an array.
            let items = try dbQueue.read { try Item.fetchAll($0) }
            return items.reduce(0) { $0 &+ $1.name.utf8.count &+ Int($1.quantity) }
        case .fetchByID:
            return try dbQueue.read { db in
                var checksum = 0
                for key in keys {
                    guard let item = try Item.fetchOne(db, key: key) else { throw BenchmarkError("row \(key) missing") }
                    checksum &+= item.name.utf8.count
                }
                return checksum
            }
        case .updateAll:
            return try dbQueue.write { db in
                let items = try Item.fetchAll(db)
                var checksum = 0
                for var item in items {
                    item.quantity += 1
                    try item.update(db)
                    checksum &+= Int(item.quantity)
                }
                return checksum
            }
        case .deleteAll:
            return try dbQueue.write { db in
                let items = try Item.fetchAll(db)
                for item in items { try item.delete(db) }
                return items.count
            }
        }
    }
}

/// What both GRDB subjects share: the connection, the table and the keys looked up by ID.
enum GRDBDatabase {
    /// A queue with the durability of the other subjects: WAL, and SQLite's default
    /// synchronous=FULL (GRDB sets no synchronous pragma of its own).
    static func open(path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    /// The `item` table; `createdAt` as the subject stores dates (Codable records as
    /// `.datetime` text, the fast path as seconds).
    static func createItemTable(in db: Database, createdAt: Database.ColumnType) throws {
        try db.create(table: "item") { table in
            table.autoIncrementedPrimaryKey("id")
            table.column("name", .text)
            table.column("category", .text)
            table.column("price", .double)
            table.column("quantity", .integer)
            table.column("createdAt", createdAt)
            table.column("isActive", .boolean)
            table.column("notes", .text)
            table.column("code", .integer)
        }
    }

    /// The primary keys the fetch-by-ID phase looks up, in the order it looks them up.
    static func lookupKeys(in dbQueue: DatabaseQueue) throws -> [Int64] {
        let all = try dbQueue.read { try Int64.fetchAll($0, sql: "SELECT id FROM item ORDER BY id") }
        return ItemValues.lookupPositions().map { all[$0] }
    }
}
