import Foundation
import XCTest

@testable import OpenCoreData

import class OpenCoreData.NSExpression
import class OpenCoreData.NSPredicate

/// Malformed format strings: each reports Foundation's reason and where the problem is.
final class PredicateErrorTests: XCTestCase {
    private func failure(_ format: String, _ arguments: [Any] = [], file: StaticString = #filePath, line: UInt = #line) -> PredicateFormatError? {
        do {
            let predicate = try NSPredicate(validatingFormat: format, argumentArray: arguments)
            XCTFail("parsed as \(predicate.predicateFormat)", file: file, line: line)
        } catch let error as PredicateFormatError {
            return error
        } catch {
            XCTFail("unexpected error \(error)", file: file, line: line)
        }
        return nil
    }

    func testUnterminatedString() {
        let error = failure("name == 'Ridge")
        XCTAssertEqual(error?.kind, .unterminatedString)
        XCTAssertEqual(error?.position, 8)
        XCTAssertEqual(error?.reason, "Unable to parse the format string \"name == 'Ridge\"")
        XCTAssertEqual(error?.description, "Unable to parse the format string \"name == 'Ridge\" (unterminated string starting with ' at offset 8)")
        XCTAssertEqual(failure("ssid == 'JR's Pad'")?.kind, .unterminatedString)
    }

    func testUnknownOperator() {
        let error = failure("name === 'x'")
        XCTAssertEqual(error?.position, 7)
        let word = failure("name CONTAIN 'x'")
        XCTAssertEqual(word?.kind, .expectedOperator)
        XCTAssertEqual(word?.position, 5)
        XCTAssertEqual(failure("name ~ 'x'")?.kind, .invalidCharacter)
        XCTAssertEqual(failure("name ~ 'x'")?.position, 5)
        XCTAssertEqual(failure("name BEGINSWITH[q] 'x'")?.kind, .unknownOptions)
        XCTAssertEqual(failure("type UTI-CONFORMS-TO 'public.image'")?.kind, .unsupportedOperator)
    }

    func testMissingOperand() {
        let error = failure("name == ")
        XCTAssertEqual(error?.kind, .expectedExpression)
        XCTAssertEqual(error?.position, 8)
        XCTAssertEqual(failure("== 3")?.position, 0)
        XCTAssertEqual(failure("a == 1 AND")?.position, 10)
        XCTAssertEqual(failure("")?.kind, .expectedExpression)
        XCTAssertEqual(failure("age")?.kind, .expectedOperator)
        XCTAssertEqual(failure("age")?.position, 3)
    }

    func testUnbalancedParentheses() {
        let open = failure("(a == 1 AND b == 2")
        XCTAssertEqual(open?.kind, .expectedClosingParenthesis)
        XCTAssertEqual(open?.position, 18)
        let close = failure("a == 1)")
        XCTAssertEqual(close?.kind, .unexpectedToken)
        XCTAssertEqual(close?.position, 6)
        XCTAssertEqual(failure("name IN {1, 2")?.kind, .expectedClosingBrace)
        XCTAssertEqual(failure("tags[1 == 2")?.kind, .expectedClosingBracket)
        XCTAssertEqual(failure("SUBQUERY(hikes, $h, $h.rating > 3.@count > 0")?.kind, .expectedClosingParenthesis)
        XCTAssertEqual(failure("SUBQUERY(hikes, $h, $h.rating > 3 .@count > 0")?.kind, .expectedClosingParenthesis)
    }

    func testTooFewArguments() {
        let error = failure("name == %@ AND rating > %d", ["x"])
        XCTAssertEqual(error?.kind, .insufficientArguments)
        XCTAssertEqual(error?.position, 24)
        XCTAssertEqual(error?.reason, "Insufficient arguments for conversion characters specified in format string.")
    }

    func testPercentKNeedsAString() {
        let error = failure("%K == 1", [42])
        XCTAssertEqual(error?.kind, .keyPathArgumentNotString)
        XCTAssertEqual(error?.position, 0)
        XCTAssertEqual(failure("%K == 1", [NSNull()])?.kind, .keyPathArgumentNotString)
        XCTAssertEqual(failure("a.%K == 1", [3.5])?.position, 2)
    }

