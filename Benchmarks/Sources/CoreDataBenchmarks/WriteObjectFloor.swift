import Foundation
import GRDBSQLite

/// What the three writing phases (insert and save, change one attribute on all and save,
/// delete all and save) cost at the least once the work Core Data's API obliges on this
/// platform is added to the floor's own loops, one obligation at a time.
///
/// Each level does everything the previous one does, with the cheapest Swift written for
/// it, and no OpenCoreData code at all:
///
/// 1. the floor's loops, the same as `RawSQLiteSubject`'s;
/// 2. one object per row holding its values, with an object ID that is an object too
///    (`NSManagedObjectID` is a class): `NSManagedObject(entity:insertInto:)` makes one per
///    inserted row, with a temporary ID replaced by a permanent one at the save; update and
///    delete begin with a fetch, which returns one object per row with every attribute's
///    value (Core Data's `SELECT` reads every column); the save binds from the objects;
/// 3. the context's and the store's tables: a registry from ID to object that does not own
///    the object, which takes its entry out as it is freed (uniquing; inserted objects are
///    registered under their temporary ID, then their permanent one); the sets of inserted,
///    updated and deleted objects (`insertedObjects`, …), which own their objects until the
///    save, kept as lists with a flag on each object for membership (as OpenCoreData keeps
///    them: a dictionary keyed by object costs more than OpenCoreData's whole phase), with
///    each object's changed attributes, so that an `UPDATE` sets only those;
///    and a snapshot of every fetched or saved row (the row cache), which `refresh` and
///    `Z_OPT`'s optimistic locking need: updates and deletions carry `AND Z_OPT = ?` with
///    the snapshot's version, as Core Data's statements do, and the save stores the new
///    snapshots or drops those of deleted rows, and unregisters deleted objects;
/// 4. key-value coding, as the benchmark's code calls it: `setValue(_:forKey:)` with a
///    `String` key and an `Any?` value, `value(forKey:)` returning the number boxed in an
///    `NSNumber`, which the caller's `as! Int32` bridges back;
/// 5. the save's own obligations per object: `processPendingChanges` posts
///    `NSManagedObjectContextObjectsDidChange` with the sets of changed objects, then the
///    will-save notification, `willSave()` on each object, validation
///    (`validateForInsert`/`validateForUpdate` go through every property, checking its
///    value against its type and optionality; `validateForDelete` is called too), the
///    next primary keys taken from `Z_PRIMARYKEY`'s `Z_MAX`, `didSave()` on each object
///    and the did-save notification, whose user info holds the sets of saved objects.
///
/// If the last level is over 2.5× level 1 on a phase, no object layer with Core Data's
/// API meets issue 16's goal on that phase, however lean the rest of it is.
enum WriteObjectFloor {
    static let levels = [
        "1. SQLite C API: the floor's statements",
        "2. + an object per row holding its values, with an ID object",
        "3. + registry, change sets, row snapshots (Z_OPT in the WHERE)",
        "4. + setValue(_:forKey:) / value(forKey:), NSNumber, as! Int32",
        "5. + save: notifications, willSave/didSave, validation, Z_MAX",
    ]

    /// The three phases, in the order every subject runs them.
    static let phases: [Phase] = [.insert, .updateAll, .deleteAll]

    /// Times each level's three phases on a fresh file, `repetitions` times (levels
    /// interleaved), and prints a Markdown table of wall and CPU medians.
    static func run(rows: Int, repetitions: Int, scratch: URL) throws {
        // [phase][level] -> runs
        var wall = Array(repeating: Array(repeating: [Double](), count: levels.count), count: phases.count)
        var cpu = wall
        var checksums = Array(repeating: Set<Int>(), count: phases.count)
        for _ in 0..<repetitions {
            for level in 1...levels.count {
                let url = scratch.appendingPathComponent("write-floor-\(level).sqlite")
                for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
                try FloorDatabase(url).createPrimaryKeyTable()  // Core Data's schema, made when the store loads
                for (index, phase) in phases.enumerated() {
                    let database = try FloorDatabase(url)  // a fresh connection per phase, as each subject has
                    let rowCache = RowCache()  // the store's, outliving the phase's objects
                    let start = monotonicSeconds(), cpuStart = cpuSeconds()
                    let checksum = try run(phase, level: level, rows: rows, database: database, rowCache: rowCache)
                    wall[index][level - 1].append(monotonicSeconds() - start)
                    cpu[index][level - 1].append(cpuSeconds() - cpuStart)
                    checksums[index].insert(checksum)
                    withExtendedLifetime(rowCache) {}
                }
                for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
            }
        }
        for (index, sums) in checksums.enumerated() where sums.count != 1 {
            throw BenchmarkError("the levels disagree on \(phases[index].rawValue): checksums \(sums.sorted())")
        }
        print("\(rows.grouped) rows; medians of \(repetitions) runs of each level, in one process, each level's three phases on a fresh file with a fresh connection per phase; every level returned the same checksums.")
        for (index, phase) in phases.enumerated() {
            let wallMedians = wall[index].map(median), cpuMedians = cpu[index].map(median)
            print("")
            print("| \(phase.title): level | wall s | ÷ level 1 | CPU s | ÷ level 1 | CPU µs per row |")
            print("|---|---:|---:|---:|---:|---:|")
            for level in levels.indices {
                print("| \(levels[level]) | \(format(wallMedians[level])) | \(format(wallMedians[level] / wallMedians[0], 2))× | \(format(cpuMedians[level])) | \(format(cpuMedians[level] / cpuMedians[0], 2))× | \(format(cpuMedians[level] / Double(rows) * 1e6, 2)) |")
            }
        }
    }

