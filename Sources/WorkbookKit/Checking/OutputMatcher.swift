/// Compares a snippet's recorded output with what it printed.
///
/// Rules, applied line by line:
/// - Trailing spaces and tabs at the end of a line are ignored, and so is a missing final
///   newline (a Markdown code block always ends its last line).
/// - `…` (U+2026) inside a line matches any text within that line, including none.
/// - A line that holds only `…` matches any number of lines, including none.
/// - `\u{HEX}` stands for one Unicode scalar: `\u{2026}` is a literal `…`, `\u{D}` a carriage
///   return (see ``OutputEscapes``). Output is recorded, and shown in diffs, in this form.
/// - Lines are compared scalar by scalar: text matches only exactly the same text.
///
/// The same alignment produces the unified diff that `verify` prints and the merged text
/// that `verify --update` writes, which keeps every `…` that still matches.
public struct OutputMatcher: Sendable {
    public static let ellipsis: Character = "…"

    public let expected: [String]
    public let actual: [String]
    /// The alignment of the two, from the first lines to the last.
    public let operations: [Operation]

    public enum Operation: Equatable, Sendable {
        /// An expected line (maybe with `…`) and the actual line it matches.
        case same(expected: String, actual: String)
        /// A `…` line and the actual lines it stands for.
        case wildcard(actual: [String])
        /// An expected line with no counterpart.
        case removed(String)
        /// An actual line with no counterpart.
        case added(String)
    }

    public init(expected: String, actual: String) {
        self.expected = Self.lines(expected)
        self.actual = Self.lines(actual)
        operations = Self.align(self.expected, self.actual)
    }

    /// Whether the output matches the recording.
    public var matches: Bool {
        operations.allSatisfy { if case .removed = $0 { false } else if case .added = $0 { false } else { true } }
    }

    /// The text `--update` records: the actual output, with the recorded line kept wherever
    /// it still matches (so wildcards survive).
    public var merged: String {
        var lines: [String] = []
        for operation in operations {
            switch operation {
            case .same(let expected, _): lines.append(expected)
            case .wildcard: lines.append(String(Self.ellipsis))
            case .removed: break
            case .added(let line): lines.append(OutputEscapes.escape(line))
            }
        }
        return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
    }

    /// A unified diff from the recorded output to the actual output, with `context` lines
    /// around each change; empty when they match. Recorded lines are shown as written,
    /// actual lines as `--update` would record them (escaped), so a literal `…` or a
    /// carriage return is visible as such.
    public func unifiedDiff(context: Int = 3) -> String {
        guard !matches else { return "" }
        // Rows: (mark, text, line in expected, line in actual), lines counted from 1.
        var rows: [(mark: Character, text: String, old: Int, new: Int)] = []
        var old = 1
        var new = 1
        for operation in operations {
            switch operation {
            case .same(_, let actual):
                rows.append((" ", OutputEscapes.escape(actual), old, new)); old += 1; new += 1
            case .wildcard(let lines):
                rows.append((" ", String(Self.ellipsis), old, new)); old += 1; new += lines.count
            case .removed(let line):
                rows.append(("-", line, old, new)); old += 1
            case .added(let line):
                rows.append(("+", OutputEscapes.escape(line), old, new)); new += 1
            }
        }
        var output = "--- expected\n+++ actual\n"
        var index = 0
        while index < rows.count {
            guard rows[index].mark != " " else { index += 1; continue }
            var start = max(0, index - context)
            var end = index
            // Extend the hunk while changes are within 2 × context lines of each other.
            while true {
                var next = end + 1
                while next < rows.count && rows[next].mark == " " { next += 1 }
                if next < rows.count && next - end <= 2 * context { end = next } else { break }
            }
            let stop = min(rows.count, end + context + 1)
            if start > 0 && rows[start - 1].mark != " " { start -= 1 }
            let slice = rows[start..<stop]
            let oldCount = slice.filter { $0.mark != "+" }.count
            let newCount = slice.filter { $0.mark != "-" }.count
            let oldStart = oldCount == 0 ? slice.first!.old - 1 : slice.first { $0.mark != "+" }!.old
            let newStart = newCount == 0 ? slice.first!.new - 1 : slice.first { $0.mark != "-" }!.new
            output += "@@ -\(oldStart),\(oldCount) +\(newStart),\(newCount) @@\n"
            for row in slice { output += "\(row.mark)\(row.text)\n" }
            index = stop
        }
        return output
    }

    /// The start of the diff between a recording and an output too long to align: the
    /// recording against the output's first lines, at most `limit` lines of diff, each cut
    /// at 100 characters.
    public static func briefDiff(expected: String, actual: String, limit: Int = 12) -> String {
        let recorded = lines(expected)
        var head: [Substring] = []
        for line in actual.split(separator: "\n", maxSplits: recorded.count + limit, omittingEmptySubsequences: false) {
            if head.count == recorded.count + limit { break }
            head.append(line)
        }
        let diff = OutputMatcher(expected: expected, actual: head.joined(separator: "\n"))
            .unifiedDiff().split(separator: "\n")
        let shown = diff.prefix(limit).map { $0.count > 100 ? String($0.prefix(100)) + " [cut]" : String($0) }
        return shown.joined(separator: "\n") + (diff.count > limit ? "\n[…]\n" : "\n")
    }

