import Foundation
import OpenCoreData
import XCTest

// No scoped imports here: this file imports Foundation and OpenCoreData as chapter code
// does, and uses the types only in expressions, which resolve to OpenCoreData's because
// Foundation marks its format-string and key-based initializers unavailable. (Naming the
// types in a declaration, `let p: NSPredicate`, would be ambiguous; see
// PredicateShadowingTests.)

/// Apple-style expressions compile and use the library's classes when both Foundation and
/// OpenCoreData are imported.
final class PredicateImportTests: XCTestCase {
    func testExpressionsResolveToOpenCoreData() {
        let predicate = NSPredicate(format: "name == %@", "x")
        let sort = NSSortDescriptor(key: "name", ascending: true)
        XCTAssertTrue(predicate.evaluate(with: ["name": "x"]))
        XCTAssertEqual(predicate.predicateFormat, "name == \"x\"")
        XCTAssertEqual(sort.description, "(name, ascending, compare:)")
        XCTAssertEqual(String(reflecting: type(of: predicate)), "OpenCoreData.NSComparisonPredicate")
        XCTAssertEqual(String(reflecting: type(of: sort)), "OpenCoreData.NSSortDescriptor")
    }

    func testChapterPredicates() {
        let trail: [String: Any] = ["name": "Laugavegur", "searchKey": "L", "region": "Iceland", "lengthKm": 55.0, "rating": 4.8]
        XCTAssertFalse(NSPredicate(format: "%K != nil AND %K != %@", "searchKey", "name", "Laugavegur").evaluate(with: trail))
        XCTAssertTrue(NSPredicate(format: "region == %@ AND lengthKm > %@", "Iceland", NSNumber(value: 30)).evaluate(with: trail))
        XCTAssertTrue(NSPredicate(format: "%K >= %@", "rating", NSNumber(value: 4.7)).evaluate(with: trail))
        XCTAssertTrue(NSPredicate(format: "difficultyValue >= %d", Int16(2)).evaluate(with: ["difficultyValue": Int16(3)]))
        let sorts = [NSSortDescriptor(key: "lengthKm", ascending: false)]
        XCTAssertEqual(sorts.first?.ascending, false)
    }
}
