import Foundation
import XCTest

@testable import OpenCoreData

final class ModelVersionHashTests: XCTestCase {
    private func hashes(_ edit: (String) -> String = { $0 }) throws -> [String: Data] {
        let original = try String(contentsOf: ModelFixtures.url("Trails.xcdatamodel/contents"), encoding: .utf8)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hash-\(UUID().uuidString).xml")
        try Data(edit(original).utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return try NSManagedObjectModel.load(contentsOf: url).entityVersionHashesByName
    }

    func testHashesAreStableAcrossLoads() throws {
        let first = try hashes()
        XCTAssertEqual(first, try hashes())
        XCTAssertEqual(first.count, 4)
        XCTAssertEqual(first["Trail"]?.count, 32)
        XCTAssertEqual(Set(first.values).count, 4, "entities hash differently")
    }

    func testHashesIgnoreDefaultsRulesAndUserInfo() throws {
        let base = try hashes()
        XCTAssertEqual(base, try hashes { $0.replacingOccurrences(of: "defaultValueString=\"2.5\"", with: "defaultValueString=\"3\"") })
        XCTAssertEqual(base, try hashes { $0.replacingOccurrences(of: "maxValueString=\"40\"", with: "maxValueString=\"80\"") })
        XCTAssertEqual(base, try hashes { $0.replacingOccurrences(of: "value=\"parks\"", with: "value=\"forests\"") })
        XCTAssertEqual(base, try hashes { $0.replacingOccurrences(of: "regularExpressionString=\"[A-Za-z ]+\"", with: "") })
    }

    func testHashesChangeWithNamesTypesOptionalityRelationshipsAndModifiers() throws {
        let base = try hashes()
        let edits: [(String, String)] = [
            ("name=\"grade\"", "name=\"steepness\""),
            ("attributeType=\"Integer 32\"", "attributeType=\"Integer 64\""),
            ("name=\"name\" attributeType=\"String\"", "name=\"name\" optional=\"YES\" attributeType=\"String\""),
            ("versionHashModifier=\"trail-v1\"", "versionHashModifier=\"trail-v2\""),
            ("ordered=\"YES\" destinationEntity=\"Stop\"", "ordered=\"NO\" destinationEntity=\"Stop\""),
            ("name=\"visits\" optional=\"YES\" attributeType", "name=\"visits\" optional=\"YES\" transient=\"YES\" attributeType"),
        ]
        for (from, to) in edits {
            let changed = try hashes { $0.replacingOccurrences(of: from, with: to) }
            XCTAssertNotEqual(changed["Trail"], base["Trail"], "\(from) → \(to)")
            XCTAssertEqual(changed["Region"], base["Region"], "other entities keep their hash")
        }
    }

    func testPropertyHashesFollowTheSameRules() {
        let a = NSAttributeDescription()
        a.name = "rating"
        a.attributeType = .doubleAttributeType
        let before = a.versionHash
        a.defaultValue = 3.0
        a.userInfo = ["k": "v"]
        XCTAssertEqual(a.versionHash, before)
        a.isOptional = false
        XCTAssertNotEqual(a.versionHash, before)
    }
}
