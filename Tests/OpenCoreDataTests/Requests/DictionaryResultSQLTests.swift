import Foundation
import XCTest

@testable import OpenCoreData

/// Dictionary results run as one SQL statement, as Core Data's SQLite store runs them.
///
/// Core Data's statements for such requests, printed at SQL debug level 1 (fatbobman.com,
/// "在 Core Data 中查询和使用 count 的若干方法", 2022):
/// `SELECT t0.ZBIRTHOFYEAR, COUNT( t0.ZBIRTHOFYEAR) FROM ZITEM t0 GROUP BY  t0.ZBIRTHOFYEAR`,
/// the same with `AS __var0 … HAVING __var0 > ?` for a having predicate on `$count`, and
/// `SELECT total( t0.ZATTACHMENTCOUNT) FROM ZITEM t0` for `sum:`.
final class DictionaryResultSQLTests: RequestTestCase {
    private func expression(_ name: String, _ function: String, _ keyPath: String, _ type: NSAttributeType) -> NSExpressionDescription {
        let description = NSExpressionDescription()
        description.name = name
        description.expression = NSExpression(forFunction: function, arguments: [NSExpression(forKeyPath: keyPath)])
        description.expressionResultType = type
        return description
    }

    private func statements(_ lines: [String]) -> [String] { lines.filter { $0.hasPrefix("CoreData: sql:") } }

    func testGroupedAggregatesAreOneStatementWithAJoin() throws {
        let context = try seededContainer().viewContext
        let request = NSFetchRequest<NSDictionary>(entityName: "Trail")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["country.name", expression("trails", "count:", "name", .integer64AttributeType),
                                     expression("total", "sum:", "lengthKm", .doubleAttributeType)]
        request.propertiesToGroupBy = ["country.name"]
        let (rows, lines) = try capturingSQL { try context.fetch(request) }
        XCTAssertEqual(statements(lines), [
            "CoreData: sql: SELECT t1.ZNAME, COUNT( t0.ZNAME), total( t0.ZLENGTHKM) FROM ZTRAIL t0"
                + " LEFT OUTER JOIN ZCOUNTRY t1 ON t0.ZCOUNTRY = t1.Z_PK GROUP BY  t1.ZNAME",
        ])
        XCTAssertTrue(lines.last?.hasPrefix("CoreData: annotation: total fetch execution time:") ?? false, lines.joined(separator: "\n"))
        XCTAssertTrue(lines.last?.hasSuffix("for 3 rows.") ?? false, lines.joined(separator: "\n"))
        XCTAssertEqual(rows.map { $0["country.name"] as? String }, ["Iceland", "Japan", "Sweden"])
        XCTAssertEqual(rows.map { $0["trails"] as? Int64 }, [2, 3, 1])
        XCTAssertEqual(rows.map { $0["total"] as? Double }, [77, 122, 440])
    }

    func testHavingOnAVariableNamesTheAggregateByAnAlias() throws {
        let context = try seededContainer().viewContext
        let request = NSFetchRequest<NSDictionary>(entityName: "Trail")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["difficulty", expression("count", "count:", "difficulty", .integer32AttributeType)]
        request.propertiesToGroupBy = ["difficulty"]
        request.havingPredicate = NSPredicate(format: "%@ > 1", NSExpression(forVariable: "count"))
        let (rows, lines) = try capturingSQL(level: 2) { try context.fetch(request) }
        XCTAssertEqual(statements(lines), [
            "CoreData: sql: SELECT t0.ZDIFFICULTY, COUNT( t0.ZDIFFICULTY) AS __var0 FROM ZTRAIL t0 GROUP BY  t0.ZDIFFICULTY HAVING __var0 > ?",
        ])
        XCTAssertTrue(lines.contains("CoreData: details: SQLite bind[0] = 1"), lines.joined(separator: "\n"))
        XCTAssertEqual(rows.map { $0["difficulty"] as? Int16 }, [2, 3])
        XCTAssertEqual(rows.map { $0["count"] as? Int32 }, [3, 2])
    }

