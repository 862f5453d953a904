import Foundation
import XCTest

@testable import OpenCoreData

import class OpenCoreData.NSComparisonPredicate
import class OpenCoreData.NSCompoundPredicate
import class OpenCoreData.NSExpression
import class OpenCoreData.NSPredicate

/// Parsing and printing: every example of Apple's "Predicate Format String Syntax" guide,
/// and the canonical form Foundation prints.
final class PredicateParserTests: XCTestCase {
    private func assertFormat(_ format: String, _ expected: String, _ arguments: Any?..., file: StaticString = #filePath, line: UInt = #line) {
        do {
            let predicate = try NSPredicate(validatingFormat: format, argumentArray: arguments.map { $0 as Any })
            XCTAssertEqual(predicate.predicateFormat, expected, file: file, line: line)
            XCTAssertEqual(predicate.description, expected, file: file, line: line)
            // The canonical text parses back to the same text.
            let again = try NSPredicate(validatingFormat: expected, argumentArray: [])
            XCTAssertEqual(again.predicateFormat, expected, "round trip", file: file, line: line)
        } catch {
            XCTFail("\(error)", file: file, line: line)
        }
    }

    // MARK: Apple's guide, in its order

    func testGuideDynamicPropertyName() {
        assertFormat("%K like %@", "firstName LIKE \"Adam\"", "firstName", "Adam")
        // Quoted specifiers are literals: no substitution.
        XCTAssertEqual(NSPredicate(format: "%K like '%@'", "firstName", "Adam").predicateFormat, "firstName LIKE \"%@\"")
    }

    func testGuideBasicComparisons() {
        assertFormat("a = 1", "a == 1")
        assertFormat("a == 1", "a == 1")
        assertFormat("a >= 1", "a >= 1")
        assertFormat("a => 1", "a >= 1")
        assertFormat("a <= 1", "a <= 1")
        assertFormat("a =< 1", "a <= 1")
        assertFormat("a > 1", "a > 1")
        assertFormat("a < 1", "a < 1")
        assertFormat("a != 1", "a != 1")
        assertFormat("a <> 1", "a != 1")
    }

    func testGuideBetween() {
        assertFormat("1 BETWEEN { 0 , 33 }", "1 BETWEEN {0, 33}")
        assertFormat("$INPUT BETWEEN { $LOWER, $UPPER }", "$INPUT BETWEEN {$LOWER, $UPPER}")
        let between = NSPredicate(format: "attributeName BETWEEN %@", [1, 10])
        XCTAssertEqual(between.predicateFormat, "attributeName BETWEEN {1, 10}")
        XCTAssertTrue(between.evaluate(with: ["attributeName": 5]))
        XCTAssertTrue(between.evaluate(with: ["attributeName": 10]))
        XCTAssertFalse(between.evaluate(with: ["attributeName": 11]))
        XCTAssertTrue(NSPredicate(format: "1 BETWEEN { 0 , 33 }").evaluate(with: nil))
        XCTAssertTrue(NSPredicate(format: "$INPUT BETWEEN { $LOWER, $UPPER }").evaluate(with: nil, substitutionVariables: ["INPUT": 5, "LOWER": 1, "UPPER": 9]))
    }

    func testGuideBooleanValuePredicates() {
        assertFormat("TRUEPREDICATE", "TRUEPREDICATE")
        assertFormat("FALSEPREDICATE", "FALSEPREDICATE")
        XCTAssertTrue(NSPredicate(format: "TRUEPREDICATE").evaluate(with: nil))
        XCTAssertFalse(NSPredicate(format: "falsepredicate").evaluate(with: nil))
    }

