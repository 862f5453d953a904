// Fetches that run in SQLite, against the same queries written by hand on SQLite's C API.
//
//     swift run -c release --package-path Benchmarks fetch-benchmarks [rows] [repetitions]
//     swift run -c release --package-path Benchmarks fetch-benchmarks --equality-floor [rows] [repetitions]
//
// One store of `rows` items (100,000 by default) is written once, then each query runs
// `repetitions` times for each side, the two sides alternating, and the median times are
// compared. Both sides read every column of every matching row; OpenCoreData's side also
// registers an object per row (left a fault, its values in the row cache). The grouped
// sum and the batch update and delete use the dictionary results, NSBatchUpdateRequest
// and NSBatchDeleteRequest of the library as they are.
import Foundation
import GRDBSQLite
import OpenCoreData

// MARK: Setup

/// `--equality-floor`: only the indexed equality's floor (EqualityFloor.swift), then exit.
let equalityFloor = CommandLine.arguments.contains("--equality-floor")
let arguments = CommandLine.arguments.filter { $0 != "--equality-floor" }
let rowCount = arguments.count > 1 ? Int(arguments[1]) ?? 100_000 : 100_000
let repetitions = arguments.count > 2 ? Int(arguments[2]) ?? 15 : 15

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fetch-benchmarks-\(getpid())", isDirectory: true)
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let storeURL = directory.appendingPathComponent("Items.sqlite")

func attribute(_ name: String, _ type: NSAttributeType, indexed: Bool = false) -> NSAttributeDescription {
    let attribute = NSAttributeDescription()
    attribute.name = name
    attribute.attributeType = type
    attribute.isIndexed = indexed
    return attribute
}
let item = NSEntityDescription()
item.name = "Item"
item.properties = [
    attribute("name", .stringAttributeType), attribute("category", .stringAttributeType, indexed: true),
    attribute("price", .doubleAttributeType), attribute("quantity", .integer64AttributeType),
    attribute("isActive", .booleanAttributeType),
]
let model = NSManagedObjectModel()
model.entities = [item]

let container = NSPersistentContainer(name: "Items", managedObjectModel: model)
container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: storeURL)]
container.loadPersistentStores { _, error in
    if let error { fatalError("\(error)") }
}
let context = container.viewContext

/// Names mix ASCII words with accented and non-Latin ones, as real catalogues do.
let words = ["ridge", "Café", "lake", "Zürich", "trail", "Ålesund", "peak", "富士", "valley", "Straße", "forest", "Ελλάδα"]
var generator = SystemRandomNumberGenerator()
let setupStart = Date()
for index in 0..<rowCount {
    let object = NSManagedObject(entity: item, insertInto: context)
    object.setValue("\(words[index % words.count]) \(words[(index / 7) % words.count]) \(index)", forKey: "name")
    object.setValue("category-\(index % 100)", forKey: "category")
    object.setValue(Double(index % 1000) / 10, forKey: "price")
    object.setValue(Int64(index % 37), forKey: "quantity")
    object.setValue(index % 3 == 0, forKey: "isActive")
    if index % 10_000 == 9_999 {
        try context.save()
        context.reset()
    }
}
try context.save()
context.reset()
print("Wrote \(rowCount) items in \(String(format: "%.1f", Date().timeIntervalSince(setupStart))) s; \(repetitions) repetitions per query")

// MARK: The raw side

/// A hand-written query on the store file: prepare once, bind, step, read every column.
final class RawQuery {
    private var db: OpaquePointer?
    private var statement: OpaquePointer?

    init(_ sql: String) {
        guard sqlite3_open_v2(storeURL.path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK,
            sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK
        else { fatalError("prepare failed: \(String(cString: sqlite3_errmsg(db)))") }
    }

    deinit {
        sqlite3_finalize(statement)
        sqlite3_close(db)
    }

    struct Row {
        var pk: Int64, version: Int64, name: String?, category: String?, price: Double, quantity: Int64, isActive: Bool
    }

    /// The rows, every column read into a Swift value.
    func rows(_ bind: (OpaquePointer?) -> Void) -> [Row] {
        sqlite3_reset(statement)
        bind(statement)
        var rows: [Row] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            rows.append(Row(
                pk: sqlite3_column_int64(statement, 0), version: sqlite3_column_int64(statement, 1),
                name: text(2), category: text(3), price: sqlite3_column_double(statement, 4),
                quantity: sqlite3_column_int64(statement, 5), isActive: sqlite3_column_int64(statement, 6) != 0))
        }
        return rows
    }

