/// What one snippet printed, in the order a terminal would show it, with each piece
/// tagged by the stream it came from.
public struct SnippetOutput: Sendable, Equatable, Codable {
    public enum Stream: String, Sendable, Codable {
        case stdout
        case stderr
    }

    public struct Segment: Sendable, Equatable, Codable {
        public var stream: Stream
        public var text: String
        public init(stream: Stream, text: String) {
            self.stream = stream
            self.text = text
        }
    }

    public var segments: [Segment]

    public init(segments: [Segment] = []) { self.segments = segments }

    /// Both streams interleaved, as a terminal shows them: what `output` blocks record.
    public var text: String { segments.map(\.text).joined() }

    /// Appends text, merging it with the last segment when it is from the same stream.
    public mutating func append(_ text: String, from stream: Stream) {
        guard !text.isEmpty else { return }
        if let last = segments.last, last.stream == stream {
            segments[segments.count - 1].text += text
        } else {
            segments.append(Segment(stream: stream, text: text))
        }
    }
}

/// How a snippet ended.
public enum SnippetOutcome: Sendable, Equatable, Codable {
    /// Ran to its end.
    case completed
    /// Not run: `no-run`, `ignore`, an exercise with a solution, or a snippet after a
    /// failure that stopped the program.
    case notRun
    /// The program died from a signal while this snippet ran (a trap, `fatalError`, …).
    case trapped(signal: Int32)
    /// The program exited while this snippet ran (for example by calling `exit`).
    case exited(status: Int32)
    /// The chapter's time limit ran out while this snippet ran.
    case timedOut(seconds: Double)
    /// The program printed more than the capture limit (in bytes) while this snippet ran,
    /// and was stopped there.
    case printedTooMuch(limit: Int)
    /// A `compile-fail` snippet did not compile, as intended; its output is the diagnostics.
    case failedToCompile
}

extension SnippetOutcome {
    /// What happened, as the end of a sentence: "it ran out of time (60 s)".
    public var sentence: String {
        switch self {
        case .completed: "it ran to its end"
        case .notRun: "it did not run"
        case .trapped(let signal): "it crashed (signal \(signal))"
        case .exited(let status): "it exited with status \(status)"
        case .timedOut(let seconds): "it ran out of time (\(seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)) s)"
        case .printedTooMuch(let limit): "it printed more than \(limit >> 20) MiB and was stopped"
        case .failedToCompile: "it did not compile"
        }
    }
}

/// The result of running one snippet.
public struct SnippetResult: Sendable, Equatable, Codable {
    /// The snippet's ``Snippet/index``.
    public var index: Int
    public var output: SnippetOutput
    public var outcome: SnippetOutcome
    /// Where a crash happened, as `Chapters/NN-slug.md:LINE:COLUMN`, when the backtrace
    /// names a line of the chapter.
    public var trapLocation: String?

    public init(index: Int, output: SnippetOutput, outcome: SnippetOutcome, trapLocation: String? = nil) {
        self.index = index
        self.output = output
        self.outcome = outcome
        self.trapLocation = trapLocation
    }
}

/// A problem found in a chapter, always with the place it refers to.
public struct Problem: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    /// The chapter path as the user names it, e.g. `Chapters/01-first-program.md`.
    public var file: String
    /// 1-based line.
    public var line: Int
    /// 1-based column, when known.
    public var column: Int?
    public var message: String
    /// Set when the problem lies with the machine (the compiler ran out of time or was
    /// killed, a file could not be written), not with the chapter: such runs are not cached.
    public var isTransient: Bool?

    public init(file: String, line: Int, column: Int? = nil, message: String, isTransient: Bool = false) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
        self.isTransient = isTransient ? true : nil
    }

    /// `file:line[:column]: message`, the form editors and terminals turn into links.
    public var description: String {
        "\(file):\(line)\(column.map { ":\($0)" } ?? ""): \(message)"
    }
}

/// Everything one run of a chapter produced.
public struct ChapterRun: Sendable, Equatable, Codable {
    public var chapterPath: String
    /// One result per Swift snippet, indexed like ``Chapter/snippets``.
    public var results: [SnippetResult]
    /// Problems that kept the chapter from running as written (compile errors, an
    /// unexpected trap, a timeout). Output mismatches are not problems; verification
    /// reports them separately.
    public var problems: [Problem]

    public init(chapterPath: String, results: [SnippetResult], problems: [Problem]) {
        self.chapterPath = chapterPath
        self.results = results
        self.problems = problems
    }

    /// The result for the snippet at `index`, if it ran or was recorded.
    public func result(for index: Int) -> SnippetResult? {
        results.first { $0.index == index }
    }
}