    private static func run(_ phase: Phase, level: Int, rows: Int, database: FloorDatabase, rowCache: RowCache) throws -> Int {
        switch phase {
        case .insert: return try insert(level: level, rows: rows, database, rowCache)
        case .updateAll: return try updateAll(level: level, database, rowCache)
        default: return try deleteAll(level: level, database, rowCache)
        }
    }

    // MARK: insert

    private static func insert(level: Int, rows: Int, _ database: FloorDatabase, _ rowCache: RowCache) throws -> Int {
        try database.exec("""
            CREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR,
            ZCATEGORY VARCHAR, ZPRICE FLOAT, ZQUANTITY INTEGER, ZCREATEDAT TIMESTAMP, ZISACTIVE INTEGER,
            ZNOTES VARCHAR, ZCODE INTEGER)
            """)
        if level == 1 { return try RawSQLiteSubject.insertRows(database.db, count: rows) }

        let context = FloorContext()
        var objects: [FloorObject] = []  // level 2: what the context keeps until the save
        for index in 0..<rows {
            let item = ItemValues(index: index)
            let object = FloorObject(id: FloorObjectID(primaryKey: 0))
            if level >= 4 {
                object.setValue(item.name, forKey: "name")
                object.setValue(item.category, forKey: "category")
                object.setValue(item.price, forKey: "price")
                object.setValue(item.quantity, forKey: "quantity")
                object.setValue(item.createdAt, forKey: "createdAt")
                object.setValue(item.isActive, forKey: "isActive")
                object.setValue(item.notes, forKey: "notes")
                object.setValue(item.code, forKey: "code")
            } else {
                object.values = [item.name, item.category, item.price, item.quantity, item.createdAt, item.isActive, item.notes, item.code]
            }
            if level >= 3 { context.insert(object) } else { objects.append(object) }
        }

        // save
        let saved: [FloorObject] = level >= 3 ? context.inserted : objects
        var firstKey: Int64 = 1
        if level >= 5 {
            context.announceSave(inserted: saved, updated: [], deleted: [])
            for object in saved {
                object.willSave()
                guard object.validateForSave() else { throw BenchmarkError("invalid object") }
            }
            firstKey = try database.reservePrimaryKeys(saved.count)
        }
        try database.exec("BEGIN EXCLUSIVE")
        let statement = try database.prepare("INSERT INTO ZITEM VALUES (?, 1, 1, ?, ?, ?, ?, ?, ?, ?, ?)")
        defer { sqlite3_finalize(statement) }
        var key = firstKey
        for object in saved {
            let values = object.values
            sqlite3_bind_int64(statement, 1, key)
            bindText(statement, 2, values[0] as! String)
            bindText(statement, 3, values[1] as! String)
            sqlite3_bind_double(statement, 4, values[2] as! Double)
            sqlite3_bind_int64(statement, 5, Int64(values[3] as! Int32))
            sqlite3_bind_double(statement, 6, (values[4] as! Date).timeIntervalSinceReferenceDate)
            sqlite3_bind_int64(statement, 7, (values[5] as! Bool) ? 1 : 0)
            bindText(statement, 8, values[6] as! String)
            sqlite3_bind_int64(statement, 9, values[7] as! Int64)
            try database.step(statement)
            sqlite3_reset(statement)
            key += 1
        }
        try database.exec("COMMIT")
        key = firstKey
        for object in saved {
            let permanent = FloorObjectID(primaryKey: key)
            if level >= 3 {
                context.reregister(object, as: permanent)
                object.changed = 0
                object.isInserted = false
                rowCache.rows[key] = (version: 1, values: object.values)
            } else {
                object.id = permanent
            }
            key += 1
        }
        if level >= 5 {
            for object in saved { object.didSave() }
            context.announceDidSave()
        }
        context.inserted.removeAll()
        return rows
    }