    /// How many rows the query returns, reading a text and a number from each.
    func groups(_ bind: (OpaquePointer?) -> Void) -> Int {
        sqlite3_reset(statement)
        bind(statement)
        var count = 0
        var total = 0.0
        while sqlite3_step(statement) == SQLITE_ROW {
            _ = text(0)
            total += sqlite3_column_double(statement, 1)
            count += 1
        }
        return total.isNaN ? 0 : count
    }

    /// The integer in the first column of the first row.
    func integer(_ bind: (OpaquePointer?) -> Void) -> Int {
        sqlite3_reset(statement)
        bind(statement)
        return sqlite3_step(statement) == SQLITE_ROW ? Int(sqlite3_column_int64(statement, 0)) : 0
    }

    private func text(_ column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(statement, column) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, column))), as: UTF8.self)
    }
}

let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
func bindText(_ statement: OpaquePointer?, _ index: Int32, _ value: String) {
    sqlite3_bind_text(statement, index, value, -1, transient)
}
let columns = "Z_PK, Z_OPT, ZNAME, ZCATEGORY, ZPRICE, ZQUANTITY, ZISACTIVE"

// MARK: Measuring

struct Result {
    var query: String
    var openCoreData: Double
    var raw: Double
    var rawNote: String
    var rows: Int
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

/// Runs both sides `repetitions` times, alternating, after one warm-up each; checks they
/// agree on the number of rows.
func compare(_ query: String, rawNote: String = "", openCoreData: () throws -> Int, raw: () -> Int) rethrows -> Result {
    let expected = try openCoreData()
    let rawRows = raw()
    if expected != rawRows { print("warning: \(query): OpenCoreData \(expected) rows, raw SQLite \(rawRows)") }
    var ours: [Double] = [], theirs: [Double] = []
    for _ in 0..<repetitions {
        context.reset()
        var start = DispatchTime.now().uptimeNanoseconds
        _ = try openCoreData()
        ours.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        start = DispatchTime.now().uptimeNanoseconds
        _ = raw()
        theirs.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    return Result(query: query, openCoreData: median(ours), raw: median(theirs), rawNote: rawNote, rows: expected)
}

var results: [Result] = []

// 1. An indexed equality: 1 % of the rows.
let byCategory = NSFetchRequest<NSManagedObject>(entityName: "Item")
byCategory.predicate = NSPredicate(format: "category == %@", "category-42")
if equalityFloor {
    // `context.reset()` before each fetch, untimed, as `compare` does.
    try EqualityFloor.run(storePath: storeURL.path, category: "category-42", repetitions: repetitions,
                          reset: { context.reset() }, openCoreData: { try context.fetch(byCategory).count })
    try? FileManager.default.removeItem(at: directory)
    exit(0)
}
let rawCategory = RawQuery("SELECT \(columns) FROM ZITEM WHERE ZCATEGORY = ? ORDER BY Z_PK")
results.append(try compare("fetch `category == %@` (indexed)", openCoreData: { try context.fetch(byCategory).count },
                           raw: { rawCategory.rows { bindText($0, 1, "category-42") }.count }))

let categoryIDs = NSFetchRequest<NSManagedObjectID>(entityName: "Item")
categoryIDs.resultType = .managedObjectIDResultType
categoryIDs.predicate = byCategory.predicate
let rawCategoryKeys = RawQuery("SELECT Z_PK, 0, NULL, NULL, 0, 0, 0 FROM ZITEM WHERE ZCATEGORY = ? ORDER BY Z_PK")
results.append(try compare("fetch IDs `category == %@` (indexed)", rawNote: "primary keys only",
                           openCoreData: { try context.fetch(categoryIDs).count },
                           raw: { rawCategoryKeys.rows { bindText($0, 1, "category-42") }.count }))

// 2. CONTAINS[cd] over every row.
let containing = NSFetchRequest<NSManagedObject>(entityName: "Item")
containing.predicate = NSPredicate(format: "name CONTAINS[cd] %@", "zurich")
let rawLike = RawQuery("SELECT \(columns) FROM ZITEM WHERE ZNAME LIKE ? ORDER BY Z_PK")
results.append(try compare("fetch `name CONTAINS[cd] %@`", rawNote: "`LIKE '%zurich%'` (ASCII case folding only: finds no Zürich)",
                           openCoreData: { try context.fetch(containing).count },
                           raw: { rawLike.rows { bindText($0, 1, "%zurich%") }.count }))
let rawLikeU = RawQuery("SELECT \(columns) FROM ZITEM WHERE ZNAME LIKE ? ORDER BY Z_PK")
results.append(try compare("fetch `name CONTAINS[c] %@`", rawNote: "`LIKE '%ridge%'`",
                           openCoreData: {
                               let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
                               request.predicate = NSPredicate(format: "name CONTAINS[c] %@", "ridge")
                               return try context.fetch(request).count
                           },
                           raw: { rawLikeU.rows { bindText($0, 1, "%ridge%") }.count }))

let rawLikeCount = RawQuery("SELECT COUNT(*) FROM ZITEM WHERE ZNAME LIKE ?")
results.append(try compare("count `name CONTAINS[cd] %@`", rawNote: "`LIKE '%zurich%'`, not Unicode-aware",
                           openCoreData: { try context.count(for: containing) },
                           raw: { rawLikeCount.integer { bindText($0, 1, "%zurich%") } }))

// 3. Counts.
let expensive = NSFetchRequest<NSManagedObject>(entityName: "Item")
expensive.predicate = NSPredicate(format: "price > %@ AND isActive == YES", NSNumber(value: 50.0))
let rawCount = RawQuery("SELECT COUNT(*) FROM ZITEM WHERE ZPRICE > ? AND ZISACTIVE = ?")
results.append(try compare("count `price > %@ AND isActive == YES`", openCoreData: { try context.count(for: expensive) },
                           raw: { rawCount.integer { sqlite3_bind_double($0, 1, 50); sqlite3_bind_int64($0, 2, 1) } }))

// 4. A sorted, limited page.
let page = NSFetchRequest<NSManagedObject>(entityName: "Item")
page.predicate = NSPredicate(format: "quantity < %@", NSNumber(value: 10))
page.sortDescriptors = [NSSortDescriptor(key: "price", ascending: false)]
page.fetchLimit = 50
let rawPage = RawQuery("SELECT \(columns) FROM ZITEM WHERE ZQUANTITY < ? ORDER BY ZPRICE DESC, Z_PK LIMIT 50")
results.append(try compare("fetch `quantity < %@`, sorted by price, limit 50", openCoreData: { try context.fetch(page).count },
                           raw: { rawPage.rows { sqlite3_bind_int64($0, 1, 10) }.count }))

// 5. A sum grouped by an attribute, as dictionaries.
let total = NSExpressionDescription()
total.name = "total"
total.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "price")])
total.expressionResultType = .doubleAttributeType
let grouped = NSFetchRequest<NSDictionary>(entityName: "Item")
grouped.resultType = .dictionaryResultType
grouped.propertiesToFetch = ["category", total]
grouped.propertiesToGroupBy = ["category"]
let rawGrouped = RawQuery("SELECT ZCATEGORY, TOTAL(ZPRICE) FROM ZITEM GROUP BY ZCATEGORY")
results.append(try compare("sum of `price` grouped by `category` (dictionaries)", openCoreData: { try context.fetch(grouped).count },
                           raw: { rawGrouped.groups { _ in } }))

