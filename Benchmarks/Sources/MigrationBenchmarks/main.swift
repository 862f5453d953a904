// Lightweight migration of a 100,000-row store against the same change in hand-written SQL.
//
//     swift run -c release --package-path Benchmarks migration-benchmarks [repetitions]
//
// A version 1 store of 100,000 trails (name, lengthKm, notes, with an index on name) is
// written once, untimed. Version 2 renames `lengthKm` to `distanceKm` (through its renaming
// identifier) and adds an optional `region`. Each repetition copies the version 1 file
// afresh, then times one of:
//
// - OpenCoreData: `addPersistentStore` with the migration options on, the store found to
//   be version 1 and migrated to version 2 (source model found among the versions of the
//   .xcdatamodeld, mapping inferred, SQL run in the file), then opened;
// - hand-written SQL: open the file with SQLite's C API, `BEGIN EXCLUSIVE`,
//   `ALTER TABLE ZTRAIL RENAME COLUMN ZLENGTHKM TO ZDISTANCEKM`,
//   `ALTER TABLE ZTRAIL ADD COLUMN ZREGION VARCHAR`, write the new metadata row (its
//   property list made beforehand, untimed), `COMMIT`, close.
//
// Medians of wall-clock time, and their ratio (goal: OpenCoreData ≤ 1.5 × hand-written).
// Each run is checked: the migrated store holds 100,000 rows and the lengths moved.
import Foundation
import GRDBSQLite
import OpenCoreData

let arguments = CommandLine.arguments
let repetitions = arguments.count > 1 ? Int(arguments[1]) ?? 9 : 9
let rows = 100_000

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("migration-benchmarks-\(getpid())", isDirectory: true)
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

// The versioned model, on disk as Xcode writes it.
let bundle = directory.appendingPathComponent("Trails.xcdatamodeld", isDirectory: true)
func writeVersion(_ name: String, _ identifier: String, _ attributes: String) throws {
    let folder = bundle.appendingPathComponent("\(name).xcdatamodel", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let xml = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="\(identifier)">
            <entity name="Trail" representedClassName="Trail" syncable="YES">
        \(attributes)
            </entity>
        </model>
        """
    try Data(xml.utf8).write(to: folder.appendingPathComponent("contents"))
}
try writeVersion("Trails", "1", """
        <attribute name="lengthKm" optional="YES" attributeType="Double" usesScalarValueType="NO"/>
        <attribute name="name" attributeType="String" indexed="YES"/>
        <attribute name="notes" optional="YES" attributeType="String"/>
""")
try writeVersion("Trails2", "2", """
        <attribute name="distanceKm" optional="YES" attributeType="Double" usesScalarValueType="NO" elementID="lengthKm"/>
        <attribute name="name" attributeType="String" indexed="YES"/>
        <attribute name="notes" optional="YES" attributeType="String"/>
        <attribute name="region" optional="YES" attributeType="String"/>
""")
// A second destination, in its own model folder: an entity sorting before Trail takes
// entity number 1, so Trail's rows change Z_ENT and its table is rebuilt.
let rebuildBundle = directory.appendingPathComponent("Rebuild.xcdatamodeld", isDirectory: true)
for (name, identifier, entities) in [("Rebuild", "1", ""), ("Rebuild2", "2", """
        <entity name="Badge" representedClassName="Badge" syncable="YES">
            <attribute name="label" optional="YES" attributeType="String"/>
        </entity>
""")] {
    let folder = rebuildBundle.appendingPathComponent("\(name).xcdatamodel", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let xml = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="\(identifier)">
        \(entities)
            <entity name="Trail" representedClassName="Trail" syncable="YES">
                <attribute name="lengthKm" optional="YES" attributeType="Double" usesScalarValueType="NO"/>
                <attribute name="name" attributeType="String" indexed="YES"/>
                <attribute name="notes" optional="YES" attributeType="String"/>
            </entity>
        </model>
        """
    try Data(xml.utf8).write(to: folder.appendingPathComponent("contents"))
}
try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": "Rebuild2.xcdatamodel"], format: .xml, options: 0)
    .write(to: rebuildBundle.appendingPathComponent(".xccurrentversion"))

let currentVersion = ["_XCCurrentVersionName": "Trails2.xcdatamodel"]
try PropertyListSerialization.data(fromPropertyList: currentVersion, format: .xml, options: 0)
    .write(to: bundle.appendingPathComponent(".xccurrentversion"))

// The version 1 store, written once.
let template = directory.appendingPathComponent("template.sqlite")
do {
    let v1 = NSManagedObjectModel(contentsOf: bundle.appendingPathComponent("Trails.xcdatamodel"))!
    let container = NSPersistentContainer(name: "Trails", managedObjectModel: v1)
    container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: template)]
    container.loadPersistentStores { _, error in if let error { fatalError("\(error)") } }
    let objects: [[String: Any]] = (0..<rows).map { index in
        ["name": "Trail \(index)", "lengthKm": Double(index % 500) / 10, "notes": "Notes about trail \(index)"]
    }
    let insert = NSBatchInsertRequest(entityName: "Trail", objects: objects)
    _ = try container.viewContext.execute(insert)
    for store in container.persistentStoreCoordinator.persistentStores { try container.persistentStoreCoordinator.remove(store) }
}
// Checkpoint the WAL into the file so each copy is one self-contained file.
do {
    var db: OpaquePointer?
    sqlite3_open(template.path, &db)
    sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nil, nil, nil)
    sqlite3_close(db)
}

