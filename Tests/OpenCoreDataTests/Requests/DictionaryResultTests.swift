import Foundation
import XCTest

@testable import OpenCoreData

final class DictionaryResultTests: RequestTestCase {
    private func expression(_ name: String, _ function: String, _ keyPath: String, _ type: NSAttributeType) -> NSExpressionDescription {
        let description = NSExpressionDescription()
        description.name = name
        description.expression = NSExpression(forFunction: function, arguments: [NSExpression(forKeyPath: keyPath)])
        description.expressionResultType = type
        return description
    }

    /// The seeded container of this test, made on first use.
    private var seeded: NSPersistentContainer?

    private func dictionaries(_ configure: (NSFetchRequest<NSDictionary>) -> Void) throws -> [NSDictionary] {
        let container = try seeded ?? seededContainer()
        seeded = container
        let request = NSFetchRequest<NSDictionary>(entityName: "Trail")
        request.resultType = .dictionaryResultType
        configure(request)
        return try container.viewContext.fetch(request)
    }

    func testEveryAttributeByDefaultWithNilValuesLeftOut() throws {
        let rows = try dictionaries { $0.sortDescriptors = [NSSortDescriptor(key: "lengthKm", ascending: true)] }
        XCTAssertEqual(rows.count, 6)
        let fuji = rows[0]
        XCTAssertEqual(fuji["name"] as? String, "富士山 吉田ルート")
        XCTAssertEqual(fuji["lengthKm"] as? Double, 14)
        XCTAssertEqual(fuji["elevationGain"] as? Int32, 1450)
        XCTAssertEqual(fuji["isFavorite"] as? Bool, false)
        XCTAssertEqual(Set(fuji.allKeys.map { $0 as! String }), ["name", "lengthKm", "elevationGain", "difficulty", "rating", "isFavorite"])
        XCTAssertNil(fuji["country"], "relationships are not columns by default")
        let nakasendo = try XCTUnwrap(rows.first { $0["name"] as? String == "Nakasendō" })
        XCTAssertNil(nakasendo["rating"], "nil values are left out")
    }

    func testNamedColumnsKeyPathsAndToOneRelationships() throws {
        let container = try seededContainer()
        let request = NSFetchRequest<NSDictionary>(entityName: "Trail")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["name", "country.name", "country", "objectID"]
        request.predicate = NSPredicate(format: "name == %@", "Kungsleden")
        let row = try XCTUnwrap(try container.viewContext.fetch(request).first)
        XCTAssertEqual(row.count, 4)
        XCTAssertEqual(row["name"] as? String, "Kungsleden")
        XCTAssertEqual(row["country.name"] as? String, "Sweden")
        let kungsleden = try trail("Kungsleden", in: container.viewContext)
        let sweden = kungsleden.value(forKey: "country") as! NSManagedObject
        XCTAssertEqual(row["country"] as? NSManagedObjectID, sweden.objectID)
        XCTAssertEqual(row["objectID"] as? NSManagedObjectID, kungsleden.objectID)
    }

    func testAggregatesOverAllMatchingObjectsMatchHandComputedValues() throws {
        let rows = try dictionaries { request in
            request.propertiesToFetch = [
                expression("total", "sum:", "lengthKm", .doubleAttributeType),
                expression("mean", "average:", "lengthKm", .doubleAttributeType),
                expression("shortest", "min:", "lengthKm", .doubleAttributeType),
                expression("longest", "max:", "lengthKm", .doubleAttributeType),
                expression("rated", "count:", "rating", .integer64AttributeType),
                expression("climb", "sum:", "elevationGain", .integer64AttributeType),
                expression("middle", "median:", "lengthKm", .doubleAttributeType),
                expression("spread", "stddev:", "rating", .doubleAttributeType),
                expression("usual", "mode:", "difficulty", .integer16AttributeType),
            ]
        }
        XCTAssertEqual(rows.count, 1, "aggregates without grouping give one row")
        let row = rows[0]
        let lengths = requestSeeds.map(\.lengthKm)
        XCTAssertEqual(row["total"] as? Double, lengths.reduce(0, +))  // 639
        XCTAssertEqual(row["mean"] as? Double, lengths.reduce(0, +) / 6)  // 106.5
        XCTAssertEqual(row["shortest"] as? Double, 14)
        XCTAssertEqual(row["longest"] as? Double, 440)
        XCTAssertEqual(row["rated"] as? Int64, 5, "count: skips nil, as SQL's COUNT does")
        XCTAssertEqual(row["climb"] as? Int64, 15450)
        XCTAssertEqual(String(cString: (row["climb"] as! NSNumber).objCType), "q", "an Integer 64 result is a long long NSNumber")
        XCTAssertEqual(row["middle"] as? Double, (38 + 55) / 2.0)
        let ratings = requestSeeds.compactMap(\.rating)
        let mean = ratings.reduce(0, +) / Double(ratings.count)
        let deviation = (ratings.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(ratings.count)).squareRoot()
        XCTAssertEqual(try XCTUnwrap(row["spread"] as? Double), deviation, accuracy: 1e-12)
        XCTAssertEqual(row["usual"] as? Int16, 2)
    }

