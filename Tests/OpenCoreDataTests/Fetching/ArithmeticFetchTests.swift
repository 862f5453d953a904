import Foundation
import XCTest

import class OpenCoreData.NSExpression
import class OpenCoreData.NSPredicate
@testable import OpenCoreData

/// Arithmetic and functions in a fetch from the SQLite store: SQL computes them, as Core
/// Data's store does (`(t0.ZRATING / ?) = ?`, from NSSQLFunctionExpressionIntermediate), so
/// the answers are SQL's: dividing two integers truncates (as it does in memory), a NULL
/// operand makes the comparison unknown.
final class ArithmeticFetchTests: FetchTestCase {
    private var fixture: TrailheadFixture!
    private var context: NSManagedObjectContext { fixture.context }

    override func setUpWithError() throws {
        try super.setUpWithError()
        fixture = try TrailheadFixture(directory: directory)
        _ = fixture.insert("Trail", ["name": "Ridge", "rating": Int16(5), "lengthKm": 12.0, "elevation": Int32(900)])
        _ = fixture.insert("Trail", ["name": "Coast", "rating": Int16(2), "lengthKm": 4.0, "elevation": Int32(10)])
        _ = fixture.insert("Trail", ["name": "Unrated", "rating": nil, "lengthKm": 4.0, "elevation": Int32(10)])
        try context.save()
        context.reset()
    }

