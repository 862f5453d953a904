import Foundation
import GRDBSQLite

/// What the indexed-equality fetch (`category == %@`, 1 % of the rows as objects) costs at
/// the least once the work Core Data's API obliges is added to the hand-written query, one
/// obligation at a time: `fetch-benchmarks --equality-floor [rows] [repetitions]`.
///
/// Each level does everything the previous one does, with the cheapest Swift written for
/// it and no OpenCoreData code (the counterpart of `core-data-benchmarks --object-floor`
/// for this query):
///
/// 1. the hand-written query of the benchmark's table: bind, step, every column read into
///    a Swift struct, the structs in an array;
/// 2. an object per row instead of a struct, as a fetch returns: an `NSObject` subclass
///    with its row's key and version, in the result array; its values, which must stay
///    readable without SQL (a fault fires without a statement), type-erased because a
///    model is known only at run time (an `Any?` per attribute), in one buffer per fetch
///    that the fetch's objects share, so that no allocation per row holds them;
/// 3. uniquing: the objects registered by primary key in a table that does not own them,
///    each taking its entry out as it is freed (a context hands out one object per row);
/// 4. each object with an object ID that is an object too (`NSManagedObjectID` is a class;
///    made at fetch time, as in the object floor of `core-data-benchmarks`, though an
///    implementation could make it on first use);
/// 5. each object's values in a slot array of its own instead of the shared buffer;
/// 6. the values in a row object of their own, shared with a row cache by key that is kept
///    across fetches (a row already cached with the same version stays, the new one is
///    dropped): the design of Core Data's store and OpenCoreData's, not an obligation.
///
/// Level 3 is the least Core Data's API allows: objects with their values, uniqued.
///
/// The last line is OpenCoreData's `context.fetch` of the same request, interleaved with
/// the levels in the same process, so that the ratios are read off one run. Times are the
/// thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), medians of the runs.
enum EqualityFloor {
    static let levels = [
        "1. hand-written query: every column into a struct, in an array",
        "2. an NSObject per row in an array, values as Any? in one buffer per fetch",
        "3. + uniquing: registered by primary key (unowned, removed by deinit)",
        "4. + an ID object per row",
        "5. + each object's values in an Any? slot array of its own",
        "6. + the values in a row object shared with a row cache",
        "OpenCoreData: `context.fetch(request)`",
    ]

