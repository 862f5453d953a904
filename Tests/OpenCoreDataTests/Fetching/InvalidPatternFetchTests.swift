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
        let process = Process()
        process.executableURL = try CrashTests.writerExecutable()
        process.arguments = [directory.appendingPathComponent("Regex.sqlite").path, "fetch-invalid-regex"]
        process.environment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
        let errors = Pipe()
        let output = Pipe()
        process.standardError = errors
        process.standardOutput = output
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(printed, "empty store: 0\n")
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)
        XCTAssertEqual(process.terminationStatus, SIGABRT)
        XCTAssertTrue(text.contains("*** Terminating app due to uncaught exception 'NSInternalInconsistencyException', "
            + "reason: 'Can't do regex matching, reason: Can't open pattern (string abc, pattern (, case 1, canon 0)'"), text)
    }
}
