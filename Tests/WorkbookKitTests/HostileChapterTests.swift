import Foundation
import XCTest
@testable import WorkbookKit

/// Messy chapters and output that is not plain text (issue 18): other line endings,
/// fences that would silently not run, bad settings, output the recording format could
/// not hold. None of them may pass silently. Programs that run are in
/// ``HostileProgramTests``.
final class HostileChapterTests: XCTestCase {
    static let lfChapter = """
        # Line endings

        Some prose
        on two lines.

        ```swift
        print("one")
        ```

        ```output
        one
        ```

        More prose.

        ```swift
        print("two")
        ```

        ```output
        two
        ```

        """

    // MARK: CRLF and lone CR

    func testCRLFAndLoneCRParseExactlyLikeLF() throws {
        let lf = try XCTUnwrap(FixtureSupport.parseText(Self.lfChapter).chapter)
        XCTAssertEqual(lf.snippets.count, 2)
        for ending in ["\r\n", "\r"] {
            let parsed = FixtureSupport.parseText(Self.lfChapter.replacingOccurrences(of: "\n", with: ending))
            XCTAssertEqual(parsed.problems, [], ending.debugDescription)
            let chapter = try XCTUnwrap(parsed.chapter)
            XCTAssertEqual(chapter.blocks, lf.blocks, "every block, line and rendering as with LF (\(ending.debugDescription))")
        }
        // One CRLF line in prose must not shift the lines of the blocks after it.
        let mixed = Self.lfChapter.replacingOccurrences(of: "Some prose\n", with: "Some prose\r\n")
        XCTAssertEqual(try XCTUnwrap(FixtureSupport.parseText(mixed).chapter).blocks, lf.blocks)
    }

    func testInvalidUTF8IsLocatedOnTheRightLineWhateverTheLineEndings() {
        var bytes = Array("# T\r\rtext\r\n".utf8)
        bytes.append(0xFF)
        let parsed = ChapterParser.parse(path: "Chapters/50-test.md", data: Data(bytes))
        XCTAssertEqual(parsed.problems.map(\.line), [4])
    }

    func testUpdateKeepsEachLinesEnding() throws {
        for ending in ["\r\n", "\r"] {
            let text = Self.lfChapter.replacingOccurrences(of: "\n", with: ending)
            let chapter = try XCTUnwrap(FixtureSupport.parseText(text).chapter)
            let run = ChapterRun(chapterPath: chapter.path, results: [
                SnippetResult(index: 0, output: SnippetOutput(segments: [.init(stream: .stdout, text: "uno\n")]), outcome: .completed),
                SnippetResult(index: 1, output: SnippetOutput(segments: [.init(stream: .stdout, text: "two\n")]), outcome: .completed),
            ], problems: [])
            let updated = OutputUpdater.update(chapter, run: run)
            XCTAssertEqual(updated, Self.lfChapter.replacingOccurrences(of: "one\n```", with: "uno\n```")
                .replacingOccurrences(of: "\n", with: ending), ending.debugDescription)
        }
    }

    // MARK: Fences that would silently not run

    func testANewOutputBlockTakesTheFilesLineEndings() throws {
        for ending in ["\r\n", "\r"] {
            // The last line has no ending: the new block goes after it, and the file still ends without one.
            let text = ["# T", "", "```swift", "print(1)", "```"].joined(separator: ending)
            let chapter = try XCTUnwrap(FixtureSupport.parseText(text).chapter)
            let run = ChapterRun(chapterPath: chapter.path, results: [
                SnippetResult(index: 0, output: SnippetOutput(segments: [.init(stream: .stdout, text: "1\n")]), outcome: .completed),
            ], problems: [])
            XCTAssertEqual(OutputUpdater.update(chapter, run: run),
                           ["# T", "", "```swift", "print(1)", "```", "", "```output", "1", "```"].joined(separator: ending))
        }
    }

    func testATabIndentedFenceIsReported() {
        let parsed = FixtureSupport.parseText("# Tabs\n\n\t```swift\n\tprint(\"hidden\")\n\t```\n\n  \t```output\n  \tx\n  \t```\n")
        XCTAssertEqual(parsed.problems.map(\.line), [3, 7], "\(parsed.problems)")
        XCTAssertTrue(parsed.problems.first?.message.contains("tab") == true, "\(parsed.problems)")
    }

    func testAFenceIndentedByFourSpacesIsReportedToo() {
        let parsed = FixtureSupport.parseText("# Spaces\n\n    ```swift\n    print(1)\n    ```\n\n    ```text\n    shown as it is\n    ```\n")
        XCTAssertEqual(parsed.problems.map(\.line), [3], "a ```text block indented is just code: \(parsed.problems)")
    }

    func testANulByteDoesNotHideTheRestOfTheChapter() throws {
        let parsed = FixtureSupport.parseText("# NUL\n\ntext \u{0} more\n\n```swift\nprint(1)\n```\n")
        XCTAssertEqual(try XCTUnwrap(parsed.chapter).snippets.count, 1, "the snippet after the NUL is still found")
    }

    // MARK: Settings and chapter numbers

