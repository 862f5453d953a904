import XCTest
final class OpenCoreDataTestsPlaceholder: XCTestCase { func testNothingYet() {} }
