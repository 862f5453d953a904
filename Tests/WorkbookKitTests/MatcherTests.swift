import XCTest
@testable import WorkbookKit

final class MatcherTests: XCTestCase {
    func testExactAndTrailingWhitespace() {
        XCTAssertTrue(OutputMatcher(expected: "a\nb\n", actual: "a  \nb").matches)
        XCTAssertFalse(OutputMatcher(expected: "a\n", actual: "A\n").matches)
        XCTAssertTrue(OutputMatcher(expected: "", actual: "").matches)
        XCTAssertFalse(OutputMatcher(expected: "", actual: "x\n").matches)
    }

    func testEllipsisWithinALine() {
        XCTAssertTrue(OutputMatcher.lineMatches("id …", "id 1234-ABCD"))
        XCTAssertTrue(OutputMatcher.lineMatches("<…: 0x…>", "<Trail: 0x00007f3a>"))
        XCTAssertTrue(OutputMatcher.lineMatches("…", ""))
        XCTAssertTrue(OutputMatcher.lineMatches("a…a", "aa"))
        XCTAssertFalse(OutputMatcher.lineMatches("a…a", "a"))
        XCTAssertFalse(OutputMatcher.lineMatches("took … ms", "took 3 s"))
        XCTAssertTrue(OutputMatcher.lineMatches("Checking…", "Checking…"), "a literal … in output matches itself")
    }

    func testEllipsisLineMatchesAnyNumberOfLines() {
        XCTAssertTrue(OutputMatcher(expected: "start\n…\nend\n", actual: "start\nend\n").matches)
        XCTAssertTrue(OutputMatcher(expected: "start\n…\nend\n", actual: "start\n1\n2\n3\nend\n").matches)
        XCTAssertFalse(OutputMatcher(expected: "start\n…\nend\n", actual: "start\n1\n").matches)
        XCTAssertTrue(OutputMatcher(expected: "…\n", actual: "").matches)
    }

    func testUnifiedDiff() {
        let matcher = OutputMatcher(expected: "one\ntwo\nthree\n", actual: "one\n2\nthree\nfour\n")
        XCTAssertEqual(matcher.unifiedDiff(), """
            --- expected
            +++ actual
            @@ -1,3 +1,4 @@
             one
            -two
            +2
             three
            +four

            """)
        XCTAssertEqual(OutputMatcher(expected: "x\n", actual: "x\n").unifiedDiff(), "")
    }

    func testDiffHunksKeepContextApart() {
        let expected = (1...20).map(String.init).joined(separator: "\n")
        var actualLines = (1...20).map(String.init)
        actualLines[1] = "B"
        actualLines[18] = "S"
        let diff = OutputMatcher(expected: expected, actual: actualLines.joined(separator: "\n")).unifiedDiff()
        XCTAssertTrue(diff.contains("@@ -1,5 +1,5 @@"), diff)
        XCTAssertTrue(diff.contains("@@ -16,5 +16,5 @@"), diff)
    }

    func testMergeKeepsWildcardsThatStillMatch() {
        let matcher = OutputMatcher(expected: "id …\ncount 1\nend\n…\n", actual: "id 42\ncount 2\nend\nx\ny\n")
        XCTAssertFalse(matcher.matches)
        XCTAssertEqual(matcher.merged, "id …\ncount 2\nend\n…\n")
        XCTAssertTrue(matcher.unifiedDiff().contains("-count 1\n+count 2\n"), matcher.unifiedDiff())
        // A `…` line may absorb a changed line: the least-cost alignment is the one kept.
        XCTAssertEqual(OutputMatcher(expected: "a\n…\nz\n", actual: "a\nb\nz\nextra\n").merged, "a\n…\nz\nextra\n")
    }

    func testNormalizerReplacesMachinePaths() {
        let normalizer = OutputNormalizer(packageRoot: "/home/a/book", scratch: "/tmp/workbook-1/ch", workingDirectory: "/tmp/workbook-1/ch/work")
        XCTAssertEqual(normalizer.normalize("file:///tmp/workbook-1/ch/work/T.sqlite /tmp/workbook-1/ch/program /home/a/book/Chapters\r\n"),
                       "file://<workdir>/T.sqlite <build>/program <repo>/Chapters\n")
    }

    func testRuntimeBacktraceIsRemoved() {
        let text = """
            Fatal error: boom
            Current stack trace:
            0    libswiftCore.so                    0x00007f0cba55f130 swift_reportError + 33
            1    program                            0x000055a8c5af408a <unavailable> + 28810
            after

            """
        XCTAssertEqual(OutputNormalizer.removeRuntimeBacktrace(text), "Fatal error: boom\nafter\n")
        let announced = "Swift/Array.swift:692: Fatal error: Index out of range\n\n*** Signal 4: Backtracing from 0x7f0b6756df7f... done ***\n\n"
        XCTAssertEqual(OutputNormalizer.removeRuntimeBacktrace(announced), "Swift/Array.swift:692: Fatal error: Index out of range\n")
        XCTAssertEqual(ChapterRunner.crashLocation(in: "  0 0x1 f in libswiftCore.so\n  3 [ra] 0x5 main + 198 in program at Chapters/09-x.md:41:10\n", chapterPath: "Chapters/09-x.md"), "Chapters/09-x.md:41:10")
    }

    func testDiagnosticsParsing() {
        let line = "Chapters/01-a.md:12:7: error: cannot find 'x' in scope"
        XCTAssertEqual(Diagnostics.parseLine(line), Diagnostics.Diagnostic(file: "Chapters/01-a.md", line: 12, column: 7, severity: "error", message: "error: cannot find 'x' in scope"))
        XCTAssertEqual(Diagnostics.errorLines("\(line)\nlet y = x\n      ^\nChapters/01-a.md:3:1: warning: unused\n"), line + "\n")
        XCTAssertEqual(Diagnostics.runtimeLocation(in: "Chapters/01-a.md:14: Fatal error: nil\n", chapterPath: "Chapters/01-a.md"), 14)
    }
}
