import Foundation
import XCTest
@testable import WorkbookKit

/// Chapters that would silently lose checks, and updates that would erase recorded output.
final class ReviewFixesTests: XCTestCase {
    func testFencesInsideQuotesAndListsAreReported() {
        let parsed = FixtureSupport.parseText("""
            # Nested

            > ```swift
            > print("quoted")
            > ```

            - item

              ```output
              x
              ```
            """)
        XCTAssertEqual(parsed.problems.map(\.line), [3, 9])
        XCTAssertTrue(parsed.problems[0].message.contains("inside a quote or list"), parsed.problems[0].message)
    }

    func testImagesFromTheNetworkAreRefused() {
        let parsed = FixtureSupport.parseText("# Images\n\n![map](https://example.com/map.png) and ![local](map.png)\n")
        XCTAssertEqual(parsed.problems.map(\.line), [3])
        XCTAssertTrue(parsed.problems[0].message.contains("https://example.com/map.png"))
    }

    func testDataFilesThatWouldNeedAFileToBeADirectoryAreRefused() {
        let parsed = FixtureSupport.parseText("# Files\n\n```json file=seed\n{}\n```\n\n```json file=seed/trails.json\n[]\n```\n\n```text file=.tmp/x\nx\n```\n")
        XCTAssertEqual(parsed.problems.map(\.line), [7, 11])
        XCTAssertTrue(parsed.problems[0].message.contains("conflicts with `seed` on line 3"), parsed.problems[0].message)
        XCTAssertTrue(parsed.problems[1].message.contains("reserved"), parsed.problems[1].message)
    }

    func testUpdateKeepsTheDiagnosticsOfACompileFailSnippetThatCompiled() throws {
        let chapter = try XCTUnwrap(FixtureSupport.parseText("""
            # Compile fail

            ```swift compile-fail
            let x: Int = 1
            ```

            ```output
            error: cannot convert value
            ```
            """).chapter)
        let run = ChapterRun(chapterPath: chapter.path, results: [
            SnippetResult(index: 0, output: SnippetOutput(), outcome: .completed)
        ], problems: [])
        XCTAssertEqual(OutputUpdater.update(chapter, run: run), chapter.source)
    }

    func testReaderCopyDropsTheStubsOwnOutputBlock() throws {
        let chapter = try XCTUnwrap(FixtureSupport.parseText("""
            # Exercises

            ```swift
            print("setup")
            ```

            ```swift exercise
            print("stub")
            ```

            ```output
            stub
            ```

            ```swift solution
            print("answer")
            ```

            ```output
            answer
            ```
            """).chapter)
        let copy = Exercises.readerCopy(of: chapter)
        XCTAssertFalse(copy.contains("```output\nstub"), copy)
        let reparsed = try XCTUnwrap(FixtureSupport.parseText(copy).chapter)
        XCTAssertNil(reparsed.snippets[0].expectedOutput, "the setup snippet gets no stray output")
        XCTAssertEqual(reparsed.snippets[1].expectedOutput?.text, "answer\n")
    }

    func testSplittingLargeOutputStaysLinear() {
        // 200,000 small writes: quadratic copying would take minutes, linear takes well under a second.
        var captured = CapturedOutput(termination: .exited(0))
        captured.chunks.append((.marker, Array("snippet 0".utf8)))
        for _ in 0..<200_000 { captured.chunks.append((.stdout, Array("line of output\n".utf8))) }
        let execution = ChapterRunner.split(captured, snippetCount: 1, normalizer: OutputNormalizer(packageRoot: "/nonexistent", scratch: "/nonexistent"))
        XCTAssertEqual(execution.outputs.first?.1.text.count, 200_000 * 15)
    }
}
