import XCTest
final class WorkbookKitTestsPlaceholder: XCTestCase { func testNothingYet() {} }
