import Foundation
import XCTest

import class OpenCoreData.NSComparisonPredicate
import class OpenCoreData.NSCompoundPredicate
import class OpenCoreData.NSExpression
import class OpenCoreData.NSPredicate
import class OpenCoreData.NSSortDescriptor
@testable import OpenCoreData

/// Predicate → SQL text and bound values: the shapes the translator produces, and what it
/// leaves to memory.
final class PredicateSQLTranslationTests: FetchTestCase {
    private var fixture: TrailheadFixture!

    override func setUpWithError() throws {
        try super.setUpWithError()
        fixture = try TrailheadFixture(directory: directory)
    }

    private func translator(_ entity: String = "Trail") throws -> PredicateSQLTranslator {
        let model = fixture.container.managedObjectModel
        return try fixture.store.engine.translator(for: model.entitiesByName[entity]!)
    }

    /// The WHERE condition, joins and binds of `predicate` on `entity`.
    private func sql(_ predicate: NSPredicate, _ entity: String = "Trail") throws -> (String, String, [String]) {
        let translator = try translator(entity)
        let condition = try translator.condition(predicate)
        return (condition.sql, translator.rootJoins, condition.binds.map(\.debugDescription))
    }

    private func assertSQL(_ format: String, _ arguments: [Any], _ expected: String, binds: [String], joins: String = "",
                           entity: String = "Trail", file: StaticString = #filePath, line: UInt = #line) throws {
        let (text, joinText, bound) = try sql(NSPredicate(format: format, argumentArray: arguments), entity)
        XCTAssertEqual(text, expected, format, file: file, line: line)
        XCTAssertEqual(bound, binds, format, file: file, line: line)
        XCTAssertEqual(joinText, joins, format, file: file, line: line)
    }

    private func assertFallsBack(_ predicate: NSPredicate, _ reason: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let translator = try translator()
        XCTAssertThrowsError(try translator.condition(predicate), "\(predicate)", file: file, line: line) { error in
            XCTAssertTrue("\(error)".contains(reason), "\(error)", file: file, line: line)
        }
    }

    func testComparisons() throws {
        try assertSQL("name == %@", ["Ridge"], " t0.ZNAME = ?", binds: ["\"Ridge\""])
        try assertSQL("name != %@", ["Ridge"], " t0.ZNAME <> ?", binds: ["\"Ridge\""])
        try assertSQL("rating > 3", [], " t0.ZRATING > ?", binds: ["3"])
        try assertSQL("lengthKm <= 2.5", [], " t0.ZLENGTHKM <= ?", binds: ["2.5"])
        try assertSQL("isLoop == YES", [], " t0.ZISLOOP = ?", binds: ["1"])
        try assertSQL("opened < %@", [Date(timeIntervalSinceReferenceDate: 86_400)], " t0.ZOPENED < ?", binds: ["(timestamp)86400.000000"])
        // Core Data's BETWEEN text (NSSQLSimpleWhereIntermediate's
        // _generateSQLBetweenStringInContext:); with [c]/[d], the two folded comparisons.
        try assertSQL("lengthKm BETWEEN {5, 10}", [], "( t0.ZLENGTHKM BETWEEN ? AND ?)", binds: ["5", "10"])
        try assertSQL("name BETWEEN[c] {'a', 'm'}", [],
                      "( NSCoreDataStringCompare(t0.ZNAME, ?, 3, 1, 0) AND  NSCoreDataStringCompare(t0.ZNAME, ?, 1, 1, 0))", binds: ["\"a\"", "\"m\""])
        try assertSQL("rating IN {3, 4}", [], " t0.ZRATING IN (?, ?)", binds: ["3", "4"])
        try assertSQL("rating IN %@", [[3, nil as Int?] as [Any?]], "( t0.ZRATING IN (?) OR  t0.ZRATING IS NULL)", binds: ["3"])
        try assertSQL("name == nil", [], " t0.ZNAME IS NULL", binds: [])
        try assertSQL("name != nil", [], " t0.ZNAME IS NOT NULL", binds: [])
        try assertSQL("lengthKm < elevation", [], " t0.ZLENGTHKM < t0.ZELEVATION", binds: [])
        try assertSQL("lengthKm == elevation", [], " t0.ZLENGTHKM = t0.ZELEVATION", binds: [])
        try assertSQL("lengthKm != elevation", [], " t0.ZLENGTHKM <> t0.ZELEVATION", binds: [])
        // A decimal attribute is a number column.
        try assertSQL("fee > %@", [Decimal(string: "19.99")!], " t0.ZFEE > ?", binds: ["19.99"])
        try assertSQL("fee == 5", [], " t0.ZFEE = ?", binds: ["5"])
        XCTAssertEqual(try translator().orderBy([NSSortDescriptor(key: "fee", ascending: false)]), "t0.ZFEE DESC, t0.Z_PK")
    }

    /// BETWEEN with key paths among its bounds is SQL in Core Data's store
    /// (NSSQLSimpleWhereIntermediate's `_generateSQLBetweenStringInContext:` writes each
    /// bound of an aggregate expression, key path or constant).
    func testBetweenKeyPathBounds() throws {
        try assertSQL("lengthKm BETWEEN {rating, elevation}", [], "( t0.ZLENGTHKM BETWEEN t0.ZRATING AND t0.ZELEVATION)", binds: [])
        try assertSQL("lengthKm BETWEEN {2, elevation}", [], "( t0.ZLENGTHKM BETWEEN ? AND t0.ZELEVATION)", binds: ["2"])
        try assertSQL("distance BETWEEN {1, trail.lengthKm}", [], "( t0.ZDISTANCE BETWEEN ? AND t1.ZLENGTHKM)", binds: ["1"],
                      joins: " LEFT OUTER JOIN ZTRAIL t1 ON t0.ZTRAIL = t1.Z_PK", entity: "Hike")
    }

