import Foundation
import XCTest

@testable import OpenCoreData

/// A temporary directory per test, removed afterwards, and model-building helpers for the
/// store tests.
class StoreTestCase: XCTestCase {
    /// This test's own folder.
    private(set) var directory: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("StoreTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        SQLDebugLog.setLevelOverride(nil)
        SQLDebugLog.setSink(nil)
        if let directory { try? FileManager.default.removeItem(at: directory) }
        try super.tearDownWithError()
    }

    /// A store file URL in this test's folder.
    func storeURL(_ name: String = "Store.sqlite") -> URL { directory.appendingPathComponent(name) }

    /// Opens an engine on `url` (default: this test's store file).
    func openEngine(_ model: NSManagedObjectModel, url: URL? = nil, options: [AnyHashable: Any]? = nil) throws -> SQLiteStoreEngine {
        try SQLiteStoreEngine(url: url ?? storeURL(), model: model, configurationName: nil, options: options)
    }

    /// Rows of a plain SQL query, each column as Int64, Double, String, Data or nil.
    func query(_ url: URL, _ sql: String, _ arguments: [Int64] = []) throws -> [[Any?]] {
        let database = try SQLiteDatabase(path: url.path)
        defer { database.close() }
        return try query(database, sql, arguments)
    }

    func query(_ database: SQLiteDatabase, _ sql: String, _ arguments: [Int64] = []) throws -> [[Any?]] {
        let statement = try database.statement(sql)
        for (index, argument) in arguments.enumerated() { statement.bindKey(argument, at: Int32(index + 1)) }
        var rows: [[Any?]] = []
        while try statement.step() {
            var row: [Any?] = []
            var column: Int32 = 0
            while column < statement.columnCount {
                switch statement.columnType(column) {
                case 1: row.append(statement.int64(column))
                case 2: row.append(statement.double(column))
                case 3: row.append(statement.string(column))
                case 4: row.append(statement.data(column))
                default: row.append(nil)
                }
                column += 1
            }
            rows.append(row)
        }
        statement.reset()
        return rows
    }

    /// The column names of `table`, in order.
    func columns(_ url: URL, _ table: String) throws -> [String] {
        try query(url, "SELECT name FROM pragma_table_info('\(table)') ORDER BY cid").map { $0[0] as! String }
    }

    /// The `CREATE …` text of a table or index, as SQLite keeps it.
    func schemaSQL(_ url: URL, _ name: String) throws -> String? {
        let database = try SQLiteDatabase(path: url.path)
        defer { database.close() }
        let statement = try database.statement("SELECT sql FROM sqlite_master WHERE name = ?")
        statement.bind(name, at: 1)
        defer { statement.reset() }
        return try statement.step() ? statement.string(0) : nil
    }

    /// Names of all tables, sorted.
    func tableNames(_ url: URL) throws -> [String] {
        try query(url, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map { $0[0] as! String }
    }

    /// Names of all explicit indexes, sorted.
    func indexNames(_ url: URL) throws -> [String] {
        try query(url, "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").map { $0[0] as! String }
    }

    /// Runs `body` in a save and fails the test on error.
    func save(_ engine: SQLiteStoreEngine, _ body: (SQLiteSaveTransaction) throws -> Void, file: StaticString = #filePath, line: UInt = #line) throws {
        try engine.performSave(body)
    }

    /// A new row of `entity` with keys reserved from the engine.
    func newRow(_ engine: SQLiteStoreEngine, _ entity: NSEntityDescription, _ attributes: [String: Any] = [:], toOne: ToOneKeys = [:]) throws -> StoreRow {
        let pk = try engine.allocatePrimaryKeys(for: entity, count: 1).lowerBound
        return StoreRow(key: StoreKey(entityNumber: engine.entityNumber(for: entity), primaryKey: pk), entity: entity, version: 1, attributes: attributes, toOne: toOne)
    }
}

// MARK: Building models in code

func makeAttribute(_ name: String, _ type: NSAttributeType, indexed: Bool = false, external: Bool = false, transformer: String? = nil) -> NSAttributeDescription {
    let attribute = NSAttributeDescription()
    attribute.name = name
    attribute.attributeType = type
    attribute.isIndexed = indexed
    attribute.allowsExternalBinaryDataStorage = external
    attribute.valueTransformerName = transformer
    return attribute
}

func makeRelationship(_ name: String, to destination: NSEntityDescription, toMany: Bool = false, ordered: Bool = false) -> NSRelationshipDescription {
    let relationship = NSRelationshipDescription()
    relationship.name = name
    relationship.destinationEntity = destination
    relationship.maxCount = toMany ? 0 : 1
    relationship.isOrdered = ordered
    return relationship
}

/// Makes `a` and `b` each other's inverse.
func makeInverses(_ a: NSRelationshipDescription, _ b: NSRelationshipDescription) {
    a.inverseRelationship = b
    b.inverseRelationship = a
}

func makeEntity(_ name: String, abstract: Bool = false) -> NSEntityDescription {
    let entity = NSEntityDescription()
    entity.name = name
    entity.isAbstract = abstract
    return entity
}

func makeModel(_ entities: [NSEntityDescription]) -> NSManagedObjectModel {
    let model = NSManagedObjectModel()
    model.entities = entities
    return model
}
