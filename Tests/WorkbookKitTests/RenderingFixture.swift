@testable import WorkbookKit

/// A small chapter, built in code, that uses every kind of block the renderer handles.
enum RenderingFixture {
    static let scriptPayload = "<script>alert(\"x\")</script>"

    static func prose(_ line: Int, _ html: String, _ text: String, heading: Heading? = nil) -> ChapterBlock {
        .prose(Prose(line: line, markdown: text, html: html, plainText: text, heading: heading))
    }

    static func snippet(
        _ index: Int, _ code: String, _ attributes: SnippetAttributes = SnippetAttributes(), expected: String? = nil
    ) -> ChapterBlock {
        .snippet(Snippet(
            index: index, fenceLine: 10 + index * 10, firstCodeLine: 11 + index * 10, code: code,
            attributes: attributes,
            expectedOutput: expected.map { ExpectedOutput(fenceLine: 0, closingFenceLine: 0, text: $0) }))
    }

    static let chapter = Chapter(
        path: "Chapters/03-sample.md",
        source: "",
        title: "A sample chapter",
        blocks: [
            prose(1, "<h1>A sample chapter</h1>\n", "A sample chapter", heading: Heading(level: 1, text: "A sample chapter")),
            // cmark escapes text, so the prose HTML arrives already escaped.
            prose(3, "<p>Tags like &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; ampersands stay text.</p>\n",
                  "Tags like \(scriptPayload) & ampersands stay text."),
            prose(4, "<blockquote>\n<p><strong>On Linux:</strong> a note about this platform.</p>\n</blockquote>\n",
                  "On Linux: a note about this platform."),
            prose(5, "<h2>Printing &amp; errors</h2>\n", "Printing & errors", heading: Heading(level: 2, text: "Printing & errors")),
            snippet(0, "// Greets the reader.\nlet name = \"Ada\"\nprint(\"Hello, \\(name)!\", 42)\n", expected: "Hello, Ada! 42\n"),
            snippet(1, "let hidden = true\n", SnippetAttributes(isHidden: true)),
            snippet(2, "let items = [1, 2]\nprint(items[5])\n", SnippetAttributes(mode: .trap)),
            snippet(3, "let x: Int = \"one\"\n", SnippetAttributes(mode: .compileFail)),
            snippet(4, "struct Point { var x = 0.5 }\n", SnippetAttributes(fileName: "Point.swift")),
            prose(20, "<h2>Exercises</h2>\n", "Exercises", heading: Heading(level: 2, text: "Exercises")),
            prose(21, "<p>Print the sum.</p>\n", "Print the sum."),
            snippet(5, "// Your code here\n", SnippetAttributes(role: .exercise)),
            snippet(6, "print(1 + 2)\n", SnippetAttributes(role: .solution), expected: "3\n"),
            .dataFile(DataFile(line: 40, path: "Model/data.xml", language: "xml", contents: "<entity name=\"A&B\"/>\n")),
            snippet(7, "print(\"later\")\n", SnippetAttributes(mode: .ignore)),
        ],
        settings: ChapterSettings())

    static let run = ChapterRun(
        chapterPath: chapter.path,
        results: [
            SnippetResult(index: 0, output: SnippetOutput(segments: [
                .init(stream: .stdout, text: "Hello, Ada! 42\n"),
                .init(stream: .stderr, text: "warning: \(scriptPayload) & more\n"),
            ]), outcome: .completed),
            SnippetResult(index: 1, output: SnippetOutput(), outcome: .completed),
            SnippetResult(index: 2, output: SnippetOutput(segments: [
                .init(stream: .stderr, text: "Fatal error: Index out of range\n"),
            ]), outcome: .trapped(signal: 4)),
            SnippetResult(index: 3, output: SnippetOutput(segments: [
                .init(stream: .stdout, text: "error: cannot convert value of type 'String' to specified type 'Int'\n"),
            ]), outcome: .failedToCompile),
            SnippetResult(index: 4, output: SnippetOutput(), outcome: .completed),
            SnippetResult(index: 5, output: SnippetOutput(), outcome: .notRun),
            SnippetResult(index: 6, output: SnippetOutput(segments: [.init(stream: .stdout, text: "3\n")]), outcome: .completed),
            SnippetResult(index: 7, output: SnippetOutput(), outcome: .notRun),
        ],
        problems: [])

    /// A second chapter, without a run, so the index has two entries and pages link to each other.
    static let second = Chapter(
        path: "Chapters/04-next.md",
        source: "",
        title: "Next steps",
        blocks: [
            prose(1, "<h1>Next steps</h1>\n", "Next steps", heading: Heading(level: 1, text: "Next steps")),
            prose(3, "<h2>Timeouts</h2>\n", "Timeouts", heading: Heading(level: 2, text: "Timeouts")),
            snippet(0, "while true {}\n", expected: "recorded\n"),
        ],
        settings: ChapterSettings())

    static let secondRun = ChapterRun(
        chapterPath: second.path,
        results: [SnippetResult(index: 0, output: SnippetOutput(), outcome: .timedOut(seconds: 60))],
        problems: [Problem(file: second.path, line: 4, message: "the chapter ran out of time (60 s)")])
}