    /// IN and CONTAINS between two single-valued key paths: Core Data's containment SQL
    /// (NSSQLSimpleWhereIntermediate's `_generateSQLContainmentStringInContext:`) refuses
    /// them, `(LHS and RHS both keypaths)`; `evaluate(with:)` answers (a substring test for
    /// strings). A constant or a to-many side is SQL.
    func testInAndContainsBetweenTwoKeyPathsRaise() throws {
        for format in ["name IN country.name", "name CONTAINS country.name", "country.name CONTAINS[c] name"] {
            let predicate = NSPredicate(format: format)
            XCTAssertEqual(try exception(predicate), "NSInvalidArgumentException: unimplemented SQL generation for predicate : (\(predicate)) (LHS and RHS both keypaths)", format)
        }
        XCTAssertNil(try exception(NSPredicate(format: "name IN %@", ["a"])))
        XCTAssertNil(try exception(NSPredicate(format: "name CONTAINS 'a'")))
        XCTAssertNil(try exception(NSPredicate(format: "lengthKm IN hikes.distance")))
        let trail = ["name": "Ridge", "country": ["name": "Ridge Country"]] as NSDictionary
        XCTAssertTrue(NSPredicate(format: "name IN country.name").evaluate(with: trail))
        XCTAssertTrue(NSPredicate(format: "country.name CONTAINS name").evaluate(with: trail))
    }

    func testStaticAnswers() throws {
        // A string never equals a number: decided without the value, except that a NULL
        // operand makes any comparison unknown, as `t0.ZNAME = 3` would be.
        try assertSQL("name == 3", [], " CASE WHEN t0.ZNAME IS NULL THEN NULL ELSE 0 END", binds: [])
        try assertSQL("name != 3", [], " CASE WHEN t0.ZNAME IS NULL THEN NULL ELSE 1 END", binds: [])
        try assertSQL("rating IN {'x'}", [], " CASE WHEN t0.ZRATING IS NULL THEN NULL ELSE 0 END", binds: [])
        try assertSQL("rating > 3 OR 1 == 1", [], " 1", binds: [])
        // SQLite's `x IN ()` is false, for NULL too.
        try assertSQL("rating IN {}", [], " 0", binds: [])
    }

    func testStringOperatorsUseRegisteredFunctions() throws {
        try assertSQL("name CONTAINS[cd] %@", ["e"], " NSCoreDataStringSearch( t0.ZNAME, ?, 385, 0)", binds: ["\"e\""])
        try assertSQL("name BEGINSWITH[c] %@", ["a"], " NSCoreDataStringSearch( t0.ZNAME, ?, 265, 0)", binds: ["\"a\""])
        try assertSQL("name ENDSWITH %@", ["a"], " NSCoreDataStringSearch( t0.ZNAME, ?, 12, 0)", binds: ["\"a\""])
        try assertSQL("name CONTAINS[n] %@", ["a"], " NSCoreDataStringSearch( t0.ZNAME, ?, 2, 0)", binds: ["\"a\""])
        try assertSQL("name LIKE[c] %@", ["r*"], " NSCoreDataLike( t0.ZNAME, ?, 1)", binds: ["\"r*\""])
        try assertSQL("name MATCHES %@", ["R.*"], " NSCoreDataMatches( t0.ZNAME, ?, 0)", binds: ["\"R.*\""])
        try assertSQL("name ==[cd] %@", ["cafe"], " NSCoreDataStringCompare(t0.ZNAME, ?, 4, 3, 0)", binds: ["\"cafe\""])
        // Ordering without [c]/[d] is plain SQL (bytewise, indexable), as Core Data's string
        // range SQL is (`t0.ZKEYWORD BETWEEN ? AND ?`, mlsite.net/blog/?p=1150).
        try assertSQL("name < %@", ["M"], " t0.ZNAME < ?", binds: ["\"M\""])
        try assertSQL("name <[c] %@", ["M"], " NSCoreDataStringCompare(t0.ZNAME, ?, 0, 1, 0)", binds: ["\"M\""])
        try assertSQL("name IN[c] {'a', 'b'}", [], "( NSCoreDataStringCompare(t0.ZNAME, ?, 4, 1, 0) OR  NSCoreDataStringCompare(t0.ZNAME, ?, 4, 1, 0))", binds: ["\"a\"", "\"b\""])
        try assertSQL("%@ BEGINSWITH name", ["Ridge Trail"], " NSCoreDataStringSearch( ?, t0.ZNAME, 8, 0)", binds: ["\"Ridge Trail\""])
    }

    func testNotIsSQLsNot() throws {
        // No IFNULL: NOT of an unknown comparison stays unknown, as in Core Data's store.
        try assertSQL("NOT name == %@", ["x"], " NOT ( t0.ZNAME = ?)", binds: ["\"x\""])
        try assertSQL("NOT name CONTAINS %@", ["x"], " NOT ( NSCoreDataStringSearch( t0.ZNAME, ?, 0, 0))", binds: ["\"x\""])
    }

