import Foundation
import XCTest
@testable import WorkbookKit

/// Golden and behaviour tests for the HTML book.
///
/// The golden files live in Fixtures/golden/. After an intended change to the output,
/// regenerate them with `UPDATE_GOLDEN=1 swift test --filter RenderingTests` and review the diff.
final class RenderingTests: XCTestCase {
    private var output: URL!

    override func setUpWithError() throws {
        output = FileManager.default.temporaryDirectory.appendingPathComponent("book-\(UUID().uuidString)")
        try BookRenderer(outputDirectory: output).render(
            chapters: [RenderingFixture.chapter, RenderingFixture.second],
            runs: [RenderingFixture.chapter.path: RenderingFixture.run, RenderingFixture.second.path: RenderingFixture.secondRun])
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: output)
    }

    private func read(_ name: String) throws -> String {
        try String(contentsOf: output.appendingPathComponent(name), encoding: .utf8)
    }

    private static let goldenDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().appendingPathComponent("Fixtures/golden")

    private func assertGolden(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let actual = try read(name)
        let golden = Self.goldenDirectory.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: golden.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(actual.utf8).write(to: golden)
            return
        }
        let expected = try String(contentsOf: golden, encoding: .utf8)
        if actual != expected {
            let actualLines = actual.components(separatedBy: "\n")
            let expectedLines = expected.components(separatedBy: "\n")
            let first = (0..<min(actualLines.count, expectedLines.count)).first { actualLines[$0] != expectedLines[$0] } ?? min(actualLines.count, expectedLines.count)
            XCTFail("""
                \(name) differs from the golden file at line \(first + 1):
                expected: \(first < expectedLines.count ? expectedLines[first] : "<end>")
                actual:   \(first < actualLines.count ? actualLines[first] : "<end>")
                (run with UPDATE_GOLDEN=1 to accept)
                """, file: file, line: line)
        }
    }

    func testChapterPageMatchesGolden() throws { try assertGolden("03-sample.html") }
    func testSecondChapterPageMatchesGolden() throws { try assertGolden("04-next.html") }
    func testIndexMatchesGolden() throws { try assertGolden("index.html") }
    func testSearchIndexMatchesGolden() throws { try assertGolden("assets/search-index.js") }

    func testSidebarListsEveryChapterAndMarksTheCurrentOne() throws {
        let page = try read("03-sample.html")
        let sidebar = try XCTUnwrap(page.range(of: "<nav class=\"sidebar\"").map { String(page[$0.lowerBound...]) })
        XCTAssertTrue(sidebar.contains("<a href=\"03-sample.html\" aria-current=\"page\">A sample chapter</a>"))
        XCTAssertTrue(sidebar.contains("<a href=\"04-next.html\">Next steps</a>"))
        XCTAssertEqual(sidebar.components(separatedBy: "aria-current").count, 2, "exactly one current chapter")
        // The current chapter's sections are open and link within the page.
        XCTAssertTrue(sidebar.contains("<details open><summary><a href=\"03-sample.html\" aria-current=\"page\">"))
        XCTAssertTrue(sidebar.contains("<a href=\"#printing-errors\">Printing &amp; errors</a>"))
        XCTAssertFalse(try read("index.html").contains("aria-current"), "the index page has no current chapter")
    }

    func testOnLinuxNotesAreCalloutsAndTheTitleSaysHowToRunTheChapter() throws {
        let page = try read("03-sample.html")
        XCTAssertTrue(page.contains("<blockquote class=\"callout on-linux\">\n<p><strong>On Linux:</strong> a note"))
        XCTAssertTrue(page.contains("</h1>\n<p class=\"run-command\">Run this chapter: <code>.build/debug/workbook run 03</code></p>"))
    }

    func testRenderingTwiceGivesIdenticalFiles() throws {
        let again = FileManager.default.temporaryDirectory.appendingPathComponent("book-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: again) }
        try BookRenderer(outputDirectory: again).render(
            chapters: [RenderingFixture.chapter, RenderingFixture.second],
            runs: [RenderingFixture.chapter.path: RenderingFixture.run, RenderingFixture.second.path: RenderingFixture.secondRun])
        for name in ["index.html", "03-sample.html", "04-next.html", "assets/search-index.js", "assets/book.css", "assets/book.js"] {
            XCTAssertEqual(try read(name), try String(contentsOf: again.appendingPathComponent(name), encoding: .utf8), name)
        }
    }

    func testChapterTextAndOutputAreEscaped() throws {
        let page = try read("03-sample.html")
        XCTAssertFalse(page.contains("<script>alert"), "chapter text or output reached the page unescaped")
        // Prose, stderr output and the search index each carry the payload, escaped.
        XCTAssertTrue(page.contains("<p>Tags like &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; ampersands"))
        XCTAssertTrue(page.contains("<span class=\"stderr\">warning: &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more\n</span>"))
        XCTAssertTrue(page.contains("&lt;entity name=&quot;A&amp;B&quot;/&gt;"))
        // Only the book's own three script elements are on the page.
        XCTAssertEqual(page.components(separatedBy: "<script").count - 1, 3)
        let index = try read("assets/search-index.js")
        XCTAssertFalse(index.contains("<script"))
        XCTAssertTrue(index.contains("\\u003cscript\\u003ealert"))
    }

    func testSnippetKindsAreShownAsALearnerExpects() throws {
        let page = try read("03-sample.html")
        XCTAssertFalse(page.contains("hidden = true"), "hidden snippets must not be shown")
        XCTAssertTrue(page.contains("<span class=\"label\">trap</span> <span class=\"status-detail\">the program stopped with signal 4 (SIGILL)</span>"))
        XCTAssertTrue(page.contains("Fatal error: Index out of range"))
        XCTAssertTrue(page.contains("<span class=\"label\">does not compile</span>"))
        XCTAssertTrue(page.contains("cannot convert value of type &#39;String&#39;"))
        XCTAssertTrue(page.contains("<code class=\"filename\">Point.swift</code>"))
        XCTAssertTrue(page.contains("<details class=\"solution\">\n<summary>Solution</summary>"))
        XCTAssertTrue(page.contains("<span class=\"label\">not compiled</span>"), "ignore snippets are shown, marked")
        XCTAssertTrue(page.contains("<h2 id=\"printing-errors\">Printing &amp; errors <a class=\"anchor\" href=\"#printing-errors\""))
        XCTAssertTrue(page.contains("href=\"04-next.html\">Next steps →</a>"))
        let second = try read("04-next.html")
        XCTAssertTrue(second.contains("<span class=\"label\">timed out</span> <span class=\"status-detail\">killed after 60 seconds</span>"))
        XCTAssertTrue(second.contains("the chapter ran out of time (60 s)"))
        XCTAssertTrue(second.contains("href=\"03-sample.html\">← A sample chapter</a>"))
    }

    func testExerciseWithoutSolutionShowsItsOutput() throws {
        let html = SnippetRenderer(run: ChapterRun(chapterPath: "c.md", results: [
            SnippetResult(index: 0, output: SnippetOutput(segments: [.init(stream: .stdout, text: "42\n")]), outcome: .completed),
        ], problems: [])).render(Snippet(
            index: 0, fenceLine: 1, firstCodeLine: 2, code: "print(42)\n", attributes: SnippetAttributes(role: .exercise)))
        XCTAssertTrue(html?.rendered.contains("<samp>42\n</samp>") == true)
        XCTAssertFalse(try read("03-sample.html").contains("not run"), "a stub followed by its solution is not labelled")
    }

    func testRecordedOutputIsShownWithoutARun() throws {
        let other = FileManager.default.temporaryDirectory.appendingPathComponent("book-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: other) }
        try BookRenderer(outputDirectory: other).render(chapters: [RenderingFixture.second], runs: [:])
        let page = try String(contentsOf: other.appendingPathComponent("04-next.html"), encoding: .utf8)
        XCTAssertTrue(page.contains("<samp>recorded\n</samp>"))
        XCTAssertFalse(page.contains("timed out"))
    }

    func testPagesLoadNothingFromTheNetwork() throws {
        for name in ["index.html", "03-sample.html", "assets/book.css", "assets/book.js"] {
            let text = try read(name)
            XCTAssertFalse(text.contains("http://") || text.contains("https://") || text.contains("//cdn"), name)
        }
        XCTAssertTrue(try read("assets/book.css").contains("@media print"))
        XCTAssertTrue(try read("assets/book.css").contains("prefers-color-scheme: dark"))
    }

    func testHighlighterClassifiesKeywordStringAndComment() {
        let html = SwiftHighlighter.highlight("// note\nlet s = \"hi\" // <b>\n").rendered
        XCTAssertTrue(html.contains("<span class=\"hl-comment\">// note</span>"), html)
        XCTAssertTrue(html.contains("<span class=\"hl-keyword\">let</span>"), html)
        XCTAssertTrue(html.contains("<span class=\"hl-string\">&quot;hi&quot;</span>"), html)
        XCTAssertTrue(html.contains("<span class=\"hl-comment\">// &lt;b&gt;</span>"), html)
    }

    func testHighlighterKeepsEveryCharacter() {
        let code = "struct P { var x = 1.5 } // é ✓\n#if DEBUG\n@MainActor func f() {}\n#endif\nlet broken = (\n"
        let html = SwiftHighlighter.highlight(code).rendered
        let stripped = html.replacingOccurrences(of: "<[^>]+>", with: "", options: .regularExpression)
        XCTAssertEqual(stripped.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&"), code)
        XCTAssertTrue(html.contains("<span class=\"hl-number\">1.5</span>"), html)
    }

    func testDuplicatePageNamesAreReported() {
        var copy = RenderingFixture.second
        copy.path = "Other/04-next.md"
        XCTAssertThrowsError(try BookRenderer(outputDirectory: output).render(chapters: [RenderingFixture.second, copy], runs: [:])) {
            XCTAssertEqual($0 as? RenderError, .duplicatePage("04-next.html", first: "Chapters/04-next.md", second: "Other/04-next.md"))
        }
    }
}

/// The HTML type escapes everything that is not a trusted template literal.
final class RenderingHTMLTests: XCTestCase {
    func testInterpolatedTextIsEscapedForContentAndAttributes() {
        let text = "a<b & \"c\" 'd'>"
        let html: HTML = "<p title=\"\(text)\">\(text)</p>"
        XCTAssertEqual(html.rendered, "<p title=\"a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;\">a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;</p>")
    }

    func testFragmentsAreNotEscapedTwice() {
        let inner = HTML(escaping: "<x>")
        let outer: HTML = "<div>\(inner)</div>"
        XCTAssertEqual(outer.rendered, "<div>&lt;x&gt;</div>")
    }

    func testAnchorsAreUniqueAndReadable() {
        var namer = AnchorNamer()
        XCTAssertEqual(namer.anchor(for: "Fetch requests & predicates"), "fetch-requests-predicates")
        XCTAssertEqual(namer.anchor(for: "Fetch requests & predicates"), "fetch-requests-predicates-2")
        XCTAssertEqual(namer.anchor(for: "«»"), "section")
    }
}

/// The parser and the renderer together: a fixture chapter rendered with its recorded output.
final class ParsedChapterRenderingTests: XCTestCase {
    func testParsedFixtureMatchesGolden() throws {
        let chapter = try XCTUnwrap(FixtureSupport.parse("10-every-kind.md").chapter)
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("book-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        try BookRenderer(outputDirectory: output).render(chapters: [chapter], runs: [:])
        let actual = try String(contentsOf: output.appendingPathComponent("10-every-kind.html"), encoding: .utf8)
        let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/golden/10-every-kind.html")
        if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" {
            try Data(actual.utf8).write(to: golden)
        }
        XCTAssertEqual(actual, try String(contentsOf: golden, encoding: .utf8), "run with UPDATE_GOLDEN=1 to accept")
        XCTAssertFalse(actual.contains("shout(_ text"), "the hidden snippet is not on the page")
        XCTAssertTrue(actual.contains("<summary>Solution</summary>"))
    }
}
