import Foundation
import XCTest

@testable import OpenCoreData

final class FormattingTests: XCTestCase {
    func testBowTieBodyMatchesCoreDataOutput() throws {
        var photo = Data([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52])
        photo += Data(repeating: 0x11, count: 26)
        photo += Data([0xae, 0xce, 0x1c, 0xe9, 0x00, 0x00, 0x00, 0x78])
        XCTAssertEqual(photo.count, 50)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let worn = try XCTUnwrap(calendar.date(from: DateComponents(year: 2019, month: 7, day: 28, hour: 4, minute: 8, second: 2)))
        let body = cocoaPropertyListBody([
            ("url", URL(string: "https://en.wikipedia.org/wiki/Bow_tie")), ("rating", 6.0), ("name", "Red Bow Tie"),
            ("id", UUID(uuidString: "800C3526-E83A-44AC-B718-D36934708921")), ("isFavorite", false), ("lastWorn", worn),
            ("photoData", photo), ("searchKey", "R"), ("timesWorn", Int32(28)), ("connection", nil as String?),
        ])
        XCTAssertEqual(body, """
            {
                connection = nil;
                id = "800C3526-E83A-44AC-B718-D36934708921";
                isFavorite = 0;
                lastWorn = "2019-07-28 04:08:02 +0000";
                name = "Red Bow Tie";
                photoData = "{length = 50, bytes = 0x89504e47 0d0a1a0a 0000000d 49484452 ... aece1ce9 00000078 }";
                rating = 6;
                searchKey = R;
                timesWorn = 28;
                url = "https://en.wikipedia.org/wiki/Bow_tie";
            }
            """)
    }

    func testNumbers() {
        XCTAssertEqual(cocoaDescription(6.0), "6")
        XCTAssertEqual(cocoaDescription(3601.547034978867), "\"3601.547034978867\"")
        XCTAssertEqual(cocoaDescription(-5), "\"-5\"")
        XCTAssertEqual(cocoaDescription(true), "1")
        XCTAssertEqual(cocoaDescription(Int16(7)), "7")
        XCTAssertEqual(cocoaDescription(Float(0.5)), "\"0.5\"")
        XCTAssertEqual(cocoaDescription(NSNumber(value: true)), "1")
        XCTAssertEqual(cocoaDescription(NSNumber(value: 2.0)), "2")
        XCTAssertEqual(cocoaDescription(Decimal(string: "12.5")), "\"12.5\"")
        XCTAssertEqual(cocoaDescription(Decimal(string: "1234567890.123456789")), "\"1234567890.123456789\"")
        XCTAssertEqual(cocoaDescription(28), "28")
        XCTAssertEqual(cocoaDescription(UInt64.max), "18446744073709551615")
        XCTAssertEqual(cocoaPlainDescription(6.0), "6")
        XCTAssertEqual(cocoaPlainDescription(-2.25), "-2.25")
    }

    func testStringsQuoteOnlyWhenNeeded() {
        XCTAssertEqual(cocoaDescription("R"), "R")
        XCTAssertEqual(cocoaDescription("snake_case42"), "snake_case42")
        XCTAssertEqual(cocoaDescription(""), "\"\"")
        XCTAssertEqual(cocoaDescription("a b"), "\"a b\"")
        XCTAssertEqual(cocoaDescription("say \"hi\"\n"), "\"say \\\"hi\\\"\\n\"")
        XCTAssertEqual(cocoaDescription("café"), "\"caf\\U00e9\"")
        XCTAssertEqual(cocoaPlainDescription("a b"), "a b")
    }

    func testNilNullDataDatesUUIDsAndURLs() {
        XCTAssertEqual(cocoaDescription(nil), "nil")
        XCTAssertEqual(cocoaDescription(Optional<Optional<Int>>.some(nil)), "nil")
        XCTAssertEqual(cocoaDescription(NSNull()), "\"<null>\"")
        XCTAssertEqual(cocoaPlainDescription(Data([1, 2, 0xff])), "{length = 3, bytes = 0x0102ff}")
        XCTAssertEqual(cocoaPlainDescription(Date(timeIntervalSinceReferenceDate: 0)), "2001-01-01 00:00:00 +0000")
        XCTAssertEqual(cocoaDescription(UUID(uuidString: "00000000-0000-0000-0000-0000000000AB")), "\"00000000-0000-0000-0000-0000000000AB\"")
        XCTAssertEqual(cocoaDescription(URL(string: "file:///tmp/x")), "\"file:///tmp/x\"")
    }

    func testCollectionsNestWithFoundationsIndentation() {
        XCTAssertEqual(cocoaPlainDescription([1, 2]), "(\n    1,\n    2\n)")
        XCTAssertEqual(cocoaPlainDescription([Int]()), "(\n)")
        XCTAssertEqual(cocoaPlainDescription(["b": 1, "a": "x y"]), "{\n    a = \"x y\";\n    b = 1;\n}")
        XCTAssertEqual(cocoaPlainDescription(["k": ["n": 1]]), "{\n    k =     {\n        n = 1;\n    };\n}")
        XCTAssertEqual(cocoaPlainDescription([["n": 1]]), "(\n        {\n        n = 1;\n    }\n)")
        XCTAssertEqual(cocoaPlainDescription(Set(["b", "a"])), "{(\n    a,\n    b\n)}")
        XCTAssertEqual(cocoaPlainDescription(NSArray(array: [NSString(string: "a b")])), "(\n    \"a b\"\n)")
    }
}