    func testATimeoutThatIsNotAPositiveNumberIsAClearError() {
        for value in ["0", "-5", "abc", "inf"] {
            let parsed = FixtureSupport.parseText("# T\n\n<!-- workbook: timeout=\(value) -->\n")
            XCTAssertEqual(parsed.problems.count, 1)
            let message = parsed.problems.first?.message ?? ""
            XCTAssertFalse(message.contains("unknown"), message)
            XCTAssertTrue(message.contains("positive number of seconds"), message)
        }
        XCTAssertTrue(FixtureSupport.parseText("# T\n\n<!-- workbook: color=red -->\n").problems.first?.message
            .contains("unknown workbook setting") == true)
    }

    // MARK: Recording output that is not plain text

    private func chapterRecording(_ output: String) throws -> (recorded: String, chapter: Chapter) {
        let chapter = try XCTUnwrap(FixtureSupport.parseText("# T\n\n```swift\nprint(1)\n```\n").chapter)
        let run = ChapterRun(chapterPath: chapter.path, results: [
            SnippetResult(index: 0, output: SnippetOutput(segments: [.init(stream: .stdout, text: output)]), outcome: .completed),
        ], problems: [])
        let updated = try XCTUnwrap(FixtureSupport.parseText(OutputUpdater.update(chapter, run: run)).chapter)
        return (try XCTUnwrap(updated.snippets[0].expectedOutput?.text), updated)
    }

    func testALiteralEllipsisIsRecordedSoThatItMatchesOnlyItself() throws {
        let (recorded, _) = try chapterRecording("loading… done\n…\n")
        XCTAssertEqual(recorded, "loading\\u{2026} done\n\\u{2026}\n")
        XCTAssertTrue(OutputMatcher(expected: recorded, actual: "loading… done\n…\n").matches)
        XCTAssertFalse(OutputMatcher(expected: recorded, actual: "loading 50% done\n…\n").matches)
        XCTAssertFalse(OutputMatcher(expected: recorded, actual: "loading… done\nmore\nlines\n").matches)
        // A diff shows the actual line as it would be recorded: a reader can tell the two apart.
        let diff = OutputMatcher(expected: "loading…\n", actual: "loading…\nnext…\n").unifiedDiff()
        XCTAssertTrue(diff.contains("+next\\u{2026}\n"), diff)
        // Text that looks like an escape is escaped itself.
        let (literal, _) = try chapterRecording("\\u{41} and \\n\n")
        XCTAssertEqual(literal, "\\u{5C}u{41} and \\n\n")
        XCTAssertTrue(OutputMatcher(expected: literal, actual: "\\u{41} and \\n\n").matches)
        XCTAssertFalse(OutputMatcher(expected: literal, actual: "A and \\n\n").matches)
    }

    func testControlCharactersAreRecordedVisiblyAndVerify() throws {
        let output = "progress 10%\rprogress 100%\nnul\u{0}byte\u{1B}[0m\n"
        let (recorded, chapter) = try chapterRecording(output)
        XCTAssertEqual(recorded, "progress 10%\\u{D}progress 100%\nnul\\u{0}byte\\u{1B}[0m\n")
        let run = ChapterRun(chapterPath: chapter.path, results: [
            SnippetResult(index: 0, output: SnippetOutput(segments: [.init(stream: .stdout, text: output)]), outcome: .completed),
        ], problems: [])
        XCTAssertEqual(Verifier.mismatches(chapter, run: run), [])
        XCTAssertEqual(OutputUpdater.update(chapter, run: run), chapter.source, "a second update changes nothing")
    }

    func testControlCharactersInOutputAreShownVisiblyInTheBook() throws {
        let chapter = try XCTUnwrap(FixtureSupport.parseText("# T\n\n```swift\nprint(1)\n```\n").chapter)
        let run = ChapterRun(chapterPath: chapter.path, results: [
            SnippetResult(index: 0, output: SnippetOutput(segments: [.init(stream: .stdout, text: "a\u{0}b\u{1B}[1m\rc\tend…\n")]),
                          outcome: .completed),
        ], problems: [])
        let html = try XCTUnwrap(SnippetRenderer(run: run).render(chapter.snippets[0])).rendered
        XCTAssertFalse(html.unicodeScalars.contains { OutputEscapes.needsEscape($0) && $0 != "\n" && $0 != "…" }, html)
        XCTAssertTrue(html.contains("a\\u{0}b\\u{1B}[1m\\u{D}c\tend…"), html)
    }

    // MARK: Exercises

    func testCheckDescribesAnExerciseThatDidNotFinishInASentence() throws {
        let chapter = try XCTUnwrap(FixtureSupport.parseText("# T\n\n```swift exercise\nwhile true {}\n```\n").chapter)
        let run = ChapterRun(chapterPath: chapter.path, results: [
            SnippetResult(index: 0, output: SnippetOutput(), outcome: .timedOut(seconds: 60)),
        ], problems: [])
        let problem = try XCTUnwrap(Exercises.check(chapter, run: run).first?.problem)
        XCTAssertEqual(problem, "did not finish: it ran out of time (60 s)")
    }

}