    func testToOneKeyPathsJoin() throws {
        try assertSQL("country.name == %@", ["Japan"], " t1.ZNAME = ?", binds: ["\"Japan\""],
                      joins: " LEFT OUTER JOIN ZCOUNTRY t1 ON t0.ZCOUNTRY = t1.Z_PK")
        try assertSQL("country.name == %@ OR country.code == %@", ["Japan", "GR"], "( t1.ZNAME = ? OR  t1.ZCODE = ?)", binds: ["\"Japan\"", "\"GR\""],
                      joins: " LEFT OUTER JOIN ZCOUNTRY t1 ON t0.ZCOUNTRY = t1.Z_PK")
        try assertSQL("trail.country.name == %@", ["Japan"], " t2.ZNAME = ?", binds: ["\"Japan\""],
                      joins: " LEFT OUTER JOIN ZTRAIL t1 ON t0.ZTRAIL = t1.Z_PK LEFT OUTER JOIN ZCOUNTRY t2 ON t1.ZCOUNTRY = t2.Z_PK", entity: "Hike")
        try assertSQL("country == nil", [], " t0.ZCOUNTRY IS NULL", binds: [])
    }

    func testToManyKeyPathsUseSubqueries() throws {
        try assertSQL("ANY hikes.distance > 10", [], " EXISTS (SELECT 1 FROM ZHIKE t1 WHERE ( t1.ZTRAIL = t0.Z_PK AND  t1.ZDISTANCE > ?))", binds: ["10"])
        try assertSQL("ALL hikes.distance > 10", [],
                      " NOT ( EXISTS (SELECT 1 FROM ZHIKE t1 WHERE ( t1.ZTRAIL = t0.Z_PK AND  NOT ( t1.ZDISTANCE > ?))))", binds: ["10"])
        try assertSQL("NONE hikes.distance > 10", [], " NOT ( EXISTS (SELECT 1 FROM ZHIKE t1 WHERE ( t1.ZTRAIL = t0.Z_PK AND  t1.ZDISTANCE > ?)))", binds: ["10"])
        try assertSQL("hikes.@count > 2", [], " (SELECT COUNT(*) FROM ZHIKE t1 WHERE  t1.ZTRAIL = t0.Z_PK) > ?", binds: ["2"])
        // Core Data's store rewrites `@sum`/`@avg` as `sum:`/`average:` (NSExpression's
        // _NSCoreDataSQLPredicateCategories): TOTAL, and AVG, NULL over no hikes.
        try assertSQL("hikes.@sum.distance >= 20", [], " (SELECT TOTAL(t1.ZDISTANCE) FROM ZHIKE t1 WHERE  t1.ZTRAIL = t0.Z_PK) >= ?", binds: ["20"])
        try assertSQL("hikes.@avg.distance < 5", [], " (SELECT AVG(t1.ZDISTANCE) FROM ZHIKE t1 WHERE  t1.ZTRAIL = t0.Z_PK) < ?", binds: ["5"])
        try assertSQL("SUBQUERY(hikes, $h, $h.distance > 10).@count > 0", [],
                      " (SELECT COUNT(*) FROM ZHIKE t1 WHERE ( t1.ZTRAIL = t0.Z_PK AND  t1.ZDISTANCE > ?)) > ?", binds: ["10", "0"])
        // A collection operator after a SUBQUERY: the trailing function of
        // NSSQLSubqueryExpressionIntermediate, SUM (not TOTAL) over the matching elements.
        try assertSQL("SUBQUERY(hikes, $h, $h.distance > 10).@sum.distance > 30", [],
                      " (SELECT SUM(t1.ZDISTANCE) FROM ZHIKE t1 WHERE ( t1.ZTRAIL = t0.Z_PK AND  t1.ZDISTANCE > ?)) > ?", binds: ["10", "30"])
        try assertSQL("SUBQUERY(hikes, $h, $h.notes != nil).@max.date > %@", [Date(timeIntervalSinceReferenceDate: 0)],
                      " (SELECT MAX(t1.ZDATE) FROM ZHIKE t1 WHERE ( t1.ZTRAIL = t0.Z_PK AND  t1.ZNOTES IS NOT NULL)) > ?", binds: ["(timestamp)0.000000"])
        try assertSQL("ANY hikes.hikers.name ==[c] %@", ["ana"],
                      " EXISTS (SELECT 1 FROM ZHIKE t1 WHERE ( t1.ZTRAIL = t0.Z_PK AND  EXISTS (SELECT 1 FROM Z_2HIKERS t3 JOIN ZHIKER t2 ON t2.Z_PK = t3.Z_3HIKERS WHERE ( t3.Z_2HIKES = t1.Z_PK AND  NSCoreDataStringCompare(t2.ZNAME, ?, 4, 1, 0)))))",
                      binds: ["\"ana\""])
        try assertSQL("country.trails.@count > 1", [], " CASE WHEN t1.Z_PK IS NULL THEN NULL ELSE (SELECT COUNT(*) FROM ZTRAIL t2 WHERE  t2.ZCOUNTRY = t1.Z_PK) END > ?",
                      binds: ["1"], joins: " LEFT OUTER JOIN ZCOUNTRY t1 ON t0.ZCOUNTRY = t1.Z_PK")
    }