    // MARK: update

    private static func updateAll(level: Int, _ database: FloorDatabase, _ rowCache: RowCache) throws -> Int {
        var checksum = 0
        if level == 1 { return try RawSQLiteSubject.updateEveryRow(database.db) }

        let context = FloorContext()
        let objects = try fetchAll(level: level, database, context, rowCache)
        for object in objects {
            if level >= 4 {
                let quantity = (object.value(forKey: "quantity") as! Int32) + 1
                object.setValue(quantity, forKey: "quantity")
                checksum &+= Int(quantity)
            } else {
                let quantity = (object.values[3] as! Int32) + 1
                object.values[3] = quantity
                checksum &+= Int(quantity)
            }
            if level >= 3 {
                object.changed |= 1 << 3
                if !object.isUpdated {
                    object.isUpdated = true
                    context.updated.append(object)
                }
            }
        }

        // save
        let saved: [FloorObject] = level >= 3 ? context.updated : objects
        if level >= 5 {
            context.announceSave(inserted: [], updated: saved, deleted: [])
            for object in saved {
                object.willSave()
                guard object.validateForSave() else { throw BenchmarkError("invalid object") }
            }
        }
        try database.exec("BEGIN EXCLUSIVE")
        // Only `quantity` changed, so only its column is set (level 3 knows it from the
        // changed bits; the statement for that set of columns is the one prepared here).
        let statement = try database.prepare("UPDATE ZITEM SET ZQUANTITY = ?, Z_OPT = ? WHERE Z_PK = ? AND Z_OPT = ?")
        defer { sqlite3_finalize(statement) }
        for object in saved {
            guard level < 3 || object.changed == 1 << 3 else { throw BenchmarkError("unexpected changes") }
            sqlite3_bind_int64(statement, 1, Int64(object.values[3] as! Int32))
            sqlite3_bind_int64(statement, 2, object.version + 1)
            sqlite3_bind_int64(statement, 3, object.id.primaryKey)
            sqlite3_bind_int64(statement, 4, object.version)
            try database.step(statement)
            sqlite3_reset(statement)
        }
        try database.exec("COMMIT")
        for object in saved {
            object.version += 1
            if level >= 3 {
                object.changed = 0
                object.isUpdated = false
                rowCache.rows[object.id.primaryKey] = (version: object.version, values: object.values)
            }
        }
        if level >= 5 {
            for object in saved { object.didSave() }
            context.announceDidSave()
        }
        context.updated.removeAll()
        return checksum
    }

    // MARK: delete

    private static func deleteAll(level: Int, _ database: FloorDatabase, _ rowCache: RowCache) throws -> Int {
        if level == 1 { return try RawSQLiteSubject.deleteEveryRow(database.db) }

        let context = FloorContext()
        let objects = try fetchAll(level: level, database, context, rowCache)
        for object in objects {
            guard !object.isDeleted else { continue }
            object.isDeleted = true
            if level >= 3 { context.deleted.append(object) }
        }

        // save
        let saved: [FloorObject] = level >= 3 ? context.deleted : objects.filter(\.isDeleted)
        if level >= 5 {
            context.announceSave(inserted: [], updated: [], deleted: saved)
            for object in saved {
                object.willSave()
                guard object.validateForDelete() else { throw BenchmarkError("invalid deletion") }
            }
        }
        try database.exec("BEGIN EXCLUSIVE")
        let statement = try database.prepare(level >= 3 ? "DELETE FROM ZITEM WHERE Z_PK = ? AND Z_OPT = ?" : "DELETE FROM ZITEM WHERE Z_PK = ?")
        defer { sqlite3_finalize(statement) }
        for object in saved {
            sqlite3_bind_int64(statement, 1, object.id.primaryKey)
            if level >= 3 { sqlite3_bind_int64(statement, 2, object.version) }
            try database.step(statement)
            sqlite3_reset(statement)
        }
        try database.exec("COMMIT")
        if level >= 3 {
            for object in saved {
                context.unregister(object)
                object.isDeleted = false
                rowCache.rows[object.id.primaryKey] = nil
            }
        }
        if level >= 5 {
            for object in saved { object.didSave() }
            context.announceDidSave()
        }
        context.deleted.removeAll()
        return saved.count
    }