    func testAverageOfAnIntegerAttributeTakesTheResultType() throws {
        let rows = try dictionaries { request in
            request.propertiesToFetch = [
                expression("asDouble", "average:", "elevationGain", .doubleAttributeType),
                expression("asInteger", "average:", "elevationGain", .integer32AttributeType),
            ]
        }
        XCTAssertEqual(rows[0]["asDouble"] as? Double, 15450.0 / 6)  // 2575
        XCTAssertEqual(rows[0]["asInteger"] as? Int32, 2575)
    }

    func testGroupByWithAggregatesHavingAndSorting() throws {
        func grouped(_ configure: (NSFetchRequest<NSDictionary>) -> Void) throws -> [[String: Any]] {
            try dictionaries { request in
                request.propertiesToFetch = ["country.name", expression("trailCount", "count:", "name", .integer64AttributeType),
                                             expression("total", "sum:", "lengthKm", .doubleAttributeType)]
                request.propertiesToGroupBy = ["country.name"]
                configure(request)
            }.map { row in Dictionary(uniqueKeysWithValues: row.map { ($0.key as! String, $0.value) }) }
        }
        let plain = try grouped { _ in }
        XCTAssertEqual(plain.map { $0["country.name"] as! String }, ["Iceland", "Japan", "Sweden"], "groups in ascending key order")
        XCTAssertEqual(plain.map { $0["trailCount"] as! Int64 }, [2, 3, 1])
        XCTAssertEqual(plain.map { $0["total"] as! Double }, [77, 122, 440])

        let byTotal = try grouped { $0.sortDescriptors = [NSSortDescriptor(key: "total", ascending: false)] }
        XCTAssertEqual(byTotal.map { $0["country.name"] as! String }, ["Sweden", "Japan", "Iceland"])

        let limited = try grouped {
            $0.sortDescriptors = [NSSortDescriptor(key: "total", ascending: false)]
            $0.fetchOffset = 1
            $0.fetchLimit = 1
        }
        XCTAssertEqual(limited.map { $0["country.name"] as! String }, ["Japan"])

        // The having predicate may name a column as a variable, by its key, or repeat an aggregate.
        for having in ["$trailCount > 1", "trailCount > 1", "count:(name) > 1"] {
            let kept = try grouped { $0.havingPredicate = NSPredicate(format: having) }
            XCTAssertEqual(kept.map { $0["country.name"] as! String }, ["Iceland", "Japan"], having)
        }
        let filtered = try grouped { $0.predicate = NSPredicate(format: "lengthKm > 20") }
        XCTAssertEqual(filtered.map { $0["trailCount"] as! Int64 }, [2, 2, 1], "the predicate filters before grouping")
    }

    func testDistinctResults() throws {
        let rows = try dictionaries { request in
            request.propertiesToFetch = ["difficulty"]
            request.returnsDistinctResults = true
        }
        XCTAssertEqual(rows.map { $0["difficulty"] as! Int16 }, [2, 3, 1])
        let sorted = try dictionaries { request in
            request.propertiesToFetch = ["difficulty"]
            request.returnsDistinctResults = true
            request.sortDescriptors = [NSSortDescriptor(key: "difficulty", ascending: true)]
        }
        XCTAssertEqual(sorted.map { $0["difficulty"] as! Int16 }, [1, 2, 3])
    }

    func testDictionaryResultsReflectTheStoreNotUnsavedChanges() throws {
        let container = try seededContainer()
        let context = container.viewContext
        try trail("Laugavegur", in: context).setValue(1000.0, forKey: "lengthKm")
        let extra = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        extra.setValue("Unsaved", forKey: "name")
        extra.setValue(5.0, forKey: "lengthKm")
        context.delete(try trail("Kungsleden", in: context))

        let request = NSFetchRequest<NSDictionary>(entityName: "Trail")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = [expression("total", "sum:", "lengthKm", .doubleAttributeType),
                                     expression("trails", "count:", "name", .integer64AttributeType)]
        let row = try XCTUnwrap(try context.fetch(request).first)
        XCTAssertEqual(row["total"] as? Double, 639)
        XCTAssertEqual(row["trails"] as? Int64, 6)
        XCTAssertTrue(context.hasChanges, "the fetch leaves the context's changes alone")
        XCTAssertEqual(try trail("Laugavegur", in: context).value(forKey: "lengthKm") as? Double, 1000)
    }

    func testPerRowExpressions() throws {
        let description = NSExpressionDescription()
        description.name = "doubled"
        description.expression = NSExpression(format: "lengthKm * 2")
        description.expressionResultType = .doubleAttributeType
        let rows = try dictionaries { request in
            request.propertiesToFetch = ["name", description]
            request.predicate = NSPredicate(format: "country.name == %@", "Iceland")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        }
        XCTAssertEqual(rows.map { $0["doubled"] as! Double }, [110, 44])
    }
}
