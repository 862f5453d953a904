import Foundation
import GRDBSQLite

/// What the "fetch all, read two attributes" phase costs at the least once the work Core
/// Data's API obliges on this platform is added to the floor's loop, one obligation at a time.
///
/// Each level does everything the previous one does, with the cheapest Swift written for
/// it, and no OpenCoreData code at all:
///
/// 1. the floor's loop: step through `ZITEM`, read `ZNAME` and `ZQUANTITY`;
/// 2. one object per row, as a fetch returns: an `NSObject` subclass holding its values,
///    with an object ID that is an object too (`NSManagedObjectID` is a class), kept in
///    the result array;
/// 3. uniquing: a context must hand out one object per ID, and must not keep objects alive
///    that the program dropped, so it keeps a table from primary key to object that does
///    not own the object, and each object takes its entry out as it is freed (what
///    OpenCoreData's `ObjectRegistry` does, here without its lock);
/// 4. reading through `value(forKey:)`: a `String` key, an `Any?` result, and the number
///    boxed in an `NSNumber` as Core Data returns it, which the caller's `as! Int32`
///    bridges back (on Linux the bridge is a dynamic cast through Foundation). Small
///    numbers (here every quantity) come from boxes made once and shared, which costs what
///    Apple's tagged pointers cost (nothing allocated) and is what OpenCoreData does.
///
/// If level 4 alone is over twice level 1, no object layer with Core Data's API reaches
/// 2× the floor on this phase, however lean the rest of it is.
///
/// Levels 5 and 6 add, to levels 3 and 4, what those leave out:
/// - a fetch that includes property values (the default) reads every attribute column its
///   SQL selects and makes "objects to represent property values" from them at once, not
///   only the two the program reads afterwards (Apple's documentation of
///   `NSFetchRequest.includesPropertyValues`; Core Data's SQL at debug level 1 selects
///   every column): here the eight columns decoded into a value array (four strings, a
///   double, an Int32, a date, a Boolean) with the row's version;
/// - the row cache: Core Data keeps each fetched row's values where an object refreshed
///   back into a fault fires again without SQL (chapter 9 shows it at SQL debug level 1),
///   so the values live in a row kept in a table by primary key, which outlives the fetch
///   (its rows are freed after the clock stops, as a coordinator's are later), and the
///   object shares the row's array.
/// Level 5 is the floor of the typed fetch, level 6 that of `value(forKey:)`.
enum ObjectLayerFloor {
    static let levels = [
        "1. SQLite C API: step, read two columns",
        "2. + an NSObject per row, with an ID object, in an array",
        "3. + uniquing: unowned entries by primary key, removed by deinit",
        "4. + value(forKey:): String key, Any?, NSNumber, caller's as! Int32",
        "5. level 3 + every selected column decoded, kept in a row cache",
        "6. level 4 + every selected column decoded, kept in a row cache",
    ]

    /// The statement every level steps: the columns Core Data's fetch selects.
    static let selectEveryColumn = "SELECT Z_PK, Z_ENT, Z_OPT, ZNAME, ZCATEGORY, ZPRICE, ZQUANTITY, ZCREATEDAT, ZISACTIVE, ZNOTES, ZCODE FROM ZITEM"

    /// Writes the rows with the floor's insert, then times each level `repetitions` times
    /// (levels interleaved) and prints a Markdown table of medians.
    static func run(rows: Int, repetitions: Int, scratch: URL) throws {
        let connection = try FloorConnection(database: scratch.appendingPathComponent("object-floor.sqlite"), sql: selectEveryColumn)
        defer { withExtendedLifetime(connection) {} }  // keeps the statement open to the end
        let statement = connection.statement

        var seconds = Array(repeating: [Double](), count: levels.count)
        var checksums = Set<Int>()
        for _ in 0..<repetitions {
            for level in levels.indices {
                // The row cache outlives the fetch, as a coordinator's does: its rows are
                // freed after the clock stops.
                let rowCache = RowCache()
                let start = DispatchTime.now().uptimeNanoseconds
                checksums.insert(read(statement, level: level + 1, rows: rows, rowCache: rowCache))
                seconds[level].append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                sqlite3_reset(statement)
                withExtendedLifetime(rowCache) {}
            }
        }
        guard checksums.count == 1 else { throw BenchmarkError("the levels disagree: checksums \(checksums.sorted())") }

        let medians = seconds.map(median)
        print("\(rows.grouped) rows; medians of \(repetitions) runs of each level, in one process; every level returned the same checksum.")
        print("")
        print("| level | s | µs per row | ÷ level 1 |")
        print("|---|---:|---:|---:|")
        for (level, value) in medians.enumerated() {
            print("| \(levels[level]) | \(format(value)) | \(format(value / Double(rows) * 1e6, 2)) | \(format(value / medians[0], 2))× |")
        }
    }