    /// Every row as an object holding its values, as a fetch of the entity returns them
    /// (levels 2 and up); from level 3 registered, with the row's snapshot in the cache.
    private static func fetchAll(level: Int, _ database: FloorDatabase, _ context: FloorContext, _ rowCache: RowCache) throws -> [FloorObject] {
        var objects: [FloorObject] = []
        // Sized in advance, generously, as ObjectLayerFloor's fetch is (and OpenCoreData's
        // registry and row cache are, before a large fetch).
        objects.reserveCapacity(ItemValues.count)
        if level >= 3 {
            context.registered.reserveCapacity(ItemValues.count)
            rowCache.rows.reserveCapacity(ItemValues.count)
        }
        try database.query("SELECT Z_PK, Z_ENT, Z_OPT, ZNAME, ZCATEGORY, ZPRICE, ZQUANTITY, ZCREATEDAT, ZISACTIVE, ZNOTES, ZCODE FROM ZITEM") { row in
            let primaryKey = sqlite3_column_int64(row, 0)
            if level >= 3, let known = context.registered[primaryKey] {
                objects.append(known.takeUnretainedValue())
                return
            }
            let values: [Any?] = [
                String(cString: sqlite3_column_text(row, 3)), String(cString: sqlite3_column_text(row, 4)),
                sqlite3_column_double(row, 5), Int32(truncatingIfNeeded: sqlite3_column_int64(row, 6)),
                Date(timeIntervalSinceReferenceDate: sqlite3_column_double(row, 7)), sqlite3_column_int64(row, 8) != 0,
                String(cString: sqlite3_column_text(row, 9)), sqlite3_column_int64(row, 10),
            ]
            let object = FloorObject(id: FloorObjectID(primaryKey: primaryKey))
            object.values = values
            object.version = sqlite3_column_int64(row, 2)
            if level >= 3 {
                context.register(object)
                rowCache.rows[primaryKey] = (version: object.version, values: values)
            }
            objects.append(object)
        }
        return objects
    }
}

/// One connection with the floor's durability (WAL, fsync at commit).
private final class FloorDatabase {
    let db: OpaquePointer

    init(_ url: URL) throws {
        var db: OpaquePointer?
        guard sqlite3_open(url.path, &db) == SQLITE_OK, let db else { throw BenchmarkError("cannot open \(url.path)") }
        self.db = db
        try exec("PRAGMA journal_mode = WAL")
        try exec("PRAGMA synchronous = FULL")
    }

    deinit { sqlite3_close(db) }

    func exec(_ sql: String) throws { try sqliteExec(db, sql) }
    func prepare(_ sql: String) throws -> OpaquePointer { try prepareStatement(db, sql) }
    func query(_ sql: String, _ body: (OpaquePointer) throws -> Void) throws { try sqliteQuery(db, sql, body) }
    func step(_ statement: OpaquePointer) throws { try sqliteStep(db, statement) }

    /// Core Data's key table, one row per entity.
    func createPrimaryKeyTable() throws {
        try exec("CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
        try exec("INSERT INTO Z_PRIMARYKEY VALUES (1, 'Item', 0, 0)")
    }

    /// Takes `count` keys from `Z_MAX` in a transaction of its own, as a store hands out
    /// permanent IDs before writing the rows; returns the first.
    func reservePrimaryKeys(_ count: Int) throws -> Int64 {
        try exec("BEGIN EXCLUSIVE")
        var maximum: Int64 = 0
        try query("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 1") { maximum = sqlite3_column_int64($0, 0) }
        let statement = try prepare("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = 1 AND Z_MAX = ?")
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_int64(statement, 1, maximum + Int64(count))
        sqlite3_bind_int64(statement, 2, maximum)
        try step(statement)
        try exec("COMMIT")
        return maximum + 1
    }
}

/// The store's row cache: each row's version and values, shared with the object's values
/// until one of them changes.
private final class RowCache {
    var rows: [Int64: (version: Int64, values: [Any?])] = [:]
}

private final class FloorObjectID: NSObject {
    /// 0 for a temporary ID.
    let primaryKey: Int64
    init(primaryKey: Int64) { self.primaryKey = primaryKey }
}

/// The attributes' types, in the entity's order, for validation.
private enum AttributeKind { case string, double, int32, date, bool, int64 }
private let attributeKinds: [AttributeKind] = [.string, .string, .double, .int32, .date, .bool, .string, .int64]

private final class FloorObject: NSObject {
    var id: FloorObjectID
    var values: [Any?] = Array(repeating: nil, count: 8)
    /// The row's `Z_OPT` as last fetched or saved.
    var version: Int64 = 0
    /// Bits of the attributes changed since the last save (level 3 and up).
    var changed: UInt64 = 0
    /// Membership of the context's change sets (level 2 uses `isDeleted` alone).
    var isInserted = false, isUpdated = false, isDeleted = false
    /// Where the object is registered, if it is.
    var context: FloorContext?

