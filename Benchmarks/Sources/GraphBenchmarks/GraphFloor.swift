import Foundation
import GRDBSQLite

/// What the traversal and the cascade cost at the least once the work Core Data's API
/// obliges is added to the hand-written SQL, one obligation at a time, with the cheapest
/// Swift written for each and no OpenCoreData code (`graph-benchmarks --object-floor`).
///
/// Traversal (`trail.value(forKey: "hikes")`, then `value(forKey: "distance")` of each):
///
/// 1. the hand-written query: `SELECT Z_PK, ZDISTANCE FROM ZHIKE WHERE ZTRAIL = ?`;
/// 2. the whole row, as a to-many fault reads it (`SELECT 0, t0.Z_PK, t0.Z_OPT, …`): a
///    managed object answers for every attribute, and Core Data keeps the row it was
///    fulfilled from (its snapshot) while the object lives; here a row object per hike;
/// 3. a managed object per hike with its object ID (a class), registered by primary key in
///    a uniquing table that does not own it (each object removes its entry when freed);
/// 4. the relationship's value, a `Set` of those objects;
/// 5. the value read through the object: `value(forKey:)`, a `String` key, an `NSNumber`
///    box, the caller's `as! NSNumber` and `int64Value`.
///
/// Cascade (delete the root, save; `children` cascading):
///
/// 1. the hand-written recursive `DELETE` in one transaction;
/// 2. loading what must be deleted: a context runs each deleted object's rules, so it must
///    hold every node; read level by level, the children of up to 512 parents per
///    statement, each row kept, then one `DELETE … WHERE Z_PK = ? AND Z_OPT = ?` per
///    object (Core Data's optimistic-locking delete), in one transaction;
/// 3. per-object deletion bookkeeping: an object per node with its ID, registered by key,
///    its `children` set, each object taken out of its parent's set (the inverse's
///    nullify), put in the context's deleted objects, and the registry emptied after the
///    save.
enum GraphFloor {
    static let traverseLevels = [
        "1. hand-written SQL: step, read Z_PK and ZDISTANCE",
        "2. + the whole row, kept in a row object",
        "3. + an object per hike with an ID object, uniqued by key",
        "4. + the to-many's Set of objects",
        "5. + value(forKey:): String key, NSNumber, caller's cast",
    ]
    static let cascadeLevels = [
        "1. hand-written SQL: one recursive DELETE",
        "2. + rows loaded 512 parents per SELECT, a DELETE per row",
        "3. + an object per node, its children Set, deletion bookkeeping",
    ]