    /// `x IN SUBQUERY(…)` and `SUBQUERY(…) CONTAINS x` are SQL in Core Data's store: its
    /// containment SQL (NSSQLSimpleWhereIntermediate's `_generateSQLContainmentStringInContext:`)
    /// writes `<lhs> IN ` and the SUBQUERY's SQL for a SUBQUERY right-hand side (type 13, or
    /// a SUBQUERY followed by a key path), and NSSQLSubqueryExpressionIntermediate selects,
    /// without a trailing function, its variable column (the destination's `Z_PK`) or the
    /// trailing key path's column.
    func testInSubquery() throws {
        try fixture.fill(seed: 3, trails: 3, hikes: 3, hikers: 2)
        let hike = fixture.hikes[0], hiker = fixture.hikers[1]
        let hikePK = hike.objectID.storeKey!.primaryKey, hikerPK = hiker.objectID.storeKey!.primaryKey
        try assertSQL("%@ IN SUBQUERY(hikes, $h, $h.distance > 10)", [hike],
                      " ? IN (SELECT t1.Z_PK FROM ZHIKE t1 WHERE ( t1.ZTRAIL = t0.Z_PK AND  t1.ZDISTANCE > ?))", binds: ["(int64)\(hikePK)", "10"])
        // CONTAINS with the SUBQUERY on the left is the same IN (the containment SQL swaps the sides).
        try assertSQL("SUBQUERY(hikes, $h, $h.distance > 10) CONTAINS %@", [hike],
                      " ? IN (SELECT t1.Z_PK FROM ZHIKE t1 WHERE ( t1.ZTRAIL = t0.Z_PK AND  t1.ZDISTANCE > ?))", binds: ["(int64)\(hikePK)", "10"])
        try assertSQL("lengthKm IN SUBQUERY(hikes, $h, $h.distance > 10).distance", [],
                      " t0.ZLENGTHKM IN (SELECT t1.ZDISTANCE FROM ZHIKE t1 WHERE ( t1.ZTRAIL = t0.Z_PK AND  t1.ZDISTANCE > ?))", binds: ["10"])
        try assertSQL("SELF IN SUBQUERY(country.trails, $t, $t.rating >= 3)", [],
                      " t0.Z_PK IN (SELECT t2.Z_PK FROM ZTRAIL t2 WHERE ( t2.ZCOUNTRY = t1.Z_PK AND  t2.ZRATING >= ?))", binds: ["3"],
                      joins: " LEFT OUTER JOIN ZCOUNTRY t1 ON t0.ZCOUNTRY = t1.Z_PK")
        // A to-one key of the fetched entity compares its foreign key.
        try assertSQL("trail IN SUBQUERY(trail.country.trails, $t, $t.rating >= 3)", [],
                      " t0.ZTRAIL IN (SELECT t3.Z_PK FROM ZTRAIL t3 WHERE ( t3.ZCOUNTRY = t2.Z_PK AND  t3.ZRATING >= ?))", binds: ["3"],
                      joins: " LEFT OUTER JOIN ZTRAIL t1 ON t0.ZTRAIL = t1.Z_PK LEFT OUTER JOIN ZCOUNTRY t2 ON t1.ZCOUNTRY = t2.Z_PK", entity: "Hike")
        // A many-to-many collection: its join table joined to the destination.
        try assertSQL("%@ IN SUBQUERY(hikers, $p, $p.age > 40)", [hiker],
                      " ? IN (SELECT t1.Z_PK FROM Z_2HIKERS t2 JOIN ZHIKER t1 ON t1.Z_PK = t2.Z_3HIKERS WHERE ( t2.Z_2HIKES = t0.Z_PK AND  t1.ZAGE > ?))",
                      binds: ["(int64)\(hikerPK)", "40"], entity: "Hike")
        // A nil `x` is NULL in SQL, unknown for every row; an object of another entity is never an element.
        try assertSQL("SUBQUERY(hikes, $h, $h.distance > 10) CONTAINS nil", [], " NULL", binds: [])
        try assertSQL("%@ IN SUBQUERY(hikes, $h, $h.distance > 10)", [hiker], " 0", binds: [])
        // Compared other than by IN (`==`, `!=`, …) a SUBQUERY is still read in memory.
        try assertFallsBack(NSPredicate(format: "SUBQUERY(hikes, $h, $h.distance > 10) == %@", [hike]), "a SUBQUERY compared other than by IN")
    }

    /// What Core Data's SUBQUERY SQL refuses: a collection that is not a key path
    /// (NSSQLIntermediate's `_generateSQLForSubqueryExpression:trailingKeypath:inContext:`), a
    /// key path to an attribute (NSSQLSubqueryExpressionIntermediate); inside IN or CONTAINS
    /// the containment SQL replaces the message with its own `unimplemented SQL generation
    /// for predicate : (%@)`. `evaluate(with:)` answers all of them.
    func testSubqueryRefusalsRaise() throws {
        let constant = NSPredicate(format: "SUBQUERY(%@, $x, $x > 2).@count > 0", [1, 2, 3])
        XCTAssertEqual(try exception(constant), "NSInvalidArgumentException: Unsupported subquery collection expression type")
        XCTAssertTrue(constant.evaluate(with: nil))
        let attribute = NSPredicate(format: "SUBQUERY(name, $x, $x == 'a').@count > 0")
        XCTAssertEqual(try exception(attribute),
                       "NSInvalidArgumentException: Can't have a non-relationship collection element in a subquerySUBQUERY(name, $x, $x == \"a\")")
        for predicate in [NSPredicate(format: "rating IN SUBQUERY(%@, $x, $x > 2)", [1, 2, 3]),
                          NSPredicate(format: "SUBQUERY(name, $x, $x == 'a') CONTAINS 'a'"),
                          NSPredicate(format: "lengthKm IN SUBQUERY(hikes, $h, $h.nmae == 'a').distance"),
                          NSPredicate(format: "hikes IN SUBQUERY(hikes, $h, $h.distance > 1)")] {
            XCTAssertEqual(try exception(predicate), "NSInvalidArgumentException: unimplemented SQL generation for predicate : (\(predicate))")
        }
        XCTAssertTrue(NSPredicate(format: "rating IN SUBQUERY(%@, $x, $x > 2)", [1, 2, 3]).evaluate(with: ["rating": 3] as NSDictionary))
    }