    func testGuideCompoundPredicates() {
        assertFormat("a == 1 AND b == 2", "a == 1 AND b == 2")
        assertFormat("a == 1 && b == 2", "a == 1 AND b == 2")
        assertFormat("a == 1 OR b == 2", "a == 1 OR b == 2")
        assertFormat("a == 1 || b == 2", "a == 1 OR b == 2")
        assertFormat("NOT a == 1", "NOT a == 1")
        assertFormat("! a == 1", "NOT a == 1")
        assertFormat("NOT (a == 1 OR b == 2)", "NOT (a == 1 OR b == 2)")
        assertFormat("!!a == 1", "NOT NOT a == 1")
        assertFormat("(a == 1 OR b == 2) AND c == 3", "(a == 1 OR b == 2) AND c == 3")
        // AND binds tighter than OR; compound operands print in parentheses.
        assertFormat("a == 1 OR b == 2 AND c == 3", "a == 1 OR (b == 2 AND c == 3)")
        // Chains nest to the left, as Apple's parser builds them.
        assertFormat("a == 1 AND b == 2 AND c == 3", "(a == 1 AND b == 2) AND c == 3")
        assertFormat("(lastName like[cd] %@) AND (birthday > %@)", "lastName LIKE[cd] \"Smith\" AND birthday > CAST(0.000000, \"NSDate\")",
                     "Smith", Date(timeIntervalSinceReferenceDate: 0))
    }

    func testGuideStringComparisons() {
        assertFormat("firstName BEGINSWITH[cd] $FIRST_NAME", "firstName BEGINSWITH[cd] $FIRST_NAME")
        assertFormat("name BEGINSWITH 'a'", "name BEGINSWITH \"a\"")
        assertFormat("name CONTAINS[c] 'a'", "name CONTAINS[c] \"a\"")
        assertFormat("name ENDSWITH[d] 'a'", "name ENDSWITH[d] \"a\"")
        assertFormat("name LIKE[n] 'a*b?'", "name LIKE[n] \"a*b?\"")
        assertFormat("name MATCHES 'work.*'", "name MATCHES \"work.*\"")
        assertFormat("name ==[cd] 'a'", "name ==[cd] \"a\"")
        assertFormat("name like[dc] 'a'", "name LIKE[cd] \"a\"")
    }

    func testGuideAggregateOperations() {
        assertFormat("ANY children.age < 18", "ANY children.age < 18")
        assertFormat("SOME children.age < 18", "ANY children.age < 18")
        assertFormat("ALL children.age < 18", "ALL children.age < 18")
        assertFormat("NONE children.age < 18", "NOT ANY children.age < 18")
        assertFormat("name IN { 'Ben', 'Melissa', 'Nick' }", "name IN {\"Ben\", \"Melissa\", \"Nick\"}")
        assertFormat("attribute IN %@", "attribute IN {\"a\", \"b\"}", ["a", "b"])
        assertFormat("array[1] == 2", "array[1] == 2")
        assertFormat("array[FIRST] == 2", "array[FIRST] == 2")
        assertFormat("array[LAST] == 2", "array[LAST] == 2")
        assertFormat("array[SIZE] == 2", "array[SIZE] == 2")
        let object: [String: Any] = ["array": [2, 5, 9]]
        XCTAssertTrue(NSPredicate(format: "array[FIRST] == 2").evaluate(with: object))
        XCTAssertTrue(NSPredicate(format: "array[1] == 5").evaluate(with: object))
        XCTAssertTrue(NSPredicate(format: "array[LAST] == 9").evaluate(with: object))
        XCTAssertTrue(NSPredicate(format: "array[SIZE] == 3").evaluate(with: object))
    }

    func testGuideIdentifiersAndReservedWords() {
        assertFormat("#in == 1", "#in == 1")
        XCTAssertTrue(NSPredicate(format: "#IN == 1").evaluate(with: ["IN": 1]))
        XCTAssertTrue(NSPredicate(format: "#size == 1 AND size == 1").evaluate(with: ["size": 1]))
        XCTAssertEqual(NSPredicate(format: "name == \"\\x41\\u00e9\\101\"").predicateFormat, "name == \"Aé" + "A\"")
    }

