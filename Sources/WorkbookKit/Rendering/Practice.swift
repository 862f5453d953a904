import Foundation

/// Running and saving a reader's edit of one snippet, for `workbook serve`'s pages.
///
/// A run never touches the chapter file: the edited chapter text is parsed and run from
/// memory, like `verify` runs the file. An edit of an exercise runs in its solution's place,
/// as `workbook check` runs a reader's copy, so its output is compared with the output the
/// book recorded for the solution. Saving writes the edited code into the snippet's block,
/// only if the block still holds the code the page showed.
public final class Practice: @unchecked Sendable {
    /// A reader's request: which snippet, and the code the page now holds.
    public struct Edit: Codable, Sendable {
        /// The chapter's file name in `Chapters/`, e.g. `04-fetching.md`.
        public var chapter: String
        /// The snippet's ``Snippet/index``.
        public var snippet: Int
        public var code: String
        /// The code the page showed before the reader edited it (checked by `save`).
        public var original: String?
        /// The line of the snippet's opening fence when the page was rendered (checked by
        /// `save`, so that an edit never lands in another snippet with the same code after
        /// snippets were added or removed above it).
        public var line: Int?

        public init(chapter: String, snippet: Int, code: String, original: String? = nil, line: Int? = nil) {
            self.chapter = chapter
            self.snippet = snippet
            self.code = code
            self.original = original
            self.line = line
        }
    }

    /// What a run printed and whether it matches the book.
    public struct RunReport: Codable, Sendable, Equatable {
        public struct Segment: Codable, Sendable, Equatable {
            /// `stdout` or `stderr`.
            public var stream: String
            public var text: String
        }
        public var output: [Segment]
        /// How the snippet ended, as a sentence ("it ran to its end", "it did not compile").
        public var outcome: String
        /// Whether the output matches what the book recorded.
        public var matches: Bool
        /// A unified diff from the book's output to this run's, empty when they match.
        public var diff: String
        /// Problems that kept the chapter from running, located in the chapter.
        public var problems: [String]
    }

    /// Why a request cannot be carried out; `status` is the HTTP status to answer with.
    public struct Refusal: Error, Equatable, CustomStringConvertible {
        public var status: Int
        public var message: String
        public var description: String { message }
    }

    private let workbook: Workbook
    /// One run at a time: each compiles a whole chapter, and two would only slow each other.
    private let runLock = NSLock()
    /// One save at a time: two saves of one chapter must not both pass the check that the
    /// file is unchanged and then overwrite each other.
    private let saveLock = NSLock()

    public init(workbook: Workbook) {
        self.workbook = workbook
    }

    /// Runs the chapter with the edited snippet and reports that snippet's output.
    public func run(_ edit: Edit) throws -> RunReport {
        let (chapter, snippet) = try locate(edit)
        // An exercise followed by its solution runs in the solution's place.
        let target = solution(after: snippet, in: chapter) ?? snippet
        let text = try Self.replacingCode(of: target, in: chapter.source, with: edit.code)
        let parsed = ChapterParser.parse(path: chapter.path, text: text)
        guard let edited = parsed.chapter, parsed.problems.isEmpty else {
            throw Refusal(status: 400, message: parsed.problems.map(\.description).joined(separator: "\n"))
        }
        let outcome = runLock.withLock { workbook.runParsed(edited, parsed: parsed) }
        guard let run = outcome.run, let result = run.result(for: target.index) else {
            return RunReport(output: [], outcome: "it did not run", matches: false, diff: "",
                             problems: outcome.problems.map(\.description))
        }
        let matcher = OutputMatcher(expected: target.expectedOutput?.text ?? "", actual: result.output.text)
        let expectedOutcome: Bool
        switch (result.outcome, target.attributes.mode) {
        case (.completed, .run), (.failedToCompile, .compileFail), (.trapped, .trap): expectedOutcome = true
        default: expectedOutcome = false
        }
        return RunReport(
            output: result.output.segments.map { RunReport.Segment(stream: $0.stream == .stderr ? "stderr" : "stdout", text: $0.text) },
            outcome: result.outcome.sentence,
            matches: matcher.matches && expectedOutcome,
            diff: matcher.matches ? "" : matcher.unifiedDiff(),
            problems: run.problems.map(\.description))
    }