    func testObjectsAndObjectIDs() throws {
        try fixture.fill(seed: 1, trails: 3, hikes: 3, hikers: 2)
        let trail = fixture.trails[1]
        let pk = trail.objectID.storeKey!.primaryKey
        try assertSQL("SELF == %@", [trail], " t0.Z_PK = ?", binds: ["(int64)\(pk)"])
        try assertSQL("SELF == %@", [trail.objectID], " t0.Z_PK = ?", binds: ["(int64)\(pk)"])
        try assertSQL("SELF IN %@", [[trail.objectID, fixture.trails[2]]], " t0.Z_PK IN (?, ?)",
                      binds: ["(int64)\(pk)", "(int64)\(fixture.trails[2].objectID.storeKey!.primaryKey)"])
        try assertSQL("trail == %@", [trail], " t0.ZTRAIL = ?", binds: ["(int64)\(pk)"], entity: "Hike")
        try assertSQL("ANY hikes == %@", [fixture.hikes[0]], " EXISTS (SELECT 1 FROM ZHIKE t1 WHERE ( t1.ZTRAIL = t0.Z_PK AND  t1.Z_PK = ?))",
                      binds: ["(int64)\(fixture.hikes[0].objectID.storeKey!.primaryKey)"])
        // A country is never a trail.
        try assertSQL("SELF == %@", [fixture.countries[0]], " 0", binds: [])
        // An unsaved object is in no row.
        let fresh = fixture.insert("Trail", ["name": "New"])
        try assertSQL("SELF == %@", [fresh], " 0", binds: [])
        fixture.context.rollback()
    }

    /// This library's gaps: no exception, the fetch evaluates these parts in memory.
    func testWhatStaysInMemory() throws {
        try assertFallsBack(NSPredicate(format: "name != rating"), "a comparison of a string with a number key path")
        for predicate in ["name != rating"] {
            XCTAssertThrowsError(try translator().condition(NSPredicate(format: predicate))) { error in
                XCTAssertNil((error as? SQLUntranslatable)?.exception, predicate)
            }
        }
    }

    /// The exception a SQLite fetch raises (Core Data's, from its SQL generation).
    private func exception(_ predicate: NSPredicate, _ entity: String = "Trail") throws -> String? {
        do {
            _ = try translator(entity).condition(predicate)
            return nil
        } catch let error as SQLUntranslatable {
            guard let exception = error.exception else { return nil }
            return "\(exception.name.rawValue): \(exception.reason)"
        }
    }

    /// What Core Data's SQLite store refuses, with its exception name and reason
    /// (`keypath %@ not found in entity %@`, `to-many key not allowed here`, `Unknown
    /// predicate type for predicate: %@`, `Problem with subpredicate %@`: the format
    /// strings of Core Data's NSSQLKeypathExpressionIntermediate, NSSQLGenerator and
    /// NSSQLCompoundWhereIntermediate).
    func testWhatCoreDataRefusesRaises() throws {
        XCTAssertEqual(try exception(NSPredicate(format: "nickname == 'x'")), "NSInvalidArgumentException: keypath nickname not found in entity <NSSQLEntity Trail id=4>")
        XCTAssertEqual(try exception(NSPredicate(format: "country.nmae == 'x'")), "NSInvalidArgumentException: keypath country.nmae not found in entity <NSSQLEntity Trail id=4>")
        XCTAssertEqual(try exception(NSPredicate(format: "hikes.distance > 3")), "NSInvalidArgumentException: to-many key not allowed here")
        let block = NSPredicate { _, _ in true }
        XCTAssertEqual(try exception(block), "NSInvalidArgumentException: Unknown predicate type for predicate: \(block)")
        XCTAssertTrue("\(block)".hasPrefix("BLOCKPREDICATE(0x"), "\(block)")
        let compound = NSCompoundPredicate(andPredicateWithSubpredicates: [NSPredicate(format: "lengthKm > 3"), block])
        XCTAssertEqual(try exception(compound), "NSInvalidArgumentException: Problem with subpredicate \(block)")
        XCTAssertEqual(try exception(NSCompoundPredicate(notPredicateWithSubpredicate: block)), "NSInvalidArgumentException: Problem with subpredicate \(block)")
        // What Core Data runs in SQL raises nothing.
        XCTAssertNil(try exception(NSPredicate(format: "ANY hikes.distance > 3 AND country.name BEGINSWITH 'J'")))
    }