    func testGuideLiterals() {
        assertFormat("a == \"abc\"", "a == \"abc\"")
        assertFormat("a == 'abc'", "a == \"abc\"")
        assertFormat("a == \"a'b'c\"", "a == \"a'b'c\"")
        assertFormat("a == 'say \"hi\"'", "a == \"say \\\"hi\\\"\"")
        assertFormat("a == FALSE", "a == 0")
        assertFormat("a == NO", "a == 0")
        assertFormat("a == TRUE", "a == 1")
        assertFormat("a == YES", "a == 1")
        assertFormat("a == NULL", "a == nil")
        assertFormat("a == NIL", "a == nil")
        assertFormat("SELF == 1", "SELF == 1")
        assertFormat("a IN { 'comma', 'separated', 'literal', 'array' }", "a IN {\"comma\", \"separated\", \"literal\", \"array\"}")
        assertFormat("a IN {1, 27, 2.71828, 19.75}", "a IN {1, 27, 2.71828, 19.75}")
        assertFormat("a == 9.2e-5", "a == 9.2e-05")
        assertFormat("a == 0x1F", "a == 31")
        assertFormat("a == 0o17", "a == 15")
        assertFormat("a == 0b101", "a == 5")
        assertFormat("a == -3", "a == -3")
    }

    func testKeywordsAreCaseInsensitive() {
        assertFormat("a == 1 and b == 2 or not c beginswith 'x'", "(a == 1 AND b == 2) OR (NOT c BEGINSWITH \"x\")")
        assertFormat("any tags in {'x'}", "ANY tags IN {\"x\"}")
        assertFormat("a == nil", "a == nil")
        assertFormat("a == Yes", "a == 1")
    }

    // MARK: Printing as Foundation prints

    func testCanonicalFormsOfSubstitutedValues() {
        let date = Date(timeIntervalSinceReferenceDate: 585_000_000.5)
        XCTAssertEqual(NSPredicate(format: "name == %@", "x").predicateFormat, "name == \"x\"")
        XCTAssertEqual(NSPredicate(format: "rating > %d", 3).predicateFormat, "rating > 3")
        XCTAssertEqual(NSPredicate(format: "rating > %@", 3.5).predicateFormat, "rating > 3.5")
        XCTAssertEqual(NSPredicate(format: "isFavorite == %@", true).predicateFormat, "isFavorite == 1")
        XCTAssertEqual(NSPredicate(format: "ANY hikes.date > %@", date).predicateFormat, "ANY hikes.date > CAST(585000000.500000, \"NSDate\")")
        XCTAssertEqual(NSPredicate(format: "name == %@", nil).predicateFormat, "name == nil")
        XCTAssertEqual(NSPredicate(format: "name == %@", NSNull()).predicateFormat, "name == nil")
        XCTAssertEqual(NSPredicate(format: "%K == %@", "trail.region.name", "Alps").predicateFormat, "trail.region.name == \"Alps\"")
        let id = UUID(uuidString: "800C3526-E83A-44AC-B718-D36934708921")!
        XCTAssertEqual(NSPredicate(format: "id == %@", id).predicateFormat, "id == 800C3526-E83A-44AC-B718-D36934708921")
        XCTAssertEqual(NSPredicate(format: "price == %@", Decimal(string: "12.50")!).predicateFormat, "price == 12.5")
        XCTAssertEqual(NSPredicate(format: "n == %d AND m == %ld AND o == %lld AND p == %u AND q == %lu AND r == %i AND s == %f AND t == %lf",
                                   Int16(1), Int32(2), Int64(3), UInt8(4), UInt(5), 6, Float(7.5), 8.25).predicateFormat,
                       "((((((n == 1 AND m == 2) AND o == 3) AND p == 4) AND q == 5) AND r == 6) AND s == 7.5) AND t == 8.25")
        XCTAssertEqual(NSPredicate(format: "name LIKE '100%%'").predicateFormat, "name LIKE \"100%%\"")
        XCTAssertEqual(NSPredicate(format: "name == %%").predicateFormat, "name == \"%\"")
    }

    func testSubqueryAndCollectionOperatorsPrint() {
        assertFormat("SUBQUERY(hikes, $h, $h.rating > 3).@count > 0", "SUBQUERY(hikes, $h, $h.rating > 3).@count > 0")
        assertFormat("subquery(hikes, $h, $h.rating > 3 AND $h.distance < 2).@count == 1", "SUBQUERY(hikes, $h, $h.rating > 3 AND $h.distance < 2).@count == 1")
        assertFormat("hikes.@count > 2", "hikes.@count > 2")
        assertFormat("hikes.@avg.rating >= 3", "hikes.@avg.rating >= 3")
        assertFormat("@sum.hikes.rating > 1", "@sum.hikes.rating > 1")
        assertFormat("hikes.@max.date > hikes.@min.date", "hikes.@max.date > hikes.@min.date")
    }

