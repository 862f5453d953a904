import Foundation
import XCTest

@testable import OpenCoreData

/// `MATCHES` with a pattern that is not a regular expression: Core Data's store writes it
/// in SQL like any other (`NSCoreDataMatches( t0.ZPAYLOAD, ?, 1)`), and the function
/// raises Foundation's exception when it first matches a row's value, so a fetch that
/// tests no value returns normally and one that tests a value stops the program.
final class InvalidPatternFetchTests: FetchTestCase {
    func testAFetchRaisesWhenTheFirstValueIsMatched() throws {
        // Raising stops the process, as on Apple platforms, so a child process runs it.
        let output = try CrashTests.assertWriterRaises(
            store: directory.appendingPathComponent("Regex.sqlite"), mode: "fetch-invalid-regex", exception: "NSInternalInconsistencyException",
            reason: "Can't do regex matching, reason: Can't open pattern (string abc, pattern (, case 1, canon 0)'")
        XCTAssertEqual(output, "empty store: 0\n")
    }
}
