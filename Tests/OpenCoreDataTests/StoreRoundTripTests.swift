import Foundation
import XCTest

@testable import OpenCoreData

/// A value type stored through a registered transformer.
private struct Route: Codable, Equatable {
    var waypoints: [String]
    var length: Double
}

/// An entity with an attribute of every type.
struct AllTypesFixture {
    let model: NSManagedObjectModel
    let sample: NSEntityDescription

    init() {
        ValueTransformer.setValueTransformer(CodableValueTransformer<Route>(), forName: NSValueTransformerName("StoreTestsRouteTransformer"))
        sample = makeEntity("Sample")
        sample.properties = [
            makeAttribute("i16", .integer16AttributeType), makeAttribute("i32", .integer32AttributeType),
            makeAttribute("i64", .integer64AttributeType), makeAttribute("decimal", .decimalAttributeType),
            makeAttribute("double", .doubleAttributeType), makeAttribute("float", .floatAttributeType),
            makeAttribute("string", .stringAttributeType), makeAttribute("flag", .booleanAttributeType),
            makeAttribute("date", .dateAttributeType), makeAttribute("data", .binaryDataAttributeType),
            makeAttribute("uuid", .UUIDAttributeType), makeAttribute("url", .URIAttributeType),
            makeAttribute("route", .transformableAttributeType, transformer: "StoreTestsRouteTransformer"),
        ]
        model = makeModel([sample])
    }
}

final class StoreRoundTripTests: StoreTestCase {
    private func roundTrip(_ values: [String: Any], file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let fixture = AllTypesFixture()
        let engine = try openEngine(fixture.model)
        let row = try newRow(engine, fixture.sample, values)
        try engine.performSave { try $0.insert(row) }
        engine.close()

        let reopened = try openEngine(AllTypesFixture().model)
        defer { reopened.close() }
        let rows = try reopened.fetchRows(of: reopened.entity(forNumber: 1)!, includesSubentities: true)
        XCTAssertEqual(rows.count, 1, file: file, line: line)
        XCTAssertEqual(rows.first?.key, row.key, file: file, line: line)
        XCTAssertEqual(rows.first?.version, 1, file: file, line: line)
        return rows.first?.attributes.named ?? [:]
    }

    func testEveryAttributeTypeRoundTripsExactly() throws {
        let date = Date(timeIntervalSinceReferenceDate: 612_345_678.123_456_7)
        let uuid = UUID()
        let values: [String: Any] = [
            "i16": Int16.min, "i32": Int32.max, "i64": Int64.max, "decimal": Decimal(string: "19.99")!,
            "double": 0.1 + 0.2, "float": Float(3.14159), "string": "Grüße, 世界 👋🏽 \u{0}after-nul", "flag": true,
            "date": date, "data": Data([0, 1, 2, 255]), "uuid": uuid, "url": URL(string: "https://example.org/a%20b?q=1#frag")!,
            "route": Route(waypoints: ["Start", "Ridge"], length: 12.5),
        ]
        let read = try roundTrip(values)
        XCTAssertEqual(read["i16"] as? Int16, Int16.min)
        XCTAssertEqual(read["i32"] as? Int32, Int32.max)
        XCTAssertEqual(read["i64"] as? Int64, Int64.max)
        XCTAssertEqual(read["decimal"] as? Decimal, Decimal(string: "19.99")!)
        XCTAssertEqual(read["double"] as? Double, 0.1 + 0.2)
        XCTAssertEqual(read["float"] as? Float, Float(3.14159))
        XCTAssertEqual(read["string"] as? String, "Grüße, 世界 👋🏽 \u{0}after-nul")
        XCTAssertEqual(read["flag"] as? Bool, true)
        XCTAssertEqual(read["date"] as? Date, date)
        XCTAssertEqual(read["data"] as? Data, Data([0, 1, 2, 255]))
        XCTAssertEqual(read["uuid"] as? UUID, uuid)
        XCTAssertEqual(read["url"] as? URL, URL(string: "https://example.org/a%20b?q=1#frag")!)
        XCTAssertEqual(read["route"] as? Route, Route(waypoints: ["Start", "Ridge"], length: 12.5))
        XCTAssertEqual(read.count, values.count)
    }

    func testIntegerLimitsAndBoolFalse() throws {
        let read = try roundTrip(["i16": Int16.max, "i32": Int32.min, "i64": Int64.min, "flag": false, "double": -0.0, "float": Float.greatestFiniteMagnitude])
        XCTAssertEqual(read["i16"] as? Int16, Int16.max)
        XCTAssertEqual(read["i32"] as? Int32, Int32.min)
        XCTAssertEqual(read["i64"] as? Int64, Int64.min)
        XCTAssertEqual(read["flag"] as? Bool, false)
        XCTAssertEqual(read["float"] as? Float, Float.greatestFiniteMagnitude)
    }

