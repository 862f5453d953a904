import CCMark
import Foundation

/// The outcome of parsing one chapter file: the chapter, when it could be read at all,
/// and every problem found. A chapter with problems is rendered but not run.
public struct ParsedChapter: Sendable {
    public var chapter: Chapter?
    public var problems: [Problem]

    public init(chapter: Chapter?, problems: [Problem]) {
        self.chapter = chapter
        self.problems = problems
    }
}

/// Reads a chapter's CommonMark with libcmark and classifies its top-level blocks.
///
/// libcmark finds the blocks and their lines; this type reads the info strings, pairs
/// `output` blocks with the snippet before them, pairs exercises with solutions and checks
/// what libcmark accepts silently (an unclosed fence runs to the end of the document).
public enum ChapterParser {
    /// Parses a chapter from its bytes. `path` is how diagnostics name the file.
    public static func parse(path: String, data: Data) -> ParsedChapter {
        guard let text = String(validating: data, as: UTF8.self) else {
            let line = firstInvalidUTF8Line(data)
            return ParsedChapter(chapter: nil, problems: [
                Problem(file: path, line: line, message: "the chapter is not valid UTF-8 (first bad byte on this line)"),
            ])
        }
        return parse(path: path, text: text)
    }

    /// Parses a chapter from its text.
    public static func parse(path: String, text: String) -> ParsedChapter {
        var state = ParserState(path: path, source: text)
        state.run()
        let title = state.title ?? ""
        if state.title == nil {
            state.problem(1, "the chapter has no heading; its first heading is its title")
        }
        let chapter = Chapter(path: path, source: text, title: title, blocks: state.blocks, settings: state.settings)
        return ParsedChapter(chapter: chapter, problems: state.problems)
    }

    /// The 1-based line holding the first byte that is not valid UTF-8.
    static func firstInvalidUTF8Line(_ data: Data) -> Int {
        let bytes = [UInt8](data)
        var line = 1
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            let length: Int
            switch byte {
            case 0x00...0x7F: length = 1
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: return line
            }
            guard index + length <= bytes.count,
                  String(validating: bytes[index..<index + length], as: UTF8.self) != nil
            else { return line }
            // A line ends at LF, CRLF or a lone CR, as libcmark counts.
            if byte == 0x0A || (byte == 0x0D && (index + 1 >= bytes.count || bytes[index + 1] != 0x0A)) { line += 1 }
            index += length
        }
        return line
    }
}

/// The walk over one document; collects blocks and problems.
private struct ParserState {
    let path: String
    let source: String
    let lines: SourceLines
    var blocks: [ChapterBlock] = []
    var problems: [Problem] = []
    var settings = ChapterSettings()
    var title: String?
    private var snippetCount = 0
    /// Names used by `file=` so far, with the line that first used each.
    private var fileNames: [String: Int] = [:]

    init(path: String, source: String) {
        self.path = path
        self.source = source
        self.lines = SourceLines(source)
    }

    mutating func problem(_ line: Int, _ message: String) {
        problems.append(Problem(file: path, line: line, message: message))
    }

    mutating func run() {
        // libcmark takes LF, CRLF and CR as line endings and gives literals with LF only.
        // By length, not up to the first NUL: libcmark reads a NUL as U+FFFD, and nothing
        // after one may be skipped.
        var bytes = Array(source.utf8)
        let count = bytes.count
        bytes.append(0)
        guard let root = bytes.withUnsafeBufferPointer({ buffer in
            buffer.withMemoryRebound(to: CChar.self) { cmark_parse_document($0.baseAddress, count, CMARK_OPT_DEFAULT) }
        }) else {
            problem(1, "libcmark could not parse the chapter")
            return
        }
        defer { cmark_node_free(root) }
        var node = cmark_node_first_child(root)
        while let current = node {
            visit(current)
            node = cmark_node_next(current)
        }
    }

