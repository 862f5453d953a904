import Foundation
import XCTest
@testable import OpenCoreData

/// The statement cache stays bounded (least recently used statements go first) and keeps
/// working after evictions; a scoped use resets its statement however it ends.
final class StoreStatementCacheTests: StoreTestCase {
    private func database() throws -> SQLiteDatabase {
        let database = try SQLiteDatabase(path: storeURL().path)
        try database.executeUncached("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2), (3);")
        return database
    }

    func testTheCacheStaysBoundedAndStillAnswersAfterEvictions() throws {
        let database = try database()
        defer { database.close() }
        database.statementCacheCapacity = 8
        for round in 0..<3 {
            for n in 1...40 {
                let value = try database.withStatement("SELECT x + \(n) FROM t WHERE x = ?") { statement -> Int64 in
                    statement.bindKey(2, at: 1)
                    XCTAssertTrue(try statement.step())
                    return statement.int64(0)
                }
                XCTAssertEqual(value, 2 + Int64(n), "round \(round), statement \(n)")
                XCTAssertLessThanOrEqual(database.cachedStatementCount, 8)
            }
        }
    }

    func testTheMostRecentlyUsedStatementIsKept() throws {
        let database = try database()
        defer { database.close() }
        database.statementCacheCapacity = 4
        let hot = try database.statement("SELECT count(*) FROM t")
        for n in 1...20 {
            _ = try database.withStatement("SELECT \(n)") { try $0.step() }
            // Using the hot statement each time keeps it the most recently used.
            XCTAssertTrue(try database.statement("SELECT count(*) FROM t") === hot, "evicted after \(n) others")
        }
    }

    func testAScopedUseEndsItsReadSoAnotherConnectionCanWrite() throws {
        let database = try database()
        defer { database.close() }
        let writer = try SQLiteDatabase(path: storeURL().path)
        defer { writer.close() }
        writer.setBusyTimeout(seconds: 0)
        // Stepping once leaves the SELECT in the middle of its rows, holding a read lock
        // on the file; the end of the scope must release it.
        let first = try database.withStatement("SELECT x FROM t ORDER BY x") { statement -> Int64 in
            _ = try statement.step()
            return statement.int64(0)
        }
        XCTAssertEqual(first, 1)
        XCTAssertNoThrow(try writer.executeUncached("INSERT INTO t VALUES (4)"), "the reader still held its lock")
    }

    func testAScopedUseResetsWhenItsBodyThrows() throws {
        let database = try database()
        defer { database.close() }
        let writer = try SQLiteDatabase(path: storeURL().path)
        defer { writer.close() }
        writer.setBusyTimeout(seconds: 0)
        struct Stop: Error {}
        XCTAssertThrowsError(try database.withStatement("SELECT x FROM t") { statement in
            _ = try statement.step()
            throw Stop()
        })
        XCTAssertNoThrow(try writer.executeUncached("INSERT INTO t VALUES (5)"))
    }

    func testANestedUseOfTheSameSQLKeepsTheOuterPlace() throws {
        let database = try database()
        defer { database.close() }
        let sql = "SELECT x FROM t ORDER BY x"
        let pairs = try database.withStatement(sql) { outer -> [Int64] in
            var seen: [Int64] = []
            while try outer.step() {
                seen.append(outer.int64(0))
                let innerFirst = try database.withStatement(sql) { inner -> Int64 in
                    _ = try inner.step()
                    return inner.int64(0)
                }
                XCTAssertEqual(innerFirst, 1)
            }
            return seen
        }
        XCTAssertEqual(pairs, [1, 2, 3], "the inner use did not reset the outer statement")
    }
}
