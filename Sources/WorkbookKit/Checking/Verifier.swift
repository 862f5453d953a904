/// A snippet whose output differs from its recording.
public struct Mismatch: Sendable, Equatable {
    public var file: String
    /// The line of the `output` block's opening fence, or of the snippet when it has none.
    public var line: Int
    public var snippetLine: Int
    /// A unified diff from the recording to the actual output.
    public var diff: String

    /// The report `verify` prints: a heading naming the place, then the diff.
    public var report: String {
        "\(file):\(line): output of the snippet at line \(snippetLine) differs from the recording\n\(diff)"
    }
}

/// Compares a chapter run with the chapter's `output` blocks.
public enum Verifier {
    /// The snippets whose output is checked: those that ran (or were expected to fail to
    /// compile or to trap) and are not exercise stubs replaced by a solution.
    static func checkedSnippets(_ chapter: Chapter, run: ChapterRun) -> [(Snippet, SnippetResult)] {
        let plans = ProgramAssembler.plans(for: chapter)
        return chapter.snippets.compactMap { snippet in
            switch plans[snippet.index] {
            case .skipped, .sourceFile, .compileOnly: return nil
            case .run, .trap, .compileFail: break
            }
            guard let result = run.result(for: snippet.index), result.outcome != .notRun else { return nil }
            return (snippet, result)
        }
    }

    /// Every snippet whose output does not match its recording.
    /// A snippet stopped for printing too much is not one: its problem shows the start of
    /// the difference (a full diff of 16 MiB would bury every other report).
    public static func mismatches(_ chapter: Chapter, run: ChapterRun) -> [Mismatch] {
        checkedSnippets(chapter, run: run).compactMap { snippet, result in
            if case .printedTooMuch = result.outcome { return nil }
            let matcher = OutputMatcher(expected: snippet.expectedOutput?.text ?? "", actual: result.output.text)
            guard !matcher.matches else { return nil }
            return Mismatch(
                file: chapter.path, line: snippet.expectedOutput?.fenceLine ?? snippet.fenceLine,
                snippetLine: snippet.fenceLine, diff: matcher.unifiedDiff())
        }
    }
}

/// Rewrites a chapter's `output` blocks with a run's output (`verify --update`), touching
/// nothing else in the file.
public enum OutputUpdater {
    /// The chapter's new text, or the same text when nothing changes.
    ///
    /// Every line keeps its own line ending (`\n`, `\r\n` or `\r`); new lines take the
    /// ending of the block they replace or follow.
    public static func update(_ chapter: Chapter, run: ChapterRun) -> String {
        let source = SourceLines(chapter.source)
        let lines = source.lines
        var edits: [(range: ClosedRange<Int>?, after: Int, replacement: [String])] = []
        for (snippet, result) in Verifier.checkedSnippets(chapter, run: run) {
            // Output of a snippet that crashed, exited or timed out unexpectedly is a problem
            // to fix, not output to accept.
            // A `compile-fail` snippet that compiled, or a `trap` snippet that did not trap,
            // did not do what it declares: keep its recorded output.
            switch (result.outcome, snippet.attributes.mode) {
            case (.completed, .run), (.failedToCompile, .compileFail), (.trapped, .trap): break
            default: continue
            }
            let matcher = OutputMatcher(expected: snippet.expectedOutput?.text ?? "", actual: result.output.text)
            let text = matcher.matches ? (snippet.expectedOutput?.text ?? "") : matcher.merged
            let content = OutputMatcher.lines(text)
            if let expected = snippet.expectedOutput {
                guard !matcher.matches || expected.text != text else { continue }
                let opening = lines[expected.fenceLine - 1]
                let fence = SourceLines.openingFence(opening)
                let needed = fenceLength(for: content)
                var block: [String]
                if let fence, fence.character == "`" || fence.character == "~", fence.length >= needed || fence.character == "~" {
                    block = [opening] + content + [lines[expected.closingFenceLine - 1]]
                } else {
                    let marker = String(repeating: "`", count: needed)
                    block = [marker + "output"] + content + [marker]
                }
                edits.append((expected.fenceLine...expected.closingFenceLine, 0, block))
            } else if !content.isEmpty {
                let marker = String(repeating: "`", count: fenceLength(for: content))
                edits.append((nil, snippet.closingFenceLine, ["", marker + "output"] + content + [marker]))
            }
        }
        guard !edits.isEmpty else { return chapter.source }
        var result = lines
        var endings = source.terminators
        // A block's own ending, or the file's usual one where the block ends the file without one.
        func ending(of line: Int) -> String {
            line >= 1 && line <= endings.count && !endings[line - 1].isEmpty ? endings[line - 1] : source.usualTerminator
        }
        // Bottom to top, so earlier line numbers stay valid.
        for edit in edits.sorted(by: { ($0.range?.lowerBound ?? $0.after) > ($1.range?.lowerBound ?? $1.after) }) {
            if let range = edit.range {
                var newEndings = Array(repeating: ending(of: range.lowerBound), count: edit.replacement.count)
                // The block's last line keeps the ending it had (none at the end of a file without one).
                newEndings[newEndings.count - 1] = endings[range.upperBound - 1]
                result.replaceSubrange((range.lowerBound - 1)...(range.upperBound - 1), with: edit.replacement)
                endings.replaceSubrange((range.lowerBound - 1)...(range.upperBound - 1), with: newEndings)
            } else {
                let at = min(edit.after, result.count)
                var newEndings = Array(repeating: ending(of: at), count: edit.replacement.count)
                if at >= 1 && endings[at - 1].isEmpty {
                    // Inserted after the file's unterminated last line: that line gets an
                    // ending and the new last line goes without, as the file did.
                    endings[at - 1] = source.usualTerminator
                    newEndings[newEndings.count - 1] = ""
                }
                result.insert(contentsOf: edit.replacement, at: at)
                endings.insert(contentsOf: newEndings, at: at)
            }
        }
        return zip(result, endings).map { $0 + $1 }.joined()
    }

    /// A backtick fence longer than any backtick run that starts a line of the content.
    static func fenceLength(for content: [String]) -> Int {
        let longest = content.map { line in
            line.drop { $0 == " " }.prefix { $0 == "`" }.count
        }.max() ?? 0
        return max(3, longest + 1)
    }
}

extension Snippet {
    /// 1-based line of the closing fence: one source line per line of code.
    public var closingFenceLine: Int {
        firstCodeLine + code.reduce(0) { $1 == "\n" ? $0 + 1 : $0 }
    }
}
