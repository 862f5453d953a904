import Foundation
import XCTest

import class OpenCoreData.NSComparisonPredicate
import class OpenCoreData.NSCompoundPredicate
import class OpenCoreData.NSExpression
import class OpenCoreData.NSPredicate
import class OpenCoreData.NSSortDescriptor
@testable import OpenCoreData

/// What a fetch sends to SQLite, when it stays in memory, and the request options that
/// change what is read: limits, counts, IDs, faults, batches, prefetching.
final class SQLFetchTests: FetchTestCase {
    private var fixture: TrailheadFixture!
    private var context: NSManagedObjectContext { fixture.context }

    override func setUpWithError() throws {
        try super.setUpWithError()
        fixture = try TrailheadFixture(directory: directory)
        let japan = fixture.insert("Country", ["name": "日本", "code": "JP"])
        let iceland = fixture.insert("Country", ["name": "Ísland", "code": "IS"])
        let trails: [(String, Double, NSManagedObject?)] = [
            ("Laugavegur", 55, iceland), ("Fimmvörðuháls", 25, iceland), ("富士山 吉田ルート", 14, japan),
            ("熊野古道 中辺路", 38, japan), ("Zürichsee Höhenweg", 22, nil), ("zurich loop", 5, nil),
        ]
        for (name, length, country) in trails {
            let trail = fixture.insert("Trail", ["name": name, "lengthKm": length])
            trail.setValue(country, forKey: "country")
            for day in 0..<Int(length / 10) {
                let hike = fixture.insert("Hike", ["distance": Double(day + 1) * 4, "notes": day == 0 ? "Café stop" : nil])
                hike.setValue(trail, forKey: "trail")
            }
        }
        try context.save()
        context.reset()
        // Saving cached the rows; start as a new process would, reading from the file.
        fixture.store.rowCache.removeAll()
    }