    private mutating func visit(_ node: OpaquePointer) {
        let start = Int(cmark_node_get_start_line(node))
        let end = Int(cmark_node_get_end_line(node))
        let type = cmark_node_get_type(node)
        if type == CMARK_NODE_CODE_BLOCK, let fence = lines[line: start].flatMap(SourceLines.openingFence) {
            fencedBlock(node, start: start, end: end, fence: fence)
            return
        }
        if type == CMARK_NODE_CODE_BLOCK {
            // Indented code runs on across blank lines, so look at every line of it.
            for line in start...max(start, end) { reportIndentedFence(at: line) }
        }
        if type == CMARK_NODE_HTML_BLOCK, let literal = cmark_node_get_literal(node).map({ String(cString: $0) }),
           let directive = Self.settingsDirective(literal) {
            applySettings(directive, line: start)
            return
        }
        reportNestedFences(in: node)
        var heading: Heading?
        if type == CMARK_NODE_HEADING {
            let text = Self.plainText(node)
            heading = Heading(level: Int(cmark_node_get_heading_level(node)), text: text)
            if title == nil { title = text }
        }
        let markdown = (start...max(start, end)).compactMap { lines[line: $0] }.joined(separator: "\n") + "\n"
        blocks.append(.prose(Prose(
            line: start, markdown: markdown, html: Self.html(node), plainText: Self.plainText(node), heading: heading)))
    }

    /// Swift and `output` fences inside block quotes or list items are not part of the
    /// program; say so rather than silently show them unrun and unchecked. Images from the
    /// network are refused too.
    private mutating func reportNestedFences(in node: OpaquePointer) {
        var child = cmark_node_first_child(node)
        while let current = child {
            if cmark_node_get_type(current) == CMARK_NODE_CODE_BLOCK {
                let info = cmark_node_get_fence_info(current).map { String(cString: $0) } ?? ""
                let language = info.split(whereSeparator: \.isWhitespace).first.map(String.init) ?? ""
                if language == "swift" || language == "output" {
                    problem(Int(cmark_node_get_start_line(current)),
                            "a ```\(language) block inside a quote or list is not run or checked; move it to the top level of the chapter")
                }
            }
            if cmark_node_get_type(current) == CMARK_NODE_IMAGE,
               let url = cmark_node_get_url(current).map({ String(cString: $0) }),
               url.lowercased().hasPrefix("http:") || url.lowercased().hasPrefix("https:") || url.hasPrefix("//") {
                problem(Int(cmark_node_get_start_line(current)),
                        "the image \(url) would be loaded from the network; the book loads nothing from the network, so keep images in the repository")
            }
            reportNestedFences(in: current)
            child = cmark_node_next(current)
        }
    }

