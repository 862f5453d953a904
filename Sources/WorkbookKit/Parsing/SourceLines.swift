/// A chapter's text split into lines, with the fence facts the parser and the output
/// updater need. Lines are 1-based in every public use, as editors and diagnostics count.
struct SourceLines {
    /// The lines without their terminators (`\n` or `\r\n`).
    let lines: [String]

    init(_ text: String) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasSuffix("\r") ? String(line.dropLast()) : String(line)
        }
        // A final newline ends the last line; it does not start an empty one.
        if text.hasSuffix("\n") { lines.removeLast() }
        self.lines = lines
    }

    /// The line at a 1-based number, or nil past the end.
    subscript(line number: Int) -> String? {
        number >= 1 && number <= lines.count ? lines[number - 1] : nil
    }

    /// A code fence: the character, its length and its indentation.
    struct Fence: Equatable {
        var character: Character
        var length: Int
        var indent: Int
    }

    /// The opening fence on `line`, if the line starts one (up to three spaces of indentation).
    static func openingFence(_ line: String) -> Fence? {
        let indent = line.prefix { $0 == " " }.count
        guard indent <= 3 else { return nil }
        let rest = line.dropFirst(indent)
        guard let first = rest.first, first == "`" || first == "~" else { return nil }
        let length = rest.prefix { $0 == first }.count
        guard length >= 3 else { return nil }
        // A backtick fence's info string may not contain backticks (CommonMark 4.5).
        if first == "`" && rest.dropFirst(length).contains("`") { return nil }
        return Fence(character: first, length: length, indent: indent)
    }

    /// Whether `line` closes a block opened by `fence`.
    static func closes(_ line: String, _ fence: Fence) -> Bool {
        let indent = line.prefix { $0 == " " }.count
        guard indent <= 3 else { return false }
        let rest = line.dropFirst(indent)
        let length = rest.prefix { $0 == fence.character }.count
        guard length >= fence.length else { return false }
        return rest.dropFirst(length).allSatisfy { $0 == " " || $0 == "\t" }
    }
}