    /// A nil constant where Core Data's store refuses one, with NSSQLSimpleWhereIntermediate's
    /// reasons: ordered against (`illegal comparison with NULL`, either side, under NOT or
    /// ANY too), or on the left of any comparison (`can't use NULL on left hand side`).
    /// `== nil` and `!= nil` are its `IS NULL` tests; nil inside arithmetic is SQL's NULL.
    func testNilConstantsCoreDataRefuses() throws {
        let illegal = "NSInvalidArgumentException: illegal comparison with NULL"
        for format in ["rating < nil", "rating <= nil", "rating > nil", "rating >= nil", "NOT rating < nil", "ANY hikes.distance > nil"] {
            XCTAssertEqual(try exception(NSPredicate(format: format)), illegal, format)
        }
        XCTAssertEqual(try exception(NSPredicate(format: "rating < %@", argumentArray: [NSNull()])), illegal)
        let leftHandSide = "NSInvalidArgumentException: can't use NULL on left hand side"
        for format in ["nil == name", "nil != name", "nil < rating", "nil IN {1, 2}"] {
            XCTAssertEqual(try exception(NSPredicate(format: format)), leftHandSide, format)
        }
        XCTAssertEqual(try exception(NSPredicate(format: "rating < $R").withSubstitutionVariables(["R": NSNull()])), illegal)
        XCTAssertNil(try exception(NSPredicate(format: "name == nil OR name != nil")))
        XCTAssertNil(try exception(NSPredicate(format: "rating + nil > 1")))
        // In memory both are plain comparisons: false for every object.
        let trail = ["rating": 3] as NSDictionary
        XCTAssertFalse(NSPredicate(format: "rating < nil").evaluate(with: trail))
        XCTAssertFalse(NSPredicate(format: "nil == rating").evaluate(with: trail))
        XCTAssertTrue(NSPredicate(format: "NOT rating < nil").evaluate(with: trail))
    }

    /// Arithmetic and the functions Core Data's store writes in SQL, with its SQL text:
    /// `(a + b)`, `abs(x)`, `(~x)`, `+(x)`, `NSCoreDataToUpper(x)` (the symbols and
    /// prefixes of NSSQLFunctionExpressionIntermediate's `generateSQLStringInContext:`).
    func testArithmeticAndFunctionsAreSQL() throws {
        try assertSQL("lengthKm * rating > 20", [], " (t0.ZLENGTHKM * t0.ZRATING) > ?", binds: ["20"])
        try assertSQL("rating / 2 == 2", [], " (t0.ZRATING / ?) = ?", binds: ["2", "2"])
        try assertSQL("lengthKm + 1 - elevation < 0", [], " ((t0.ZLENGTHKM + ?) - t0.ZELEVATION) < ?", binds: ["1", "0"])
        try assertSQL("modulus:by:(rating, 2) == 1", [], " (t0.ZRATING % ?) = ?", binds: ["2", "1"])
        try assertSQL("abs(rating - 4) <= 1", [], " abs((t0.ZRATING - ?)) <= ?", binds: ["4", "1"])
        try assertSQL("bitwiseAnd:with:(rating, 1) == 1", [], " (t0.ZRATING & ?) = ?", binds: ["1", "1"])
        try assertSQL("onesComplement:(rating) == -3", [], " (~t0.ZRATING) = ?", binds: ["-3"])
        try assertSQL("noindex:(name) == 'Ridge'", [], " +(t0.ZNAME) = ?", binds: ["\"Ridge\""])
        try assertSQL("uppercase(name) == 'RIDGE'", [], " NSCoreDataToUpper(t0.ZNAME) = ?", binds: ["\"RIDGE\""])
        try assertSQL("lowercase(country.name) BEGINSWITH 'j'", [], " NSCoreDataStringSearch( NSCoreDataToLower(t1.ZNAME), ?, 8, 0)",
                      binds: ["\"j\""], joins: " LEFT OUTER JOIN ZCOUNTRY t1 ON t0.ZCOUNTRY = t1.Z_PK")
        // A date plus seconds is compared as a date.
        try assertSQL("opened + 86400 < %@", [Date(timeIntervalSinceReferenceDate: 172_800)], " (t0.ZOPENED + ?) < ?",
                      binds: ["86400", "(timestamp)172800.000000"])
        try assertSQL("hikes.@count * 2 > rating", [], " ((SELECT COUNT(*) FROM ZHIKE t1 WHERE  t1.ZTRAIL = t0.Z_PK) * ?) > t0.ZRATING", binds: ["2"])
        try assertSQL("rating + nil > 1", [], " (t0.ZRATING + NULL) > ?", binds: ["1"])
        // A Decimal constant is bound as a number: a whole one as an integer, else a double.
        try assertSQL("lengthKm > %@", [Decimal(string: "2.5")!], " t0.ZLENGTHKM > ?", binds: ["2.5"])
        try assertSQL("rating == %@", [Decimal(4)], " t0.ZRATING = ?", binds: ["4"])
        // Aggregate functions of a to-many key path are its collection operators.
        // `sum:` is TOTAL (0 over no rows), `average:` AVG: NSSQLFunctionExpressionIntermediate
        // passes `total` and `avg` for them, its subqueries upper-case trailing functions.
        try assertSQL("sum:(hikes.distance) >= 20", [], " (SELECT TOTAL(t1.ZDISTANCE) FROM ZHIKE t1 WHERE  t1.ZTRAIL = t0.Z_PK) >= ?", binds: ["20"])
        try assertSQL("average:(hikes.distance) > 3", [], " (SELECT AVG(t1.ZDISTANCE) FROM ZHIKE t1 WHERE  t1.ZTRAIL = t0.Z_PK) > ?", binds: ["3"])
        try assertSQL("min:(hikes.date) > %@", [Date(timeIntervalSinceReferenceDate: 0)], " (SELECT MIN(t1.ZDATE) FROM ZHIKE t1 WHERE  t1.ZTRAIL = t0.Z_PK) > ?",
                      binds: ["(timestamp)0.000000"])
        // Of an attribute of the fetched entity: the whole table, uncorrelated
        // (`_generateUncorrelatedSubqueryStringWithSymbol:forAttribute:inContext:`).
        try assertSQL("lengthKm > average:(lengthKm)", [], " t0.ZLENGTHKM > (SELECT avg(t1.ZLENGTHKM) FROM ZTRAIL t1)", binds: [])
        try assertSQL("distance < sum:(distance) / 10", [], " t0.ZDISTANCE < ((SELECT total(t1.ZDISTANCE) FROM ZHIKE t1) / ?)", binds: ["10"], entity: "Hike")
        try assertSQL("opened == min:(opened)", [], " t0.ZOPENED = (SELECT min(t1.ZOPENED) FROM ZTRAIL t1)", binds: [])
        try assertSQL("count:(hikes) > 2", [], " (SELECT COUNT(*) FROM ZHIKE t1 WHERE  t1.ZTRAIL = t0.Z_PK) > ?", binds: ["2"])
        try assertSQL("max:(hikes.distance) < 5", [], " (SELECT MAX(t1.ZDISTANCE) FROM ZHIKE t1 WHERE  t1.ZTRAIL = t0.Z_PK) < ?", binds: ["5"])
        // An invalid pattern is SQL too: NSCoreDataMatches raises on the first row it tests.
        try assertSQL("name MATCHES '('", [], " NSCoreDataMatches( t0.ZNAME, ?, 0)", binds: ["\"(\""])
    }

