import Foundation
import XCTest
@testable import WorkbookKit

final class ParserTests: XCTestCase {
    func testEveryKindOfBlockIsClassified() throws {
        let parsed = try FixtureSupport.parse("10-every-kind.md")
        XCTAssertEqual(parsed.problems, [])
        let chapter = try XCTUnwrap(parsed.chapter)
        XCTAssertEqual(chapter.title, "Every kind of snippet")
        let snippets = chapter.snippets
        XCTAssertEqual(snippets.count, 12)
        XCTAssertEqual(snippets[0].fenceLine, 5)
        XCTAssertEqual(snippets[0].firstCodeLine, 6)
        XCTAssertEqual(snippets[0].code, "import Foundation\nlet greeting = \"hello\"\nprint(greeting)\n")
        XCTAssertEqual(snippets[0].expectedOutput, ExpectedOutput(fenceLine: 11, closingFenceLine: 13, text: "hello\n"))
        XCTAssertEqual(snippets[0].closingFenceLine, 9)
        XCTAssertTrue(snippets[1].attributes.isHidden)
        XCTAssertNil(snippets[1].expectedOutput)
        XCTAssertEqual(snippets[3].attributes.fileName, "Point.swift")
        XCTAssertEqual(snippets[5].attributes.mode, .noRun)
        XCTAssertEqual(snippets[6].attributes.mode, .ignore)
        XCTAssertEqual(snippets[7].attributes.mode, .compileFail)
        XCTAssertEqual(snippets[8].attributes.mode, .trap)
        XCTAssertEqual(snippets[9].expectedOutput?.text, "still running, id …\n")
        XCTAssertEqual(snippets[10 - 1].index, 9)
        XCTAssertEqual(chapter.dataFiles, [DataFile(line: 35, path: "data/point.json", language: "json", contents: "{\"x\": 3, \"y\": 4}\n")])
        let roles = snippets.map(\.attributes.role)
        XCTAssertEqual(roles.suffix(2), [.exercise, .solution])
    }

    /// Found by CI's fuzzing run: with several files under `a/`, the file a conflicting `a`
    /// was reported against depended on dictionary order, so the same chapter with CRLF
    /// line endings gave another message. The earliest file is named.
    func testAPathConflictNamesTheEarliestFile() {
        let text = "# T\n\n```json file=a/b\n1\n```\n\n```json file=a/c\n2\n```\n\n```json file=a\n3\n```\n"
        for ending in ["\n", "\r\n", "\r"] {
            for _ in 0..<20 {
                let parsed = FixtureSupport.parseText(text.replacingOccurrences(of: "\n", with: ending))
                XCTAssertEqual(parsed.problems.map(\.message),
                               ["the file path `a` conflicts with `a/b` on line 3: one would have to be a directory"], ending.debugDescription)
            }
        }
    }

    func testProseKeepsHeadingsAndEscapesHTML() {
        let parsed = FixtureSupport.parseText("# Title *here*\n\nText with <b>tags</b> & more.\n\n```sh\nmake book\n```\n")
        let chapter = parsed.chapter!
        XCTAssertEqual(chapter.title, "Title here")
        guard case .prose(let heading) = chapter.blocks[0], case .prose(let paragraph) = chapter.blocks[1],
              case .prose(let code) = chapter.blocks[2] else { return XCTFail("\(chapter.blocks)") }
        XCTAssertEqual(heading.heading, Heading(level: 1, text: "Title here"))
        XCTAssertFalse(paragraph.html.contains("<b>"), "raw HTML must not pass through: \(paragraph.html)")
        XCTAssertTrue(paragraph.html.contains("&amp; more"))
        XCTAssertEqual(code.html, "<pre><code class=\"language-sh\">make book\n</code></pre>\n")
        XCTAssertEqual(code.line, 5)
    }

    func testSettingsComment() {
        let parsed = FixtureSupport.parseText("# T\n\n<!-- workbook: timeout=120 -->\n")
        XCTAssertEqual(parsed.chapter?.settings.timeout, 120)
        XCTAssertEqual(parsed.chapter?.blocks.count, 1, "the settings comment is not prose")
        let bad = FixtureSupport.parseText("# T\n\n<!-- workbook: timeout=soon colour=red -->\n")
        XCTAssertEqual(bad.problems.map(\.line), [3, 3])
    }

