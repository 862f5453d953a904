/// A chapter as parsed from its Markdown file: prose, Swift snippets with their
/// expected output, and data files to write into the chapter's working directory.
///
/// Snippet code and expected output are kept as raw text; escaping happens only when
/// HTML is written.
public struct Chapter: Sendable, Equatable {
    /// The path as the user and every diagnostic name it, e.g. `Chapters/01-first-program.md`.
    public var path: String
    /// The whole file, as read (always valid UTF-8; lines may end in LF, CRLF or CR).
    public var source: String
    /// The text of the first heading.
    public var title: String
    /// Everything in the document, in order.
    public var blocks: [ChapterBlock]
    /// Settings from a `<!-- workbook: … -->` comment in the chapter.
    public var settings: ChapterSettings

    public init(path: String, source: String, title: String, blocks: [ChapterBlock], settings: ChapterSettings) {
        self.path = path
        self.source = source
        self.title = title
        self.blocks = blocks
        self.settings = settings
    }

    /// The Swift snippets in order (every kind, including `ignore` and exercises).
    public var snippets: [Snippet] {
        blocks.compactMap { if case .snippet(let snippet) = $0 { snippet } else { nil } }
    }

    /// The data files the chapter writes before its program runs.
    public var dataFiles: [DataFile] {
        blocks.compactMap { if case .dataFile(let file) = $0 { file } else { nil } }
    }

    /// The file name without directories, e.g. `01-first-program.md`.
    public var fileName: String { path.split(separator: "/").last.map(String.init) ?? path }

    /// The file name without its `.md` extension, e.g. `01-first-program`: the page name.
    public var slug: String { fileName.hasSuffix(".md") ? String(fileName.dropLast(3)) : fileName }
}

/// Per-chapter settings, written in the chapter as an HTML comment such as
/// `<!-- workbook: timeout=120 -->`.
public struct ChapterSettings: Sendable, Equatable {
    /// Seconds the chapter program may run before it is killed.
    public var timeout: Double

    public static let defaultTimeout: Double = 60

    public init(timeout: Double = ChapterSettings.defaultTimeout) {
        self.timeout = timeout
    }
}

/// One top-level piece of a chapter.
public enum ChapterBlock: Sendable, Equatable {
    /// Anything that is not a snippet or data file: paragraphs, headings, lists, quotes,
    /// tables of plain code in other languages.
    case prose(Prose)
    /// A fenced `swift` block, with the `output` block that follows it, if any.
    case snippet(Snippet)
    /// A fenced block with a `file=` attribute that is written to the working directory.
    case dataFile(DataFile)
}

/// A block of ordinary Markdown.
public struct Prose: Sendable, Equatable {
    /// 1-based line where the block starts.
    public var line: Int
    /// The block's Markdown source.
    public var markdown: String
    /// The block rendered by libcmark; raw HTML in the chapter is suppressed, not passed through.
    public var html: String
    /// The block's text without markup, for the search index.
    public var plainText: String
    /// Set when the block is a heading.
    public var heading: Heading?

    public init(line: Int, markdown: String, html: String, plainText: String, heading: Heading? = nil) {
        self.line = line
        self.markdown = markdown
        self.html = html
        self.plainText = plainText
        self.heading = heading
    }
}

/// A Markdown heading.
public struct Heading: Sendable, Equatable {
    public var level: Int
    public var text: String
    public init(level: Int, text: String) {
        self.level = level
        self.text = text
    }
}

/// A fenced Swift block.
public struct Snippet: Sendable, Equatable {
    /// Position among the chapter's Swift snippets, from 0.
    public var index: Int
    /// 1-based line of the opening fence.
    public var fenceLine: Int
    /// 1-based line of the first line of code (fenceLine + 1).
    public var firstCodeLine: Int
    /// The code, exactly as written, ending with a newline unless empty.
    public var code: String
    public var attributes: SnippetAttributes
    /// The `output` block directly after the snippet, if any.
    public var expectedOutput: ExpectedOutput?

    public init(
        index: Int, fenceLine: Int, firstCodeLine: Int, code: String, attributes: SnippetAttributes,
        expectedOutput: ExpectedOutput? = nil
    ) {
        self.index = index
        self.fenceLine = fenceLine
        self.firstCodeLine = firstCodeLine
        self.code = code
        self.attributes = attributes
        self.expectedOutput = expectedOutput
    }
}

/// What the info string after ```` ```swift ```` says about a snippet.
public struct SnippetAttributes: Sendable, Equatable {
    public enum Mode: String, Sendable, Equatable {
        /// Compiled and run (the default).
        case run
        /// Compiled, not run (`no-run`).
        case noRun = "no-run"
        /// Neither compiled nor run; shown only (`ignore`).
        case ignore
        /// Must fail to compile; its diagnostics are its output (`compile-fail`).
        case compileFail = "compile-fail"
        /// Expected to crash; what it prints, including the trap message, is its output (`trap`).
        case trap
    }

    public enum Role: String, Sendable, Equatable {
        case plain
        /// The stub a reader starts from (`exercise`). Runs only when no solution follows it.
        case exercise
        /// The answer to the preceding exercise (`solution`); the build runs and verifies it.
        case solution
    }

    public var mode: Mode
    public var role: Role
    /// Runs but is not shown in the book (`hidden`).
    public var isHidden: Bool
    /// Set by `file=Name.swift`: the snippet is a separate source file of the chapter program.
    public var fileName: String?

    public init(mode: Mode = .run, role: Role = .plain, isHidden: Bool = false, fileName: String? = nil) {
        self.mode = mode
        self.role = role
        self.isHidden = isHidden
        self.fileName = fileName
    }
}

/// The fenced `output` block recorded after a snippet.
public struct ExpectedOutput: Sendable, Equatable {
    /// 1-based line of the opening fence.
    public var fenceLine: Int
    /// 1-based line of the closing fence.
    public var closingFenceLine: Int
    /// The recorded text, ending with a newline unless empty.
    public var text: String

    public init(fenceLine: Int, closingFenceLine: Int, text: String) {
        self.fenceLine = fenceLine
        self.closingFenceLine = closingFenceLine
        self.text = text
    }
}

/// A fenced block with `file=relative/path`, written into the working directory.
public struct DataFile: Sendable, Equatable {
    /// 1-based line of the opening fence.
    public var line: Int
    /// Relative path inside the chapter's working directory.
    public var path: String
    /// The info string's language word (`xml`, `json`, …), possibly empty.
    public var language: String
    public var contents: String

    public init(line: Int, path: String, language: String, contents: String) {
        self.line = line
        self.path = path
        self.language = language
        self.contents = contents
    }
}