let v2 = NSManagedObjectModel(contentsOf: bundle)!
let rebuilt = NSManagedObjectModel(contentsOf: rebuildBundle)!
/// Version 2's metadata property list, made untimed for the hand-written subject.
let v2Plist: Data = {
    var metadata = try! NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: template)
    metadata[NSStoreModelVersionHashesKey] = v2.entityVersionHashesByName
    metadata[NSStoreModelVersionIdentifiersKey] = ["2"]
    return try! PropertyListSerialization.data(fromPropertyList: metadata, format: .binary, options: 0)
}()

func freshCopy(_ name: String) throws -> URL {
    let url = directory.appendingPathComponent(name)
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    try FileManager.default.copyItem(at: template, to: url)
    return url
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func exec(_ db: OpaquePointer?, _ sql: String) {
    guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { fatalError("\(sql): \(String(cString: sqlite3_errmsg(db)))") }
}

func handWritten(_ url: URL) {
    var db: OpaquePointer?
    guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else { fatalError("open") }
    exec(db, "PRAGMA journal_mode=wal")
    exec(db, "PRAGMA synchronous=full")
    exec(db, "BEGIN EXCLUSIVE")
    exec(db, "ALTER TABLE ZTRAIL RENAME COLUMN ZLENGTHKM TO ZDISTANCEKM")
    exec(db, "ALTER TABLE ZTRAIL ADD COLUMN ZREGION VARCHAR")
    var statement: OpaquePointer?
    sqlite3_prepare_v2(db, "UPDATE Z_METADATA SET Z_PLIST = ? WHERE Z_VERSION = 1", -1, &statement, nil)
    _ = v2Plist.withUnsafeBytes { bytes in sqlite3_bind_blob(statement, 1, bytes.baseAddress, Int32(bytes.count), nil) }
    guard sqlite3_step(statement) == SQLITE_DONE else { fatalError("metadata") }
    sqlite3_finalize(statement)
    exec(db, "COMMIT")
    sqlite3_close(db)
}

/// The rebuild done by hand, as SQLite's documentation describes a table change: new
/// table, copy, drop, rename, index, then the bookkeeping rows.
let rebuiltPlist: Data = {
    var metadata = try! NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: template)
    metadata[NSStoreModelVersionHashesKey] = rebuilt.entityVersionHashesByName
    metadata[NSStoreModelVersionIdentifiersKey] = ["2"]
    return try! PropertyListSerialization.data(fromPropertyList: metadata, format: .binary, options: 0)
}()

func handWrittenRebuild(_ url: URL) {
    var db: OpaquePointer?
    guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else { fatalError("open") }
    exec(db, "PRAGMA journal_mode=wal")
    exec(db, "PRAGMA synchronous=full")
    exec(db, "BEGIN EXCLUSIVE")
    exec(db, "DROP INDEX Z_Trail_name")
    exec(db, "ALTER TABLE ZTRAIL RENAME TO Z_OLD_ZTRAIL")
    exec(db, "CREATE TABLE ZTRAIL ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZLENGTHKM FLOAT, ZNAME VARCHAR, ZNOTES VARCHAR )")
    exec(db, "INSERT INTO ZTRAIL (Z_PK, Z_ENT, Z_OPT, ZLENGTHKM, ZNAME, ZNOTES) SELECT Z_PK, 2, Z_OPT, ZLENGTHKM, ZNAME, ZNOTES FROM Z_OLD_ZTRAIL")
    exec(db, "DROP TABLE Z_OLD_ZTRAIL")
    exec(db, "CREATE TABLE ZBADGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZLABEL VARCHAR )")
    exec(db, "CREATE INDEX Z_Trail_name ON ZTRAIL (ZNAME COLLATE BINARY ASC)")
    exec(db, "UPDATE Z_PRIMARYKEY SET Z_ENT = 2 WHERE Z_ENT = 1")
    exec(db, "INSERT INTO Z_PRIMARYKEY(Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES(1, 'Badge', 0, 0)")
    var statement: OpaquePointer?
    sqlite3_prepare_v2(db, "UPDATE Z_METADATA SET Z_PLIST = ? WHERE Z_VERSION = 1", -1, &statement, nil)
    _ = rebuiltPlist.withUnsafeBytes { bytes in sqlite3_bind_blob(statement, 1, bytes.baseAddress, Int32(bytes.count), nil) }
    guard sqlite3_step(statement) == SQLITE_DONE else { fatalError("metadata") }
    sqlite3_finalize(statement)
    exec(db, "COMMIT")
    sqlite3_close(db)
}

