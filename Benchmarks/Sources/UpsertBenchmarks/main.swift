// An upsert of 10,000 trails of which half are already stored, through a uniqueness
// constraint and the object-trump merge policy, against hand-written
// `INSERT … ON CONFLICT DO UPDATE` through SQLite's C API.
//
//     swift run -c release --package-path Benchmarks upsert-benchmarks [repetitions] [--upsert-only]
//
// A store of 10,000 trails ("Trail 0" … "Trail 9999"; name unique, rating, lengthKm,
// notes) is written once, untimed. Each repetition copies it afresh, opens it (untimed),
// then times one of:
//
// - OpenCoreData: insert 10,000 `NSManagedObject`s ("Trail 5000" … "Trail 14999", new
//   rating and notes) in a context whose merge policy is object trump, and `save()`:
//   5,000 inserts become updates of the stored rows, 5,000 are new rows;
// - hand-written SQL: `BEGIN`, one prepared `INSERT INTO ZTRAIL(…) VALUES(…) ON
//   CONFLICT(ZNAME) DO UPDATE SET …, Z_OPT = Z_OPT + 1` per trail, the key counter in
//   Z_PRIMARYKEY, `COMMIT`;
// - GRDB 7.10.0: a record type on the same table, `upsert(_:)` for each trail in one
//   `write` (GRDB's own `INSERT … ON CONFLICT DO UPDATE … RETURNING`).
//
// - OpenCoreData, batch insert: the same 10,000 trails as dictionaries in one
//   `NSBatchInsertRequest` run by an object-trump context: Core Data's
//   `INSERT … ON CONFLICT(ZNAME) DO UPDATE SET Z_OPT = Z_OPT+1 , …` per row, no objects;
// - OpenCoreData, insert only: the same objects with names not yet stored, saved the same way;
// - OpenCoreData, objects only: the upsert's objects created and given their values, no save
//   (what Core Data's API costs before any SQL runs);
// - save floor: the least an upsert through a save must do with Core Data's API, by hand
//   with the C API and minimal objects (see `runSaveFloor`): what a save-based upsert
//   could at best reach.
//
// Medians of wall-clock time and their ratio, then of CPU time (goal: OpenCoreData ≤ 3 × hand-written).
// Each run is checked: 15,000 rows, and "Trail 5000" carries the new rating.
import Foundation
import GRDB
import GRDBSQLite
import OpenCoreData

let arguments = CommandLine.arguments
let repetitions = arguments.count > 1 ? Int(arguments[1]) ?? 5 : 5
let stored = 10_000
let imported = 10_000

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("upsert-benchmarks-\(getpid())", isDirectory: true)
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

func makeModel() -> NSManagedObjectModel {
    let entity = NSEntityDescription()
    entity.name = "Trail"
    func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        return attribute
    }
    entity.properties = [attribute("name", .stringAttributeType), attribute("rating", .doubleAttributeType),
                         attribute("lengthKm", .doubleAttributeType), attribute("notes", .stringAttributeType)]
    entity.uniquenessConstraints = [["name"]]
    let model = NSManagedObjectModel()
    model.entities = [entity]
    return model
}
let model = makeModel()

func open(_ url: URL) -> NSPersistentContainer {
    let container = NSPersistentContainer(name: "Trails", managedObjectModel: model)
    container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
    container.loadPersistentStores { _, error in if let error { fatalError("\(error)") } }
    return container
}

// The stored trails, written once.
let template = directory.appendingPathComponent("template.sqlite")
do {
    let container = open(template)
    let context = container.viewContext
    for index in 0..<stored {
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        trail.setValue("Trail \(index)", forKey: "name")
        trail.setValue(Double(index % 50) / 10, forKey: "rating")
        trail.setValue(Double(index % 500), forKey: "lengthKm")
        trail.setValue("Stored notes \(index)", forKey: "notes")
    }
    try context.save()
    for store in container.persistentStoreCoordinator.persistentStores { try container.persistentStoreCoordinator.remove(store) }
}
do {
    var db: OpaquePointer?
    sqlite3_open(template.path, &db)
    sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nil, nil, nil)
    sqlite3_close(db)
}

