import Foundation
import XCTest

import class OpenCoreData.NSComparisonPredicate
import class OpenCoreData.NSCompoundPredicate
import class OpenCoreData.NSExpression
import class OpenCoreData.NSPredicate
import class OpenCoreData.NSSortDescriptor
@testable import OpenCoreData

/// Where a fetch from the SQLite store and `evaluate(with:)` answer differently: NULL.
///
/// Core Data's SQLite store filters with SQL's three-valued logic: `name != "x"` is
/// written `t0.ZNAME <> ?`, and a comparison with a NULL operand is unknown, so objects
/// whose `name` is nil are not fetched; in memory, Foundation's `nil != "x"` is true.
/// Reported with Core Data on iOS by Douglas Hill, "NSPredicate: an old API with new
/// surprises" (https://douglashill.co/nspredicate-null-inequality/, 2023): `author != %@`
/// filtered in memory keeps the nil authors, the same predicate in a Core Data fetch
/// leaves them out. Each test pins both answers, and says which path the fetch took: the
/// SQL path (no unsaved changes, SQL debug output shows the `SELECT`) or memory.
final class NullLogicFetchTests: FetchTestCase {
    private var fixture: TrailheadFixture!
    private var context: NSManagedObjectContext { fixture.context }

    override func setUpWithError() throws {
        try super.setUpWithError()
        fixture = try TrailheadFixture(directory: directory)
        let japan = fixture.insert("Country", ["name": "Japan"])
        let ridge = fixture.insert("Trail", ["name": "Ridge", "rating": Int16(5), "lengthKm": 12.0])
        ridge.setValue(japan, forKey: "country")
        let coast = fixture.insert("Trail", ["name": "Coast", "rating": Int16(2), "lengthKm": 4.0])
        _ = fixture.insert("Trail", ["name": nil, "rating": nil, "lengthKm": 4.0])
        for (notes, trail) in [("on the ridge", ridge), ("by the sea", coast), ("nowhere", nil)] as [(String, NSManagedObject?)] {
            let hike = fixture.insert("Hike", ["notes": notes])
            hike.setValue(trail, forKey: "trail")
        }
        try context.save()
        context.reset()
    }

