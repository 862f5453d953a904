import Foundation
import GRDBSQLite

/// What the "fetch 10,000 by object ID" phase costs at the least once the work Core Data's
/// API obliges is added to the C floor's loop, one obligation at a time (the by-ID
/// counterpart of ``ObjectLayerFloor``).
///
/// Each level does everything the previous one does, with the cheapest Swift written for
/// it, and no OpenCoreData code at all:
///
/// 1. the floor's loop: bind the key, step `… WHERE Z_PK = ?`, read `ZNAME`, reset;
/// 2. + the object look-up `existingObject(with:)` starts with: the context's table from
///    primary key to registered object (a miss every time here, as in the benchmark);
/// 3. + the row as a fetch keeps it: every column decoded into a row object (numbers,
///    texts, the date), held by a row cache keyed by primary key that lets go of the row
///    when its last object does;
/// 4. + the fault: an `NSObject` with its ID object, registered (an unowned entry that its
///    deinit takes out), holding the cached row, fired (its values taken from the row);
/// 5. + reading `name` through `value(forKey:)` (a `String` key, an `Any?` result) and
///    the caller's `as! String`.
///
/// Every level drops its object before the next look-up, as the benchmark's loop does.
enum ByIDFloor {
    static let levels = [
        "1. SQLite C API: bind, step, read ZNAME, reset",
        "2. + a registry look-up by primary key (a miss)",
        "3. + the whole row decoded, kept in a row cache",
        "4. + a fault with an ID object, registered, fired",
        "5. + value(forKey:) and the caller's as! String",
    ]

    /// Writes the rows with the floor's insert, then times each level `repetitions` times
    /// (levels interleaved) and prints a Markdown table of medians.
    static func run(rows: Int, repetitions: Int, scratch: URL) throws {
        let sql = "SELECT Z_PK, Z_ENT, Z_OPT, ZNAME, ZCATEGORY, ZPRICE, ZQUANTITY, ZCREATEDAT, ZISACTIVE, ZNOTES, ZCODE FROM ZITEM WHERE Z_PK = ?"
        let connection = try FloorConnection(database: scratch.appendingPathComponent("by-id-floor.sqlite"), sql: sql)
        defer { withExtendedLifetime(connection) {} }  // keeps the statement open to the end
        let statement = connection.statement
        // The rows were inserted with Z_PK = position + 1.
        let keys = ItemValues.lookupPositions().map { Int64($0 + 1) }

        var seconds = Array(repeating: [Double](), count: levels.count)
        var checksums = Set<Int>()
        for _ in 0..<repetitions {
            for level in levels.indices {
                let start = DispatchTime.now().uptimeNanoseconds
                checksums.insert(try lookUp(keys, statement, level: level + 1))
                seconds[level].append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            }
        }
        guard checksums.count == 1 else { throw BenchmarkError("the levels disagree: checksums \(checksums.sorted())") }

        let medians = seconds.map(median)
        print("\(keys.count.grouped) look-ups in \(rows.grouped) rows; medians of \(repetitions) runs of each level, in one process; every level returned the same checksum.")
        print("")
        print("| level | s | µs per look-up | ÷ level 1 |")
        print("|---|---:|---:|---:|")
        for (level, value) in medians.enumerated() {
            print("| \(levels[level]) | \(format(value)) | \(format(value / Double(keys.count) * 1e6, 2)) | \(format(value / medians[0], 2))× |")
        }
    }

    /// One pass over `keys` at `level`; returns the phase's checksum (name lengths), the
    /// same as every subject's fetch by ID.
    private static func lookUp(_ keys: [Int64], _ statement: OpaquePointer, level: Int) throws -> Int {
        var checksum = 0
        let registry = FloorRegistry()
        let cache = FloorRowCache()
        for key in keys {
            if level >= 2, let known = registry.objects[key] {
                checksum &+= (known.takeUnretainedValue().name ?? "").utf8.count
                continue
            }
            sqlite3_bind_int64(statement, 1, key)
            guard sqlite3_step(statement) == SQLITE_ROW else { throw BenchmarkError("row \(key) missing") }
            guard level >= 3 else {
                checksum &+= String(cString: sqlite3_column_text(statement, 3)).utf8.count
                sqlite3_reset(statement)
                continue
            }
            let row = FloorRow(statement)
            sqlite3_reset(statement)
            cache.rows[key] = Unmanaged.passUnretained(row)
            row.cache = cache
            guard level >= 4 else {
                checksum &+= (row.values[0] as! String).utf8.count
                continue
            }
            let object = FloorObject(id: FloorObjectID(primaryKey: key), registry: registry)
            registry.objects[key] = Unmanaged.passUnretained(object)
            object.row = row
            object.fire()
            if level >= 5 {
                checksum &+= (object.value(forKey: "name") as! String).utf8.count
            } else {
                checksum &+= (object.name ?? "").utf8.count
            }
        }
        return checksum
    }
}

private final class FloorObjectID: NSObject {
    let primaryKey: Int64
    init(primaryKey: Int64) { self.primaryKey = primaryKey }
}

/// A decoded row: every column of `ZITEM` after the three bookkeeping ones.
private final class FloorRow {
    let primaryKey: Int64
    let version: Int64
    let values: [Any?]
    /// The cache holding the row, which loses its entry when the row is freed.
    var cache: FloorRowCache?

    init(_ statement: OpaquePointer) {
        primaryKey = sqlite3_column_int64(statement, 0)
        version = sqlite3_column_int64(statement, 2)
        func text(_ column: Int32) -> String? {
            sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : String(cString: sqlite3_column_text(statement, column))
        }
        values = [
            text(3), text(4), sqlite3_column_double(statement, 5), Int32(truncatingIfNeeded: sqlite3_column_int64(statement, 6)),
            Date(timeIntervalSinceReferenceDate: sqlite3_column_double(statement, 7)), sqlite3_column_int64(statement, 8) != 0,
            text(9), sqlite3_column_int64(statement, 10),
        ]
    }

    deinit { cache?.rows[primaryKey] = nil }
}

private final class FloorRowCache {
    var rows: [Int64: Unmanaged<FloorRow>] = [:]
}

private final class FloorRegistry {
    var objects: [Int64: Unmanaged<FloorObject>] = [:]
}

private final class FloorObject: NSObject {
    let id: FloorObjectID
    unowned let registry: FloorRegistry
    /// The row the object fires from, held while the object lives.
    var row: FloorRow?
    /// The fired values.
    private var values: [Any?] = []

    init(id: FloorObjectID, registry: FloorRegistry) {
        self.id = id
        self.registry = registry
    }

    deinit { registry.objects[id.primaryKey] = nil }

    func fire() { values = row?.values ?? [] }

    var name: String? { values.first as? String }

    /// The least a key-value read can do: match the key, return the value.
    @inline(never)
    func value(forKey key: String) -> Any? {
        switch key {
        case "name": return values[0]
        default: return nil
        }
    }
}