    func testExpressionsPrint() {
        assertFormat("a + b * 2 > 3", "a + (b * 2) > 3")
        assertFormat("(a + b) * 2 > 3", "(a + b) * 2 > 3")
        assertFormat("a - (b - c) == 0", "a - (b - c) == 0")
        assertFormat("2 ** 3 ** 2 == 512", "2 ** (3 ** 2) == 512")
        assertFormat("-x == 1", "0 - x == 1")
        assertFormat("sqrt(16) == 4", "sqrt:(16) == 4")
        assertFormat("sum:(hikes.rating) > 4", "sum:(hikes.rating) > 4")
        assertFormat("created < now()", "created < now()")
        assertFormat("lowercase(name) == 'x'", "lowercase:(name) == \"x\"")
        assertFormat("add:to:(1, 2) == 3", "1 + 2 == 3")
        assertFormat("FUNCTION(name, 'uppercaseString') == 'X'", "FUNCTION(name, \"uppercaseString\") == \"X\"")
        assertFormat("TERNARY(rating > 3, 'good', 'bad') == 'good'", "TERNARY(rating > 3, \"good\", \"bad\") == \"good\"")
        assertFormat("CAST(created, 'NSNumber') > 0", "CAST(created, \"NSNumber\") > 0")
        assertFormat("created > CAST(585000000.0, 'NSDate')", "created > CAST(585000000.000000, \"NSDate\")")
        assertFormat("tags UNION {'a'} CONTAINS 'a'", "tags UNION {\"a\"} CONTAINS \"a\"")
        assertFormat("ANYKEY == 1", "ANYKEY == 1")
    }

    /// Found by fuzzing (CI, 24 November 2026): printed forms that read back as something
    /// else. A postfix `.key` or `[index]` keeps the parentheses around what it applies to,
    /// a key path given as a string prints after a dot only when its keys read back as keys,
    /// and a set operation nested on the right or inside arithmetic stays grouped.
    func testPrintedFormsKeepTheirGrouping() {
        assertFormat("(-5)[0] == 1", "(-5)[0] == 1")
        assertFormat("(-5).a == 1", "(-5).a == 1")
        assertFormat("(1 + 2)[0] == 1", "(1 + 2)[0] == 1")
        assertFormat("(a + b).c == 1", "(a + b).c == 1")
        assertFormat("({1} UNION {2})[0] == 1", "({1} UNION {2})[0] == 1")
        assertFormat("(a UNION b) + 1 == 1", "(a UNION b) + 1 == 1")
        assertFormat("a UNION (b MINUS c) CONTAINS 1", "a UNION (b MINUS c) CONTAINS 1")
        assertFormat("a UNION b MINUS c CONTAINS 1", "a UNION b MINUS c CONTAINS 1")
        assertFormat("FUNCTION(x, 'valueForKeyPath:', 'AND') == 1", "x.#AND == 1")
        assertFormat("FUNCTION({1}, 'valueForKeyPath:', 'self.@count') == 1", "{1}.#self.@count == 1")
        assertFormat("FUNCTION(x, 'valueForKeyPath:', 'a b') == 1", "FUNCTION(x, \"valueForKeyPath:\", \"a b\") == 1")
        assertFormat("FUNCTION(x, 'valueForKeyPath:', '') == 1", "FUNCTION(x, \"valueForKeyPath:\", \"\") == 1")
        // Found in review: `SELF.k` reads back as the key path `k`; `-0.0` prints as `0`.
        assertFormat("FUNCTION(SELF, 'valueForKeyPath:', 'k') == 1", "k == 1")
        assertFormat("(-0.0)[1] == 1", "0[1] == 1")
        assertFormat("(-1.5).a == 1", "(-1.5).a == 1")
        // Each level of a chain of indexes is printed once (printing the base twice per
        // level made 40 levels take 2^40 steps; found by fuzzing).
        let chain = "a" + String(repeating: "[FIRST]", count: 40) + " == 1"
        assertFormat(chain, chain)
    }

