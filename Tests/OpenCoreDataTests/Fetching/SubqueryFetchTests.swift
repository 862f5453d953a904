import Foundation
import XCTest

import class OpenCoreData.NSPredicate
@testable import OpenCoreData

/// `x IN SUBQUERY(…)` and `SUBQUERY(…) CONTAINS x` fetched from a SQLite store: one SQL
/// statement (`x IN (SELECT … )`, as Core Data's containment SQL writes a SUBQUERY
/// right-hand side), answering as `evaluate(with:)` does except where SQL's NULL or Core
/// Data's exact comparison decides otherwise.
final class SubqueryFetchTests: FetchTestCase {
    private var fixture: TrailheadFixture!

    override func setUpWithError() throws {
        try super.setUpWithError()
        fixture = try TrailheadFixture(directory: directory)
        try fixture.fill(seed: 41)
        try matchSomeValues()
        fixture.reset()
    }

    /// Random lengths and names seldom equal a hike's distance or notes: make some do, and
    /// some names differ from a hike's notes only in case.
    private func matchSomeValues() throws {
        var lengths = 0, names = 0
        for trail in fixture.trails {
            let hikes = (trail.value(forKey: "hikes") as? Set<NSManagedObject> ?? []).sorted { "\($0.objectID)" < "\($1.objectID)" }
            if lengths < 6, let distance = hikes.compactMap({ $0.value(forKey: "distance") as? Double }).first(where: { $0 > 5 }) {
                trail.setValue(distance, forKey: "lengthKm")
                lengths += 1
            } else if names < 6, let notes = hikes.compactMap({ $0.value(forKey: "notes") as? String }).first(where: { $0.uppercased() != $0 }) {
                trail.setValue(names % 2 == 0 ? notes : notes.uppercased(), forKey: "name")
                names += 1
            }
        }
        try fixture.context.save()
    }

    private func fetch(_ entity: String, _ predicate: NSPredicate) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.predicate = predicate
        return try fixture.context.fetch(request)
    }

    private func all(_ entity: String) throws -> [NSManagedObject] {
        try fixture.context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity))
    }

    private func ids(_ objects: [NSManagedObject]) -> Set<NSManagedObjectID> { Set(objects.map(\.objectID)) }

    /// Without a nil on the way, the store's answer is `evaluate(with:)`'s.
    func testAnswersAsEvaluate() throws {
        let hike = try all("Hike").first { ($0.value(forKey: "distance") as? Double ?? 0) > 5 && $0.value(forKey: "trail") != nil }!
        let group = try all("Hike").first { ($0.value(forKey: "hikers") as? Set<NSManagedObject>)?.count ?? 0 >= 2 && $0.value(forKey: "trail") != nil }!
        let hiker = try all("Hiker").first { ($0.value(forKey: "hikes") as? Set<NSManagedObject>)?.isEmpty == false }!
        let cases: [(String, NSPredicate)] = [
            ("Trail", NSPredicate(format: "SELF IN SUBQUERY(country.trails, $t, $t.rating >= 3)")),
            ("Trail", NSPredicate(format: "lengthKm IN SUBQUERY(hikes, $h, $h.distance > 5).distance")),
            ("Trail", NSPredicate(format: "%@ IN SUBQUERY(hikes, $h, $h.distance > 5)", hike)),
            ("Trail", NSPredicate(format: "SUBQUERY(hikes, $h, $h.hikers.@count >= 2) CONTAINS %@", group)),
            ("Trail", NSPredicate(format: "NOT (SELF IN SUBQUERY(country.trails, $t, $t.rating >= 3))")),
            ("Hike", NSPredicate(format: "%@ IN SUBQUERY(hikers, $p, $p.age > 30)", hiker)),
            ("Hike", NSPredicate(format: "trail IN SUBQUERY(trail.country.trails, $t, $t.rating >= 3)")),
        ]
        var selective = 0
        for (entity, predicate) in cases {
            let everything = try all(entity)
            let (fetched, lines) = try capturingSQL { try fetch(entity, predicate) }
            XCTAssertEqual(ids(fetched), ids(everything.filter { predicate.evaluate(with: $0) }), "\(predicate)")
            // One statement: the SUBQUERY ran in SQL, not in memory.
            XCTAssertTrue(lines.first?.contains(" IN (SELECT ") == true, "\(predicate): \(lines)")
            if !fetched.isEmpty && fetched.count < everything.count { selective += 1 }
        }
        XCTAssertEqual(selective, cases.count, "every case must pick some objects and not others")
    }

    /// The statement, at SQL debug level 1.
    func testStatementText() throws {
        let (_, lines) = try capturingSQL { try fetch("Trail", NSPredicate(format: "lengthKm IN SUBQUERY(hikes, $h, $h.distance > 5).distance")) }
        XCTAssertEqual(lines.first, "CoreData: sql: SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZELEVATION, t0.ZISLOOP, t0.ZRATING, t0.ZCOUNTRY, t0.ZFEE, "
            + "t0.ZLENGTHKM, t0.ZOPENED, t0.ZNAME, t0.ZURL, t0.ZID, t0.ZPHOTO FROM ZTRAIL t0 WHERE  t0.ZLENGTHKM IN "
            + "(SELECT t1.ZDISTANCE FROM ZHIKE t1 WHERE ( t1.ZTRAIL = t0.Z_PK AND  t1.ZDISTANCE > ?)) ORDER BY t0.Z_PK")
    }

    /// Where they differ: SQL's IN with a NULL `x` is unknown, and `NOT` of it too, so a
    /// trail without a length is not fetched by the negation, which `evaluate(with:)`
    /// answers true; and Core Data's containment SQL does not read `[c]`, comparing exactly.
    func testWhereSQLAndEvaluateDiffer() throws {
        let trails = try all("Trail")
        let negation = NSPredicate(format: "NOT (lengthKm IN SUBQUERY(hikes, $h, $h.distance > 5).distance)")
        let inMemory = trails.filter { negation.evaluate(with: $0) }
        let lengthless = inMemory.filter { $0.value(forKey: "lengthKm") == nil }
        XCTAssertFalse(lengthless.isEmpty, "the fixture leaves some lengths nil")
        XCTAssertEqual(ids(try fetch("Trail", negation)), ids(inMemory).subtracting(ids(lengthless)))

        let folded = NSPredicate(format: "name IN[c] SUBQUERY(hikes, $h, $h.notes != nil).notes")
        let exact = NSPredicate(format: "name IN SUBQUERY(hikes, $h, $h.notes != nil).notes")
        let fetched = ids(try fetch("Trail", folded))
        XCTAssertEqual(fetched, ids(trails.filter { exact.evaluate(with: $0) }))
        XCTAssertFalse(fetched.isEmpty)
        XCTAssertTrue(fetched.isStrictSubset(of: ids(trails.filter { folded.evaluate(with: $0) })), "in memory [c] folds case")
    }
}