    /// Writes both databases with the hand-written subject, then times every level
    /// `repetitions` times (levels interleaved; a cascade level on a fresh copy each time)
    /// and prints Markdown tables of CPU-time medians.
    static func run(repetitions: Int, scratch: URL) throws {
        let traverseURL = scratch.appendingPathComponent("floor-traverse.sqlite")
        var writer = try RawSQLiteGraph(databaseURL: traverseURL)
        try writer.prepare(.traverse)
        let treeURL = scratch.appendingPathComponent("floor-tree.sqlite")
        writer = try RawSQLiteGraph(databaseURL: treeURL)
        try writer.prepare(.cascade)
        try checkpoint(treeURL)

        var traverse = Array(repeating: [Double](), count: traverseLevels.count)
        var cascade = Array(repeating: [Double](), count: cascadeLevels.count)
        for _ in 0..<repetitions {
            for level in traverseLevels.indices {
                // What the level made outlives the clock, as the subject's objects do.
                let (cpu, (total, kept)) = try timed { try traverseLevel(level + 1, url: traverseURL) }
                guard total == GraphSizes.expectedDistance else { throw BenchmarkError("traverse level \(level + 1) summed \(total)") }
                traverse[level].append(cpu)
                withExtendedLifetime(kept) {}
            }
            for level in cascadeLevels.indices {
                let copy = scratch.appendingPathComponent("floor-cascade-\(level).sqlite")
                try? FileManager.default.removeItem(at: copy)
                try FileManager.default.copyItem(at: treeURL, to: copy)
                let (cpu, deleted) = try timed { try cascadeLevel(level + 1, url: copy) }
                guard deleted == GraphSizes.nodes else { throw BenchmarkError("cascade level \(level + 1) deleted \(deleted)") }
                cascade[level].append(cpu)
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: copy.path + suffix) }
            }
        }
        print("CPU-time medians of \(repetitions) runs of each level, in one process; every level did the same work (checked).")
        for (title, levels, runs) in [("traverse", traverseLevels, traverse), ("cascade", cascadeLevels, cascade)] {
            let medians = runs.map(median)
            print("")
            print("| \(title) level | CPU s | ÷ level 1 |")
            print("|---|---:|---:|")
            for (index, value) in medians.enumerated() {
                print("| \(levels[index]) | \(format(value, 4)) | \(format(value / medians[0], 2))× |")
            }
        }
    }

    private static func timed<T>(_ body: () throws -> T) rethrows -> (Double, T) {
        let start = cpuSeconds()
        let result = try body()
        return (cpuSeconds() - start, result)
    }

    /// Folds the WAL into the database file, so that a copy of the file alone is complete.
    private static func checkpoint(_ url: URL) throws {
        let db = try open(url)
        sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nil, nil, nil)
        sqlite3_close(db)
    }

    // MARK: Traversal

    /// Returns the sum of the distances and what the program would go on holding.
    private static func traverseLevel(_ level: Int, url: URL) throws -> (Int64, Any?) {
        let db = try open(url)
        defer { sqlite3_close(db) }
        let sql = level == 1
            ? "SELECT Z_PK, ZDISTANCE FROM ZHIKE WHERE ZTRAIL = ?"
            : "SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZDISTANCE, t0.ZNOTE, t0.ZTRAIL FROM ZHIKE t0 WHERE  t0.ZTRAIL = ?"
        let statement = try prepare(db, sql)
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_int64(statement, 1, 1)
        var total: Int64 = 0
        if level == 1 {
            while sqlite3_step(statement) == SQLITE_ROW { total += sqlite3_column_int64(statement, 1) }
            return (total, nil)
        }
        var rows: [FloorRow] = []
        let registry = FloorRegistry()
        var objects: [FloorObject] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            let row = FloorRow(statement)
            guard level >= 3 else {
                rows.append(row)
                continue
            }
            if let known = registry.entries[row.primaryKey] {
                objects.append(known.takeUnretainedValue())
                continue
            }
            let object = FloorObject(id: FloorObjectID(primaryKey: row.primaryKey), row: row, registry: registry)
            registry.entries[row.primaryKey] = Unmanaged.passUnretained(object)
            objects.append(object)
        }
        if level == 2 {
            for row in rows { total += row.distance }
            return (total, rows)
        }
        if level == 3 {
            for object in objects { total += object.row.distance }
            return (total, objects)
        }
        let members = Set(objects)
        for member in members {
            total += level >= 5 ? (member.value(forKey: "distance") as! NSNumber).int64Value : member.row.distance
        }
        return (total, (objects, members))
    }

    // MARK: Cascade

    /// Returns the number of rows deleted.
    private static func cascadeLevel(_ level: Int, url: URL) throws -> Int {
        let db = try open(url)
        defer { sqlite3_close(db) }
        if level == 1 {
            try exec(db, "BEGIN EXCLUSIVE")
            let delete = try prepare(db, """
                WITH RECURSIVE subtree(pk) AS (SELECT ? UNION ALL SELECT ZNODE.Z_PK FROM ZNODE JOIN subtree ON ZNODE.ZPARENT = subtree.pk)
                DELETE FROM ZNODE WHERE Z_PK IN subtree
                """)
            sqlite3_bind_int64(delete, 1, 1)
            _ = sqlite3_step(delete)
            sqlite3_finalize(delete)
            let deleted = Int(sqlite3_changes(db))
            try exec(db, "COMMIT")
            return deleted
        }
        // The root, as the program holds it; then each level's children, 512 parents a time.
        let root = try prepare(db, "SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZPARENT, t0.ZNAME FROM ZNODE t0 WHERE  t0.Z_PK = ?")
        sqlite3_bind_int64(root, 1, 1)
        var rows: [NodeRow] = []
        if sqlite3_step(root) == SQLITE_ROW { rows.append(NodeRow(root)) }
        sqlite3_finalize(root)
        let registry = NodeRegistry()
        var deleted: [NodeObject] = []
        var deletedSet = Set<ObjectIdentifier>()
        func track(_ row: NodeRow, parent: NodeObject?) -> NodeObject {
            let object = NodeObject(row: row)
            registry.entries[row.primaryKey] = object
            deleted.append(object)
            deletedSet.insert(ObjectIdentifier(object))
            object.parent = parent
            parent?.children.insert(object)
            return object
        }
        var previousLevel: [NodeObject] = level >= 3 ? rows.map { track($0, parent: nil) } : []
        var parents = rows.map(\.primaryKey)
        var chunkStatements: [Int: OpaquePointer] = [:]
        defer { for statement in chunkStatements.values { sqlite3_finalize(statement) } }
        while !parents.isEmpty {
            var children: [Int64] = []
            var childObjects: [NodeObject] = []
            for start in stride(from: 0, to: parents.count, by: 512) {
                let chunk = parents[start..<min(start + 512, parents.count)]
                let statement: OpaquePointer
                if let cached = chunkStatements[chunk.count] {
                    statement = cached
                } else {
                    let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                    statement = try prepare(db, "SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZPARENT, t0.ZNAME FROM ZNODE t0 WHERE  t0.ZPARENT IN (\(placeholders)) ORDER BY t0.Z_PK")
                    chunkStatements[chunk.count] = statement
                }
                for (index, key) in chunk.enumerated() { sqlite3_bind_int64(statement, Int32(index + 1), key) }
                while sqlite3_step(statement) == SQLITE_ROW {
                    let row = NodeRow(statement)
                    rows.append(row)
                    children.append(row.primaryKey)
                    if level >= 3 { childObjects.append(track(row, parent: registry.entries[row.parent])) }
                }
                sqlite3_reset(statement)
            }
            if level >= 3 {
                // The rules of the level whose children were just loaded: each object
                // leaves its parent's set (nullify) and lets go of its children (cascade).
                for object in previousLevel {
                    if let parent = object.parent {
                        parent.children.remove(object)
                        object.parent = nil
                    }
                    let members = object.children
                    object.children = []
                    for member in members { member.parent = nil }
                }
                previousLevel = childObjects
            }
            parents = children
        }
        try exec(db, "BEGIN EXCLUSIVE")
        let delete = try prepare(db, "DELETE FROM ZNODE WHERE Z_PK = ? AND Z_OPT = ?")
        var count = 0
        for row in rows {
            sqlite3_bind_int64(delete, 1, row.primaryKey)
            sqlite3_bind_int64(delete, 2, row.version)
            _ = sqlite3_step(delete)
            count += Int(sqlite3_changes(db))
            sqlite3_reset(delete)
        }
        sqlite3_finalize(delete)
        try exec(db, "COMMIT")
        if level >= 3 {
            // After the save the context forgets its deleted objects.
            guard deletedSet.count == count else { throw BenchmarkError("bookkeeping lost objects") }
            registry.entries.removeAll()
            deleted.removeAll()
        }
        return count
    }

    // MARK: SQLite

    private static func open(_ url: URL) throws -> OpaquePointer {
        var db: OpaquePointer?
        guard sqlite3_open(url.path, &db) == SQLITE_OK, let db else { throw BenchmarkError("cannot open \(url.path)") }
        try exec(db, "PRAGMA journal_mode = WAL")
        return db
    }

    private static func exec(_ db: OpaquePointer, _ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw BenchmarkError("\(sql): \(String(cString: sqlite3_errmsg(db)))") }
    }

    private static func prepare(_ db: OpaquePointer, _ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw BenchmarkError("\(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
        return statement
    }
}