    /// A Swift or `output` fence indented by a tab (or four spaces) is an indented code
    /// block to CommonMark: shown, with its fences, but neither run nor checked. Say so.
    private mutating func reportIndentedFence(at line: Int) {
        guard let text = lines[line: line] else { return }
        let indentation = text.prefix { $0 == " " || $0 == "\t" }
        guard let fence = SourceLines.openingFence(String(text.dropFirst(indentation.count))) else { return }
        let info = text.dropFirst(indentation.count + fence.length)
        let language = info.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init) ?? ""
        guard language == "swift" || language == "output" else { return }
        let how = indentation.contains("\t") ? "with a tab" : "by four spaces or more"
        problem(line, "this ```\(language) fence is indented \(how), so CommonMark reads it as an indented code block: it is shown but not run or checked; start the fence at the beginning of the line")
    }

    // MARK: Fenced blocks

    private mutating func fencedBlock(_ node: OpaquePointer, start: Int, end: Int, fence: SourceLines.Fence) {
        let closed = end > start && lines[line: end].map { SourceLines.closes($0, fence) } == true
        if !closed {
            problem(start, "this code fence is never closed; add a line with \(String(repeating: fence.character, count: fence.length)) after its last line")
            return
        }
        let info = cmark_node_get_fence_info(node).map { String(cString: $0) } ?? ""
        let literal = cmark_node_get_literal(node).map { String(cString: $0) } ?? ""
        let words = info.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        let language = words.first.map { $0.hasPrefix("file=") ? "" : $0 } ?? ""
        let attributes = language.isEmpty ? words : Array(words.dropFirst())
        switch language {
        case "swift":
            swiftSnippet(start: start, code: literal, attributes: attributes)
        case "output":
            outputBlock(start: start, end: end, text: literal, attributes: attributes)
        default:
            if let fileAttribute = attributes.first(where: { $0.hasPrefix("file=") }) {
                dataFile(start: start, language: language, attribute: fileAttribute, others: attributes, contents: literal)
            } else {
                let markdown = (start...end).compactMap { lines[line: $0] }.joined(separator: "\n") + "\n"
                blocks.append(.prose(Prose(
                    line: start, markdown: markdown, html: Self.html(node), plainText: literal, heading: nil)))
            }
        }
    }

    private mutating func swiftSnippet(start: Int, code: String, attributes words: [String]) {
        var attributes = SnippetAttributes()
        var modeWord: String?
        for word in words {
            switch word {
            case "hidden":
                attributes.isHidden = true
            case "no-run", "ignore", "compile-fail", "trap":
                if let modeWord, modeWord != word {
                    problem(start, "`\(modeWord)` and `\(word)` cannot be combined")
                }
                modeWord = word
                attributes.mode = SnippetAttributes.Mode(rawValue: word)!
            case "exercise", "solution":
                if attributes.role != .plain && attributes.role.rawValue != word {
                    problem(start, "`exercise` and `solution` cannot be combined")
                }
                attributes.role = SnippetAttributes.Role(rawValue: word)!
            default:
                if word.hasPrefix("file=") {
                    let name = String(word.dropFirst(5))
                    if let message = Self.swiftFileNameProblem(name) {
                        problem(start, message)
                    } else if let first = fileNames[name] {
                        problem(start, "duplicate file name `\(name)` (already used on line \(first))")
                    } else {
                        fileNames[name] = start
                        attributes.fileName = name
                    }
                } else {
                    problem(start, "unknown snippet attribute `\(word)`; known: hidden, no-run, ignore, compile-fail, trap, file=Name.swift, exercise, solution")
                }
            }
        }
        if attributes.fileName != nil && !(attributes.mode == .run || attributes.mode == .ignore) {
            problem(start, "a `file=` snippet is a whole source file; it cannot also be `\(attributes.mode.rawValue)`")
        }
        if attributes.fileName != nil && attributes.role != .plain {
            problem(start, "exercises and solutions are part of the chapter's main program; remove `file=`")
        }
        if attributes.role != .plain && attributes.mode != .run {
            problem(start, "an `\(attributes.role.rawValue)` snippet runs as written; `\(attributes.mode.rawValue)` is not supported on it")
        }
        if attributes.role == .solution {
            let previous = blocks.last { if case .snippet = $0 { true } else { false } }
            let follows: Bool
            if case .snippet(let snippet)? = previous, snippet.attributes.role == .exercise {
                follows = true
            } else {
                follows = false
            }
            if !follows { problem(start, "a `solution` snippet must follow an `exercise` snippet") }
        }
        let snippet = Snippet(index: snippetCount, fenceLine: start, firstCodeLine: start + 1, code: code, attributes: attributes)
        snippetCount += 1
        blocks.append(.snippet(snippet))
    }

    private mutating func outputBlock(start: Int, end: Int, text: String, attributes: [String]) {
        if !attributes.isEmpty {
            problem(start, "an `output` block takes no attributes (found `\(attributes.joined(separator: " "))`)")
        }
        guard case .snippet(var snippet)? = blocks.last else {
            problem(start, "this `output` block does not follow a swift snippet; put it directly after the snippet whose output it records")
            return
        }
        if snippet.expectedOutput != nil {
            problem(start, "the snippet on line \(snippet.fenceLine) already has an `output` block")
            return
        }
        snippet.expectedOutput = ExpectedOutput(fenceLine: start, closingFenceLine: end, text: text)
        blocks[blocks.count - 1] = .snippet(snippet)
    }

    private mutating func dataFile(start: Int, language: String, attribute: String, others: [String], contents: String) {
        for word in others where word != attribute {
            problem(start, "unknown attribute `\(word)` on a data file; only `file=relative/path` is supported")
        }
        let raw = String(attribute.dropFirst(5))
        guard let path = Self.normalizedRelativePath(raw) else {
            problem(start, "the file path `\(raw)` must stay inside the chapter's working directory (a relative path without `..`)")
            return
        }
        if let first = fileNames[path] {
            problem(start, "duplicate file name `\(path)` (already used on line \(first))")
            return
        }
        if path == ".tmp" || path.hasPrefix(".tmp/") {
            problem(start, "the file path `\(path)` is reserved: `.tmp` is the chapter program's temporary directory")
            return
        }
        // `a` and `a/b` cannot both exist: one would have to be a file and a directory. The
        // earliest such file is named, so the message never depends on dictionary order.
        if let (other, line) = fileNames.filter({ path.hasPrefix($0.key + "/") || $0.key.hasPrefix(path + "/") })
            .min(by: { ($0.value, $0.key) < ($1.value, $1.key) })
        {
            problem(start, "the file path `\(path)` conflicts with `\(other)` on line \(line): one would have to be a directory")
            return
        }
        fileNames[path] = start
        blocks.append(.dataFile(DataFile(line: start, path: path, language: language, contents: contents)))
    }

    // MARK: Settings

    /// The text after `workbook:` in an HTML comment such as `<!-- workbook: timeout=120 -->`.
    static func settingsDirective(_ html: String) -> String? {
        let trimmed = html.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix("<!--"), trimmed.hasSuffix("-->") else { return nil }
        let inner = trimmed.dropFirst(4).dropLast(3).trimmingCharacters(in: .whitespacesAndNewlines)
        guard inner.hasPrefix("workbook:") else { return nil }
        return String(inner.dropFirst("workbook:".count))
    }

    private mutating func applySettings(_ directive: String, line: Int) {
        for word in directive.split(whereSeparator: \.isWhitespace) {
            let parts = word.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2, parts[0] == "timeout" {
                // No "no limit" value: a chapter that never ends would hang `verify` for good.
                if let seconds = Double(parts[1]), seconds > 0, seconds.isFinite {
                    settings.timeout = seconds
                } else {
                    problem(line, "`\(word)`: the time limit must be a positive number of seconds, such as timeout=120 (there is no way to turn it off)")
                }
            } else {
                problem(line, "unknown workbook setting `\(word)`; known: timeout=SECONDS")
            }
        }
    }

    // MARK: Helpers

    /// Why `name` cannot be a `file=` Swift source name, or nil when it can.
    static func swiftFileNameProblem(_ name: String) -> String? {
        if !name.hasSuffix(".swift") || name.count <= 6 {
            return "`file=\(name)`: a Swift snippet's file name must end in .swift"
        }
        if name.contains("/") || name.contains("\\") || name.hasPrefix(".") {
            return "`file=\(name)`: a Swift snippet's file name is a plain name without directories"
        }
        if name == "main.swift" || name.hasPrefix("_Workbook") {
            return "`file=\(name)`: this name is reserved for the program the workbook assembles"
        }
        return nil
    }

    /// `raw` without `.` components, or nil when it is absolute, empty or climbs out with `..`.
    static func normalizedRelativePath(_ raw: String) -> String? {
        guard !raw.isEmpty, !raw.hasPrefix("/"), !raw.hasPrefix("~"), !raw.contains("\\"), !raw.contains("\0") else { return nil }
        var parts: [Substring] = []
        for component in raw.split(separator: "/", omittingEmptySubsequences: true) {
            if component == "." { continue }
            if component == ".." { return nil }
            parts.append(component)
        }
        return parts.isEmpty ? nil : parts.joined(separator: "/")
    }

    /// The node rendered by libcmark, which escapes text and omits raw HTML.
    static func html(_ node: OpaquePointer) -> String {
        guard let rendered = cmark_render_html(node, CMARK_OPT_DEFAULT) else { return "" }
        defer { free(rendered) }
        return String(cString: rendered)
    }

    /// The node's text without markup.
    static func plainText(_ node: OpaquePointer) -> String {
        guard let iterator = cmark_iter_new(node) else { return "" }
        defer { cmark_iter_free(iterator) }
        var text = ""
        while true {
            let event = cmark_iter_next(iterator)
            if event == CMARK_EVENT_DONE { break }
            guard event == CMARK_EVENT_ENTER, let current = cmark_iter_get_node(iterator) else { continue }
            let type = cmark_node_get_type(current)
            if type == CMARK_NODE_TEXT || type == CMARK_NODE_CODE || type == CMARK_NODE_CODE_BLOCK {
                text += cmark_node_get_literal(current).map { String(cString: $0) } ?? ""
            } else if type == CMARK_NODE_SOFTBREAK || type == CMARK_NODE_LINEBREAK {
                text += " "
            } else if type == CMARK_NODE_PARAGRAPH || type == CMARK_NODE_ITEM, !text.isEmpty, text.last != " " {
                text += " "
            }
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