    func testUnrecognizedSpecifierAndOthers() {
        let error = failure("a == %y", [1])
        XCTAssertEqual(error?.kind, .unrecognizedConversionSpecifier)
        XCTAssertEqual(error?.reason, "Unrecognized conversion specifier 'y' in format string.")
        XCTAssertEqual(failure("a == 3abc")?.kind, .invalidNumber)
        XCTAssertEqual(failure("foo(1) == 2")?.kind, .unknownFunction)
        XCTAssertEqual(failure("sqrt(1, 2) == 2")?.kind, .unknownFunction)
        XCTAssertEqual(failure("AND == 1")?.kind, .expectedExpression)
        XCTAssertEqual(failure("$ == 1")?.kind, .invalidCharacter)
        XCTAssertEqual(failure("a == 1 b == 2")?.position, 7)
    }

    func testDeepNestingIsAnErrorNotACrash() {
        let deep = String(repeating: "(", count: 5000) + "a == 1" + String(repeating: ")", count: 5000)
        XCTAssertNotNil(failure(deep))
        let shallow = String(repeating: "(", count: 50) + "a == 1" + String(repeating: ")", count: 50)
        XCTAssertEqual(try NSPredicate(validatingFormat: shallow).predicateFormat, "a == 1")
    }

    func testErrorBridgesToCocoaFormattingError() {
        let error = failure("name == ")! as NSError
        XCTAssertEqual(error.domain, NSCocoaErrorDomain)
        XCTAssertEqual(error.code, 2048)
        XCTAssertTrue(error.localizedDescription.hasPrefix("Unable to parse the format string \"name == \""))
    }

    func testExpressionErrors() {
        XCTAssertThrowsError(try NSExpression(validatingFormat: "1 +")) { error in
            XCTAssertEqual((error as? PredicateFormatError)?.position, 3)
        }
        XCTAssertThrowsError(try NSExpression(validatingFormat: "a == 1"))
    }
}

/// Inputs the fuzzer (scripts/fuzz-predicates.sh) found, kept as regressions.
final class PredicateFuzzRegressionTests: XCTestCase {
    func testEscapedAtWithoutName() {
        XCTAssertThrowsError(try NSPredicate(validatingFormat: "!K= #@"))
    }

    func testNestedTernaryAndParenthesesParseQuickly() {
        let text = String(repeating: "(TERNARY(", count: 40) + "a == 1"
        let start = Date()
        XCTAssertThrowsError(try NSPredicate(validatingFormat: text))
        XCTAssertLessThan(Date().timeIntervalSince(start), 2)
    }

    func testALiteralTooLargeForADoubleIsAnError() throws {
        // Found by fuzzing: 5e34444444444444 overflowed to infinity, which prints as `inf`
        // and reads back as the key path `inf`. The literal is refused where it stands.
        func formatError(_ text: String) -> PredicateFormatError? {
            do {
                _ = try NSPredicate(validatingFormat: text)
            } catch {
                return error as? PredicateFormatError
            }
            return nil
        }
        let error = formatError("hOp--5e34444444444444=44444444444")
        XCTAssertEqual(error?.kind, .invalidNumber)
        XCTAssertEqual(error?.position, 5)
        XCTAssertEqual(error?.detail, "number 5e34444444444444 is too large for a double")
        XCTAssertEqual(formatError("2-3=-8e8888")?.position, 5)
        XCTAssertEqual(try NSPredicate(validatingFormat: "x == -2.5e1").predicateFormat, "x == -25")
        XCTAssertEqual(try NSPredicate(validatingFormat: "x == 1.7e308").predicateFormat, "x == 1.7e+308")
    }

    func testManyNotsPrintWithoutParentheses() throws {
        let text = String(repeating: "!", count: 130) + "q < n"
        let predicate = try NSPredicate(validatingFormat: text)
        XCTAssertFalse(predicate.predicateFormat.contains("("))
        XCTAssertNoThrow(try NSPredicate(validatingFormat: predicate.predicateFormat))
    }
}
