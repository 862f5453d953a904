/// A chapter's text split into lines, with the fence facts the parser and the output
/// updater need. Lines are 1-based in every public use, as editors and diagnostics count.
///
/// A line ends at `\n`, `\r\n` or a lone `\r`, as in CommonMark and libcmark, so line
/// numbers agree with libcmark's whatever the file's line endings. (Swift's `Character`
/// treats `"\r\n"` as one character, so splitting at the character `"\n"` would not.)
struct SourceLines {
    /// The lines without their terminators.
    let lines: [String]
    /// Each line's terminator as written (`"\n"`, `"\r\n"`, `"\r"`, or `""` for a last
    /// line without one), indexed like ``lines``.
    let terminators: [String]

    init(_ text: String) {
        var lines: [String] = []
        var terminators: [String] = []
        let scalars = text.unicodeScalars
        var start = scalars.startIndex
        var index = start
        while index < scalars.endIndex {
            let scalar = scalars[index]
            guard scalar == "\n" || scalar == "\r" else {
                index = scalars.index(after: index)
                continue
            }
            lines.append(String(scalars[start..<index]))
            var next = scalars.index(after: index)
            if scalar == "\r", next < scalars.endIndex, scalars[next] == "\n" {
                next = scalars.index(after: next)
                terminators.append("\r\n")
            } else {
                terminators.append(String(scalar))
            }
            start = next
            index = next
        }
        // A final line ending ends the last line; it does not start an empty one.
        if start < scalars.endIndex {
            lines.append(String(scalars[start..<scalars.endIndex]))
            terminators.append("")
        }
        self.lines = lines
        self.terminators = terminators
    }

    /// The line ending most of the lines use (`"\n"` when there are none), for new lines.
    var usualTerminator: String {
        let counts = Dictionary(terminators.filter { !$0.isEmpty }.map { ($0, 1) }, uniquingKeysWith: +)
        // Ties go to `\n`, then to the shorter ending, so the choice never depends on hashing.
        return counts.max { ($0.value, $0.key == "\n" ? 1 : 0, -$0.key.utf8.count) < ($1.value, $1.key == "\n" ? 1 : 0, -$1.key.utf8.count) }?.key ?? "\n"
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
