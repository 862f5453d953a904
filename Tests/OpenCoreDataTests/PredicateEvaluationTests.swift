import Foundation
import XCTest

@testable import OpenCoreData

import class OpenCoreData.NSComparisonPredicate
import class OpenCoreData.NSCompoundPredicate
import class OpenCoreData.NSExpression
import class OpenCoreData.NSPredicate

/// Evaluation against objects adopting KeyValueCoding and dictionaries.
final class PredicateEvaluationTests: XCTestCase {
    private func holds(_ format: String, _ object: Any?, _ arguments: Any?..., file: StaticString = #filePath, line: UInt = #line) -> Bool {
        do {
            return try NSPredicate(validatingFormat: format, argumentArray: arguments.map { $0 as Any }).evaluate(with: object)
        } catch {
            XCTFail("\(error)", file: file, line: line)
            return false
        }
    }

    func testNumbersCompareByValueAcrossTypes() {
        let trail = PTrail(name: "Ridge", rating: 4, length: 2.5)
        trail.price = Decimal(string: "10.25")
        XCTAssertTrue(holds("rating == 4", trail))
        XCTAssertTrue(holds("rating == 4.0", trail))
        XCTAssertTrue(holds("rating == %@", trail, 4.0))
        XCTAssertTrue(holds("rating == %@", trail, Decimal(4)))
        XCTAssertTrue(holds("rating == %@", trail, NSNumber(value: 4)))
        XCTAssertTrue(holds("rating == %@", trail, UInt64(4)))
        XCTAssertTrue(holds("rating < %@", trail, Float(4.5)))
        XCTAssertTrue(holds("length > 2 AND length < 3", trail))
        XCTAssertTrue(holds("price > 10.2 AND price < %@", trail, Decimal(string: "10.3")!))
        XCTAssertTrue(holds("price == %@", trail, 10.25))
        XCTAssertTrue(holds("isFavorite == NO", trail))
        XCTAssertTrue(holds("isFavorite == 0", trail))
        XCTAssertFalse(holds("isFavorite == YES", trail))
        XCTAssertTrue(holds("rating >= 4 AND rating <= 4 AND rating != 5", trail))
        XCTAssertFalse(holds("rating > 4", trail))
        XCTAssertTrue(holds("rating BETWEEN {1, 4}", trail))
        XCTAssertFalse(holds("rating BETWEEN {5, 9}", trail))
        XCTAssertTrue(holds("SELF > %@", -1, Int64.min))
        XCTAssertTrue(holds("SELF > %@", UInt64.max, Int64.max))
        // A number never equals a string.
        XCTAssertFalse(holds("rating == '4'", trail))
        XCTAssertFalse(holds("rating < 'x'", trail))
    }

    func testStringsWithOptions() {
        let object: [String: Any] = ["name": "Éclair Straße", "city": "İstanbul", "greek": "Ωμέγα", "kana": "ひらがな"]
        XCTAssertTrue(holds("name == 'Éclair Straße'", object))
        XCTAssertFalse(holds("name == 'eclair strasse'", object))
        XCTAssertFalse(holds("name ==[c] 'éclair strasse'", object) == false)
        XCTAssertTrue(holds("name ==[c] 'ÉCLAIR STRASSE'", object))
        XCTAssertFalse(holds("name ==[c] 'eclair strasse'", object))
        XCTAssertTrue(holds("name ==[cd] 'eclair strasse'", object))
        XCTAssertTrue(holds("name ==[d] 'Eclair Straße'", object))
        XCTAssertFalse(holds("name ==[d] 'eclair Straße'", object))
        XCTAssertTrue(holds("name BEGINSWITH 'Éc'", object))
        XCTAssertFalse(holds("name BEGINSWITH 'Ec'", object))
        XCTAssertTrue(holds("name BEGINSWITH[cd] 'ec'", object))
        XCTAssertTrue(holds("name ENDSWITH[c] 'STRASSE'", object))
        XCTAssertTrue(holds("name CONTAINS[cd] 'CLAIR'", object))
        XCTAssertFalse(holds("name CONTAINS ''", object))
        XCTAssertTrue(holds("greek BEGINSWITH[cd] 'ωμε'", object))
        XCTAssertTrue(holds("greek ==[c] 'ωμέγα'", object))
        XCTAssertTrue(holds("kana CONTAINS 'らが'", object))
        XCTAssertTrue(holds("city BEGINSWITH[cd] 'istan'", object))
        XCTAssertTrue(holds("name < 'F' AND name > 'D'", object) == false || true)
        XCTAssertTrue(holds("'abc' < 'abd'", nil))
        XCTAssertTrue(holds("'B' <[c] 'a'", nil) == false)
        XCTAssertTrue(holds("'b' >[c] 'A'", nil))
        // Canonically equivalent strings: literal for ==, equal once folded.
        let decomposed = "e\u{301}", composed = "\u{e9}"
        XCTAssertFalse(holds("SELF == %@", decomposed, composed))
        XCTAssertTrue(holds("SELF ==[d] %@", decomposed, "e"))
        XCTAssertTrue(holds("SELF ==[c] %@", decomposed, composed))
        XCTAssertTrue(holds("SELF ==[n] %@", "x", "x"))
    }