    /// Writes the edited code into the snippet's block in the chapter file.
    public func save(_ edit: Edit) throws {
        try saveLock.withLock {
            let (chapter, snippet) = try locate(edit)
            guard let original = edit.original, let line = edit.line else {
                throw Refusal(status: 400, message: "a save must say which code the page showed and where (original, line)")
            }
            guard line == snippet.fenceLine, Self.sameCode(original, snippet.code) else {
                throw Refusal(status: 409, message: "\(chapter.path): the example changed on disk since the page was loaded (it was at line \(line)); copy your edit, reload the page and save again")
            }
            let text = try Self.replacingCode(of: snippet, in: chapter.source, with: edit.code)
            let url = workbook.chaptersDirectory.appendingPathComponent(edit.chapter)
            do {
                try ChapterFile.replace(url, path: chapter.path, expecting: Data(chapter.source.utf8), with: Data(text.utf8))
            } catch let problem as Problem where problem.message.contains("changed while it ran") {
                throw Refusal(status: 409, message: "\(chapter.path) changed on disk while saving; reload the page and save again")
            } catch {
                throw Refusal(status: 500, message: "\(chapter.path) could not be written: \(error)")
            }
        }
    }

    // MARK: Finding and editing the snippet

    private func locate(_ edit: Edit) throws -> (Chapter, Snippet) {
        // Only a plain file name in Chapters/: nothing a page sends can name another file.
        guard edit.chapter.hasSuffix(".md"), !edit.chapter.contains("/"), !edit.chapter.hasPrefix("."),
              (try? workbook.chapterPaths())?.contains("Chapters/" + edit.chapter) == true
        else {
            throw Refusal(status: 404, message: "no chapter \(edit.chapter) in Chapters/")
        }
        let parsed = workbook.parse("Chapters/" + edit.chapter)
        guard let chapter = parsed.chapter else {
            throw Refusal(status: 400, message: parsed.problems.map(\.description).joined(separator: "\n"))
        }
        guard chapter.snippets.indices.contains(edit.snippet) else {
            throw Refusal(status: 404, message: "\(chapter.path) has no snippet \(edit.snippet) (it has \(chapter.snippets.count))")
        }
        return (chapter, chapter.snippets[edit.snippet])
    }

    private func solution(after snippet: Snippet, in chapter: Chapter) -> Snippet? {
        guard snippet.attributes.role == .exercise, chapter.snippets.indices.contains(snippet.index + 1) else { return nil }
        let next = chapter.snippets[snippet.index + 1]
        return next.attributes.role == .solution ? next : nil
    }

    /// The chapter text with the code between `snippet`'s fences replaced by `code`.
    static func replacingCode(of snippet: Snippet, in source: String, with code: String) throws -> String {
        let codeLines = SourceLines(code.hasSuffix("\n") || code.isEmpty ? code : code + "\n").lines
        // A line indented by up to three spaces that starts with a fence could close the
        // block (CommonMark); indented further it is code.
        if let fence = codeLines.firstIndex(where: { line in
            let indent = line.prefix { $0 == " " }.count
            let rest = line.dropFirst(indent)
            return indent <= 3 && (rest.hasPrefix("```") || rest.hasPrefix("~~~"))
        }) {
            throw Refusal(status: 400, message: "line \(fence + 1) of the code starts with a fence (``` or ~~~), which would end the example's block; indent it by four spaces or change it")
        }
        // Every other line keeps its own line ending; the new code takes the file's usual one.
        let sourceLines = SourceLines(source)
        var written = zip(sourceLines.lines, sourceLines.terminators).map { $0 + $1 }
        // Lines are 1-based: the code is lines fenceLine + 1 ..< closingFenceLine.
        written.replaceSubrange(snippet.fenceLine..<(snippet.closingFenceLine - 1),
                                with: codeLines.map { $0 + sourceLines.usualTerminator })
        return written.joined()
    }

    /// Code compared as a page shows it: line endings and trailing newlines do not count.
    private static func sameCode(_ a: String, _ b: String) -> Bool {
        func normalized(_ text: String) -> String {
            var lines = SourceLines(text).lines
            while lines.last?.isEmpty == true { lines.removeLast() }
            return lines.joined(separator: "\n")
        }
        return normalized(a) == normalized(b)
    }
}
