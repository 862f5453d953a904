import Foundation

/// `workbook build`: runs every chapter (cached) and renders the book.
public enum BookBuilder {
    /// Renders every chapter into `output`. Problems are printed through `report` and shown
    /// on the chapter's page; a chapter that cannot be read at all is left out.
    /// - Returns: how many chapters have problems.
    @discardableResult
    public static func build(_ workbook: Workbook, into output: URL, report: (String) -> Void = { print($0) }) throws -> Int {
        let outcomes = workbook.run(try workbook.chapterPaths())
        var chapters: [Chapter] = []
        var runs: [String: ChapterRun] = [:]
        var withProblems = 0
        for outcome in outcomes {
            outcome.problems.forEach { report($0.description) }
            if !outcome.problems.isEmpty { withProblems += 1 }
            guard let chapter = outcome.parsed.chapter else { continue }
            chapters.append(chapter)
            if let run = outcome.run {
                runs[chapter.path] = run
            } else {
                runs[chapter.path] = ChapterRun(chapterPath: chapter.path, results: [], problems: outcome.parsed.problems)
            }
        }
        try BookRenderer(outputDirectory: output).render(chapters: chapters, runs: runs)
        return withProblems
    }
}
