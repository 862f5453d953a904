import XCTest
@testable import OpenCoreData

/// The one builder of `?, ?, …` lists writes exactly what joining `"?"`s would.
final class SQLPlaceholdersTests: XCTestCase {
    func testEveryCountGivesTheJoinedList() {
        XCTAssertEqual(SQLPlaceholders.list(0), "")
        XCTAssertEqual(SQLPlaceholders.list(1), "?")
        XCTAssertEqual(SQLPlaceholders.list(3), "?, ?, ?")
        for count in 0...600 {
            XCTAssertEqual(SQLPlaceholders.list(count), Array(repeating: "?", count: count).joined(separator: ", "), "count \(count)")
        }
    }
}