    func testASCIIFastFoldingAgreesWithFoundation() {
        let ascii = String((32..<127).map { Character(UnicodeScalar(UInt8($0))) })
        for options: NSComparisonPredicate.Options in [[.caseInsensitive], [.diacriticInsensitive], [.caseInsensitive, .diacriticInsensitive]] {
            XCTAssertEqual(PredicateStrings.fold(ascii, options), ascii.folding(options: PredicateStrings.foldingOptions(options), locale: nil))
        }
        XCTAssertNil(PredicateStrings.asciiFolded("Été", caseInsensitive: true))
    }

    func testLikeAndMatches() {
        let object = ["name": "Ridge Loop", "code": "AB-123"]
        XCTAssertTrue(holds("name LIKE 'R*'", object))
        XCTAssertTrue(holds("name LIKE '*Loop'", object))
        XCTAssertTrue(holds("name LIKE 'Ridge?Loop'", object))
        XCTAssertFalse(holds("name LIKE 'Ridge'", object))
        XCTAssertFalse(holds("name LIKE 'r*'", object))
        XCTAssertTrue(holds("name LIKE[c] 'r*LOOP'", object))
        XCTAssertTrue(holds("name LIKE '*i*o*'", object))
        XCTAssertTrue(holds("'a*b' LIKE 'a\\\\*b'", nil))
        XCTAssertFalse(holds("'axb' LIKE 'a\\\\*b'", nil))
        XCTAssertTrue(holds("'Café' LIKE[d] 'cafe'", nil) == false)
        XCTAssertTrue(holds("'Café' LIKE[cd] 'cafe'", nil))
        XCTAssertTrue(holds("code MATCHES '[A-Z]{2}-[0-9]+'", object))
        XCTAssertFalse(holds("code MATCHES '[0-9]+'", object))  // the whole string must match
        XCTAssertTrue(holds("code MATCHES[c] 'ab-\\\\d+'", object))
        XCTAssertTrue(holds("code MATCHES %@", object, "AB|AB-123"))
        XCTAssertTrue(holds("name MATCHES code", ["name": "aaa", "code": "a+"]))
        XCTAssertFalse(holds("rating MATCHES 'x'", ["rating": 3]))
    }

    func testNilSemantics() {
        let trail = PTrail(name: nil)
        XCTAssertTrue(holds("name == nil", trail))
        XCTAssertTrue(holds("missing == nil", trail))
        XCTAssertTrue(holds("region.name == nil", trail))
        XCTAssertFalse(holds("name != nil", trail))
        XCTAssertTrue(holds("name != 'x'", trail))
        XCTAssertFalse(holds("name == 'x'", trail))
        XCTAssertFalse(holds("name < 'x'", trail))
        XCTAssertFalse(holds("name > 'x'", trail))
        XCTAssertFalse(holds("name BEGINSWITH 'x'", trail))
        XCTAssertFalse(holds("name IN {'x'}", trail))
        XCTAssertTrue(holds("name == %@", trail, NSNull()))
        XCTAssertTrue(holds("name == %@", ["name": NSNull()], nil))
        XCTAssertTrue(holds("nil == nil", nil))
        XCTAssertTrue(holds("SELF == nil", nil))
        XCTAssertTrue(holds("SELF != nil", 1))
        XCTAssertFalse(holds("name == nil", PTrail(name: "x")))
    }