    /// Variables and functions Core Data's store cannot write in SQL raise its exceptions:
    /// `unable to resolve variable expression: %@` (NSSQLVariableExpressionIntermediate),
    /// `Unsupported function type passed to SQL store` (NSSQLFunctionExpressionIntermediate,
    /// for every selector it does not list: `sqrt:`, `floor:`, `FUNCTION(x, 'selector')`, …).
    func testUnsubstitutedVariablesAndUnknownFunctionsRaise() throws {
        XCTAssertEqual(try exception(NSPredicate(format: "name == $NAME")), "NSInvalidArgumentException: unable to resolve variable expression: $NAME")
        let unsupported = "NSInvalidArgumentException: Unsupported function type passed to SQL store"
        XCTAssertEqual(try exception(NSPredicate(format: "sqrt(lengthKm) > 2")), unsupported)
        XCTAssertEqual(try exception(NSPredicate(format: "floor(lengthKm) == 2")), unsupported)
        XCTAssertEqual(try exception(NSPredicate(format: "FUNCTION(name, 'uppercaseString') == 'X'")), unsupported)
        XCTAssertEqual(try exception(NSPredicate(format: "abs(hikes.distance) > 2")), "NSInvalidArgumentException: to-many key not allowed here")
        // A variable bound by SUBQUERY, and a substituted one, are SQL.
        XCTAssertNil(try exception(NSPredicate(format: "SUBQUERY(hikes, $h, $h.distance > 3).@count > 0")))
        XCTAssertNil(try exception(NSPredicate(format: "name == $NAME").withSubstitutionVariables(["NAME": "Ridge"])))
        // A function of constants is computed once, as before.
        XCTAssertNil(try exception(NSPredicate(format: "lengthKm > sqrt(16)")))
    }

    /// An aggregate function of a key path that crosses no to-many relationship: Core
    /// Data's correlated aggregate (`_generateCorrelatedSubqueryStringWithSymbol:…` of
    /// NSSQLFunctionExpressionIntermediate) raises `Invalid keypath (request for aggregate
    /// operation on a toOne-only keypath): %@`; `count:` always takes that route, `sum:`,
    /// `average:`, `min:`, `max:` when the path has a dot (a single attribute is the table's).
    func testAggregatesOfToOneOnlyKeyPathsRaise() throws {
        XCTAssertEqual(try exception(NSPredicate(format: "count:(rating) > 3")),
                       "NSInvalidArgumentException: Invalid keypath (request for aggregate operation on a toOne-only keypath): rating")
        XCTAssertEqual(try exception(NSPredicate(format: "max:(country.name) == 'x'")),
                       "NSInvalidArgumentException: Invalid keypath (request for aggregate operation on a toOne-only keypath): country.name")
        XCTAssertEqual(try exception(NSPredicate(format: "sum:(trail.lengthKm) > 3"), "Hike"),
                       "NSInvalidArgumentException: Invalid keypath (request for aggregate operation on a toOne-only keypath): trail.lengthKm")
        XCTAssertNil(try exception(NSPredicate(format: "sum:(lengthKm) > 3")))
        XCTAssertNil(try exception(NSPredicate(format: "count:(hikes) > 3")))
        // In memory each is the aggregate of the one value.
        XCTAssertTrue(NSPredicate(format: "count:(rating) == 1").evaluate(with: ["rating": 3] as NSDictionary))
    }