    func testDecimalsKeepEveryDigit() throws {
        let numerals = [
            "19.99", "0.1", "-0.000001234", "12345678901234567890.123456789", "99999999999999999999999999999999999999",
            "-12345678901234.5", "1000000000000000000000", "3", "-9223372036854775808", "0.000000000000000000000000000001",
        ]
        for numeral in numerals {
            let value = Decimal(string: numeral)!
            let read = try roundTrip(["decimal": value])
            XCTAssertEqual(read["decimal"] as? Decimal, value, numeral)
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: storeURL().path + suffix) }
        }
    }

    /// Values of another Swift type than the attribute's own (which a save reads without a
    /// cast, ``ExactValueReader``) are bound through the general conversions.
    func testValuesOfOtherNumericTypesAreConverted() throws {
        let read = try roundTrip([
            "i16": 12 as Int, "i32": NSNumber(value: -7), "i64": Int32(40), "flag": NSNumber(value: 1),
            "double": Float(0.5), "float": 2.25 as Double, "date": 86_400.0,
        ])
        XCTAssertEqual(read["i16"] as? Int16, 12)
        XCTAssertEqual(read["i32"] as? Int32, -7)
        XCTAssertEqual(read["i64"] as? Int64, 40)
        XCTAssertEqual(read["flag"] as? Bool, true)
        XCTAssertEqual(read["double"] as? Double, 0.5)
        XCTAssertEqual(read["float"] as? Float, 2.25)
        XCTAssertEqual(read["date"] as? Date, Date(timeIntervalSinceReferenceDate: 86_400))
    }

    func testDatesAndEmptyValues() throws {
        let past = Date(timeIntervalSince1970: -1_234_567.891)
        let read = try roundTrip(["date": past, "string": "", "data": Data()])
        XCTAssertEqual(read["date"] as? Date, past)
        XCTAssertEqual(read["string"] as? String, "")
        XCTAssertEqual(read["data"] as? Data, Data())
    }

    func testNilIsAbsentForEveryType() throws {
        let read = try roundTrip([:])
        XCTAssertTrue(read.isEmpty, "\(read)")
        let rows = try query(storeURL(), "SELECT * FROM ZSAMPLE")
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows[0].dropFirst(3).compactMap { $0 }.count, 0, "every attribute column is NULL")
    }

    func testStoredRepresentations() throws {
        let uuid = UUID(uuidString: "800C3526-E83A-44AC-B718-D36934708921")!
        _ = try roundTrip([
            "date": Date(timeIntervalSince1970: 978_307_200 + 10), "flag": true, "uuid": uuid,
            "url": URL(string: "https://example.org/x")!, "decimal": Decimal(string: "19.99")!,
        ])
        let row = try query(storeURL(), "SELECT ZDATE, typeof(ZDATE), ZFLAG, ZUUID, ZURL, ZDECIMAL, typeof(ZDECIMAL) FROM ZSAMPLE")[0]
        // TIMESTAMP has numeric affinity: SQLite keeps a whole number of seconds as an integer.
        XCTAssertEqual((row[0] as? Int64).map(Double.init) ?? row[0] as? Double, 10, "seconds since 2001-01-01")
        XCTAssertEqual(row[1] as? String, "integer")
        XCTAssertEqual(row[2] as? Int64, 1)
        XCTAssertEqual(row[3] as? Data, withUnsafeBytes(of: uuid.uuid) { Data($0) }, "16 bytes")
        XCTAssertEqual(row[4] as? String, "https://example.org/x")
        XCTAssertEqual(row[5] as? Double, 19.99)
        XCTAssertEqual(row[6] as? String, "real")
    }

    func testWrongValueTypeIsAnError() throws {
        let fixture = AllTypesFixture()
        let engine = try openEngine(fixture.model)
        defer { engine.close() }
        let row = try newRow(engine, fixture.sample, ["i16": "not a number"])
        XCTAssertThrowsError(try engine.performSave { try $0.insert(row) }) { error in
            XCTAssertEqual((error as NSError).code, NSManagedObjectValidationError)
            XCTAssertTrue((error as NSError).localizedDescription.contains("Unacceptable type of value for attribute: property = \"i16\""))
        }
        XCTAssertEqual(try engine.countRows(of: fixture.sample, includesSubentities: true), 0)
    }

    func testInMemoryStores() throws {
        let fixture = AllTypesFixture()
        for url in [nil, URL(fileURLWithPath: "/dev/null")] {
            let engine = try SQLiteStoreEngine(url: url, model: fixture.model, configurationName: nil, options: nil)
            let big = Data(repeating: 7, count: ExternalBinaryStorage.threshold + 10)
            let row = try newRow(engine, fixture.sample, ["string": "memory", "data": big])
            try engine.performSave { try $0.insert(row) }
            let rows = try engine.fetchRows(of: fixture.sample, includesSubentities: false)
            XCTAssertEqual(rows.map { $0.attributes["string"] as? String }, ["memory"])
            XCTAssertEqual(rows.first?.attributes["data"] as? Data, big)
            XCTAssertNotNil(UUID(uuidString: engine.identifier))
            engine.close()
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/dev/.null_SUPPORT"))
    }
}