func freshCopy(_ name: String) throws -> URL {
    let url = directory.appendingPathComponent(name)
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    try FileManager.default.copyItem(at: template, to: url)
    return url
}

func check(_ url: URL) {
    var db: OpaquePointer?
    sqlite3_open(url.path, &db)
    defer { sqlite3_close(db) }
    var statement: OpaquePointer?
    sqlite3_prepare_v2(db, "SELECT COUNT(*), (SELECT ZRATING FROM ZTRAIL WHERE ZNAME = 'Trail 5000') FROM ZTRAIL", -1, &statement, nil)
    sqlite3_step(statement)
    let count = sqlite3_column_int64(statement, 0)
    let rating = sqlite3_column_double(statement, 1)
    sqlite3_finalize(statement)
    precondition(count == Int64(stored + imported / 2), "expected \(stored + imported / 2) rows, found \(count)")
    precondition(rating == 4.9, "Trail 5000 was not updated (rating \(rating))")
}

/// The process's CPU time (user + system) so far, in seconds.
func cpuSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// The CPU time of the last body timed by ``seconds(_:)``: on a machine other processes
/// keep busy, steadier than the wall time.
var lastCPUSeconds = 0.0

/// The wall time `body` takes (its CPU time goes to `lastCPUSeconds`).
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds, startCPU = cpuSeconds()
    try body()
    lastCPUSeconds = cpuSeconds() - startCPU
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func runOpenCoreData() throws -> Double {
    let url = try freshCopy("ocd.sqlite")
    let container = open(url)
    let context = container.viewContext
    context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
    let time = try seconds {
        for index in stored / 2..<(stored / 2 + imported) {
            let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
            trail.setValue("Trail \(index)", forKey: "name")
            trail.setValue(4.9, forKey: "rating")
            trail.setValue(Double(index % 500), forKey: "lengthKm")
            trail.setValue("Imported notes \(index)", forKey: "notes")
        }
        try context.save()
    }
    for store in container.persistentStoreCoordinator.persistentStores { try container.persistentStoreCoordinator.remove(store) }
    check(url)
    return time
}

/// The batch-insert upsert: the imported trails as dictionaries, one `NSBatchInsertRequest`
/// in an object-trump context, so that SQLite's `ON CONFLICT … DO UPDATE` finds the stored
/// names. Making the dictionaries is timed (an importer makes them too).
func runBatchInsert() throws -> Double {
    let url = try freshCopy("ocd-batch.sqlite")
    let container = open(url)
    let context = container.viewContext
    context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
    let time = try seconds {
        var objects: [[String: Any]] = []
        objects.reserveCapacity(imported)
        for index in stored / 2..<(stored / 2 + imported) {
            objects.append(["name": "Trail \(index)", "rating": 4.9, "lengthKm": Double(index % 500), "notes": "Imported notes \(index)"])
        }
        let request = NSBatchInsertRequest(entityName: "Trail", objects: objects)
        request.resultType = .statusOnly
        _ = try context.execute(request)
    }
    for store in container.persistentStoreCoordinator.persistentStores { try container.persistentStoreCoordinator.remove(store) }
    check(url)
    return time
}

/// The object layer's own floor: 10,000 new trails (no name stored yet) inserted and saved
/// the same way. The constraint is checked, but finds nothing to merge.
func runOpenCoreDataInsertOnly() throws -> Double {
    let url = try freshCopy("ocd-insert.sqlite")
    let container = open(url)
    let context = container.viewContext
    context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
    let time = try seconds {
        for index in 0..<imported {
            let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
            trail.setValue("New trail \(index)", forKey: "name")
            trail.setValue(4.9, forKey: "rating")
            trail.setValue(Double(index % 500), forKey: "lengthKm")
            trail.setValue("Imported notes \(index)", forKey: "notes")
        }
        try context.save()
    }
    for store in container.persistentStoreCoordinator.persistentStores { try container.persistentStoreCoordinator.remove(store) }
    return time
}