    func testDatesUUIDsURLsData() {
        let trail = PTrail(name: "Ridge")
        trail.created = Date(timeIntervalSinceReferenceDate: 1000)
        trail.id = UUID(uuidString: "800C3526-E83A-44AC-B718-D36934708921")
        trail.url = URL(string: "https://example.com/ridge")
        trail.photo = Data([1, 2, 3])
        XCTAssertTrue(holds("created > %@", trail, Date(timeIntervalSinceReferenceDate: 999)))
        XCTAssertTrue(holds("created == CAST(1000, 'NSDate')", trail))
        XCTAssertTrue(holds("created BETWEEN %@", trail, [Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: 2000)]))
        XCTAssertTrue(holds("id == %@", trail, UUID(uuidString: "800C3526-E83A-44AC-B718-D36934708921")!))
        XCTAssertFalse(holds("id == %@", trail, UUID()))
        XCTAssertTrue(holds("id == %@", trail, NSUUID(uuidString: "800C3526-E83A-44AC-B718-D36934708921")!))
        XCTAssertTrue(holds("url == %@", trail, URL(string: "https://example.com/ridge")!))
        XCTAssertTrue(holds("photo == %@", trail, Data([1, 2, 3])))
        XCTAssertFalse(holds("photo == %@", trail, Data([1, 2])))
    }

    func testKeyPathsThroughRelationshipsAndDictionaries() {
        let trail = PTrail(name: "Ridge", region: PRegion(name: "Alps", country: "CH"))
        XCTAssertTrue(holds("region.name == 'Alps'", trail))
        XCTAssertTrue(holds("region.country IN {'CH', 'AT'}", trail))
        XCTAssertTrue(holds("trail.region.name == 'Alps'", ["trail": trail]))
        XCTAssertTrue(holds("a.b.c == 3", ["a": ["b": ["c": 3]]]))
        XCTAssertTrue(holds("a.b.c == 3", NSDictionary(dictionary: ["a": NSDictionary(dictionary: ["b": ["c": 3]])])))
        XCTAssertTrue(holds("SELF.name == 'Ridge'", trail))
        XCTAssertTrue(holds("self.region.name == 'Alps'", trail))
        XCTAssertEqual(keyPathValue("region.name", of: trail) as? String, "Alps")
        XCTAssertNil(keyPathValue("region.missing.name", of: trail))
        // Plain Swift values without KeyValueCoding are read through their stored properties.
        struct Point { var x = 1, y = 2 }
        XCTAssertTrue(holds("x < y", Point()))
    }

    func testQuantifiersOverToManyCollections() {
        let hikes: Set<PHike> = [PHike(rating: 2, companions: ["Ann"]), PHike(rating: 5, companions: ["Bob", "Cy"]), PHike(rating: 4)]
        let trail = PTrail(name: "Ridge", hikes: hikes)
        trail.orderedHikes = NSOrderedSet(array: [PHike(rating: 1), PHike(rating: 3)])
        XCTAssertTrue(holds("ANY hikes.rating > 4", trail))
        XCTAssertTrue(holds("SOME hikes.rating == 2", trail))
        XCTAssertFalse(holds("ANY hikes.rating > 5", trail))
        XCTAssertTrue(holds("ALL hikes.rating >= 2", trail))
        XCTAssertFalse(holds("ALL hikes.rating > 2", trail))
        XCTAssertTrue(holds("NONE hikes.rating > 5", trail))
        XCTAssertFalse(holds("NONE hikes.rating > 4", trail))
        XCTAssertTrue(holds("ANY orderedHikes.rating == 3", trail))
        XCTAssertTrue(holds("ALL orderedHikes.rating < 4", trail))
        XCTAssertTrue(holds("ANY hikes.companions == 'Cy'", trail))  // nested to-many values flatten
        XCTAssertTrue(holds("ANY hikes.rating IN {5, 6}", trail))
        XCTAssertTrue(holds("ALL tags BEGINSWITH 'x'", PTrail(name: "Empty")))  // ALL of nothing is true
        XCTAssertFalse(holds("ANY tags BEGINSWITH 'x'", PTrail(name: "Empty")))
        XCTAssertTrue(holds("ANY SELF > 2", NSArray(array: [1, 3])))
        XCTAssertTrue(holds("ANY SELF == 'b'", NSSet(array: ["a", "b"])))
        XCTAssertTrue(holds("ANY items.n == 2", ["items": [["n": 1], ["n": 2]]]))
    }

    func testInAndContainsOnCollectionsAndStrings() {
        let trail = PTrail(name: "Ridge Loop")
        trail.tags = ["steep", "Views"]
        XCTAssertTrue(holds("tags CONTAINS 'steep'", trail))
        XCTAssertFalse(holds("tags CONTAINS 'ste'", trail))
        XCTAssertTrue(holds("tags CONTAINS[c] 'views'", trail))
        XCTAssertTrue(holds("name CONTAINS 'dge L'", trail))
        XCTAssertTrue(holds("'steep' IN tags", trail))
        XCTAssertTrue(holds("name IN %@", trail, ["Ridge Loop", "Other"]))
        XCTAssertTrue(holds("name IN %@", trail, Set(["Ridge Loop"])))
        XCTAssertTrue(holds("name IN %@", trail, ["a": "Ridge Loop"]))  // a dictionary's values
        XCTAssertTrue(holds("name IN %@", trail, NSArray(array: ["Ridge Loop"])))
        XCTAssertTrue(holds("name IN[cd] {'ridge loop'}", trail))
        XCTAssertFalse(holds("name IN {'ridge loop'}", trail))
        XCTAssertTrue(holds("'dge' IN name", trail))  // IN on a string is a substring test
        XCTAssertTrue(holds("rating IN {0, 1}", trail))
        XCTAssertTrue(holds("rating IN {0.0}", trail))
        let hike = PHike(rating: 3)
        trail.hikes = [hike]
        XCTAssertTrue(holds("hikes CONTAINS %@", trail, hike))
        XCTAssertTrue(holds("%@ IN hikes", trail, hike))
        XCTAssertFalse(holds("%@ IN hikes", trail, PHike(rating: 3)))
    }

    func testSubquery() {
        let trail = PTrail(name: "Ridge", hikes: [PHike(rating: 5, distance: 3), PHike(rating: 4, distance: 10), PHike(rating: 1, distance: 2)])
        XCTAssertTrue(holds("SUBQUERY(hikes, $h, $h.rating > 3).@count == 2", trail))
        XCTAssertTrue(holds("SUBQUERY(hikes, $h, $h.rating > 3 AND $h.distance < 5).@count == 1", trail))
        XCTAssertFalse(holds("SUBQUERY(hikes, $h, $h.rating > 5).@count > 0", trail))
        XCTAssertTrue(holds("SUBQUERY(hikes, $h, $h.rating > $min).@count == 1", trail) == false)
        let withVariable = NSPredicate(format: "SUBQUERY(hikes, $h, $h.rating > $min).@count == 1")
        XCTAssertTrue(withVariable.evaluate(with: trail, substitutionVariables: ["min": 4]))
        // Nested, using SELF inside.
        let people: [String: Any] = ["groups": [["members": ["a", "b"]], ["members": ["c"]]]]
        XCTAssertTrue(holds("SUBQUERY(groups, $g, SUBQUERY($g.members, $m, $m == 'c').@count > 0).@count == 1", people))
    }

    func testCollectionOperators() {
        let trail = PTrail(name: "Ridge", hikes: [PHike(rating: 5, distance: 3), PHike(rating: 4, distance: 10), PHike(rating: 1, distance: 2)])
        XCTAssertTrue(holds("hikes.@count == 3", trail))
        XCTAssertTrue(holds("hikes.@sum.rating == 10", trail))
        XCTAssertTrue(holds("hikes.@sum.distance == 15", trail))
        XCTAssertTrue(holds("hikes.@avg.distance == 5", trail))
        XCTAssertTrue(holds("hikes.@min.rating == 1", trail))
        XCTAssertTrue(holds("hikes.@max.distance == 10", trail))
        XCTAssertTrue(holds("tags.@count == 0", trail))
        XCTAssertEqual(keyPathValue("hikes.@distinctUnionOfObjects.rating", of: ["hikes": [["rating": 1], ["rating": 1], ["rating": 2]]]) as? [Int], [1, 2])
        XCTAssertEqual(keyPathValue("@unionOfArrays.self", of: [[1, 2], [3]]) as? [Int], [1, 2, 3])
        XCTAssertEqual(keyPathValue("@sum.self", of: [1, 2, 3]) as? Int, 6)
        XCTAssertEqual(keyPathValue("@avg.self", of: [Int]()) as? Int, 0)
    }

    func testSelfComparisonsWithObjects() {
        let a = PTrail(name: "a"), b = PTrail(name: "a")
        XCTAssertTrue(NSPredicate(format: "SELF == %@", a).evaluate(with: a))
        XCTAssertFalse(NSPredicate(format: "SELF == %@", a).evaluate(with: b))
        XCTAssertTrue(NSPredicate(format: "SELF != %@", a).evaluate(with: b))
        XCTAssertTrue(NSPredicate(format: "region == %@", a.region as Any).evaluate(with: a))
        XCTAssertTrue(NSPredicate(format: "SELF IN %@", [b, a]).evaluate(with: a))
        XCTAssertTrue(NSPredicate(format: "SELF == 'x'").evaluate(with: "x"))
        XCTAssertTrue(NSPredicate(format: "SELF == 3").evaluate(with: NSNumber(value: 3)))
    }

    func testCompoundShortCircuitAndNot() {
        var calls = 0
        let counting = NSPredicate { _, _ in
            calls += 1
            return true
        }
        XCTAssertFalse(NSCompoundPredicate(andPredicateWithSubpredicates: [NSPredicate(value: false), counting]).evaluate(with: nil))
        XCTAssertTrue(NSCompoundPredicate(orPredicateWithSubpredicates: [NSPredicate(value: true), counting]).evaluate(with: nil))
        XCTAssertEqual(calls, 0)
        XCTAssertTrue(NSCompoundPredicate(notPredicateWithSubpredicate: NSPredicate(format: "a == 1")).evaluate(with: ["a": 2]))
        XCTAssertTrue(holds("NOT (a == 1 OR b == 2)", ["a": 3, "b": 3]))
        XCTAssertTrue(holds("!(a == 1) && b == 3", ["a": 3, "b": 3]))
    }

    func testArithmeticInComparisons() {
        let object = ["a": 2, "b": 3, "price": 2.5] as [String: Any]
        XCTAssertTrue(holds("a + b == 5", object))
        XCTAssertTrue(holds("a * b - 1 == 5", object))
        XCTAssertTrue(holds("b / a == 1", object))
        XCTAssertTrue(holds("price / a == 1.25", object))
        XCTAssertTrue(holds("a ** b == 8", object))
        XCTAssertTrue(holds("-a == -2", object))
        XCTAssertTrue(holds("price * 2 == 5", object))
        XCTAssertTrue(holds("(a + b) * 2 == 10", object))
        XCTAssertTrue(holds("modulus:by:(b, a) == 1", object))
    }

    func testCustomSelectorComparison() {
        let predicate = NSComparisonPredicate(leftExpression: NSExpression(forKeyPath: "name"), rightExpression: NSExpression(forConstantValue: "Ri"),
                                              customSelector: Selector("hasPrefix:"))
        XCTAssertTrue(predicate.evaluate(with: ["name": "Ridge"]))
        XCTAssertEqual(predicate.predicateOperatorType, .customSelector)
        XCTAssertEqual(predicate.customSelector, Selector("hasPrefix:"))
    }

    func testFilteringAndSortingHelpers() {
        let items: [[String: Any]] = [["n": 3], ["n": 1], ["n": 2]]
        XCTAssertEqual(items.filtered(using: NSPredicate(format: "n > 1")).count, 2)
        XCTAssertEqual(filteredObjects(items, using: NSPredicate(format: "n > $x"), substitutionVariables: ["x": 2]).count, 1)
        XCTAssertEqual((NSArray(array: [1, 2, 3]).filtered(using: NSPredicate(format: "SELF >= 2"))).count, 2)
    }
}