    init(id: FloorObjectID) { self.id = id }

    deinit { context?.unregister(self) }

    /// The least a key-value write can do: match the key, store the value, note the change.
    @inline(never)
    func setValue(_ value: Any?, forKey key: String) {
        let slot: Int
        switch key {
        case "name": slot = 0
        case "category": slot = 1
        case "price": slot = 2
        case "quantity": slot = 3
        case "createdAt": slot = 4
        case "isActive": slot = 5
        case "notes": slot = 6
        case "code": slot = 7
        default: return
        }
        values[slot] = value
        changed |= 1 << UInt64(slot)
    }

    /// The least a key-value read can do: match the key, box a number as Core Data does.
    @inline(never)
    func value(forKey key: String) -> Any? {
        switch key {
        case "quantity": return NSNumber(value: values[3] as! Int32)
        default: return nil
        }
    }

    /// Core Data calls it on every object it saves; an app may override it.
    @inline(never) func willSave() {}
    @inline(never) func didSave() {}

    /// Every property's value checked against its type; all are optional in this model.
    @inline(never)
    func validateForSave() -> Bool {
        for (slot, kind) in attributeKinds.enumerated() {
            guard let value = values[slot] else { continue }
            switch kind {
            case .string: guard value is String else { return false }
            case .double: guard value is Double else { return false }
            case .int32: guard value is Int32 else { return false }
            case .date: guard value is Date else { return false }
            case .bool: guard value is Bool else { return false }
            case .int64: guard value is Int64 else { return false }
            }
        }
        return true
    }

    /// Checks the delete rules of the entity's relationships: this model has none.
    @inline(never) func validateForDelete() -> Bool { true }
}

/// A context's tables: the registry (entries own nothing) and the change sets (they own
/// their objects until the save).
private final class FloorContext {
    var registered: [Int64: Unmanaged<FloorObject>] = [:]
    var registeredTemporary: [ObjectIdentifier: Unmanaged<FloorObject>] = [:]
    /// Each set is a list with a flag on the object for membership: one append per object,
    /// no hashing (OpenCoreData's `ObjectList` and object state do the same).
    var inserted: [FloorObject] = []
    var updated: [FloorObject] = []
    var deleted: [FloorObject] = []
    /// The sets of the save under way, for the did-save notification.
    private var saving: [String: Set<FloorObject>] = [:]

    func insert(_ object: FloorObject) {
        registeredTemporary[ObjectIdentifier(object.id)] = Unmanaged.passUnretained(object)
        object.context = self
        object.isInserted = true
        inserted.append(object)
    }

    func register(_ object: FloorObject) {
        registered[object.id.primaryKey] = Unmanaged.passUnretained(object)
        object.context = self
    }

    func reregister(_ object: FloorObject, as permanent: FloorObjectID) {
        registeredTemporary[ObjectIdentifier(object.id)] = nil
        object.id = permanent
        registered[permanent.primaryKey] = Unmanaged.passUnretained(object)
    }

    func unregister(_ object: FloorObject) {
        if object.id.primaryKey == 0 {
            registeredTemporary[ObjectIdentifier(object.id)] = nil
        } else {
            registered[object.id.primaryKey] = nil
        }
        object.context = nil
    }

    /// `processPendingChanges`' objects-did-change notification and the will-save one,
    /// with one set per kind of change, kept for the did-save notification.
    func announceSave(inserted: [FloorObject], updated: [FloorObject], deleted: [FloorObject]) {
        saving = ["inserted": Set(inserted), "updated": Set(updated), "deleted": Set(deleted)]
        NotificationCenter.default.post(name: Self.objectsDidChange, object: self, userInfo: saving)
        NotificationCenter.default.post(name: Self.willSave, object: self)
    }

    func announceDidSave() {
        NotificationCenter.default.post(name: Self.didSave, object: self, userInfo: saving)
        saving = [:]
    }

    static let objectsDidChange = Notification.Name("WriteFloorObjectsDidChange")
    static let willSave = Notification.Name("WriteFloorWillSave")
    static let didSave = Notification.Name("WriteFloorDidSave")
}