func openCoreData(_ url: URL, model: NSManagedObjectModel = v2) throws {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: [
        NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
    ])
    try coordinator.remove(store)
}

/// The migrated file holds every row, with the lengths under their new column.
func check(_ url: URL) {
    var db: OpaquePointer?
    sqlite3_open(url.path, &db)
    defer { sqlite3_close(db) }
    var statement: OpaquePointer?
    sqlite3_prepare_v2(db, "SELECT count(*), sum(ZDISTANCEKM), count(ZREGION) FROM ZTRAIL", -1, &statement, nil)
    defer { sqlite3_finalize(statement) }
    guard sqlite3_step(statement) == SQLITE_ROW, sqlite3_column_int64(statement, 0) == Int64(rows),
        sqlite3_column_double(statement, 1) > 0, sqlite3_column_int64(statement, 2) == 0
    else { fatalError("\(url.lastPathComponent) was not migrated as expected") }
}

/// The rebuilt file holds every row under entity number 2, and the name index.
func checkRebuilt(_ url: URL) {
    var db: OpaquePointer?
    sqlite3_open(url.path, &db)
    defer { sqlite3_close(db) }
    var statement: OpaquePointer?
    sqlite3_prepare_v2(db, "SELECT count(*), min(Z_ENT), max(Z_ENT), (SELECT count(*) FROM sqlite_master WHERE name = 'Z_Trail_name') FROM ZTRAIL", -1, &statement, nil)
    defer { sqlite3_finalize(statement) }
    guard sqlite3_step(statement) == SQLITE_ROW, sqlite3_column_int64(statement, 0) == Int64(rows),
        sqlite3_column_int64(statement, 1) == 2, sqlite3_column_int64(statement, 2) == 2, sqlite3_column_int64(statement, 3) == 1
    else { fatalError("\(url.lastPathComponent) was not rebuilt as expected") }
}

var times: [String: [Double]] = ["OpenCoreData": [], "Hand-written SQL": [], "OpenCoreData rebuild": [], "Hand-written rebuild": []]
for _ in 0..<repetitions {
    let sqlURL = try freshCopy("sql.sqlite")
    times["Hand-written SQL"]!.append(seconds { handWritten(sqlURL) })
    check(sqlURL)
    let ocdURL = try freshCopy("ocd.sqlite")
    times["OpenCoreData"]!.append(try seconds { try openCoreData(ocdURL) })
    check(ocdURL)
    let sqlRebuildURL = try freshCopy("sql-rebuild.sqlite")
    times["Hand-written rebuild"]!.append(seconds { handWrittenRebuild(sqlRebuildURL) })
    checkRebuilt(sqlRebuildURL)
    let ocdRebuildURL = try freshCopy("ocd-rebuild.sqlite")
    times["OpenCoreData rebuild"]!.append(try seconds { try openCoreData(ocdRebuildURL, model: rebuilt) })
    checkRebuilt(ocdRebuildURL)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}
let sql = median(times["Hand-written SQL"]!), ocd = median(times["OpenCoreData"]!)
print("Lightweight migration of \(rows) rows (rename one attribute, add one), \(repetitions) repetitions, medians:")
print("")
print("| Subject | Median | Ratio |")
print("|---|---:|---:|")
print("| Hand-written SQL | \(String(format: "%.2f", sql * 1000)) ms | 1.00 |")
print("| OpenCoreData | \(String(format: "%.2f", ocd * 1000)) ms | \(String(format: "%.2f", ocd / sql)) |")
let sqlRebuild = median(times["Hand-written rebuild"]!), ocdRebuild = median(times["OpenCoreData rebuild"]!)
print("")
print("A new entity sorting first (Trail's rows change entity number: the table is rebuilt):")
print("")
print("| Subject | Median | Ratio |")
print("|---|---:|---:|")
print("| Hand-written SQL | \(String(format: "%.2f", sqlRebuild * 1000)) ms | 1.00 |")
print("| OpenCoreData | \(String(format: "%.2f", ocdRebuild * 1000)) ms | \(String(format: "%.2f", ocdRebuild / sqlRebuild)) |")
