/// The reader's side of exercises: a copy of a chapter without solutions, and checking an
/// edited copy against the book's recorded output.
public enum Exercises {
    /// The chapter's text with every solution replaced by its exercise stub.
    ///
    /// The stub takes the solution's place (so the solution's `output` block, the output the
    /// book verified, now follows the stub), and the original stub block is removed.
    /// Chapters without exercises come back unchanged.
    public static func readerCopy(of chapter: Chapter) -> String {
        let source = SourceLines(chapter.source)
        let lines = source.lines
        let snippets = chapter.snippets
        var result = lines
        // Bottom to top, so earlier line numbers stay valid.
        for solution in snippets.reversed() where solution.attributes.role == .solution && solution.index > 0 {
            let exercise = snippets[solution.index - 1]
            guard exercise.attributes.role == .exercise else { continue }
            let stub = SourceLines(exercise.code).lines
            let opening = lines[solution.fenceLine - 1].replacingOccurrences(of: "solution", with: "exercise")
            result.replaceSubrange((solution.fenceLine - 1)...(solution.closingFenceLine - 1),
                                   with: [opening] + stub + [lines[solution.closingFenceLine - 1]])
            // The stub's own `output` block, if it has one, goes with it.
            var end = exercise.expectedOutput?.closingFenceLine ?? exercise.closingFenceLine
            if end < lines.count && lines[end].trimmingCharacters(in: .whitespaces).isEmpty { end += 1 }
            result.removeSubrange((exercise.fenceLine - 1)...(end - 1))
        }
        guard result != lines else { return chapter.source }
        return result.joined(separator: source.usualTerminator) + source.usualTerminator
    }

    /// How one exercise of an edited chapter did.
    public struct Report: Sendable {
        public var line: Int
        /// Whether the reader's output matches the book's.
        public var matches: Bool
        /// Why it did not run, when it did not.
        public var problem: String?
        /// The diff from the book's output to the reader's, when they differ.
        public var diff: String
    }

    /// One report per exercise that runs (a stub without a solution after it).
    public static func check(_ chapter: Chapter, run: ChapterRun) -> [Report] {
        let plans = ProgramAssembler.plans(for: chapter)
        return chapter.snippets.compactMap { snippet in
            guard snippet.attributes.role == .exercise, plans[snippet.index] == .run else { return nil }
            guard let result = run.result(for: snippet.index), result.outcome != .notRun else {
                return Report(line: snippet.fenceLine, matches: false, problem: "did not run (see the problems above)", diff: "")
            }
            let matcher = OutputMatcher(expected: snippet.expectedOutput?.text ?? "", actual: result.output.text)
            var problem: String?
            if result.outcome != .completed { problem = "did not finish: \(result.outcome.sentence)" }
            return Report(line: snippet.fenceLine, matches: matcher.matches && problem == nil, problem: problem, diff: matcher.unifiedDiff())
        }
    }
}