/// A hike's row as a to-many fault reads it: every column, kept while its object lives.
private final class FloorRow {
    let primaryKey: Int64, version: Int64, distance: Int64, trail: Int64
    let note: String?
    init(_ statement: OpaquePointer) {
        primaryKey = sqlite3_column_int64(statement, 1)
        version = sqlite3_column_int64(statement, 2)
        distance = sqlite3_column_int64(statement, 3)
        note = sqlite3_column_text(statement, 4).map { String(cString: $0) }
        trail = sqlite3_column_int64(statement, 5)
    }
}

private final class FloorObjectID: NSObject {
    let primaryKey: Int64
    init(primaryKey: Int64) { self.primaryKey = primaryKey }
}

private final class FloorObject: NSObject {
    let id: FloorObjectID
    let row: FloorRow
    /// Where the object is registered.
    let registry: FloorRegistry
    init(id: FloorObjectID, row: FloorRow, registry: FloorRegistry) {
        self.id = id
        self.row = row
        self.registry = registry
    }

    deinit { registry.entries[id.primaryKey] = nil }

    /// The least a key-value read can do: match the key, box the number as Core Data does.
    @inline(never)
    func value(forKey key: String) -> Any? {
        switch key {
        case "distance": return NSNumber(value: row.distance)
        case "note": return row.note
        default: return nil
        }
    }
}

/// Objects by primary key, not owned: each removes its entry from its deinit.
private final class FloorRegistry {
    var entries: [Int64: Unmanaged<FloorObject>] = [:]
}

/// A node's row.
private struct NodeRow {
    let primaryKey: Int64, version: Int64, parent: Int64
    let name: String?
    init(_ statement: OpaquePointer) {
        primaryKey = sqlite3_column_int64(statement, 1)
        version = sqlite3_column_int64(statement, 2)
        parent = sqlite3_column_int64(statement, 3)
        name = sqlite3_column_text(statement, 4).map { String(cString: $0) }
    }
}

/// A node object: its row, its parent and its children as a context holds them.
private final class NodeObject: Hashable {
    let row: NodeRow
    var parent: NodeObject?
    var children: Set<NodeObject> = []
    init(row: NodeRow) { self.row = row }
    static func == (lhs: NodeObject, rhs: NodeObject) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// Deleted objects by primary key until the save ends.
private final class NodeRegistry {
    var entries: [Int64: NodeObject] = [:]
}