    func testParsedClassesAndTree() throws {
        let comparison = try XCTUnwrap(NSPredicate(format: "ANY hikes.rating >=[c] 3") as? NSComparisonPredicate)
        XCTAssertEqual(comparison.comparisonPredicateModifier, .any)
        XCTAssertEqual(comparison.predicateOperatorType, .greaterThanOrEqualTo)
        XCTAssertEqual(comparison.options, .caseInsensitive)
        XCTAssertEqual(comparison.leftExpression.expressionType, .keyPath)
        XCTAssertEqual(comparison.leftExpression.keyPath, "hikes.rating")
        XCTAssertEqual(comparison.rightExpression.expressionType, .constantValue)
        XCTAssertEqual(comparison.rightExpression.constantValue as? Int, 3)

        let compound = try XCTUnwrap(NSPredicate(format: "a == 1 OR NOT b == 2") as? NSCompoundPredicate)
        XCTAssertEqual(compound.compoundPredicateType, .or)
        XCTAssertEqual(compound.subpredicates.count, 2)
        XCTAssertEqual((compound.subpredicates[1] as? NSCompoundPredicate)?.compoundPredicateType, .not)

        let subquery = try XCTUnwrap(NSPredicate(format: "SUBQUERY(hikes, $h, $h.rating > 3).@count > 0") as? NSComparisonPredicate)
        let left = subquery.leftExpression
        XCTAssertEqual(left.expressionType, .function)
        XCTAssertEqual(left.function, "valueForKeyPath:")
        XCTAssertEqual(left.operand?.expressionType, .subquery)
        XCTAssertEqual(left.operand?.variable, "h")
        XCTAssertEqual(left.keyPath, "@count")

        let sum = NSExpression(format: "sum:(hikes.rating)")
        XCTAssertEqual(sum.expressionType, .function)
        XCTAssertEqual(sum.function, "sum:")
        XCTAssertEqual(sum.arguments?.first?.keyPath, "hikes.rating")

        // Apple's raw values, which stores and archives rely on.
        XCTAssertEqual(NSComparisonPredicate.Operator.contains.rawValue, 99)
        XCTAssertEqual(NSComparisonPredicate.Operator.between.rawValue, 100)
        XCTAssertEqual(NSComparisonPredicate.Operator.in.rawValue, 10)
        XCTAssertEqual(NSComparisonPredicate.Operator.customSelector.rawValue, 11)
        XCTAssertEqual(NSComparisonPredicate.Modifier.any.rawValue, 2)
        XCTAssertEqual(NSComparisonPredicate.Options.normalized.rawValue, 4)
        XCTAssertEqual(NSCompoundPredicate.LogicalType.or.rawValue, 2)
        XCTAssertEqual(NSExpression.ExpressionType.subquery.rawValue, 13)
        XCTAssertEqual(NSExpression.ExpressionType.conditional.rawValue, 20)
    }

    func testPercentKSubstitutesAKeyPathNeverAString() throws {
        let predicate = try XCTUnwrap(NSPredicate(format: "%K == %@", "name", "name") as? NSComparisonPredicate)
        XCTAssertEqual(predicate.leftExpression.expressionType, .keyPath)
        XCTAssertEqual(predicate.rightExpression.expressionType, .constantValue)
        XCTAssertEqual(predicate.predicateFormat, "name == \"name\"")
        XCTAssertEqual(NSPredicate(format: "%K.%K == 1", "trail", "rating").predicateFormat, "trail.rating == 1")
    }