    // MARK: Lines

    /// Lines without terminators or trailing blanks; a final newline does not add a line.
    /// Lines end at `\n` (split by scalar: `"\r\n"` is one `Character`); the `\r` of a
    /// `\r\n` counts as a trailing blank.
    static func lines(_ text: String) -> [String] {
        var lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            var line = Substring(line)
            while let last = line.unicodeScalars.last, last == " " || last == "\t" || last == "\r" {
                line = Substring(line.unicodeScalars.dropLast())
            }
            return String(line)
        }
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    static func isWildcardLine(_ line: String) -> Bool {
        line.trimmingCharacters(in: .whitespaces) == String(ellipsis)
    }

    /// Whether `line` matches `pattern`, where each `…` matches any run of characters.
    static func lineMatches(_ pattern: String, _ line: String) -> Bool {
        lineMatches(OutputEscapes.pattern(pattern), Array(line.unicodeScalars))
    }

    /// Whether `characters` match the literal runs `parts` with a wildcard between each two.
    static func lineMatches(_ parts: [[Unicode.Scalar]], _ characters: [Unicode.Scalar]) -> Bool {
        guard parts.count > 1 else { return parts[0] == characters }
        guard characters.starts(with: parts[0]) else { return false }
        var position = parts[0].count
        for (offset, part) in parts.enumerated().dropFirst() {
            if offset == parts.count - 1 {
                return characters.count - position >= part.count && Array(characters.suffix(part.count)) == part
            }
            guard !part.isEmpty else { continue }
            // Leftmost occurrence is always safe for glob matching with one wildcard kind.
            var found: Int?
            var at = position
            while at + part.count <= characters.count {
                if Array(characters[at..<at + part.count]) == part { found = at; break }
                at += 1
            }
            guard let found else { return false }
            position = found + part.count
        }
        return true
    }

    // MARK: Alignment

    /// Least-cost alignment: a matching line is free, a line absorbed by a `…` line costs 1
    /// (so wildcards absorb no more than they must), each removed or added line costs 1000.
    /// Ties prefer matches, then removals before additions (diff order).
    static func align(_ expected: [String], _ actual: [String]) -> [Operation] {
        let n = expected.count
        let m = actual.count
        // Very large outputs: compare without the quadratic table.
        guard n * m <= 16_000_000, n + m < 1_000_000 else {
            if expected.count == actual.count && zip(expected, actual).allSatisfy({ lineMatches($0, $1) }) {
                return zip(expected, actual).map { .same(expected: $0, actual: $1) }
            }
            return expected.map { .removed($0) } + actual.map { .added($0) }
        }
        let width = m + 1
        let change: Int32 = 1000
        var cost = [Int32](repeating: 0, count: (n + 1) * width)
        let wildcard = expected.map(isWildcardLine)
        // Each line parsed once, not once per comparison.
        let patterns = expected.map(OutputEscapes.pattern)
        let lines = actual.map { Array($0.unicodeScalars) }
        func matchesAt(_ i: Int, _ j: Int) -> Bool { Self.lineMatches(patterns[i], lines[j]) }
        for i in stride(from: n, through: 0, by: -1) {
            for j in stride(from: m, through: 0, by: -1) {
                if i == n && j == m { continue }
                var best = Int32.max
                if i < n && wildcard[i] {
                    best = cost[(i + 1) * width + j]
                    if j < m { best = min(best, 1 + cost[i * width + j + 1]) }
                } else if i < n && j < m && matchesAt(i, j) {
                    best = cost[(i + 1) * width + j + 1]
                }
                if i < n { best = min(best, change + cost[(i + 1) * width + j]) }
                if j < m { best = min(best, change + cost[i * width + j + 1]) }
                cost[i * width + j] = best
            }
        }
        var operations: [Operation] = []
        var i = 0
        var j = 0
        var eaten: [String]? = nil
        while i < n || j < m {
            let here = cost[i * width + j]
            if i < n && wildcard[i] {
                if j < m && 1 + cost[i * width + j + 1] == here {
                    eaten = (eaten ?? []) + [actual[j]]
                    j += 1
                    continue
                }
                if cost[(i + 1) * width + j] == here {
                    operations.append(.wildcard(actual: eaten ?? []))
                    eaten = nil
                    i += 1
                    continue
                }
            } else if i < n && j < m && matchesAt(i, j) && cost[(i + 1) * width + j + 1] == here {
                operations.append(.same(expected: expected[i], actual: actual[j]))
                i += 1
                j += 1
                continue
            }
            if i < n && change + cost[(i + 1) * width + j] == here {
                if eaten != nil { operations.append(.wildcard(actual: eaten!)); eaten = nil }
                operations.append(.removed(expected[i]))
                i += 1
            } else {
                operations.append(.added(actual[j]))
                j += 1
            }
        }
        if let eaten { operations.append(.wildcard(actual: eaten)) }
        return operations
    }
}

import Foundation