    func testNotUTF8NamesTheLine() throws {
        let parsed = try FixtureSupport.parse("20-not-utf8.md")
        XCTAssertNil(parsed.chapter)
        XCTAssertEqual(parsed.problems, [Problem(file: "Chapters/20-not-utf8.md", line: 3, message: "the chapter is not valid UTF-8 (first bad byte on this line)")])
    }

    func testUnterminatedFence() throws {
        let parsed = try FixtureSupport.parse("21-unterminated.md")
        XCTAssertEqual(parsed.problems.map(\.line), [7])
        XCTAssertTrue(parsed.problems[0].message.contains("never closed"))
        XCTAssertEqual(parsed.problems[0].description.prefix(27), "Chapters/21-unterminated.md")
    }

    func testOutputWithoutSnippet() throws {
        let parsed = try FixtureSupport.parse("22-orphan-output.md")
        XCTAssertEqual(parsed.problems.map(\.line), [5])
        XCTAssertTrue(parsed.problems[0].message.contains("does not follow a swift snippet"))
        let twice = FixtureSupport.parseText("# T\n\n```swift\nprint(1)\n```\n\n```output\n1\n```\n\n```output\n1\n```\n")
        XCTAssertEqual(twice.problems.map(\.line), [11])
    }

    func testDuplicateFileNames() throws {
        let parsed = try FixtureSupport.parse("23-duplicate-file.md")
        XCTAssertEqual(parsed.problems.map(\.line), [7, 15])
        XCTAssertTrue(parsed.problems.allSatisfy { $0.message.hasPrefix("duplicate file name") })
    }

    func testPathsMayNotLeaveTheWorkingDirectory() throws {
        let parsed = try FixtureSupport.parse("24-escaping-path.md")
        XCTAssertEqual(parsed.problems.map(\.line), [3, 7, 11])
        XCTAssertEqual(parsed.chapter?.dataFiles, [])
    }

    func testUnknownAttributeNamesFileAndLine() throws {
        let parsed = try FixtureSupport.parse("27-unknown-attribute.md")
        XCTAssertEqual(parsed.problems.count, 1)
        XCTAssertTrue(parsed.problems[0].description.hasPrefix("Chapters/27-unknown-attribute.md:3: unknown snippet attribute `hiddden`"))
    }

    func testAttributeConflicts() {
        let text = """
            # T

            ```swift trap no-run
            ```

            ```swift solution
            ```

            ```swift file=Main.txt
            ```

            ```swift file=main.swift
            ```

            ```swift exercise trap
            ```
            """
        let lines = FixtureSupport.parseText(text).problems.map(\.line)
        XCTAssertEqual(lines, [3, 6, 9, 12, 15])
    }

    func testChapterWithoutHeading() {
        XCTAssertEqual(FixtureSupport.parseText("Just text.\n").problems.map(\.message), ["the chapter has no heading; its first heading is its title"])
    }

    func testFencesFollowCommonMark() {
        XCTAssertEqual(SourceLines.openingFence("````swift"), SourceLines.Fence(character: "`", length: 4, indent: 0))
        XCTAssertNil(SourceLines.openingFence("    ```"), "four spaces make an indented code block")
        XCTAssertNil(SourceLines.openingFence("``` a`b"))
        XCTAssertTrue(SourceLines.closes("````  ", SourceLines.Fence(character: "`", length: 3, indent: 0)))
        XCTAssertFalse(SourceLines.closes("``", SourceLines.Fence(character: "`", length: 3, indent: 0)))
        // A longer fence keeps a shorter one inside as text.
        let parsed = FixtureSupport.parseText("# T\n\n````swift\nlet s = \"\"\"\n```\n\"\"\"\n````\n")
        XCTAssertEqual(parsed.problems, [])
        XCTAssertEqual(parsed.chapter?.snippets.first?.code, "let s = \"\"\"\n```\n\"\"\"\n")
    }
}
