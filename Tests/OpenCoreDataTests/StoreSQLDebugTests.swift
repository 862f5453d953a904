import Foundation
import XCTest

@testable import OpenCoreData

final class StoreSQLDebugTests: StoreTestCase {
    private var lines: [String] = []
    private let linesLock = NSLock()

    private func capture(level: Int) {
        SQLDebugLog.setLevelOverride(level)
        SQLDebugLog.setSink { [weak self] line in
            guard let self else { return }
            self.linesLock.lock()
            self.lines.append(line)
            self.linesLock.unlock()
        }
    }

    private func bookModel() -> (NSManagedObjectModel, NSEntityDescription) {
        let book = makeEntity("Book")
        book.properties = [
            makeAttribute("author", .stringAttributeType), makeAttribute("title", .stringAttributeType),
            makeAttribute("published", .dateAttributeType), makeAttribute("pages", .integer32AttributeType),
        ]
        return (makeModel([book]), book)
    }

    /// Replaces the digits of timings with `#`, so lines compare exactly otherwise.
    private func masked(_ line: String) -> String {
        line.replacingOccurrences(of: #"\d+\.\d{4}s"#, with: "#.####s", options: .regularExpression)
    }

    func testLaunchArgumentsSetTheLevel() {
        XCTAssertEqual(SQLDebugLog.level(fromArguments: ["app", "-com.apple.CoreData.SQLDebug", "3"]), 3)
        XCTAssertEqual(SQLDebugLog.level(fromArguments: ["app", "-com.apple.CoreData.SQLDebug", "1", "-other", "x"]), 1)
        XCTAssertEqual(SQLDebugLog.level(fromArguments: ["app"]), 0)
        XCTAssertEqual(SQLDebugLog.level(fromArguments: ["app", "-com.apple.CoreData.SQLDebug"]), 0)
        XCTAssertEqual(SQLDebugLog.level(fromArguments: ["app", "-com.apple.CoreData.SQLDebug", "x"]), 0)
        XCTAssertEqual(SQLDebugLog.seconds4(0.00012), "0.0001")
        XCTAssertEqual(SQLDebugLog.seconds4(1.23456), "1.2346")
    }

    /// The level is kept between statements (reading `UserDefaults` at each costs
    /// microseconds), yet a `set` or `removeObject` between two statements takes effect
    /// at the second, and so does a `register(defaults:)` made with a `set` or
    /// `removeObject` after it (see LinuxDifferences.md).
    func testTheUserDefaultIsFollowedBetweenStatements() throws {
        let (model, book) = bookModel()
        let engine = try openEngine(model)
        defer { engine.close() }
        let defaults = UserDefaults.standard
        let key = SQLDebugLog.userDefaultsKey
        defer {
            // Registered defaults cannot be removed: the one below leaves level 0 in force,
            // and the level is read between the `set` and the removal so that it is seen.
            defaults.register(defaults: [key: 0])
            defaults.set(0, forKey: key)
            XCTAssertEqual(SQLDebugLog.level, 0)
            defaults.removeObject(forKey: key)
            XCTAssertEqual(SQLDebugLog.level, 0)
        }
        capture(level: 0)
        SQLDebugLog.setLevelOverride(nil)
        func count() throws -> [String] {
            linesLock.lock()
            lines.removeAll()
            linesLock.unlock()
            _ = try engine.countRows(of: book, includesSubentities: true)
            return lines.map(masked)
        }
        let statement = "CoreData: sql: SELECT COUNT(*) FROM ZBOOK t0"
        let timing = "CoreData: annotation: total count request execution time: #.####s for count of 0."
        XCTAssertEqual(try count(), [])
        defaults.set(1, forKey: key)
        XCTAssertEqual(try count(), [statement, timing])
        XCTAssertEqual(try count(), [statement, timing])
        defaults.set(0, forKey: key)
        XCTAssertEqual(try count(), [])
        defaults.set("1", forKey: key)
        XCTAssertEqual(try count(), [statement, timing])
        defaults.removeObject(forKey: key)
        XCTAssertEqual(try count(), [])
        // A registered default applies where nothing is stored for the key.
        defaults.register(defaults: [key: 1])
        defaults.set(0, forKey: key)
        XCTAssertEqual(try count(), [])
        defaults.removeObject(forKey: key)
        XCTAssertEqual(try count(), [statement, timing])
    }

    func testLevelOnePrintsStatementsAndFetchTimings() throws {
        let (model, book) = bookModel()
        let engine = try openEngine(model)
        defer { engine.close() }
        capture(level: 1)
        let pk = try engine.allocatePrimaryKeys(for: book, count: 1).lowerBound
        try engine.performSave { try $0.insert(StoreRow(key: StoreKey(entityNumber: 1, primaryKey: pk), entity: book, version: 1, attributes: ["title": "Dune"], toOne: [:])) }
        _ = try engine.fetchRows(of: book, includesSubentities: true)
        _ = try engine.countRows(of: book, includesSubentities: true)
        XCTAssertEqual(lines.map(masked), [
            "CoreData: sql: BEGIN EXCLUSIVE",
            "CoreData: sql: SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?",
            "CoreData: sql: UPDATE OR FAIL Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ? AND Z_MAX = ?",
            "CoreData: sql: COMMIT",
            "CoreData: sql: BEGIN EXCLUSIVE",
            "CoreData: sql: INSERT INTO ZBOOK(Z_PK, Z_ENT, Z_OPT, ZPAGES, ZPUBLISHED, ZAUTHOR, ZTITLE) VALUES(?, ?, ?, ?, ?, ?, ?)",
            "CoreData: sql: COMMIT",
            "CoreData: sql: SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZPAGES, t0.ZPUBLISHED, t0.ZAUTHOR, t0.ZTITLE FROM ZBOOK t0 ORDER BY t0.Z_PK",
            "CoreData: annotation: sql connection fetch time: #.####s",
            "CoreData: annotation: total fetch execution time: #.####s for 1 rows.",
            "CoreData: sql: SELECT COUNT(*) FROM ZBOOK t0",
            "CoreData: annotation: total count request execution time: #.####s for count of 1.",
        ])
    }

    func testBindValuesArePrintedFromLevelTwo() throws {
        let (model, book) = bookModel()
        let engine = try openEngine(model)
        defer { engine.close() }
        capture(level: 3)
        let published = Date(timeIntervalSinceReferenceDate: 599_529_600)
        try engine.performSave { transaction in
            let pk = try transaction.allocatePrimaryKeys(for: book, count: 1).lowerBound
            try transaction.insert(StoreRow(key: StoreKey(entityNumber: 1, primaryKey: pk), entity: book, version: 1, attributes: ["title": "s", "pages": Int32(412), "published": published], toOne: [:]))
        }
        XCTAssertEqual(lines, [
            "CoreData: sql: BEGIN EXCLUSIVE",
            "CoreData: sql: SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?",
            "CoreData: details: SQLite bind[0] = (int64)1",
            "CoreData: sql: UPDATE OR FAIL Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ? AND Z_MAX = ?",
            "CoreData: details: SQLite bind[0] = (int64)1",
            "CoreData: details: SQLite bind[1] = (int64)1",
            "CoreData: details: SQLite bind[2] = (int64)0",
            "CoreData: sql: INSERT INTO ZBOOK(Z_PK, Z_ENT, Z_OPT, ZPAGES, ZPUBLISHED, ZAUTHOR, ZTITLE) VALUES(?, ?, ?, ?, ?, ?, ?)",
            "CoreData: details: SQLite bind[0] = (int64)1",
            "CoreData: details: SQLite bind[1] = (int64)1",
            "CoreData: details: SQLite bind[2] = (int64)1",
            "CoreData: details: SQLite bind[3] = 412",
            "CoreData: details: SQLite bind[4] = (timestamp)599529600.000000",
            "CoreData: details: SQLite bind[5] = nil",
            "CoreData: details: SQLite bind[6] = \"s\"",
            "CoreData: sql: COMMIT",
        ])
    }

    func testLevelZeroIsSilent() throws {
        let (model, book) = bookModel()
        capture(level: 0)
        let engine = try openEngine(model)
        defer { engine.close() }
        _ = try engine.fetchRows(of: book, includesSubentities: true)
        XCTAssertEqual(lines, [])
    }

    func testOpeningAStoreIsLogged() throws {
        let (model, _) = bookModel()
        capture(level: 1)
        try openEngine(model).close()
        XCTAssertEqual(lines.first, "CoreData: annotation: Connecting to sqlite database file at \"\(storeURL().path)\"")
        XCTAssertTrue(lines.contains("CoreData: sql: pragma journal_mode=wal"))
        XCTAssertTrue(lines.contains("CoreData: sql: CREATE TABLE ZBOOK ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPAGES INTEGER, ZPUBLISHED TIMESTAMP, ZAUTHOR VARCHAR, ZTITLE VARCHAR )"), "\(lines)")
        XCTAssertTrue(lines.contains("CoreData: sql: CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)"))
    }

    func testLevelTwoPrintsBindingsAndAFetchSummary() throws {
        let (model, book) = bookModel()
        let engine = try openEngine(model)
        defer { engine.close() }
        capture(level: 2)
        _ = try engine.fetchRows(of: book, includesSubentities: true)
        let select = "SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZPAGES, t0.ZPUBLISHED, t0.ZAUTHOR, t0.ZTITLE FROM ZBOOK t0 ORDER BY t0.Z_PK"
        XCTAssertEqual(lines.count, 4, "\(lines)")
        XCTAssertEqual(lines[0], "CoreData: sql: " + select)
        XCTAssertEqual(masked(lines[1]), "CoreData: annotation: sql connection fetch time: #.####s")
        XCTAssertEqual(
            lines[2].replacingOccurrences(of: #"<0x[0-9a-f]+>"#, with: "<0x…>", options: .regularExpression),
            "CoreData: annotation: fetch using NSSQLiteStatement <0x…> on entity 'Book' with sql text '\(select)' returned 0 rows")
        XCTAssertEqual(masked(lines[3]), "CoreData: annotation: total fetch execution time: #.####s for 0 rows.")
    }
}
