import XCTest
final class OpenCoreDataMacrosTestsPlaceholder: XCTestCase { func testNothingYet() {} }