    /// One pass over the rows at `level`; returns the phase's checksum (name lengths plus
    /// quantities), the same as every subject's fetch-all.
    fileprivate static func read(_ statement: OpaquePointer, level requested: Int, rows: Int, rowCache: RowCache) -> Int {
        // Levels 5 and 6 are levels 3 and 4 reading every column into cached rows.
        let keepsRows = requested >= 5
        let level = keepsRows ? requested - 2 : requested
        var checksum = 0
        if keepsRows { rowCache.rows.reserveCapacity(rows) }
        // Sized in advance, generously: a fetch learns its row count only as it steps.
        var objects: [RowObject] = []
        let registry = RowRegistry()
        if level >= 2 { objects.reserveCapacity(rows) }
        if level >= 3 { registry.entries.reserveCapacity(rows) }
        while sqlite3_step(statement) == SQLITE_ROW {
            let name = String(cString: sqlite3_column_text(statement, 3))
            let quantity = Int32(truncatingIfNeeded: sqlite3_column_int64(statement, 6))
            guard level >= 2 else {
                checksum &+= name.utf8.count &+ Int(quantity)
                continue
            }
            let primaryKey = sqlite3_column_int64(statement, 0)
            let object: RowObject
            if keepsRows {
                let row = CachedRow(values: everyColumn(statement, name: name, quantity: quantity))
                rowCache.rows[primaryKey] = row
                object = RowObject(id: RowObjectID(primaryKey: primaryKey), row: row)
            } else {
                object = RowObject(id: RowObjectID(primaryKey: primaryKey), values: [name, quantity])
            }
            if level >= 3 {
                if let known = registry.entries[primaryKey] { objects.append(known.takeUnretainedValue()); continue }
                registry.entries[primaryKey] = Unmanaged.passUnretained(object)
                object.registry = registry
            }
            objects.append(object)
        }
        for object in objects {
            if level >= 4 {
                checksum &+= (object.value(forKey: "name") as! String).utf8.count &+ Int(object.value(forKey: "quantity") as! Int32)
            } else {
                checksum &+= (object.values[0] as! String).utf8.count &+ Int(object.values[1] as! Int32)
            }
        }
        return checksum
    }
}

/// One level of ``ObjectLayerFloor`` as a subject of its own, `object-floor-1` to
/// `object-floor-6`, for `--pairs` (phases `fetch-all` and `fetch-all-typed`, which read the
/// same rows; `insert` writes them with the C API subject's insert):
///
///     core-data-benchmarks --pairs 9 --phase fetch-all --only object-floor-4,opencoredata
///
/// Each run is then what a subject's run is: a fresh process that opens the file untimed
/// and makes one timed pass. The `--object-floor` table instead times every level again
/// and again in one process, whose heap the first pass has already paged in; a first pass
/// in a fresh process also pays the kernel for each page of memory it touches first (about
/// a seventh of OpenCoreData's fetch-all, in a profile of the r19 pass). Fresh against
/// fresh compares the same conditions; the table stays, for the levels side by side.
struct ObjectFloorSubject: Subject {
    static let name = "object floor"
    /// The names `--subject` and `--only` take, level 1 first.
    static let subjectNames = ObjectLayerFloor.levels.indices.map { "object-floor-\($0 + 1)" }