/// What Core Data's API costs before any SQL runs: the same 10,000 trails created, inserted
/// into the context (registered, with temporary IDs) and given their four values through
/// `setValue(_:forKey:)`, without a save. Every Core Data upsert pays this first.
func runObjectsOnly() throws -> Double {
    let url = try freshCopy("ocd-objects.sqlite")
    let container = open(url)
    let context = container.viewContext
    context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
    let time = seconds {
        for index in stored / 2..<(stored / 2 + imported) {
            let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
            trail.setValue("Trail \(index)", forKey: "name")
            trail.setValue(4.9, forKey: "rating")
            trail.setValue(Double(index % 500), forKey: "lengthKm")
            trail.setValue("Imported notes \(index)", forKey: "notes")
        }
    }
    precondition(context.insertedObjects.count == imported)
    context.reset()
    for store in container.persistentStoreCoordinator.persistentStores { try container.persistentStoreCoordinator.remove(store) }
    return time
}

func runSQLite() throws -> Double {
    let url = try freshCopy("sql.sqlite")
    var db: OpaquePointer?
    sqlite3_open(url.path, &db)
    sqlite3_exec(db, "PRAGMA journal_mode=WAL", nil, nil, nil)
    let time = seconds {
        sqlite3_exec(db, "BEGIN EXCLUSIVE", nil, nil, nil)
        var select: OpaquePointer?
        sqlite3_prepare_v2(db, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 1", -1, &select, nil)
        sqlite3_step(select)
        var next = sqlite3_column_int64(select, 0)
        sqlite3_finalize(select)
        var upsert: OpaquePointer?
        sqlite3_prepare_v2(db, """
            INSERT INTO ZTRAIL(Z_PK, Z_ENT, Z_OPT, ZNAME, ZRATING, ZLENGTHKM, ZNOTES) VALUES(?, 1, 1, ?, ?, ?, ?)
            ON CONFLICT(ZNAME) DO UPDATE SET ZRATING = excluded.ZRATING, ZLENGTHKM = excluded.ZLENGTHKM,
            ZNOTES = excluded.ZNOTES, Z_OPT = Z_OPT + 1
            """, -1, &upsert, nil)
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for index in stored / 2..<(stored / 2 + imported) {
            next += 1
            sqlite3_bind_int64(upsert, 1, next)
            sqlite3_bind_text(upsert, 2, "Trail \(index)", -1, transient)
            sqlite3_bind_double(upsert, 3, 4.9)
            sqlite3_bind_double(upsert, 4, Double(index % 500))
            sqlite3_bind_text(upsert, 5, "Imported notes \(index)", -1, transient)
            precondition(sqlite3_step(upsert) == SQLITE_DONE, String(cString: sqlite3_errmsg(db)))
            sqlite3_reset(upsert)
        }
        sqlite3_finalize(upsert)
        writeKeyCounter(db, next)
        precondition(sqlite3_exec(db, "COMMIT", nil, nil, nil) == SQLITE_OK)
    }
    sqlite3_close(db)
    check(url)
    return time
}

/// A stand-in for a managed object with nothing but what Core Data's API makes every
/// object carry: an instance of its own (the API hands out one object per row), its
/// values as `Any` in slots (`setValue(_:forKey:)` takes `Any`, keyed by name).
final class FloorObject {
    /// The slot of each key: the name lookup `setValue(_:forKey:)` must make.
    static let slotByKey = ["name": 0, "rating": 1, "lengthKm": 2, "notes": 3]
    var values: [Any?] = [nil, nil, nil, nil]
    func setValue(_ value: Any?, forKey key: String) {
        guard let slot = Self.slotByKey[key] else { preconditionFailure("no key \(key)") }
        values[slot] = value
    }
}

/// The save floor: the least an upsert through a save does with Core Data's API, by hand
/// with the C API and the minimal objects above, and nothing else (no context, no object
/// IDs, no snapshots, no notifications, no row cache, no merge of values):
///
/// 1. 10,000 objects made and given their four values by name, kept in the order they
///    were inserted (the API's `insertNewObject` + `setValue(_:forKey:)`, before any SQL);
/// 2. the constraint's names looked up in the store, `SELECT Z_PK, Z_OPT, ZNAME … WHERE
///    ZNAME IN (…)` 500 names at a time, into a table by name: a save cannot know which
///    inserted objects are stored duplicates without asking the store, nor update one
///    without its key and its version (the update checks Z_OPT, optimistic locking);
/// 3. in one transaction, the 5,000 duplicates written over their stored rows
///    (`UPDATE ZTRAIL SET ZRATING = ?, ZLENGTHKM = ?, ZNOTES = ?, Z_OPT = ? WHERE Z_PK = ?
///    AND Z_OPT = ?`, every non-constraint column: knowing which changed would need the
///    stored values), the 5,000 others inserted with keys from Z_PRIMARYKEY, the key
///    counter updated: the statements a save of these objects runs.
///
/// What this leaves out is what a context does on top: object IDs and their registration,
/// the inserted-object set, snapshots and the row cache, the merge policy's comparison,
/// the change notifications, validation.
/// The save floor's CPU time by stage (objects, lookup, writes), one entry per run.
var saveFloorStages: [[Double]] = [[], [], []]

func runSaveFloor() throws -> Double {
    let url = try freshCopy("floor.sqlite")
    var db: OpaquePointer?
    sqlite3_open(url.path, &db)
    sqlite3_exec(db, "PRAGMA journal_mode=WAL", nil, nil, nil)
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    var marks: [Double] = []
    let time = seconds {
        marks.append(cpuSeconds())
        var objects: [FloorObject] = []
        objects.reserveCapacity(imported)
        for index in stored / 2..<(stored / 2 + imported) {
            let trail = FloorObject()
            trail.setValue("Trail \(index)", forKey: "name")
            trail.setValue(4.9, forKey: "rating")
            trail.setValue(Double(index % 500), forKey: "lengthKm")
            trail.setValue("Imported notes \(index)", forKey: "notes")
            objects.append(trail)
        }
        marks.append(cpuSeconds())
        sqlite3_exec(db, "BEGIN EXCLUSIVE", nil, nil, nil)
        // 2. The stored rows holding the inserted names.
        var storedRows: [String: (key: Int64, version: Int64)] = Dictionary(minimumCapacity: imported)
        let batch = 500
        var lookup: OpaquePointer?
        sqlite3_prepare_v2(db, "SELECT Z_PK, Z_OPT, ZNAME FROM ZTRAIL WHERE ZNAME IN (" + Array(repeating: "?", count: batch).joined(separator: ", ") + ")", -1, &lookup, nil)
        for start in stride(from: 0, to: objects.count, by: batch) {
            let end = min(start + batch, objects.count)
            for position in start..<end {
                sqlite3_bind_text(lookup, Int32(position - start + 1), objects[position].values[0] as! String, -1, transient)
            }
            for parameter in (end - start)..<batch { sqlite3_bind_null(lookup, Int32(parameter + 1)) }
            while sqlite3_step(lookup) == SQLITE_ROW {
                let name = String(cString: sqlite3_column_text(lookup, 2))
                storedRows[name] = (sqlite3_column_int64(lookup, 0), sqlite3_column_int64(lookup, 1))
            }
            sqlite3_reset(lookup)
        }
        sqlite3_finalize(lookup)
        marks.append(cpuSeconds())
        // 3. The writes.
        var select: OpaquePointer?
        sqlite3_prepare_v2(db, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 1", -1, &select, nil)
        sqlite3_step(select)
        var next = sqlite3_column_int64(select, 0)
        sqlite3_finalize(select)
        var insert: OpaquePointer?, update: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO ZTRAIL(Z_PK, Z_ENT, Z_OPT, ZNAME, ZRATING, ZLENGTHKM, ZNOTES) VALUES(?, 1, 1, ?, ?, ?, ?)", -1, &insert, nil)
        sqlite3_prepare_v2(db, "UPDATE ZTRAIL SET ZRATING = ?, ZLENGTHKM = ?, ZNOTES = ?, Z_OPT = ? WHERE Z_PK = ? AND Z_OPT = ?", -1, &update, nil)
        for object in objects {
            let name = object.values[0] as! String
            let rating = object.values[1] as! Double, lengthKm = object.values[2] as! Double, notes = object.values[3] as! String
            if let row = storedRows[name] {
                sqlite3_bind_double(update, 1, rating)
                sqlite3_bind_double(update, 2, lengthKm)
                sqlite3_bind_text(update, 3, notes, -1, transient)
                sqlite3_bind_int64(update, 4, row.version + 1)
                sqlite3_bind_int64(update, 5, row.key)
                sqlite3_bind_int64(update, 6, row.version)
                precondition(sqlite3_step(update) == SQLITE_DONE && sqlite3_changes(db) == 1, String(cString: sqlite3_errmsg(db)))
                sqlite3_reset(update)
            } else {
                next += 1
                sqlite3_bind_int64(insert, 1, next)
                sqlite3_bind_text(insert, 2, name, -1, transient)
                sqlite3_bind_double(insert, 3, rating)
                sqlite3_bind_double(insert, 4, lengthKm)
                sqlite3_bind_text(insert, 5, notes, -1, transient)
                precondition(sqlite3_step(insert) == SQLITE_DONE, String(cString: sqlite3_errmsg(db)))
                sqlite3_reset(insert)
            }
        }
        sqlite3_finalize(insert)
        sqlite3_finalize(update)
        writeKeyCounter(db, next)
        precondition(sqlite3_exec(db, "COMMIT", nil, nil, nil) == SQLITE_OK)
        marks.append(cpuSeconds())
    }
    for stage in 0..<3 { saveFloorStages[stage].append(marks[stage + 1] - marks[stage]) }
    sqlite3_close(db)
    check(url)
    return time
}

/// A trail row as a GRDB record, on the table OpenCoreData writes.
struct TrailRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "ZTRAIL"
    var Z_ENT: Int64 = 1
    var Z_OPT: Int64 = 1
    var ZNAME: String
    var ZRATING: Double
    var ZLENGTHKM: Double
    var ZNOTES: String
}

func runGRDB() throws -> Double {
    let url = try freshCopy("grdb.sqlite")
    var configuration = Configuration()
    configuration.journalMode = .wal
    let dbQueue = try DatabaseQueue(path: url.path, configuration: configuration)
    let time = try seconds {
        try dbQueue.write { db in
            for index in stored / 2..<(stored / 2 + imported) {
                let record = TrailRecord(ZNAME: "Trail \(index)", ZRATING: 4.9, ZLENGTHKM: Double(index % 500), ZNOTES: "Imported notes \(index)")
                try record.upsert(db)
            }
        }
    }
    try dbQueue.close()
    check(url)
    return time
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

// `upsert-benchmarks N --upsert-only`: the upsert by a save alone, N times, so that a
// profiler or a counter over the whole process sees no other subject's work.
if arguments.contains("--upsert-only") {
    var times: [Double] = [], cpu: [Double] = []
    for _ in 0..<repetitions { times.append(try runOpenCoreData()); cpu.append(lastCPUSeconds) }
    print(String(format: "upsert alone, medians: %.1f ms, CPU %.1f ms", median(times) * 1000, median(cpu) * 1000))
    exit(0)
}

var sqliteTimes: [Double] = [], openCoreDataTimes: [Double] = [], insertOnlyTimes: [Double] = [], grdbTimes: [Double] = []
var objectsOnlyTimes: [Double] = [], batchInsertTimes: [Double] = [], saveFloorTimes: [Double] = []
/// CPU times, by subject, in the order of `cpuNames`.
let cpuNames = ["SQLite", "GRDB", "upsert", "batch upsert", "insert only", "objects only", "save floor"]
var cpuTimes: [[Double]] = Array(repeating: [], count: cpuNames.count)
for _ in 0..<repetitions {
    sqliteTimes.append(try runSQLite()); cpuTimes[0].append(lastCPUSeconds)
    grdbTimes.append(try runGRDB()); cpuTimes[1].append(lastCPUSeconds)
    openCoreDataTimes.append(try runOpenCoreData()); cpuTimes[2].append(lastCPUSeconds)
    batchInsertTimes.append(try runBatchInsert()); cpuTimes[3].append(lastCPUSeconds)
    insertOnlyTimes.append(try runOpenCoreDataInsertOnly()); cpuTimes[4].append(lastCPUSeconds)
    objectsOnlyTimes.append(try runObjectsOnly()); cpuTimes[5].append(lastCPUSeconds)
    saveFloorTimes.append(try runSaveFloor()); cpuTimes[6].append(lastCPUSeconds)
}
let floor = median(sqliteTimes), ours = median(openCoreDataTimes), insertOnly = median(insertOnlyTimes)
print("| \(imported) objects, half stored | median | ÷ SQLite upsert |")
print("|---|---:|---:|")
print(String(format: "| SQLite C API, INSERT … ON CONFLICT DO UPDATE | %.1f ms | 1.00 |", floor * 1000))
print(String(format: "| GRDB 7.10.0, record upsert(_:) | %.1f ms | %.2f |", median(grdbTimes) * 1000, median(grdbTimes) / floor))
print(String(format: "| OpenCoreData, constraint + object trump (upsert) | %.1f ms | %.2f |", ours * 1000, ours / floor))
let batchInsert = median(batchInsertTimes)
print(String(format: "| OpenCoreData, NSBatchInsertRequest + object trump (batch upsert) | %.1f ms | %.2f |", batchInsert * 1000, batchInsert / floor))
print(String(format: "| OpenCoreData, the same objects all new (insert only) | %.1f ms | %.2f |", insertOnly * 1000, insertOnly / floor))
let objectsOnly = median(objectsOnlyTimes)
print(String(format: "| OpenCoreData, objects and values only, no save (object floor) | %.1f ms | %.2f |", objectsOnly * 1000, objectsOnly / floor))
let saveFloor = median(saveFloorTimes)
print(String(format: "| Save floor: minimal objects, key lookup, UPDATE/INSERT by hand (C API) | %.1f ms | %.2f |", saveFloor * 1000, saveFloor / floor))
print(String(format: "Save floor CPU by stage, medians: objects %.1f ms, key lookup %.1f ms, writes %.1f ms",
             median(saveFloorStages[0]) * 1000, median(saveFloorStages[1]) * 1000, median(saveFloorStages[2]) * 1000))
func list(_ times: [Double]) -> String { times.map { String(format: "%.1f", $0 * 1000) }.joined(separator: ", ") }
let cpuFloor = median(cpuTimes[0])
print("CPU time (user + system), medians: " + zip(cpuNames, cpuTimes).map { name, times in
    name + String(format: " %.1f ms (%.2f×)", median(times) * 1000, median(times) / cpuFloor)
}.joined(separator: ", "))
print("repetitions: \(repetitions); runs (ms): SQLite [\(list(sqliteTimes))], GRDB [\(list(grdbTimes))], upsert [\(list(openCoreDataTimes))], batch upsert [\(list(batchInsertTimes))], insert only [\(list(insertOnlyTimes))], objects only [\(list(objectsOnlyTimes))], save floor [\(list(saveFloorTimes))]")

/// Stores the last primary key handed out in `Z_PRIMARYKEY`, as a save does.
func writeKeyCounter(_ db: OpaquePointer?, _ last: Int64) {
    var counter: OpaquePointer?
    sqlite3_prepare_v2(db, "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = 1", -1, &counter, nil)
    sqlite3_bind_int64(counter, 1, last)
    precondition(sqlite3_step(counter) == SQLITE_DONE, String(cString: sqlite3_errmsg(db)))
    sqlite3_finalize(counter)
}