    /// A cast or an index of a key path: `castObject:toType:` and `objectFrom:withIndex:`
    /// are not among the selectors NSSQLFunctionExpressionIntermediate's
    /// `generateSQLStringInContext:` writes, so Core Data's store raises its `Unsupported
    /// function type passed to SQL store` for them, where `evaluate(with:)` answers.
    /// `@count` (and `count:`) of a to-many relationship is SQL; `[SIZE]` is an index.
    func testCastsAndIndexesOfKeyPathsRaise() throws {
        let unsupported = "NSInvalidArgumentException: Unsupported function type passed to SQL store"
        for format in ["CAST(rating, 'NSString') == '3'", "CAST(name, 'NSNumber') > 2", "hikes[FIRST].distance > 2",
                       "hikes[LAST] == nil", "hikes[SIZE] > 1", "hikes[0].distance > 1"] {
            XCTAssertEqual(try exception(NSPredicate(format: format)), unsupported, format)
        }
        XCTAssertNil(try exception(NSPredicate(format: "hikes.@count > 1")))
        XCTAssertNil(try exception(NSPredicate(format: "count:(hikes) > 1")))
        XCTAssertNil(try exception(NSPredicate(format: "opened < CAST(86400, 'NSDate')")))
        // In memory they are plain values.
        let trail = ["rating": 3, "name": "12", "tags": ["a", "b"]] as NSDictionary
        XCTAssertTrue(NSPredicate(format: "CAST(rating, 'NSString') == '3'").evaluate(with: trail))
        XCTAssertTrue(NSPredicate(format: "CAST(name, 'NSNumber') > 2").evaluate(with: trail))
        XCTAssertTrue(NSPredicate(format: "tags[0] == 'a' AND tags[SIZE] == 2").evaluate(with: trail))
    }

    func testConstantExpressionsAreComputedOnce() throws {
        try assertSQL("rating > 1 + 2", [], " t0.ZRATING > ?", binds: ["3"])
        try assertSQL("opened < CAST(86400, 'NSDate')", [], " t0.ZOPENED < ?", binds: ["(timestamp)86400.000000"])
    }

    func testSortDescriptorsBecomeOrderBy() throws {
        let translator = try translator()
        XCTAssertEqual(try translator.orderBy([
            NSSortDescriptor(key: "name", ascending: true, selector: Selector("localizedStandardCompare:")),
            NSSortDescriptor(key: "lengthKm", ascending: false),
        ]), "t0.ZNAME COLLATE NSCollateFinderlike, t0.ZLENGTHKM DESC, t0.Z_PK")
        XCTAssertEqual(try translator.orderBy([NSSortDescriptor(key: "country.name", ascending: true)]), "t1.ZNAME COLLATE NSCollateCanonical, t0.Z_PK")
        XCTAssertEqual(translator.rootJoins, " LEFT OUTER JOIN ZCOUNTRY t1 ON t0.ZCOUNTRY = t1.Z_PK")
        XCTAssertEqual(try translator.orderBy([NSSortDescriptor(key: "name", ascending: true, selector: Selector("caseInsensitiveCompare:"))]),
                       "t0.ZNAME COLLATE NSCollateNoCase, t0.Z_PK")
        // Core Data's NSSQLOrderIntermediate refuses a comparator, a to-many key path and a
        // key the entity does not have; sorting by binary data is this library's gap.
        func refusal(_ descriptor: NSSortDescriptor) -> String? {
            do {
                _ = try translator.orderBy([descriptor])
                return "translated"
            } catch {
                return (error as? SQLUntranslatable)?.exception?.reason
            }
        }
        XCTAssertEqual(refusal(NSSortDescriptor(key: "name", ascending: true) { _, _ in .orderedSame }),
                       "unsupported NSSortDescriptor (comparator blocks are not supported)")
        XCTAssertEqual(refusal(NSSortDescriptor(key: "hikes.distance", ascending: true)), "to-many key not allowed here")
        XCTAssertEqual(refusal(NSSortDescriptor(key: "nmae", ascending: true)), "keypath nmae not found in entity <NSSQLEntity Trail id=4>")
        XCTAssertNil(refusal(NSSortDescriptor(key: "photo", ascending: true)))
    }

    func testSearchFlagsMatchCoreData() {
        // 385 and 417 are the numbers Core Data's SQL shows for CONTAINS[cd] (417 with [l]).
        XCTAssertEqual(SQLFunctions.searchFlags(.contains, [.caseInsensitive, .diacriticInsensitive]), 385)
        XCTAssertEqual(SQLFunctions.searchFlags(.contains, [.caseInsensitive]), 0x101)
        XCTAssertEqual(SQLFunctions.searchFlags(.contains, [.diacriticInsensitive]), 0x180)
        for op in [NSComparisonPredicate.Operator.beginsWith, .endsWith, .contains] {
            for options in [[], [.caseInsensitive], [.diacriticInsensitive], [.caseInsensitive, .diacriticInsensitive], [.normalized]] as [NSComparisonPredicate.Options] {
                let decoded = SQLFunctions.decodeSearchFlags(SQLFunctions.searchFlags(op, options))
                XCTAssertEqual(decoded.0, op)
                XCTAssertEqual(decoded.1, options)
            }
        }
    }
}