    private let level: Int
    private let url: URL
    private var writer: RawSQLiteSubject?
    private var connection: FloorConnection?
    /// Outlives the timed pass, as a coordinator's row cache outlives a fetch.
    private var rowCache = RowCache()

    init(databaseURL: URL) throws { try self.init(level: ObjectLayerFloor.levels.count, databaseURL: databaseURL) }

    init(level: Int, databaseURL: URL) throws {
        guard ObjectLayerFloor.levels.indices.contains(level - 1) else { throw BenchmarkError("no object-floor level \(level)") }
        self.level = level
        url = databaseURL
    }

    mutating func prepare(_ phase: Phase) throws {
        switch phase {
        case .insert:
            writer = try RawSQLiteSubject(databaseURL: url)
            try writer?.prepare(.insert)
        case .fetchAll, .fetchAllTyped:
            connection = try FloorConnection(reading: url, sql: ObjectLayerFloor.selectEveryColumn)
        default:
            throw BenchmarkError("the object floor measures insert, \(Phase.fetchAll.rawValue) and \(Phase.fetchAllTyped.rawValue) only")
        }
    }

    mutating func run(_ phase: Phase) throws -> Int {
        if phase == .insert, var writer {
            defer { self.writer = writer }
            return try writer.run(.insert)
        }
        guard let connection else { throw BenchmarkError("not prepared") }
        return ObjectLayerFloor.read(connection.statement, level: level, rows: ItemValues.count, rowCache: rowCache)
    }
}

/// The row's attribute values as a fetch keeps them, name and quantity first (where the
/// levels read them), then the other six selected columns and the row's version.
private func everyColumn(_ statement: OpaquePointer, name: String, quantity: Int32) -> [Any?] {
    [
        name, quantity,
        String(cString: sqlite3_column_text(statement, 4)),
        sqlite3_column_double(statement, 5),
        Date(timeIntervalSinceReferenceDate: sqlite3_column_double(statement, 7)),
        sqlite3_column_int64(statement, 8) != 0,
        String(cString: sqlite3_column_text(statement, 9)),
        sqlite3_column_int64(statement, 10),
        sqlite3_column_int64(statement, 2),
    ]
}

private final class RowObjectID: NSObject {
    let primaryKey: Int64
    init(primaryKey: Int64) { self.primaryKey = primaryKey }
}

private final class RowObject: NSObject {
    let id: RowObjectID
    let values: [Any?]
    /// The cached row the values came from (levels 5 and 6).
    let row: CachedRow?
    /// Where the object is registered, if it is.
    var registry: RowRegistry?
    init(id: RowObjectID, values: [Any?]) {
        self.id = id
        self.values = values
        row = nil
    }

    init(id: RowObjectID, row: CachedRow) {
        self.id = id
        self.values = row.values
        self.row = row
    }

    deinit {
        registry?.entries[id.primaryKey] = nil
    }

    /// The least a key-value read can do: match the key, box a number as Core Data does.
    @inline(never)
    func value(forKey key: String) -> Any? {
        switch key {
        case "name": return values[0]
        case "quantity": return SharedNumbers.box(values[1] as! Int32)
        default: return nil
        }
    }
}

/// `NSNumber`s of the integers -128...1023, made once: a read hands one out without
/// allocating; other values are boxed anew.
private enum SharedNumbers {
    static let int32s = (-128...1_023).map { NSNumber(value: Int32($0)) }

    static func box(_ value: Int32) -> NSNumber {
        (-128...1_023).contains(value) ? int32s[Int(value) + 128] : NSNumber(value: value)
    }
}

/// Objects by primary key, not owned: each removes its entry from its deinit.
private final class RowRegistry {
    var entries: [Int64: Unmanaged<RowObject>] = [:]
}

/// A fetched row's values, kept for refaulting.
private final class CachedRow {
    let values: [Any?]
    init(values: [Any?]) { self.values = values }
}

/// The rows fetched, by primary key.
private final class RowCache {
    var rows: [Int64: CachedRow] = [:]
}
