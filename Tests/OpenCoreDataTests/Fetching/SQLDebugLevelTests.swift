import Foundation
import XCTest

import class OpenCoreData.NSPredicate
@testable import OpenCoreData

/// What each SQL debug level adds, seen from a fetch and a save. Levels as published from
/// Core Data's output (blog.raymccrae.scot, "Core Data SQLDebug Log Levels", 2017): 1 the
/// statements and timings, 2 the bound values (`CoreData: details: SQLite bind[0] = …`),
/// 4 SQLite's plan for each query (`CoreData: details: SQLite: EXPLAIN QUERY PLAN for …`).
final class SQLDebugLevelTests: FetchTestCase {
    private var fixture: TrailheadFixture!
    private var context: NSManagedObjectContext { fixture.context }

    override func setUpWithError() throws {
        try super.setUpWithError()
        fixture = try TrailheadFixture(directory: directory)
        for name in ["Laugavegur", "Kungsleden"] { _ = fixture.insert("Trail", ["name": name, "lengthKm": 10.0]) }
        try context.save()
        context.reset()
    }

    private func byName() -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        request.predicate = NSPredicate(format: "name == %@", "Kungsleden")
        return request
    }

    func testLevelFourAddsTheQueryPlanAfterTheBindings() throws {
        let (result, lines) = try capturingSQL(level: 4) { try context.fetch(byName()) }
        XCTAssertEqual(result.count, 1)
        XCTAssertTrue(lines[0].hasPrefix("CoreData: sql: SELECT 0, t0.Z_PK"), lines[0])
        XCTAssertEqual(lines[1], "CoreData: details: SQLite bind[0] = \"Kungsleden\"")
        XCTAssertEqual(lines[2], "CoreData: details: SQLite: EXPLAIN QUERY PLAN for " + lines[0].dropFirst("CoreData: sql: ".count))
        XCTAssertTrue(lines[3].hasPrefix("    "), lines[3])
        // The trail's name is indexed (Z_Trail_name): SQLite searches instead of scanning.
        XCTAssertTrue(lines[3].contains("USING INDEX Z_Trail_name (ZNAME=?)"), lines[3])
        XCTAssertTrue(lines[4].hasPrefix("CoreData: annotation: sql connection fetch time: "), lines[4])
    }

    func testLevelThreeListsTheFetchedObjectsBeforeTheTotalTime() throws {
        let (result, lines) = try capturingSQL(level: 3) { try context.fetch(byName()) }
        XCTAssertEqual(result.count, 1)
        XCTAssertEqual(lines.count, 5, lines.joined(separator: "\n"))
        XCTAssertEqual(lines[1], "CoreData: details: SQLite bind[0] = \"Kungsleden\"")
        XCTAssertTrue(lines[2].hasPrefix("CoreData: annotation: sql connection fetch time: "), lines[2])
        let sql = String(lines[0].dropFirst("CoreData: sql: ".count))
        XCTAssertTrue(lines[3].hasPrefix("CoreData: annotation: fetch using NSSQLiteStatement <0x"), lines[3])
        XCTAssertTrue(lines[3].contains("> on entity 'Trail' with sql text '\(sql)' returned 1 rows with values: (\n    \"<NSManagedObject: 0x"), lines[3])
        XCTAssertTrue(lines[3].hasSuffix("/Trail/p2>; data: <fault>)\"\n)"), lines[3])
        XCTAssertTrue(lines[4].hasPrefix("CoreData: annotation: total fetch execution time: "), lines[4])
        XCTAssertTrue(lines[4].hasSuffix(" for 1 rows."), lines[4])

        let (_, twoLines) = try capturingSQL(level: 2) { try context.fetch(byName()) }
        XCTAssertTrue(twoLines[3].hasSuffix("' returned 1 rows"), twoLines[3])
    }

    func testAScanShowsInThePlanOfAnUnindexedPredicate() throws {
        let long = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        long.predicate = NSPredicate(format: "lengthKm > 5")
        let (_, lines) = try capturingSQL(level: 4) { try context.fetch(long) }
        let plan = lines.filter { $0.hasPrefix("    ") }
        XCTAssertFalse(plan.isEmpty, lines.joined(separator: "\n"))
        XCTAssertTrue(plan.contains { $0.contains("SCAN t0") }, plan.joined(separator: "\n"))
    }

    func testAStringRangeIsPlainSQLThatSearchesTheIndex() throws {
        let prefix = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        prefix.predicate = NSPredicate(format: "name >= %@ AND name < %@", "Kun", "Kuo")
        let (result, lines) = try capturingSQL(level: 4) { try context.fetch(prefix) }
        XCTAssertEqual(result.map { $0.value(forKey: "name") as? String }, ["Kungsleden"])
        XCTAssertTrue(lines[0].hasSuffix("WHERE ( t0.ZNAME >= ? AND  t0.ZNAME < ?) ORDER BY t0.Z_PK"), lines[0])
        XCTAssertTrue(lines.contains { $0.hasPrefix("    ") && $0.contains("USING INDEX Z_Trail_name (ZNAME>? AND ZNAME<?)") },
                      lines.joined(separator: "\n"))
    }

    func testStringOrderInAFetchIsBytewiseWhileInMemoryItIsFoundations() throws {
        // "e" + combining acute is canonically equal to "é" for Foundation, but its UTF-8
        // bytes sort before "é"'s: the fetch (SQL) and evaluate(with:) part here.
        let decomposed = fixture.insert("Trail", ["name": "e\u{301}tape"])
        try context.save()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        request.predicate = NSPredicate(format: "name >= %@", "\u{E9}tape")
        XCTAssertTrue(request.predicate!.evaluate(with: decomposed))
        XCTAssertFalse(try context.fetch(request).contains(decomposed))
    }

    func testLevelsBelowFourPrintNoPlanAndSavesAreNotExplained() throws {
        let (_, levelThree) = try capturingSQL(level: 3) { try context.fetch(byName()) }
        XCTAssertFalse(levelThree.contains { $0.contains("EXPLAIN QUERY PLAN") }, levelThree.joined(separator: "\n"))
        XCTAssertTrue(levelThree.contains("CoreData: details: SQLite bind[0] = \"Kungsleden\""))
        let (_, levelOne) = try capturingSQL(level: 1) { try context.fetch(byName()) }
        XCTAssertFalse(levelOne.contains { $0.contains("bind[") }, levelOne.joined(separator: "\n"))

        _ = fixture.insert("Trail", ["name": "Sarek"])
        let (_, saving) = try capturingSQL(level: 4) { try context.save() }
        let explained = saving.filter { $0.contains("EXPLAIN QUERY PLAN for") }
        XCTAssertTrue(explained.allSatisfy { $0.contains("EXPLAIN QUERY PLAN for SELECT") }, explained.joined(separator: "\n"))
        XCTAssertTrue(saving.contains("CoreData: sql: BEGIN EXCLUSIVE"))
        XCTAssertTrue(saving.contains("CoreData: sql: COMMIT"))
    }
}
