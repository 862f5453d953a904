import XCTest
final class ChapterTestsPlaceholder: XCTestCase { func testNothingYet() {} }