    func testCountOfTheObjectsCountsPrimaryKeys() throws {
        // The fetched results controller's section query: count:(SELF) per section key.
        let context = try seededContainer().viewContext
        let count = NSExpressionDescription()
        count.name = "n"
        count.expression = NSExpression(forFunction: "count:", arguments: [NSExpression.expressionForEvaluatedObject()])
        count.expressionResultType = .integer32AttributeType
        let request = NSFetchRequest<NSDictionary>(entityName: "Trail")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["difficulty", count]
        request.propertiesToGroupBy = ["difficulty"]
        request.sortDescriptors = [NSSortDescriptor(key: "difficulty", ascending: false)]
        let (rows, lines) = try capturingSQL { try context.fetch(request) }
        XCTAssertEqual(statements(lines), [
            "CoreData: sql: SELECT t0.ZDIFFICULTY, COUNT( t0.Z_PK) FROM ZTRAIL t0 GROUP BY  t0.ZDIFFICULTY ORDER BY t0.ZDIFFICULTY DESC",
        ])
        XCTAssertEqual(rows.map { $0["difficulty"] as? Int16 }, [3, 2, 1])
        XCTAssertEqual(rows.map { $0["n"] as? Int32 }, [2, 3, 1])
    }

    func testCountOfAToManyCountsTheRelatedObjectsThroughAJoin() throws {
        // Core Data's statement for count: of a to-many (fatbobman.com, 2022):
        // SELECT COUNT( t1.Z_PK) FROM ZITEM t0 LEFT OUTER JOIN ZATTACHMENT t1 ON t0.Z_PK = t1.ZITEM,
        // one row with the total.
        let container = try seededContainer()
        let context = container.viewContext
        let request = NSFetchRequest<NSDictionary>(entityName: "Trail")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = [expression("hikes", "count:", "hikes", .integer32AttributeType)]
        let (rows, lines) = try capturingSQL { try context.fetch(request) }
        XCTAssertEqual(statements(lines), ["CoreData: sql: SELECT COUNT( t1.Z_PK) FROM ZTRAIL t0 LEFT OUTER JOIN ZHIKE t1 ON t0.Z_PK = t1.ZTRAIL"])
        XCTAssertEqual(rows.map { $0["hikes"] as? Int32 }, [2], "Laugavegur's two hikes, counted over all trails")
        let entity = container.managedObjectModel.entitiesByName["Trail"]!
        let inMemory = try FetchDictionaryResults(request: request.copy(as: NSFetchRequestResult.self), entity: entity, context: context).runInMemory()
        XCTAssertEqual(inMemory.map { $0["hikes"] as? Int32 }, [2], "the in-memory computation agrees")
    }

