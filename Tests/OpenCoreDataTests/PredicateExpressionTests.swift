import Foundation
import XCTest

@testable import OpenCoreData

import class OpenCoreData.NSExpression
import class OpenCoreData.NSExpressionDescription
import class OpenCoreData.NSPredicate

/// NSExpression: kinds, evaluation and Core Data's functions.
final class PredicateExpressionTests: XCTestCase {
    private func value(_ format: String, _ object: Any? = nil, _ arguments: Any?...) -> Any? {
        NSExpression(format: format, argumentArray: arguments.map { $0 as Any }).expressionValue(with: object, context: nil)
    }

    func testKindsAndInitializers() {
        XCTAssertEqual(NSExpression(forConstantValue: 3).expressionType, .constantValue)
        XCTAssertEqual(NSExpression(forConstantValue: 3).description, "3")
        XCTAssertEqual(NSExpression(forConstantValue: "x").description, "\"x\"")
        XCTAssertEqual(NSExpression(forConstantValue: nil).description, "nil")
        XCTAssertEqual(NSExpression.expressionForEvaluatedObject().description, "SELF")
        XCTAssertEqual(NSExpression(forVariable: "x").description, "$x")
        XCTAssertEqual(NSExpression(forKeyPath: "trail.name").description, "trail.name")
        XCTAssertEqual(NSExpression(forKeyPath: "trail.name").expressionType, .keyPath)
        XCTAssertEqual(NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "distance")]).description, "sum:(distance)")
        XCTAssertEqual(NSExpression(forFunction: "now", arguments: []).description, "now()")
        XCTAssertEqual(NSExpression(forFunction: "add:to:", arguments: [NSExpression(forConstantValue: 1), NSExpression(forConstantValue: 2)]).description, "1 + 2")
        XCTAssertEqual(NSExpression(forAggregate: [NSExpression(forConstantValue: 1), NSExpression(forConstantValue: "a")]).description, "{1, \"a\"}")
        let subquery = NSExpression(forSubquery: NSExpression(forKeyPath: "hikes"), usingIteratorVariable: "h", predicate: NSPredicate(format: "$h.rating > 3"))
        XCTAssertEqual(subquery.description, "SUBQUERY(hikes, $h, $h.rating > 3)")
        XCTAssertEqual(subquery.expressionType, .subquery)
        XCTAssertEqual(NSExpression(forUnionSet: NSExpression(forKeyPath: "a"), with: NSExpression(forKeyPath: "b")).expressionType, .unionSet)
        let ternary = NSExpression(forConditional: NSPredicate(format: "a > 1"), trueExpression: NSExpression(forConstantValue: "big"), falseExpression: NSExpression(forConstantValue: "small"))
        XCTAssertEqual(ternary.expressionValue(with: ["a": 2], context: nil) as? String, "big")
        XCTAssertEqual(ternary.expressionType, .conditional)
        let block = NSExpression(block: { object, arguments, _ in (arguments.first as? Int ?? 0) * 2 }, arguments: [NSExpression(forConstantValue: 21)])
        XCTAssertEqual(block.expressionValue(with: nil, context: nil) as? Int, 42)
        struct Trail { var name = "Ridge" }
        XCTAssertEqual(NSExpression(forKeyPath: \Trail.name).keyPath, "name")
    }

    func testArithmetic() {
        XCTAssertEqual(value("4 + 5 - 2**3") as? Double, 1)  // NSHipster's example
        XCTAssertEqual(value("1 + 2") as? Int, 3)
        XCTAssertEqual(value("7 / 2") as? Int, 3)  // integer division, as Foundation's
        XCTAssertEqual(value("7.0 / 2") as? Double, 3.5)
        XCTAssertEqual(value("7 * 6") as? Int, 42)
        XCTAssertEqual(value("-(3)") as? Int, -3)
        XCTAssertEqual(value("%@ + %@", nil, 1, 2.5) as? Double, 3.5)
        XCTAssertEqual(value("(%@ + %@)**2", nil, 4, 4) as? Double, 64)
        XCTAssertEqual(value("a + 1", ["a": Int16(4)]) as? Int, 5)
        XCTAssertEqual(value("%@ + 60", nil, Date(timeIntervalSinceReferenceDate: 0)) as? Date, Date(timeIntervalSinceReferenceDate: 60))
    }

    func testStatistics() {
        let numbers = [1, 2, 3, 4, 4, 5, 9, 11]
        func call(_ name: String, _ argument: Any = numbers) -> Any? {
            NSExpression(forFunction: name, arguments: [NSExpression(forConstantValue: argument)]).expressionValue(with: nil, context: nil)
        }
        XCTAssertEqual(call("sum:") as? Int, 39)
        XCTAssertEqual(call("count:") as? Int, 8)
        XCTAssertEqual(call("min:") as? Int, 1)
        XCTAssertEqual(call("max:") as? Int, 11)
        XCTAssertEqual(call("average:") as? Double, 4.875)
        XCTAssertEqual(call("median:") as? Double, 4)
        XCTAssertEqual(call("mode:") as? [Int], [4])
        XCTAssertEqual(try XCTUnwrap(call("stddev:") as? Double), 3.21859, accuracy: 0.00001)
        XCTAssertEqual(try XCTUnwrap(call("stddev:", [1, 2, 3, 4, 5, 6, 7, 8]) as? Double), 2.29128, accuracy: 0.00001)
        XCTAssertEqual(call("sum:", [Decimal(string: "0.1")!, Decimal(string: "0.2")!]) as? Decimal, Decimal(string: "0.3"))
        XCTAssertEqual(value("sum:(hikes.distance)", ["hikes": [["distance": 1.5], ["distance": 2.5]]]) as? Double, 4)
        XCTAssertEqual(value("count:(hikes)", ["hikes": [1, 2, 3]]) as? Int, 3)
        XCTAssertEqual(value("max:({1, 7, 3})") as? Int, 7)
        XCTAssertEqual(value("average:({1, 2})") as? Double, 1.5)
    }

    func testMathStringsBitsAndTime() {
        XCTAssertEqual(value("sqrt(16)") as? Double, 4)
        XCTAssertEqual(value("sqrt:(16)") as? Double, 4)
        XCTAssertEqual(value("log(1000)") as? Double, 3)
        XCTAssertEqual(try XCTUnwrap(value("ln(%@)", nil, M_E) as? Double), 1, accuracy: 1e-12)
        XCTAssertEqual(value("exp(0)") as? Double, 1)
        XCTAssertEqual(value("raise:toPower:(2, 10)") as? Double, 1024)
        XCTAssertEqual(value("floor(2.7)") as? Double, 2)
        XCTAssertEqual(value("ceiling(2.1)") as? Double, 3)
        XCTAssertEqual(value("trunc(-2.7)") as? Double, -2)
        XCTAssertEqual(value("abs(-4)") as? Int, 4)
        XCTAssertEqual(value("abs(-4.5)") as? Double, 4.5)
        XCTAssertEqual(value("modulus:by:(10, 3)") as? Int, 1)
        XCTAssertEqual(value("from:subtract:(10, 3)") as? Int, 7)
        XCTAssertEqual(value("multiply:by:(10, 3)") as? Int, 30)
        XCTAssertEqual(value("divide:by:(10, 4)") as? Int, 2)
        XCTAssertEqual(value("divide:by:(10, 4.0)") as? Double, 2.5)
        XCTAssertEqual(value("uppercase('straße')") as? String, "STRASSE")
        XCTAssertEqual(value("lowercase(name)", ["name": "ÉCLAIR"]) as? String, "éclair")
        XCTAssertEqual(value("canonical:(name)", ["name": "Éclair"]) as? String, "eclair")
        XCTAssertEqual(value("bitwiseAnd:with:(12, 10)") as? Int, 8)
        XCTAssertEqual(value("bitwiseOr:with:(12, 10)") as? Int, 14)
        XCTAssertEqual(value("bitwiseXor:with:(12, 10)") as? Int, 6)
        XCTAssertEqual(value("leftshift:by:(1, 4)") as? Int, 16)
        XCTAssertEqual(value("rightshift:by:(16, 2)") as? Int, 4)
        XCTAssertEqual(value("onesComplement:(0)") as? Int, -1)
        XCTAssertEqual(value("noindex:(5)") as? Int, 5)
        let random = try? XCTUnwrap(value("random()") as? Double)
        XCTAssertTrue((0..<1).contains(random ?? -1))
        let picked = value("random:({1, 2, 3})") as? Int
        XCTAssertTrue([1, 2, 3].contains(picked ?? 0))
        XCTAssertTrue((0..<5).contains(value("randomn:(5)") as? Int ?? -1))
        let now = try? XCTUnwrap(value("now()") as? Date)
        XCTAssertLessThan(abs(now?.timeIntervalSinceNow ?? 100), 5)
        XCTAssertEqual(value("CAST('12', 'NSNumber')") as? Int, 12)
        XCTAssertEqual(value("CAST(0, 'NSDate')") as? Date, Date(timeIntervalSinceReferenceDate: 0))
        XCTAssertEqual(value("FUNCTION('abc', 'uppercaseString')") as? String, "ABC")
    }

    func testKeyPathsVariablesAndIndexing() {
        let object: [String: Any] = ["trail": ["name": "Ridge", "hikes": [1, 2, 3]]]
        XCTAssertEqual(value("trail.name", object) as? String, "Ridge")
        XCTAssertEqual(value("trail.hikes[LAST]", object) as? Int, 3)
        XCTAssertEqual(value("trail.hikes[SIZE]", object) as? Int, 3)
        XCTAssertEqual(value("trail.hikes.@count", object) as? Int, 3)
        XCTAssertEqual(value("trail['name']", object) as? String, "Ridge")
        XCTAssertEqual(value("SELF", 7) as? Int, 7)
        let context = NSMutableDictionary()
        context["limit"] = 10
        XCTAssertEqual(NSExpression(format: "$limit * 2").expressionValue(with: nil, context: context) as? Int, 20)
        XCTAssertEqual(value("{1, 2} UNION {2, 3}") as? [Int], [1, 2, 3])
        XCTAssertEqual(value("{1, 2} INTERSECT {2, 3}") as? [Int], [2])
        XCTAssertEqual(value("{1, 2} MINUS {2, 3}") as? [Int], [1])
        XCTAssertEqual(value("SUBQUERY(SELF, $x, $x > 1)", [1, 2, 3]) as? [Int], [2, 3])
    }

    func testExpressionDescription() {
        let total = NSExpressionDescription()
        total.name = "totalDistance"
        total.expression = NSExpression(format: "sum:(distance)")
        total.expressionResultType = .doubleAttributeType
        XCTAssertEqual(total.expression?.description, "sum:(distance)")
        XCTAssertEqual(total.expressionResultType, .doubleAttributeType)
        XCTAssertTrue(total.description.contains("expression sum:(distance)"))
    }
}