    func testArgumentsOfEveryKind() {
        let trail = PTrail(name: "Ridge")
        let objects: [Any?] = [
            "s", 1, Int8(1), Int16(1), Int32(1), Int64(1), UInt(1), UInt8(1), UInt16(1), UInt32(1), UInt64(1),
            1.5, Float(1.5), true, Date(), Data([1, 2]), UUID(), URL(string: "https://example.com")!, Decimal(1),
            trail, [1, 2], Set(["a"]), ["k": 1], nil, NSNull(), NSNumber(value: 3), NSString(string: "ns"),
        ]
        for object in objects {
            XCTAssertNoThrow(try NSPredicate(validatingFormat: "x == %@", object), "\(String(describing: object))")
        }
        XCTAssertTrue(NSPredicate(format: "SELF == %@", trail).evaluate(with: trail))
        XCTAssertFalse(NSPredicate(format: "SELF == %@", trail).evaluate(with: PTrail(name: "Ridge")))
        XCTAssertEqual(NSPredicate(format: "SELF IN %@", [trail]).evaluate(with: trail), true)
        // An NSExpression argument stands for itself.
        XCTAssertEqual(NSPredicate(format: "%@ == 1", NSExpression(forKeyPath: "rating")).predicateFormat, "rating == 1")
    }

    func testWithSubstitutionVariables() {
        let template = NSPredicate(format: "name BEGINSWITH $letter AND rating > $minimum")
        let filled = template.withSubstitutionVariables(["letter": "R", "minimum": 3])
        XCTAssertEqual(filled.predicateFormat, "name BEGINSWITH \"R\" AND rating > 3")
        XCTAssertTrue(filled.evaluate(with: ["name": "Ridge", "rating": 4]))
        XCTAssertTrue(template.evaluate(with: ["name": "Ridge", "rating": 4], substitutionVariables: ["letter": "R", "minimum": 3]))
        XCTAssertFalse(template.evaluate(with: ["name": "Ridge", "rating": 2], substitutionVariables: ["letter": "R", "minimum": 3]))
        // A subquery's iterator is not a substitution variable.
        let subquery = NSPredicate(format: "SUBQUERY(hikes, $h, $h.rating > $min).@count > 0").withSubstitutionVariables(["h": 1, "min": 2])
        XCTAssertEqual(subquery.predicateFormat, "SUBQUERY(hikes, $h, $h.rating > 2).@count > 0")
    }

    func testValueAndBlockPredicates() {
        XCTAssertEqual(NSPredicate(value: true).predicateFormat, "TRUEPREDICATE")
        XCTAssertEqual(NSPredicate(value: false).description, "FALSEPREDICATE")
        let block = NSPredicate { object, bindings in (object as? Int) == (bindings?["n"] as? Int) }
        XCTAssertTrue(block.predicateFormat.hasPrefix("BLOCKPREDICATE(0x"))
        XCTAssertTrue(block.evaluate(with: 3, substitutionVariables: ["n": 3]))
        XCTAssertFalse(block.evaluate(with: 3))
        XCTAssertEqual(NSCompoundPredicate(andPredicateWithSubpredicates: []).predicateFormat, "TRUEPREDICATE")
        XCTAssertEqual(NSCompoundPredicate(orPredicateWithSubpredicates: []).predicateFormat, "FALSEPREDICATE")
        XCTAssertTrue(NSCompoundPredicate(andPredicateWithSubpredicates: []).evaluate(with: nil))
        XCTAssertFalse(NSCompoundPredicate(orPredicateWithSubpredicates: []).evaluate(with: nil))
    }

    func testBuiltTreesPrint() {
        let predicate = NSComparisonPredicate(
            leftExpression: NSExpression(forKeyPath: "name"), rightExpression: NSExpression(forConstantValue: "a"),
            modifier: .direct, type: .beginsWith, options: [.caseInsensitive, .diacriticInsensitive])
        XCTAssertEqual(predicate.predicateFormat, "name BEGINSWITH[cd] \"a\"")
        let flat = NSCompoundPredicate(andPredicateWithSubpredicates: [
            NSPredicate(format: "a == 1"), NSPredicate(format: "b == 2"), NSPredicate(format: "c == 3 OR d == 4"),
        ])
        XCTAssertEqual(flat.predicateFormat, "a == 1 AND b == 2 AND (c == 3 OR d == 4)")
        XCTAssertEqual(NSCompoundPredicate(notPredicateWithSubpredicate: flat).predicateFormat, "NOT (a == 1 AND b == 2 AND (c == 3 OR d == 4))")
    }
}
