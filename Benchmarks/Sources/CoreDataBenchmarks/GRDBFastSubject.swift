import Foundation
import GRDB

/// GRDB.swift's fastest documented path: a record with a hand-written `init(row:)` reading
/// columns by index in the order of its `databaseSelection`, and a hand-written
/// `encode(to:)` (README, "Define a plain struct optimized for fetching performance"),
/// cursors where the rows are only read ("If you care about memory and performance, use
/// cursors"), and cached statements for repeated queries (`Database.cachedStatement(sql:)`).
///
/// Dates are stored as seconds since the reference date (a `Double`, as Core Data stores
/// them) rather than GRDB's default text, which would cost a date formatting per row.
struct GRDBFastSubject: Subject {
    static let name = "GRDB 7.10.0, fastest path"
    private let path: String
    private var dbQueue: DatabaseQueue?
    private var keys: [Int64] = []

    struct Item: FetchableRecord, MutablePersistableRecord {
        static let databaseTableName = "item"
        static var databaseSelection: [any SQLSelectable] {
            ["id", "name", "category", "price", "quantity", "createdAt", "isActive", "notes", "code"].map { Column($0) }
        }
        var id: Int64?
        var name: String
        var category: String
        var price: Double
        var quantity: Int32
        var createdAt: Date
        var isActive: Bool
        var notes: String
        var code: Int64

        init(id: Int64?, values: ItemValues) {
            self.id = id
            name = values.name
            category = values.category
            price = values.price
            quantity = values.quantity
            createdAt = values.createdAt
            isActive = values.isActive
            notes = values.notes
            code = values.code
        }

        init(row: Row) {
            id = row[0]
            name = row[1]
            category = row[2]
            price = row[3]
            quantity = row[4]
            createdAt = Date(timeIntervalSinceReferenceDate: row[5])
            isActive = row[6]
            notes = row[7]
            code = row[8]
        }

        func encode(to container: inout PersistenceContainer) {
            container["id"] = id
            container["name"] = name
            container["category"] = category
            container["price"] = price
            container["quantity"] = quantity
            container["createdAt"] = createdAt.timeIntervalSinceReferenceDate
            container["isActive"] = isActive
            container["notes"] = notes
            container["code"] = code
        }

        mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
    }

    static let selectAll = "SELECT id, name, category, price, quantity, createdAt, isActive, notes, code FROM item"

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
                try GRDBDatabase.createItemTable(in: db, createdAt: .double)
                for index in 0..<ItemValues.count {
                    var item = Item(id: nil, values: ItemValues(index: index))
                    try item.insert(db)
                }
            }
            return ItemValues.count
        case .fetchAll, .fetchAllTyped, .fetchBatched, .fetchBatchedRefreshing:
            // A record type is already typed: the three read phases are the same work here.
            return try dbQueue.read { db in
                let items = try Item.fetchCursor(db.cachedStatement(sql: Self.selectAll))
                var checksum = 0
                while let item = try items.next() { checksum &+= item.name.utf8.count &+ Int(item.quantity) }
                return checksum
            }
        case .fetchByID:
            return try dbQueue.read { db in
                let statement = try db.cachedStatement(sql: Self.selectAll + " WHERE id = ?")
                var checksum = 0
                for key in keys {
                    guard let item = try Item.fetchOne(statement, arguments: [key]) else { throw BenchmarkError("row \(key) missing") }
                    checksum &+= item.name.utf8.count
                }
                return checksum
            }
        case .updateAll:
            return try dbQueue.write { db in
                // An array, not a cursor: the rows change while the loop runs.
                let items = try Item.fetchAll(db.cachedStatement(sql: Self.selectAll))
                var checksum = 0
                for var item in items {
                    item.quantity += 1
                    try item.update(db, columns: ["quantity"])
                    checksum &+= Int(item.quantity)
                }
                return checksum
            }
        case .deleteAll:
            return try dbQueue.write { db in
                let items = try Item.fetchAll(db.cachedStatement(sql: Self.selectAll))
                for item in items { try item.delete(db) }
                return items.count
            }
        }
    }
}