    /// Times each level `repetitions` times (levels interleaved, after one warm-up run of
    /// each) and prints a Markdown table of CPU-time medians; `openCoreData` runs the library's fetch
    /// and returns its row count, after `reset` (untimed).
    static func run(storePath: String, category: String, repetitions: Int, reset: () -> Void,
                    openCoreData: () throws -> Int) throws {
        let sql = "SELECT Z_PK, Z_OPT, ZNAME, ZCATEGORY, ZPRICE, ZQUANTITY, ZISACTIVE FROM ZITEM WHERE ZCATEGORY = ? ORDER BY Z_PK"
        var db: OpaquePointer?
        var statement: OpaquePointer?
        guard sqlite3_open_v2(storePath, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK,
            sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement
        else { fatalError("prepare failed: \(String(cString: sqlite3_errmsg(db)))") }
        defer {
            sqlite3_finalize(statement)
            sqlite3_close(db)
        }
        let cache = FloorRowCache()
        // One registry for every run, as a context's lives across fetches: emptied by the
        // objects' deinits after each run, it keeps its capacity.
        let registry = FloorRegistry()
        func runLevel(_ level: Int) throws -> Int {
            if level > 6 { return try openCoreData() }
            sqlite3_reset(statement)
            sqlite3_bind_text(statement, 1, category, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
            return read(statement, level: level, cache: cache, registry: registry)
        }

        var seconds = Array(repeating: [Double](), count: levels.count)
        var counts = Set<Int>()
        for run in 0...repetitions {  // run 0 warms up
            for level in levels.indices {
                if level + 1 > 6 { reset() }
                let start = threadCPUSeconds()
                counts.insert(try runLevel(level + 1))
                let elapsed = threadCPUSeconds() - start
                if run > 0 { seconds[level].append(elapsed) }
            }
        }
        guard counts.count == 1, let rows = counts.first else { fatalError("the levels disagree: row counts \(counts.sorted())") }

        let medians = seconds.map(median)
        print("\(rows) rows per fetch; medians of the thread's CPU time over \(repetitions) runs of each level, interleaved in one process; every level returned the same rows.")
        print("")
        print("| level | ms | µs per row | ÷ level 1 |")
        print("|---|---:|---:|---:|")
        for (level, value) in medians.enumerated() {
            let perRow = String(format: "%.2f", value / Double(rows) * 1e6)
            print("| \(levels[level]) | \(String(format: "%.3f", value * 1000)) | \(perRow) | \(String(format: "%.2f", value / medians[0]))× |")
        }
    }

    /// One run of the query at `level`; returns the number of rows (objects) it produced.
    private static func read(_ statement: OpaquePointer, level: Int, cache: FloorRowCache, registry: FloorRegistry) -> Int {
        if level == 1 {
            var rows: [HandRow] = []
            while sqlite3_step(statement) == SQLITE_ROW {
                rows.append(HandRow(
                    pk: sqlite3_column_int64(statement, 0), version: sqlite3_column_int64(statement, 1),
                    name: text(statement, 2), category: text(statement, 3), price: sqlite3_column_double(statement, 4),
                    quantity: sqlite3_column_int64(statement, 5), isActive: sqlite3_column_int64(statement, 6) != 0))
            }
            return rows.count
        }
        var objects: [FloorObject] = []
        let shared = FetchValues()
        while sqlite3_step(statement) == SQLITE_ROW {
            let pk = sqlite3_column_int64(statement, 0)
            if level >= 3, let known = registry.entries[pk] {
                objects.append(known.takeUnretainedValue())
                continue
            }
            // Every attribute boxed as a store row keeps it: NULL is nil.
            let name: Any? = text(statement, 2)
            let category: Any? = text(statement, 3)
            let price: Any? = sqlite3_column_type(statement, 4) == SQLITE_NULL ? nil : sqlite3_column_double(statement, 4)
            let quantity: Any? = sqlite3_column_type(statement, 5) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, 5)
            let isActive: Any? = sqlite3_column_type(statement, 6) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, 6) != 0
            let version = sqlite3_column_int64(statement, 1)
            let object: FloorObject
            if level >= 6 {
                let row = cache.store(FloorRow(pk: pk, version: version, values: [name, category, price, quantity, isActive]))
                object = FloorObject(pk: pk, version: version, values: .row(row))
            } else if level >= 5 {
                object = FloorObject(pk: pk, version: version, values: .own([name, category, price, quantity, isActive]))
            } else {
                let index = shared.values.count
                shared.values.append(name)
                shared.values.append(category)
                shared.values.append(price)
                shared.values.append(quantity)
                shared.values.append(isActive)
                object = FloorObject(pk: pk, version: version, values: .shared(shared, index))
            }
            if level >= 3 {
                registry.entries[pk] = Unmanaged.passUnretained(object)
                object.registry = registry
            }
            if level >= 4 { object.id = FloorObjectID(primaryKey: pk) }
            objects.append(object)
        }
        return objects.count
    }

    /// The CPU time of the calling thread: steadier than wall time on a shared machine.
    private static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private static func text(_ statement: OpaquePointer, _ column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(statement, column) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, column))), as: UTF8.self)
    }
}

/// The hand-written side's row (the same struct as `RawQuery.Row`).
private struct HandRow {
    var pk: Int64, version: Int64, name: String?, category: String?, price: Double, quantity: Int64, isActive: Bool
}

/// A decoded row as a store keeps it.
private final class FloorRow {
    let pk: Int64
    let version: Int64
    let values: [Any?]
    init(pk: Int64, version: Int64, values: [Any?]) {
        self.pk = pk
        self.version = version
        self.values = values
    }
}

private final class FloorObjectID: NSObject {
    let primaryKey: Int64
    init(primaryKey: Int64) { self.primaryKey = primaryKey }
}

/// The values of a fetch's rows, an `Any?` per attribute, row after row.
private final class FetchValues {
    var values: [Any?] = []
}

/// Where an object's values are.
private enum FloorValues {
    case shared(FetchValues, Int)
    case own([Any?])
    case row(FloorRow)
}

/// An object of the fetch's result.
private final class FloorObject: NSObject {
    let pk: Int64
    let version: Int64
    let values: FloorValues
    var id: FloorObjectID?
    /// Where the object is registered.
    var registry: FloorRegistry?
    init(pk: Int64, version: Int64, values: FloorValues) {
        self.pk = pk
        self.version = version
        self.values = values
    }

    deinit {
        registry?.entries[pk] = nil
    }
}

/// Objects by primary key, not owned: each removes its entry from its deinit.
private final class FloorRegistry {
    var entries: [Int64: Unmanaged<FloorObject>] = [:]
}

/// Rows by primary key, kept across fetches; a row of the same version stays.
private final class FloorRowCache {
    var rows: [Int64: FloorRow] = [:]
    func store(_ row: FloorRow) -> FloorRow {
        if let existing = rows[row.pk], existing.version == row.version { return existing }
        rows[row.pk] = row
        return row
    }
}