    private func trailRequest(_ format: String, _ arguments: [Any] = []) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        request.predicate = NSPredicate(format: format, argumentArray: arguments)
        return request
    }

    private func label(_ object: NSManagedObject) -> String {
        let key = object.entity.name == "Hike" ? "notes" : "name"
        return object.value(forKey: key) as? String ?? "nil"
    }

    /// The SQL fetch's answer (checked to be SQL: a `SELECT` with `where` in it, no
    /// in-memory annotation) and `evaluate(with:)`'s over every object, both sorted.
    private func answers(_ format: String, _ arguments: [Any] = [], entity: String = "Trail", where sql: String? = nil,
                         file: StaticString = #filePath, line: UInt = #line) throws -> (fetch: [String], memory: [String]) {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.predicate = NSPredicate(format: format, argumentArray: arguments)
        XCTAssertFalse(context.hasChanges, "the SQL path needs a context without unsaved changes", file: file, line: line)
        let (fetched, lines) = try capturingSQL { try context.fetch(request) }
        XCTAssertTrue(lines.first?.hasPrefix("CoreData: sql: SELECT") == true, "\(format): \(lines)", file: file, line: line)
        XCTAssertFalse(lines.contains { $0.contains("in memory") }, "\(format): \(lines)", file: file, line: line)
        if let sql { XCTAssertTrue(lines.first?.contains(sql) == true, "\(format): \(lines.first ?? "")", file: file, line: line) }
        XCTAssertEqual(try context.count(for: request), fetched.count, "count(for:) of \(format)", file: file, line: line)
        let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity))
        let memory = all.filter { request.predicate!.evaluate(with: $0) }
        return (fetched.map(label).sorted(), memory.map(label).sorted())
    }

    func testNotEqualLeavesOutNilInTheStoreButNotInMemory() throws {
        let result = try answers("name != %@", ["Ridge"], where: "WHERE  t0.ZNAME <> ?")
        XCTAssertEqual(result.fetch, ["Coast"])
        XCTAssertEqual(result.memory, ["Coast", "nil"])
        let numbers = try answers("rating != 5", where: "WHERE  t0.ZRATING <> ?")
        XCTAssertEqual(numbers.fetch, ["Coast"])
        XCTAssertEqual(numbers.memory, ["Coast", "nil"])
    }

    func testNotOfAComparisonWithNilIsNotTrue() throws {
        let result = try answers("NOT (rating > 3)", where: "WHERE  NOT ( t0.ZRATING > ?)")
        XCTAssertEqual(result.fetch, ["Coast"])
        XCTAssertEqual(result.memory, ["Coast", "nil"])
        let search = try answers("NOT (name BEGINSWITH %@)", ["R"])
        XCTAssertEqual(search.fetch, ["Coast"])
        XCTAssertEqual(search.memory, ["Coast", "nil"])
        // A string never equals a number; a nil name still makes the comparison unknown.
        let mismatch = try answers("NOT (name == 3)")
        XCTAssertEqual(mismatch.fetch, ["Coast", "Ridge"])
        XCTAssertEqual(mismatch.memory, ["Coast", "Ridge", "nil"])
    }

    func testOrderingWithNilAgreesUntilNegated() throws {
        // nil is neither less nor greater: both sides leave it out.
        for format in ["rating < 3", "rating > 3", "rating <= 5"] {
            let result = try answers(format)
            XCTAssertEqual(result.fetch, result.memory, format)
            XCTAssertFalse(result.fetch.contains("nil"), format)
        }
        // A nil constant: `rating < nil` is false in memory (so its NOT true), and a fetch
        // from the SQLite store raises Core Data's `illegal comparison with NULL` (see
        // PredicateSQLTranslationTests.testNilConstantsCoreDataRefuses).
        let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
        XCTAssertEqual(all.filter { NSPredicate(format: "rating < nil").evaluate(with: $0) }.map(label), [])
        XCTAssertEqual(all.filter { NSPredicate(format: "NOT (rating < nil)").evaluate(with: $0) }.map(label).sorted(), ["Coast", "Ridge", "nil"])
        let refusal = try fixture.store.engine.translator(for: fixture.container.managedObjectModel.entitiesByName["Trail"]!)
        XCTAssertThrowsError(try refusal.condition(NSPredicate(format: "NOT (rating < nil)"))) { error in
            XCTAssertEqual((error as? SQLUntranslatable)?.exception?.reason, "illegal comparison with NULL")
        }
    }

    func testEqualsNilIsTheOneTestForNil() throws {
        let isNil = try answers("name == nil", where: "WHERE  t0.ZNAME IS NULL")
        XCTAssertEqual(isNil.fetch, ["nil"])
        XCTAssertEqual(isNil.memory, ["nil"])
        let notNil = try answers("name != nil", where: "WHERE  t0.ZNAME IS NOT NULL")
        XCTAssertEqual(notNil.fetch, ["Coast", "Ridge"])
        XCTAssertEqual(notNil.memory, ["Coast", "Ridge"])
        // The way to ask for "not Ridge, nil included" in a fetch:
        let both = try answers("name != %@ OR name == nil", ["Ridge"])
        XCTAssertEqual(both.fetch, ["Coast", "nil"])
        XCTAssertEqual(both.memory, ["Coast", "nil"])
    }

    func testTwoKeyPathsBothNilAreNotEqualInTheStore() throws {
        // Two attributes compared: `t0.ZNAME = t1.ZNAME` is unknown when either is NULL.
        let result = try answers("name == country.name OR lengthKm == rating")
        XCTAssertEqual(result.fetch, [])
        XCTAssertEqual(result.memory, ["nil"], "in memory nil == nil (name and country.name of the nameless trail)")
    }

    func testToOneKeyPathsThroughANilRelationship() throws {
        // The hike "nowhere" has no trail: trail.name is nil for it.
        let name = try answers("trail.name != %@", ["Ridge"], entity: "Hike", where: "t1.ZNAME <> ?")
        XCTAssertEqual(name.fetch, ["by the sea"])
        XCTAssertEqual(name.memory, ["by the sea", "nowhere"])
        let rating = try answers("NOT (trail.rating > 3)", entity: "Hike")
        XCTAssertEqual(rating.fetch, ["by the sea"])
        XCTAssertEqual(rating.memory, ["by the sea", "nowhere"])
        let isNil = try answers("trail.name == nil", entity: "Hike")
        XCTAssertEqual(isNil.fetch, ["nowhere"])
        XCTAssertEqual(isNil.memory, ["nowhere"])
        // The relationship itself: `t0.ZTRAIL <> ?` leaves out the hike without a trail.
        let ridge = try context.fetch(trailRequest("name == 'Ridge'"))[0]
        let object = try answers("trail != %@", [ridge], entity: "Hike", where: "WHERE  t0.ZTRAIL <> ?")
        XCTAssertEqual(object.fetch, ["by the sea"])
        XCTAssertEqual(object.memory, ["by the sea", "nowhere"])
        let countryName = try answers("trail.country.name != %@", ["Greece"], entity: "Hike")
        XCTAssertEqual(countryName.fetch, ["on the ridge"])
        XCTAssertEqual(countryName.memory, ["by the sea", "nowhere", "on the ridge"])
    }

    func testAFetchWithUnsavedChangesMergesSQLsAnswerWithMemorys() throws {
        // As in Core Data: the store answers in SQL (its NULL logic leaves out the saved
        // trail without a name), then the unsaved objects are judged in memory, by
        // Foundation's rule: the inserted trail without a name matches `name != "Ridge"`.
        _ = fixture.insert("Trail", ["name": "Lake"])
        _ = fixture.insert("Trail", [:])
        let request = trailRequest("name != %@", ["Ridge"])
        let (fetched, lines) = try capturingSQL { try context.fetch(request) }
        XCTAssertTrue(lines[0].hasSuffix("FROM ZTRAIL t0 WHERE  t0.ZNAME <> ? ORDER BY t0.Z_PK"), lines[0])
        XCTAssertEqual(fetched.map(label), ["Coast", "Lake", "nil"])
        XCTAssertTrue(fetched.last!.objectID.isTemporaryID, "the nil name that matched is the unsaved one")
        try context.save()
        // Saved, the same trail is left out by SQL.
        XCTAssertEqual(try context.fetch(request).map(label), ["Coast", "Lake"])
    }
}