    /// The names a SQL fetch returns (checked to run as one `SELECT` whose text contains
    /// `sql`), and those `evaluate(with:)` accepts; both sorted.
    private func answers(_ format: String, where sql: String, arguments: [Any] = [], file: StaticString = #filePath, line: UInt = #line) throws
        -> (fetch: [String], memory: [String])
    {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        request.predicate = NSPredicate(format: format, argumentArray: arguments)
        let (fetched, lines) = try capturingSQL { try context.fetch(request) }
        XCTAssertTrue(lines.first?.hasPrefix("CoreData: sql: SELECT") == true, "\(format): \(lines)", file: file, line: line)
        XCTAssertTrue(lines.first?.contains(sql) == true, "\(format): \(lines.first ?? "")", file: file, line: line)
        XCTAssertEqual(try context.count(for: request), fetched.count, "count(for:) of \(format)", file: file, line: line)
        let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
        let memory = all.filter { request.predicate!.evaluate(with: $0) }
        func names(_ objects: [NSManagedObject]) -> [String] { objects.map { $0.value(forKey: "name") as! String }.sorted() }
        return (names(fetched), names(memory))
    }

    func testProductOfTwoAttributesIsComparedInSQL() throws {
        let result = try answers("lengthKm * rating > 20", where: "WHERE  (t0.ZLENGTHKM * t0.ZRATING) > ?")
        XCTAssertEqual(result.fetch, ["Ridge"])
        XCTAssertEqual(result.memory, ["Ridge"])
    }

    /// Integer division truncates: Ridge's 5 / 2 is 2, in the store and in memory.
    func testDividingIntegersTruncates() throws {
        let result = try answers("rating / 2 == 2", where: "WHERE  (t0.ZRATING / ?) = ?")
        XCTAssertEqual(result.fetch, ["Ridge"])
        XCTAssertEqual(result.memory, ["Ridge"])
        // A real operand keeps the fraction.
        XCTAssertEqual(try answers("rating / 2.0 == 2.5", where: "(t0.ZRATING / ?) = ?").fetch, ["Ridge"])
    }

    /// A nil rating makes `rating + 1` NULL, and `NULL <> 3` unknown: Unrated is left out.
    func testNilOperandLeavesTheObjectOut() throws {
        let result = try answers("rating + 1 != 3", where: "WHERE  (t0.ZRATING + ?) <> ?")
        XCTAssertEqual(result.fetch, ["Ridge"])
    }

    /// `sum:`, `count:`, `max:` of a to-many key path are correlated subqueries, as the
    /// collection operators `@sum`, `@count`, `@max` are.
    func testAggregateFunctionsOfAToManyKeyPath() throws {
        let ridge = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first { $0.value(forKey: "name") as? String == "Ridge" }!
        for distance in [3.0, 4.0] {
            fixture.insert("Hike", ["distance": distance]).setValue(ridge, forKey: "trail")
        }
        try context.save()
        let sum = try answers("sum:(hikes.distance) > 5", where: "(SELECT TOTAL(t1.ZDISTANCE) FROM ZHIKE t1 WHERE  t1.ZTRAIL = t0.Z_PK) > ?")
        XCTAssertEqual(sum.fetch, ["Ridge"])
        XCTAssertEqual(sum.memory, ["Ridge"])
        let none = try answers("count:(hikes) == 0", where: "(SELECT COUNT(*) FROM ZHIKE t1 WHERE  t1.ZTRAIL = t0.Z_PK) = ?")
        XCTAssertEqual(none.fetch, ["Coast", "Unrated"])
        XCTAssertEqual(none.memory, ["Coast", "Unrated"])
        XCTAssertEqual(try answers("max:(hikes.distance) == 4", where: "(SELECT MAX(t1.ZDISTANCE) FROM ZHIKE t1").fetch, ["Ridge"])
    }

    /// Decimal attributes are compared and sorted in SQL, as numbers: a decimal of up to 15
    /// digits is an INTEGER or REAL in its DECIMAL column and compares by value, as in
    /// memory; one of more digits stays text and SQL orders it after every number, where
    /// memory compares its value.
    func testDecimalAttributesAreComparedAndSortedInSQL() throws {
        let trails = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
        let fees: [String: Decimal?] = ["Ridge": Decimal(string: "19.99"), "Coast": Decimal(5), "Unrated": Decimal(string: "1.23456789012345678901")]
        for trail in trails { trail.setValue(fees[trail.value(forKey: "name") as! String]!, forKey: "fee") }
        try context.save()
        let over = try answers("fee > 10", where: "WHERE  t0.ZFEE > ?")
        XCTAssertEqual(over.fetch, ["Ridge", "Unrated"], "the 21-digit fee is text in its column, after every number")
        XCTAssertEqual(over.memory, ["Ridge"])
        let exact = try answers("fee == %@", where: "WHERE  t0.ZFEE = ?", arguments: [Decimal(string: "19.99")!])
        XCTAssertEqual(exact.fetch, ["Ridge"], "bound as the double nearest 19.99, as the column holds it")
        let whole = try answers("fee == 5", where: "WHERE  t0.ZFEE = ?")
        XCTAssertEqual(whole.fetch, ["Coast"])
        XCTAssertEqual(whole.memory, ["Coast"])
        let sorted = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        sorted.sortDescriptors = [NSSortDescriptor(key: "fee", ascending: true)]
        let (inOrder, lines) = try capturingSQL { try context.fetch(sorted) }
        XCTAssertTrue(lines.first?.contains("ORDER BY t0.ZFEE, t0.Z_PK") == true, lines.first ?? "")
        XCTAssertEqual(inOrder.map { $0.value(forKey: "name") as! String }, ["Coast", "Ridge", "Unrated"])
    }

    /// BETWEEN key paths: SQL, each bound a column; a nil bound leaves the row out.
    func testBetweenKeyPathsIsSQL() throws {
        let result = try answers("lengthKm BETWEEN {rating, elevation}", where: "WHERE ( t0.ZLENGTHKM BETWEEN t0.ZRATING AND t0.ZELEVATION)")
        XCTAssertEqual(result.fetch, ["Coast", "Ridge"])
        XCTAssertEqual(result.memory, ["Coast", "Ridge"])
    }

    /// `average:` of a to-many key path is SQL's AVG in a correlated subquery, NULL over no
    /// elements: the trails without hikes are not fetched by `average:(…) == 0` or by its
    /// NOT; `sum:` is TOTAL, 0 over no elements, as in memory.
    func testAverageOfAToManyKeyPathIsNullWithoutElements() throws {
        let ridge = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first { $0.value(forKey: "name") as? String == "Ridge" }!
        for distance in [3.0, 6.0] {
            fixture.insert("Hike", ["distance": distance]).setValue(ridge, forKey: "trail")
        }
        try context.save()
        let average = try answers("average:(hikes.distance) == 4.5", where: "WHERE  (SELECT AVG(t1.ZDISTANCE) FROM ZHIKE t1 WHERE  t1.ZTRAIL = t0.Z_PK) = ?")
        XCTAssertEqual(average.fetch, ["Ridge"])
        XCTAssertEqual(average.memory, ["Ridge"])
        let notAverage = try answers("NOT (average:(hikes.distance) == 4.5)", where: "(SELECT AVG(t1.ZDISTANCE)")
        XCTAssertEqual(notAverage.fetch, [], "AVG of no rows is NULL: unknown, not fetched")
        XCTAssertEqual(notAverage.memory, ["Coast", "Unrated"])
        // `hikes.@avg.distance` is the same AVG subquery (Core Data rewrites @avg as average:).
        let notAverageOperator = try answers("NOT (hikes.@avg.distance == 4.5)", where: "(SELECT AVG(t1.ZDISTANCE)")
        XCTAssertEqual(notAverageOperator.fetch, [])
        XCTAssertEqual(notAverageOperator.memory, ["Coast", "Unrated"])
        // After a SUBQUERY, @sum is SUM: NULL where no hike matches, so no trail is fetched.
        let noneLong = try answers("SUBQUERY(hikes, $h, $h.distance > 5).@sum.distance == 0", where: "(SELECT SUM(t1.ZDISTANCE) FROM ZHIKE t1")
        XCTAssertEqual(noneLong.fetch, [])
        let noSum = try answers("sum:(hikes.distance) == 0", where: "(SELECT TOTAL(t1.ZDISTANCE)")
        XCTAssertEqual(noSum.fetch, ["Coast", "Unrated"])
        XCTAssertEqual(noSum.memory, ["Coast", "Unrated"])
    }

    /// `average:`, `sum:`, `min:`, `max:` of an attribute of the fetched entity: Core Data's
    /// store compares each row with the aggregate over the whole table, an uncorrelated
    /// subquery; `evaluate(with:)` aggregates the one object's own value.
    func testAggregateFunctionsOfAnAttributeRunOverTheTable() throws {
        // Lengths 12, 4, 4: the average is 6.67.
        let longer = try answers("lengthKm > average:(lengthKm)", where: "WHERE  t0.ZLENGTHKM > (SELECT avg(t1.ZLENGTHKM) FROM ZTRAIL t1)")
        XCTAssertEqual(longer.fetch, ["Ridge"])
        XCTAssertEqual(longer.memory, [], "in memory each length is its own average")
        let best = try answers("rating == max:(rating)", where: "WHERE  t0.ZRATING = (SELECT max(t1.ZRATING) FROM ZTRAIL t1)")
        XCTAssertEqual(best.fetch, ["Ridge"])
        XCTAssertEqual(best.memory, ["Coast", "Ridge", "Unrated"], "in memory the max of a nil rating is nil, and nil == nil")
        let share = try answers("lengthKm * 5 > sum:(lengthKm)", where: "WHERE  (t0.ZLENGTHKM * ?) > (SELECT total(t1.ZLENGTHKM) FROM ZTRAIL t1)")
        XCTAssertEqual(share.fetch, ["Ridge"])
        XCTAssertEqual(share.memory, ["Coast", "Ridge", "Unrated"])
    }

    func testFunctionsCoreDataWritesInSQL() throws {
        XCTAssertEqual(try answers("abs(rating - 4) <= 1", where: "abs((t0.ZRATING - ?)) <= ?").fetch, ["Ridge"])
        XCTAssertEqual(try answers("uppercase(name) == 'COAST'", where: "NSCoreDataToUpper(t0.ZNAME) = ?").fetch, ["Coast"])
        XCTAssertEqual(try answers("elevation - lengthKm * 10 > 0", where: "(t0.ZELEVATION - (t0.ZLENGTHKM * ?)) > ?").fetch, ["Ridge"])
    }
}