    func testSumOverNoRowsIsZeroAsSQLitesTotal() throws {
        let context = try seededContainer().viewContext
        let request = NSFetchRequest<NSDictionary>(entityName: "Trail")
        request.resultType = .dictionaryResultType
        request.predicate = NSPredicate(format: "lengthKm > 1000")
        request.propertiesToFetch = [expression("total", "sum:", "lengthKm", .doubleAttributeType),
                                     expression("longest", "max:", "lengthKm", .doubleAttributeType)]
        let (rows, lines) = try capturingSQL { try context.fetch(request) }
        XCTAssertEqual(statements(lines), ["CoreData: sql: SELECT total( t0.ZLENGTHKM), MAX( t0.ZLENGTHKM) FROM ZTRAIL t0 WHERE  t0.ZLENGTHKM > ?"])
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows[0]["total"] as? Double, 0, "total() is 0.0 over no rows, where SUM() is NULL")
        XCTAssertNil(rows[0]["longest"], "MAX() over no rows is NULL, left out of the dictionary")
    }

    func testDistinctSortedAndLimitedRows() throws {
        let context = try seededContainer().viewContext
        let request = NSFetchRequest<NSDictionary>(entityName: "Trail")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["difficulty"]
        request.returnsDistinctResults = true
        request.sortDescriptors = [NSSortDescriptor(key: "difficulty", ascending: false)]
        request.fetchLimit = 2
        let (rows, lines) = try capturingSQL { try context.fetch(request) }
        XCTAssertEqual(statements(lines), ["CoreData: sql: SELECT DISTINCT t0.ZDIFFICULTY FROM ZTRAIL t0 ORDER BY t0.ZDIFFICULTY DESC LIMIT 2"])
        XCTAssertEqual(rows.map { $0["difficulty"] as? Int16 }, [3, 2])
    }

    func testObjectIDsAndToOneRelationshipsComeFromKeys() throws {
        let context = try seededContainer().viewContext
        let request = NSFetchRequest<NSDictionary>(entityName: "Trail")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["objectID", "country", "name"]
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let (rows, lines) = try capturingSQL { try context.fetch(request) }
        XCTAssertEqual(statements(lines).count, 1, lines.joined(separator: "\n"))
        XCTAssertTrue(statements(lines)[0].hasPrefix("CoreData: sql: SELECT t0.Z_PK, t0.ZCOUNTRY, t0.ZNAME FROM ZTRAIL t0 ORDER BY"), statements(lines)[0])
        let kungsleden = try trail("Kungsleden", in: context)
        let row = try XCTUnwrap(rows.first { $0["name"] as? String == "Kungsleden" })
        XCTAssertEqual(row["objectID"] as? NSManagedObjectID, kungsleden.objectID)
        XCTAssertEqual(row["country"] as? NSManagedObjectID, (kungsleden.value(forKey: "country") as? NSManagedObject)?.objectID)
    }

    func testWhatSQLDoesNotExpressHereIsComputedInMemory() throws {
        let context = try seededContainer().viewContext
        let request = NSFetchRequest<NSDictionary>(entityName: "Trail")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = [expression("middle", "median:", "lengthKm", .doubleAttributeType)]
        let (rows, lines) = try capturingSQL { try context.fetch(request) }
        XCTAssertEqual(rows.first?["middle"] as? Double, (38 + 55) / 2.0)
        XCTAssertFalse(statements(lines).contains { $0.contains("median") }, lines.joined(separator: "\n"))
    }

    // MARK: SQL against memory on random data

    /// Random trails in five countries (one trail in no country), some without a rating.
    private func randomContainer(seed: UInt64, count: Int) throws -> NSPersistentContainer {
        var generator = DictionaryRandom(seed: seed)
        let container = try openContainer()
        let context = container.viewContext
        let countries = ["Chile", "Iceland", "Japan", "Nepal", "Sweden"].map { name -> NSManagedObject in
            let country = NSEntityDescription.insertNewObject(forEntityName: "Country", into: context)
            country.setValue(name, forKey: "name")
            return country
        }
        for index in 0..<count {
            let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
            trail.setValue("trail \(Int.random(in: 0..<(count / 2), using: &generator)) #\(index)", forKey: "name")
            trail.setValue(Double(Int.random(in: 10...5000, using: &generator)) / 10, forKey: "lengthKm")
            trail.setValue(Int32.random(in: 0...9000, using: &generator), forKey: "elevationGain")
            trail.setValue(Int16.random(in: 1...4, using: &generator), forKey: "difficulty")
            if Bool.random(using: &generator) { trail.setValue(Double(Int.random(in: 0...50, using: &generator)) / 10, forKey: "rating") }
            if index % 17 != 0 { trail.setValue(countries.randomElement(using: &generator), forKey: "country") }
        }
        try context.save()
        return container
    }

    /// Values made comparable: numbers rounded to 6 decimals, so that the order of a
    /// floating-point sum does not matter; object IDs by their URI.
    private func normalized(_ rows: [NSDictionary]) -> [[String: String]] {
        rows.map { row in
            var result: [String: String] = [:]
            for (key, value) in row {
                if let id = value as? NSManagedObjectID {
                    result[key as! String] = id.uriRepresentation().absoluteString
                } else if let number = PredicateValues.number(value) {
                    let double: Double
                    switch number {
                    case .int(let int): double = Double(int)
                    case .uint(let uint): double = Double(uint)
                    case .double(let value): double = value
                    case .decimal(let decimal): double = NSDecimalNumber(decimal: decimal).doubleValue
                    }
                    result[key as! String] = String(format: "%.6f", double)
                } else {
                    result[key as! String] = "\(value)"
                }
            }
            return result
        }
    }

    func testSQLResultsEqualTheInMemoryComputationOnRandomData() throws {
        let container = try randomContainer(seed: 16, count: 400)
        let context = container.viewContext
        let entity = container.managedObjectModel.entitiesByName["Trail"]!
        var generator = DictionaryRandom(seed: 1600)
        let groupings: [[String]] = [["difficulty"], ["country.name"], ["difficulty", "country.name"]]
        let predicates: [OpenCoreData.NSPredicate?] = [nil, NSPredicate(format: "lengthKm > 200"), NSPredicate(format: "rating != nil"),
                                          NSPredicate(format: "country.name != %@", "Japan")]
        var compared = 0
        for round in 0..<40 {
            let request = NSFetchRequest<NSDictionary>(entityName: "Trail")
            request.resultType = .dictionaryResultType
            request.predicate = predicates.randomElement(using: &generator)!
            switch round % 3 {
            case 0:
                // Grouped aggregates, maybe with having, sort and limits.
                let keys = groupings.randomElement(using: &generator)!
                request.propertiesToGroupBy = keys
                request.propertiesToFetch = keys + [
                    expression("n", "count:", "name", .integer64AttributeType),
                    expression("total", "sum:", "lengthKm", .doubleAttributeType),
                    expression("best", "max:", "rating", .doubleAttributeType),
                    expression("least", "min:", "elevationGain", .integer32AttributeType),
                    expression("mean", "average:", "elevationGain", .doubleAttributeType),
                ]
                if Bool.random(using: &generator) { request.havingPredicate = NSPredicate(format: "$n > %d", Int.random(in: 5...30, using: &generator)) }
                if Bool.random(using: &generator) {
                    request.sortDescriptors = [NSSortDescriptor(key: "total", ascending: false)] + keys.map { NSSortDescriptor(key: $0, ascending: true) }
                    request.fetchOffset = Int.random(in: 0...2, using: &generator)
                    request.fetchLimit = Int.random(in: 0...4, using: &generator)
                }
            case 1:
                // Distinct values.
                request.propertiesToFetch = [["difficulty"], ["country.name"], ["difficulty", "country.name"]].randomElement(using: &generator)!
                request.returnsDistinctResults = true
                request.sortDescriptors = (request.propertiesToFetch as! [String]).map { NSSortDescriptor(key: $0, ascending: Bool.random(using: &generator)) }
            default:
                // Rows of objects, sorted and limited.
                request.propertiesToFetch = ["name", "lengthKm", "rating", "country.name", "objectID"]
                request.sortDescriptors = [NSSortDescriptor(key: "lengthKm", ascending: Bool.random(using: &generator)),
                                           NSSortDescriptor(key: "name", ascending: true)]
                request.fetchOffset = Int.random(in: 0...20, using: &generator)
                request.fetchLimit = Int.random(in: 0...50, using: &generator)
            }
            let (sqlRows, lines) = try capturingSQL { try context.fetch(request) }
            XCTAssertEqual(statements(lines).count, 1, "round \(round): one statement\n" + lines.joined(separator: "\n"))
            let memoryRows = try FetchDictionaryResults(request: request.copy(as: NSFetchRequestResult.self), entity: entity, context: context).runInMemory()
            XCTAssertEqual(normalized(sqlRows), normalized(memoryRows), "round \(round): \(statements(lines).first ?? "")")
            compared += sqlRows.count
        }
        XCTAssertGreaterThan(compared, 400, "the rounds compared real results")
    }
}

/// A small deterministic generator (SplitMix64), so a failing round can be replayed.
private struct DictionaryRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