    private func masked(_ lines: [String]) -> [String] {
        lines.map { $0.replacingOccurrences(of: #"\d+\.\d{4}s"#, with: "#s", options: .regularExpression) }
    }

    private func request(_ format: String? = nil, _ arguments: [Any] = [], entity: String = "Trail") -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        if let format { request.predicate = NSPredicate(format: format, argumentArray: arguments) }
        return request
    }

    private func names(_ objects: [NSManagedObject]) -> [String] { objects.map { $0.value(forKey: "name") as? String ?? "nil" } }

    // MARK: The SQL

    func testAFetchPrintsCoreDataShapedSQL() throws {
        let trails = request("name CONTAINS[cd] %@ AND lengthKm > 10", ["zurich"])
        trails.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true, selector: Selector("localizedStandardCompare:"))]
        let (result, lines) = try capturingSQL { try context.fetch(trails) }
        XCTAssertEqual(names(result), ["Zürichsee Höhenweg"])
        XCTAssertEqual(masked(lines), [
            "CoreData: sql: SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZELEVATION, t0.ZISLOOP, t0.ZRATING, t0.ZCOUNTRY, t0.ZFEE, t0.ZLENGTHKM, t0.ZOPENED, t0.ZNAME, t0.ZURL, t0.ZID, t0.ZPHOTO FROM ZTRAIL t0 WHERE ( NSCoreDataStringSearch( t0.ZNAME, ?, 385, 0) AND  t0.ZLENGTHKM > ?) ORDER BY t0.ZNAME COLLATE NSCollateFinderlike, t0.Z_PK",
            "CoreData: annotation: sql connection fetch time: #s",
            "CoreData: annotation: total fetch execution time: #s for 1 rows.",
        ])
    }

    func testBoundValuesAtLevelThree() throws {
        let (_, lines) = try capturingSQL(level: 3) { try context.fetch(request("name == %@ OR lengthKm BETWEEN {1, 6}", ["Laugavegur"])) }
        XCTAssertEqual(Array(masked(lines).prefix(4)).dropFirst(), [
            "CoreData: details: SQLite bind[0] = \"Laugavegur\"",
            "CoreData: details: SQLite bind[1] = 1",
            "CoreData: details: SQLite bind[2] = 6",
        ])
    }

    func testCountIsSelectCount() throws {
        let (count, lines) = try capturingSQL { try context.count(for: request("country.code == %@", ["JP"])) }
        XCTAssertEqual(count, 2)
        XCTAssertEqual(masked(lines), [
            "CoreData: sql: SELECT COUNT(*) FROM ZTRAIL t0 LEFT OUTER JOIN ZCOUNTRY t1 ON t0.ZCOUNTRY = t1.Z_PK WHERE  t1.ZCODE = ?",
            "CoreData: annotation: total count request execution time: #s for count of 2.",
        ])
        let (all, allLines) = try capturingSQL { try context.count(for: request()) }
        XCTAssertEqual(all, 6)
        XCTAssertEqual(masked(allLines).first, "CoreData: sql: SELECT COUNT(*) FROM ZTRAIL")
        // A count result type runs the same statement.
        let counting = NSFetchRequest<NSNumber>(entityName: "Trail")
        counting.resultType = .countResultType
        counting.predicate = NSPredicate(format: "ANY hikes.notes BEGINSWITH 'Café'")
        XCTAssertEqual(try context.fetch(counting), [5])
    }

    func testLimitAndOffsetAreSQL() throws {
        let trails = request()
        trails.sortDescriptors = [NSSortDescriptor(key: "lengthKm", ascending: false)]
        trails.fetchLimit = 2
        trails.fetchOffset = 1
        let (result, lines) = try capturingSQL { try context.fetch(trails) }
        XCTAssertEqual(names(result), ["熊野古道 中辺路", "Fimmvörðuháls"])
        XCTAssertTrue(lines[0].hasSuffix("FROM ZTRAIL t0 ORDER BY t0.ZLENGTHKM DESC, t0.Z_PK LIMIT 2 OFFSET 1"), lines[0])
        trails.fetchLimit = 0
        XCTAssertEqual(try context.count(for: trails), 5)
    }

    // MARK: Memory when needed

    func testUnsavedChangesAreMergedWithTheStoresAnswer() throws {
        let trails = request("name BEGINSWITH[c] %@", ["z"])
        XCTAssertEqual(names(try context.fetch(trails)).sorted(), ["Zürichsee Höhenweg", "zurich loop"])
        let fresh = fixture.insert("Trail", ["name": "Zugspitze", "lengthKm": 21.0])
        let loop = try context.fetch(request("name == 'zurich loop'"))[0]
        loop.setValue("Loop around Zürich", forKey: "name")
        let (result, lines) = try capturingSQL { try context.fetch(trails) }
        // The store still answers the predicate in SQL; the renamed trail's row is set
        // aside (it no longer matches in memory) and the inserted one is added.
        XCTAssertEqual(names(result), ["Zürichsee Höhenweg", "Zugspitze"])
        XCTAssertEqual(masked(lines).count, 3, lines.joined(separator: "\n"))
        XCTAssertTrue(lines[0].hasSuffix("FROM ZTRAIL t0 WHERE  NSCoreDataStringSearch( t0.ZNAME, ?, 265, 0) ORDER BY t0.Z_PK"), lines[0])
        XCTAssertFalse(lines.contains { $0.contains("evaluated in memory") }, lines.joined(separator: "\n"))
        let (count, countLines) = try capturingSQL { try context.count(for: trails) }
        XCTAssertEqual(count, 2)
        XCTAssertTrue(countLines[0].hasPrefix("CoreData: sql: SELECT 0, t0.Z_PK FROM ZTRAIL t0 WHERE"), countLines[0])
        let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Trail")
        ids.resultType = .managedObjectIDResultType
        ids.predicate = trails.predicate
        XCTAssertEqual(Set(try context.fetch(ids)), Set(result.map(\.objectID)))
        XCTAssertTrue(try context.fetch(ids).contains { $0.isTemporaryID }, "the inserted trail's temporary ID")
        // Without pending changes the store's values decide, in SQL, even with edits around.
        trails.includesPendingChanges = false
        let (stored, storedLines) = try capturingSQL { try context.fetch(trails) }
        XCTAssertEqual(Set(names(stored)), ["Zürichsee Höhenweg", "Loop around Zürich"])
        XCTAssertTrue(storedLines[0].hasPrefix("CoreData: sql: SELECT"), storedLines[0])
        context.delete(fresh)
        context.rollback()
        XCTAssertEqual(names(try context.fetch(request("name == 'zurich loop'"))).count, 1)
    }

    func testPendingChangesThenSortOffsetAndLimit() throws {
        let longest = request("lengthKm > 20")
        longest.sortDescriptors = [NSSortDescriptor(key: "lengthKm", ascending: false)]
        longest.fetchOffset = 1
        longest.fetchLimit = 2
        // Stored: Laugavegur 55, 熊野古道 38, Fimmvörðuháls 25, Zürichsee 22.
        XCTAssertEqual(names(try context.fetch(longest)), ["熊野古道 中辺路", "Fimmvörðuháls"])
        _ = fixture.insert("Trail", ["name": "Kungsleden", "lengthKm": 40.0])
        let all = try context.fetch(request())
        func trail(_ name: String) -> NSManagedObject { all.first { $0.value(forKey: "name") as? String == name }! }
        trail("zurich loop").setValue(60.0, forKey: "lengthKm")   // now matches, and first
        trail("Fimmvörðuháls").setValue(12.0, forKey: "lengthKm")  // no longer matches
        context.delete(trail("熊野古道 中辺路"))
        let (result, lines) = try capturingSQL { try context.fetch(longest) }
        // zurich loop 60, Laugavegur 55, Kungsleden 40, Zürichsee 22: offset 1, limit 2.
        XCTAssertEqual(names(result), ["Laugavegur", "Kungsleden"])
        // The store sorts; it returns offset + limit rows and one more for each updated or
        // deleted trail, whose stored rows may be among them.
        XCTAssertTrue(lines[0].hasSuffix("WHERE  t0.ZLENGTHKM > ? ORDER BY t0.ZLENGTHKM DESC, t0.Z_PK LIMIT 6"), lines[0])
        longest.fetchOffset = 0
        longest.fetchLimit = 0
        XCTAssertEqual(names(try context.fetch(longest)), ["zurich loop", "Laugavegur", "Kungsleden", "Zürichsee Höhenweg"])
        XCTAssertEqual(try context.count(for: longest), 4)
        context.rollback()
    }

    func testChangesToOtherEntitiesLeaveTheFetchToSQL() throws {
        _ = fixture.insert("Hiker", ["name": "Ana"])
        let (_, lines) = try capturingSQL { try context.fetch(request("lengthKm > 30")) }
        XCTAssertTrue(lines[0].hasSuffix("FROM ZTRAIL t0 WHERE  t0.ZLENGTHKM > ? ORDER BY t0.Z_PK"), lines[0])
        // A new hike on no trail changes no trail's answer.
        let hike = fixture.insert("Hike", ["distance": 99.0])
        let busy = request("ANY hikes.distance > 90")
        let (none, hikeLines) = try capturingSQL { try context.fetch(busy) }
        XCTAssertEqual(names(none), [])
        XCTAssertTrue(hikeLines[0].contains("WHERE  EXISTS (SELECT 1 FROM ZHIKE t1"), hikeLines[0])
        // Attached to a trail, it makes the trail updated: judged in memory, it matches.
        hike.setValue(try context.fetch(request("name == 'zurich loop'"))[0], forKey: "trail")
        XCTAssertEqual(names(try context.fetch(busy)), ["zurich loop"])
        context.rollback()
    }

    func testLibraryGapsAreEvaluatedInMemory() throws {
        // A string compared with a number key path is not translated here: an AND keeps what
        // SQL can do; limits then apply after the in-memory part.
        let mixed = request("name != rating OR count:(hikes) == 0")
        mixed.predicate = NSCompoundPredicate(andPredicateWithSubpredicates: [
            mixed.predicate!, NSPredicate(format: "lengthKm * 2 > 60"), NSPredicate(format: "country.code == 'JP'"),
        ])
        mixed.fetchLimit = 1
        let (mixedResult, mixedLines) = try capturingSQL { try context.fetch(mixed) }
        XCTAssertEqual(names(mixedResult), ["熊野古道 中辺路"])
        XCTAssertTrue(mixedLines[0].hasSuffix("LEFT OUTER JOIN ZCOUNTRY t1 ON t0.ZCOUNTRY = t1.Z_PK WHERE ( (t0.ZLENGTHKM * ?) > ? AND  t1.ZCODE = ?) ORDER BY t0.Z_PK"), mixedLines[0])
        XCTAssertFalse(mixedLines.contains { $0.contains("evaluated in memory") }, mixedLines.joined(separator: "\n"))
        XCTAssertEqual(try context.count(for: mixed), 1)
    }

    /// An in-memory store evaluates in memory in Core Data: what a SQLite store refuses
    /// (a block predicate, a comparator) is accepted there, and answered.
    func testAnInMemoryStoreAcceptsBlocksAndComparators() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: makeTrailheadModel())
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let memory = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        memory.persistentStoreCoordinator = coordinator
        for (name, length) in [("Laugavegur", 55.0), ("zurich loop", 5.0), ("熊野古道 中辺路", 38.0)] {
            let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: memory)
            trail.setValue(name, forKey: "name")
            trail.setValue(length, forKey: "lengthKm")
        }
        try memory.save()
        let block = request()
        block.predicate = NSPredicate { object, _ in ((object as? NSManagedObject)?.value(forKey: "lengthKm") as? Double ?? 0) > 30 }
        block.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true) { a, b in
            let x = (a as? String)?.count ?? 0, y = (b as? String)?.count ?? 0
            return x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
        }]
        XCTAssertEqual(names(try memory.fetch(block)), ["熊野古道 中辺路", "Laugavegur"])
        XCTAssertEqual(try memory.count(for: block), 2)
    }

    // MARK: What is read

    func testObjectIDResultsReadOnlyKeys() throws {
        let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Trail")
        ids.resultType = .managedObjectIDResultType
        ids.predicate = NSPredicate(format: "lengthKm < 20")
        let (result, lines) = try capturingSQL { try context.fetch(ids) }
        XCTAssertEqual(result.count, 2)
        XCTAssertEqual(masked(lines)[0], "CoreData: sql: SELECT 0, t0.Z_PK FROM ZTRAIL t0 WHERE  t0.ZLENGTHKM < ? ORDER BY t0.Z_PK")
        XCTAssertTrue(context.registeredObjects.isEmpty)
        XCTAssertEqual(names(result.map { context.object(with: $0) }).sorted(), ["zurich loop", "富士山 吉田ルート"])
    }

    func testObjectsAreFaultsWithTheirRowsCached() throws {
        let (result, lines) = try capturingSQL { try context.fetch(request("lengthKm > 30")) }
        XCTAssertTrue(result.allSatisfy(\.isFault))
        let (_, firing) = try capturingSQL { names(result) }
        XCTAssertEqual(lines.count, 3)
        XCTAssertEqual(firing, [], "faults fire from the row cache")
        let loaded = request("lengthKm > 30")
        loaded.returnsObjectsAsFaults = false
        XCTAssertTrue(try context.fetch(loaded).allSatisfy { !$0.isFault })
    }

    /// A to-many fault fires one statement, as in Core Data: the destination rows by the
    /// owner's key (`… FROM ZHIKE t0 WHERE  t0.ZTRAIL = ?`), cached, so that the members,
    /// still faults, fire without SQL.
    func testAToManyFaultFiresOneStatement() throws {
        let trail = try context.fetch(request("name == 'Laugavegur'"))[0]
        _ = trail.value(forKey: "name")
        let (hikes, lines) = try capturingSQL { (trail.value(forKey: "hikes") as! Set<NSManagedObject>).count }
        XCTAssertEqual(hikes, 5)
        XCTAssertEqual(masked(lines), [
            "CoreData: sql: SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZTRAIL, t0.ZDATE, t0.ZDISTANCE, t0.ZNOTES FROM ZHIKE t0 WHERE  t0.ZTRAIL = ?",
            "CoreData: annotation: sql connection fetch time: #s",
            "CoreData: annotation: total fetch execution time: #s for 5 rows.",
        ])
        let members = trail.value(forKey: "hikes") as! Set<NSManagedObject>
        XCTAssertTrue(members.allSatisfy(\.isFault))
        let (distances, firing) = try capturingSQL { members.compactMap { $0.value(forKey: "distance") as? Double }.sorted() }
        XCTAssertEqual(distances, [4, 8, 12, 16, 20])
        XCTAssertEqual(firing, [], "the members fire from the rows the fault read")
        // Many-to-many: through the join table, in one statement too.
        let hike = members.first { $0.value(forKey: "distance") as? Double == 4 }!
        let (_, joinLines) = try capturingSQL { (hike.value(forKey: "hikers") as! Set<NSManagedObject>).count }
        XCTAssertEqual(masked(joinLines).first, "CoreData: sql: SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZAGE, t0.ZNAME FROM ZHIKER t0 JOIN Z_2HIKERS t1 ON t0.Z_PK = t1.Z_3HIKERS WHERE  t1.Z_2HIKES = ?")
        XCTAssertEqual(masked(joinLines).count, 3)
    }

    func testWithoutPropertyValuesEachFaultLoadsItsRow() throws {
        let bare = request("lengthKm > 20")
        bare.includesPropertyValues = false
        let (result, lines) = try capturingSQL { try context.fetch(bare) }
        XCTAssertEqual(masked(lines)[0], "CoreData: sql: SELECT 0, t0.Z_PK FROM ZTRAIL t0 WHERE  t0.ZLENGTHKM > ? ORDER BY t0.Z_PK")
        let (_, firing) = try capturingSQL { _ = result[0].value(forKey: "name") }
        XCTAssertEqual(firing.filter { $0.hasPrefix("CoreData: sql:") }.count, 1)
        XCTAssertTrue(firing[0].hasSuffix("WHERE t0.Z_PK = ?"), firing[0])
    }

    func testBatchedFetchLoadsOneBatchAtATime() throws {
        let batched = request()
        batched.sortDescriptors = [NSSortDescriptor(key: "lengthKm", ascending: true)]
        batched.fetchBatchSize = 4
        let (result, lines) = try capturingSQL { try context.fetch(batched) }
        XCTAssertEqual(masked(lines)[0], "CoreData: sql: SELECT 0, t0.Z_PK FROM ZTRAIL t0 ORDER BY t0.ZLENGTHKM, t0.Z_PK")
        XCTAssertEqual(result.count, 6)
        var statements: [Int] = []
        for object in result {
            let (_, firing) = capturingSQL { _ = object.value(forKey: "lengthKm") }
            statements.append(firing.filter { $0.hasPrefix("CoreData: sql:") }.count)
        }
        XCTAssertEqual(statements, [1, 0, 0, 0, 1, 0])
        XCTAssertEqual(result.map { $0.value(forKey: "lengthKm") as? Double ?? -1 }, [5, 14, 22, 25, 38, 55])
    }

    func testDictionaryResultsReadRowsInOneStatement() throws {
        let dictionaries = NSFetchRequest<NSDictionary>(entityName: "Trail")
        dictionaries.resultType = .dictionaryResultType
        dictionaries.propertiesToFetch = ["name"]
        dictionaries.predicate = NSPredicate(format: "lengthKm >= 25")
        dictionaries.sortDescriptors = [NSSortDescriptor(key: "lengthKm", ascending: true)]
        dictionaries.fetchBatchSize = 2
        let (result, lines) = try capturingSQL { try context.fetch(dictionaries) }
        XCTAssertEqual(result.map { $0["name"] as? String }, ["Fimmvörðuháls", "熊野古道 中辺路", "Laugavegur"])
        XCTAssertEqual(lines.filter { $0.hasPrefix("CoreData: sql:") }.count, 1, lines.joined(separator: "\n"))
    }

    func testPrefetchingLoadsRelationshipsInOneStatementEach() throws {
        let trails = request("lengthKm > 20")
        trails.relationshipKeyPathsForPrefetching = ["country", "hikes"]
        let (result, lines) = try capturingSQL { try context.fetch(trails) }
        let statements = lines.filter { $0.hasPrefix("CoreData: sql:") }
        // One statement per relationship: the trails, their countries by key, their hikes
        // (rows and owners together) by foreign key.
        XCTAssertEqual(statements.count, 3, lines.joined(separator: "\n"))
        XCTAssertTrue(statements[1].contains("FROM ZCOUNTRY t0 WHERE t0.Z_PK IN ("), statements[1])
        XCTAssertTrue(statements[2].hasPrefix("CoreData: sql: SELECT 0, t0.Z_PK, t0.Z_OPT, "), statements[2])
        XCTAssertTrue(statements[2].contains(" FROM ZHIKE t0 WHERE  t0.ZTRAIL IN ("), statements[2])
        let (summary, firing) = capturingSQL {
            result.map { trail -> String in
                let country = (trail.value(forKey: "country") as? NSManagedObject)?.value(forKey: "code") as? String ?? "-"
                let hikes = (trail.value(forKey: "hikes") as? Set<NSManagedObject>) ?? []
                let total = hikes.compactMap { $0.value(forKey: "distance") as? Double }.reduce(0, +)
                return "\(country) \(hikes.count) \(total)"
            }
        }
        XCTAssertEqual(summary, ["IS 5 60.0", "IS 2 12.0", "JP 3 24.0", "- 2 12.0"])
        XCTAssertEqual(firing, [], "no statement after prefetching")
    }

    func testSubentitiesAreChosenByEntityNumber() throws {
        let place = makeEntity("Place", abstract: true)
        let peak = makeEntity("Peak")
        let hut = makeEntity("Hut")
        place.properties = [makeAttribute("name", .stringAttributeType)]
        peak.properties = [makeAttribute("height", .integer32AttributeType)]
        place.subentities = [peak, hut]
        let container = NSPersistentContainer(name: "Places", managedObjectModel: makeModel([place, peak, hut]))
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: directory.appendingPathComponent("Places.sqlite"))]
        container.loadPersistentStores { _, error in XCTAssertNil(error) }
        let context = container.viewContext
        for (entity, name) in [("Peak", "Eiger"), ("Hut", "Eiger Hut"), ("Peak", "Mönch")] {
            NSEntityDescription.insertNewObject(forEntityName: entity, into: context).setValue(name, forKey: "name")
        }
        try context.save()
        let places = NSFetchRequest<NSManagedObject>(entityName: "Place")
        places.predicate = NSPredicate(format: "name BEGINSWITH 'Eiger'")
        let (all, lines) = try capturingSQL(level: 3) { try context.fetch(places) }
        XCTAssertEqual(all.count, 2)
        XCTAssertTrue(lines[0].hasSuffix("FROM ZPLACE t0 WHERE  NSCoreDataStringSearch( t0.ZNAME, ?, 8, 0) ORDER BY t0.Z_PK"), lines[0])
        let peaks = NSFetchRequest<NSManagedObject>(entityName: "Peak")
        peaks.predicate = places.predicate
        let (onlyPeaks, peakLines) = try capturingSQL(level: 3) { try context.fetch(peaks) }
        XCTAssertEqual(onlyPeaks.map { $0.entity.name }, ["Peak"])
        XCTAssertTrue(peakLines[0].hasSuffix("WHERE ( t0.Z_ENT = ? AND  NSCoreDataStringSearch( t0.ZNAME, ?, 8, 0)) ORDER BY t0.Z_PK"), peakLines[0])
        XCTAssertEqual(peakLines[1], "CoreData: details: SQLite bind[0] = (int64)3")
        places.includesSubentities = false
        XCTAssertEqual(try context.count(for: places), 0)
    }

    func testSQLDebugFollowsTheUserDefault() throws {
        let defaults = UserDefaults.standard
        defer { defaults.removeObject(forKey: "com.apple.CoreData.SQLDebug") }
        let lock = NSLock()
        var lines: [String] = []
        SQLDebugLog.setSink { line in lock.lock(); lines.append(line); lock.unlock() }
        _ = try context.count(for: request())
        XCTAssertEqual(lines, [])
        defaults.set(1, forKey: "com.apple.CoreData.SQLDebug")
        _ = try context.count(for: request())
        XCTAssertEqual(lines.first, "CoreData: sql: SELECT COUNT(*) FROM ZTRAIL")
        defaults.removeObject(forKey: "com.apple.CoreData.SQLDebug")
        lines.removeAll()
        _ = try context.count(for: request())
        XCTAssertEqual(lines, [])
    }
}
