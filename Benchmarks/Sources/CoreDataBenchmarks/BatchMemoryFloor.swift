import Foundation
import GRDBSQLite

/// The least memory the batched fetch (`fetchBatchSize` 20 over every row, reading two
/// attributes of each) can hold with Core Data's API: the floor's statements, plus what
/// the API obliges a process to keep, and no OpenCoreData code. Only the `fetch-batched`
/// phase; run it on a file the floor's insert wrote:
///
///     core-data-benchmarks --subject sqlite --phase insert --db F
///     core-data-benchmarks --subject memory-faults --phase fetch-batched --db F
///     core-data-benchmarks --subject memory-rows --phase fetch-batched --db F
///
/// - `memory-faults`: the fetch returns an array of every object at once, each a fault
///   with its object ID (an object too), uniqued by key in a table that does not own it;
///   the program holds the array while it walks it.
/// - `memory-rows`: the same, and each object the walk touched keeps the row it was
///   fulfilled from: Core Data keeps a fulfilled object's snapshot while the object lives
///   (chapter 9 pins the row cache's rule: a row stays while an object holds it), and the
///   array keeps every object alive.
struct BatchMemoryFloor<Variant: BatchMemoryVariant>: Subject {
    static var name: String { Variant.holdsRows ? "memory-rows" : "memory-faults" }
    private let holdsRows = Variant.holdsRows
    private var floor: RawSQLiteSubject.Connection?
    private let path: String

    init(databaseURL: URL) throws { path = databaseURL.path }

    mutating func prepare(_ phase: Phase) throws {
        guard phase == .fetchBatched else { throw BenchmarkError("the memory floor measures \(Phase.fetchBatched.rawValue) only") }
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK, let db else { throw BenchmarkError("cannot open \(path)") }
        floor = RawSQLiteSubject.Connection(db)
        sqlite3_exec(db, "PRAGMA journal_mode = WAL", nil, nil, nil)
    }

    mutating func run(_ phase: Phase) throws -> Int {
        guard let db = floor?.db else { throw BenchmarkError("not prepared") }
        // Every primary key, as the floor reads them; the fetch's result: a fault per key.
        var keys: [Int64] = []
        let all = try statement(db, "SELECT Z_PK FROM ZITEM ORDER BY Z_PK")
        while sqlite3_step(all) == SQLITE_ROW { keys.append(sqlite3_column_int64(all, 0)) }
        sqlite3_finalize(all)
        let registry = MemoryRegistry()
        registry.entries.reserveCapacity(keys.count)
        let objects = keys.map { key -> MemoryObject in
            let object = MemoryObject(id: MemoryObjectID(primaryKey: key), registry: registry)
            registry.entries[key] = Unmanaged.passUnretained(object)
            return object
        }
        let batch = try statement(db, "SELECT Z_PK, Z_ENT, Z_OPT, ZNAME, ZCATEGORY, ZPRICE, ZQUANTITY, ZCREATEDAT, ZISACTIVE, ZNOTES, ZCODE FROM ZITEM WHERE Z_PK IN (" + Array(repeating: "?", count: 20).joined(separator: ", ") + ")")
        defer { sqlite3_finalize(batch) }
        var checksum = 0
        var start = 0
        while start < keys.count {
            let slice = keys[start..<min(start + 20, keys.count)]
            for slot in 0..<20 { sqlite3_bind_int64(batch, Int32(slot + 1), slice[min(slice.startIndex + slot, slice.endIndex - 1)]) }
            while sqlite3_step(batch) == SQLITE_ROW {
                let row = MemoryRow(batch)
                checksum &+= row.name.utf8.count &+ Int(row.quantity)
                if holdsRows, let object = registry.entries[row.primaryKey]?.takeUnretainedValue() { object.row = row }
            }
            sqlite3_reset(batch)
            start += slice.count
        }
        // The program held its fetch result to the end of the walk.
        withExtendedLifetime(objects) {}
        return checksum
    }

    private func statement(_ db: OpaquePointer, _ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw BenchmarkError(String(cString: sqlite3_errmsg(db)))
        }
        return statement
    }
}

/// Whether the touched objects keep their rows.
protocol BatchMemoryVariant { static var holdsRows: Bool { get } }
enum FaultsOnly: BatchMemoryVariant { static let holdsRows = false }
enum FaultsHoldingRows: BatchMemoryVariant { static let holdsRows = true }

/// Every column of an `Item` row, as a snapshot keeps it.
private final class MemoryRow {
    let primaryKey: Int64, entity: Int64, version: Int64
    let name: String, category: String?, notes: String?
    let price: Double, createdAt: Double, code: Int64
    let quantity: Int32, isActive: Bool
    init(_ statement: OpaquePointer) {
        primaryKey = sqlite3_column_int64(statement, 0)
        entity = sqlite3_column_int64(statement, 1)
        version = sqlite3_column_int64(statement, 2)
        name = String(cString: sqlite3_column_text(statement, 3))
        category = sqlite3_column_text(statement, 4).map { String(cString: $0) }
        price = sqlite3_column_double(statement, 5)
        quantity = Int32(truncatingIfNeeded: sqlite3_column_int64(statement, 6))
        createdAt = sqlite3_column_double(statement, 7)
        isActive = sqlite3_column_int64(statement, 8) != 0
        notes = sqlite3_column_text(statement, 9).map { String(cString: $0) }
        code = sqlite3_column_int64(statement, 10)
    }
}

private final class MemoryObjectID: NSObject {
    let primaryKey: Int64
    init(primaryKey: Int64) { self.primaryKey = primaryKey }
}

/// A fault, and after the walk touched it, the object holding its row.
private final class MemoryObject: NSObject {
    let id: MemoryObjectID
    let registry: MemoryRegistry
    var row: MemoryRow?
    init(id: MemoryObjectID, registry: MemoryRegistry) {
        self.id = id
        self.registry = registry
    }
    deinit { registry.entries[id.primaryKey] = nil }
}

/// Objects by primary key, not owned.
private final class MemoryRegistry {
    var entries: [Int64: Unmanaged<MemoryObject>] = [:]
}