// 6. A batch update of every row.
var writer: OpaquePointer?
guard sqlite3_open_v2(storeURL.path, &writer, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else { fatalError("open for writing failed") }
sqlite3_busy_timeout(writer, 10_000)
var rawUpdate: OpaquePointer?
sqlite3_prepare_v2(writer, "UPDATE ZITEM SET ZQUANTITY = ZQUANTITY + 1, Z_OPT = Z_OPT + 1", -1, &rawUpdate, nil)
let update = NSBatchUpdateRequest(entityName: "Item")
update.propertiesToUpdate = ["quantity": NSExpression(format: "quantity + 1")]
update.resultType = .updatedObjectsCountResultType
results.append(try compare("batch update `quantity = quantity + 1` of every row", rawNote: "`UPDATE … SET ZQUANTITY = ZQUANTITY + 1, Z_OPT = Z_OPT + 1` in a transaction",
                           openCoreData: { ((try context.execute(update) as? NSBatchUpdateResult)?.result as? NSNumber)?.intValue ?? -1 },
                           raw: {
                               sqlite3_exec(writer, "BEGIN IMMEDIATE", nil, nil, nil)
                               sqlite3_reset(rawUpdate)
                               sqlite3_step(rawUpdate)
                               let changed = Int(sqlite3_changes(writer))
                               sqlite3_exec(writer, "COMMIT", nil, nil, nil)
                               return changed
                           }))
sqlite3_finalize(rawUpdate)

// 7. A batch delete of a third of the rows (`price < 33.3`). Each run on either side
// starts from the same full table, refilled (untimed) from a copy kept in a temporary table.
sqlite3_exec(writer, "CREATE TEMP TABLE ITEMCOPY AS SELECT * FROM ZITEM", nil, nil, nil)
func refill() {
    guard sqlite3_exec(writer, "BEGIN IMMEDIATE; DELETE FROM ZITEM; INSERT INTO ZITEM SELECT * FROM ITEMCOPY; COMMIT", nil, nil, nil) == SQLITE_OK else {
        fatalError("refill failed: \(String(cString: sqlite3_errmsg(writer)))")
    }
}
var rawDelete: OpaquePointer?
sqlite3_prepare_v2(writer, "DELETE FROM ZITEM WHERE ZPRICE < ?", -1, &rawDelete, nil)
let doomed = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
doomed.predicate = NSPredicate(format: "price < %@", NSNumber(value: 33.3))
let batchDelete = NSBatchDeleteRequest(fetchRequest: doomed)
batchDelete.resultType = .resultTypeCount
var deleteTimes: (ours: [Double], theirs: [Double]) = ([], [])
var deletedRows = (ours: 0, theirs: 0)
for run in 0...repetitions {  // run 0 warms up
    refill()
    context.reset()
    var start = DispatchTime.now().uptimeNanoseconds
    deletedRows.ours = ((try context.execute(batchDelete) as? NSBatchDeleteResult)?.result as? NSNumber)?.intValue ?? -1
    let ours = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    refill()
    start = DispatchTime.now().uptimeNanoseconds
    sqlite3_exec(writer, "BEGIN IMMEDIATE", nil, nil, nil)
    sqlite3_reset(rawDelete)
    sqlite3_bind_double(rawDelete, 1, 33.3)
    sqlite3_step(rawDelete)
    deletedRows.theirs = Int(sqlite3_changes(writer))
    sqlite3_exec(writer, "COMMIT", nil, nil, nil)
    let theirs = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    if run > 0 {
        deleteTimes.ours.append(ours)
        deleteTimes.theirs.append(theirs)
    }
}
if deletedRows.ours != deletedRows.theirs { print("warning: batch delete: OpenCoreData \(deletedRows.ours) rows, raw SQLite \(deletedRows.theirs)") }
results.append(Result(query: "batch delete `price < 33.3`", openCoreData: median(deleteTimes.ours), raw: median(deleteTimes.theirs),
                      rawNote: "`DELETE FROM ZITEM WHERE ZPRICE < ?` in a transaction", rows: deletedRows.ours))
sqlite3_finalize(rawDelete)
sqlite3_close(writer)

// MARK: Report

print("")
print("| Query (\(rowCount) rows) | Rows | OpenCoreData | SQLite C API | Ratio |")
print("|---|---:|---:|---:|---:|")
for result in results {
    let raw = result.rawNote.isEmpty ? String(format: "%.2f ms", result.raw * 1000) : String(format: "%.2f ms (%@)", result.raw * 1000, result.rawNote)
    print("| \(result.query) | \(result.rows) | \(String(format: "%.2f ms", result.openCoreData * 1000)) | \(raw) | \(String(format: "%.2f×", result.openCoreData / result.raw)) |")
}
