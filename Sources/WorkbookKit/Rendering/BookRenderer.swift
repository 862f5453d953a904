import Foundation

/// Writes the book as a static site that works from `file://` and loads nothing from the network.
///
/// Output is deterministic (chapter order as given, no timestamps), so rendering the same
/// chapters and runs twice produces identical files.
public struct BookRenderer {
    /// Where `index.html`, the chapter pages and `assets/` go.
    public let outputDirectory: URL
    /// Shown in the top bar and as the index page's heading.
    public var bookTitle = "Core Data on Linux: an executable book"

    /// Creates a renderer writing into `outputDirectory` (created when missing).
    public init(outputDirectory: URL) {
        self.outputDirectory = outputDirectory
    }

    /// Writes index.html, one page per chapter, assets and the search index.
    ///
    /// `runs` is keyed by ``Chapter/path``; a chapter without a run shows its recorded output.
    public func render(chapters: [Chapter], runs: [String: ChapterRun]) throws {
        let pages = chapters.map { ChapterPage(chapter: $0, run: runs[$0.path]) }
        var seen: [String: String] = [:]
        for (chapter, page) in zip(chapters, pages) {
            if let other = seen[page.fileName] {
                throw RenderError.duplicatePage(page.fileName, first: other, second: chapter.path)
            }
            seen[page.fileName] = chapter.path
        }
        let fileManager = FileManager.default
        let assets = outputDirectory.appendingPathComponent("assets", isDirectory: true)
        do {
            try fileManager.createDirectory(at: assets, withIntermediateDirectories: true)
        } catch {
            throw RenderError.cannotWrite(assets.path, reason: error.localizedDescription)
        }
        for (position, page) in pages.enumerated() {
            let previous = position > 0 ? pages[position - 1] : nil
            let next = position + 1 < pages.count ? pages[position + 1] : nil
            let sidebar = Sidebar.html(pages: pages, current: page.fileName)
            try write(chapterPage(page, previous: previous, next: next, sidebar: sidebar).rendered, to: page.fileName)
        }
        try write(indexPage(pages).rendered, to: "index.html")
        try write(BookStylesheet.css + "\n", to: "assets/book.css")
        try write(BookScript.javaScript + "\n", to: "assets/book.js")
        try write(SearchIndex.script(pages: pages), to: "assets/search-index.js")
        removeStalePages(keeping: Set(pages.map(\.fileName)))
    }

    /// Deletes chapter pages (`NN-….html`) left from chapters that were renamed or removed,
    /// so the book never links a reader to a page whose chapter is gone. Other files stay.
    private func removeStalePages(keeping current: Set<String>) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: outputDirectory.path)) ?? []
        for name in names where name.hasSuffix(".html") && !current.contains(name) {
            let prefix = name.prefix(3)
            guard prefix.count == 3, prefix.prefix(2).allSatisfy(\.isNumber), prefix.last == "-" else { continue }
            try? FileManager.default.removeItem(at: outputDirectory.appendingPathComponent(name))
        }
    }

    /// The full HTML of a chapter page.
    func chapterPage(_ page: ChapterPage, previous: ChapterPage?, next: ChapterPage?, sidebar: HTML = .empty) -> HTML {
        let pager = PageLayout.pager(
            previous: previous.map { ($0.fileName, $0.title) },
            next: next.map { ($0.fileName, $0.title) })
        return PageLayout.page(
            title: "\(page.title) · \(bookTitle)", bookTitle: bookTitle, sidebar: sidebar,
            main: "<article data-chapter=\"\(page.chapterFileName)\">\n\(page.article)</article>\n", pager: pager)
    }

    /// The full HTML of the index page.
    func indexPage(_ pages: [ChapterPage]) -> HTML {
        let pager = PageLayout.pager(previous: nil, next: pages.first.map { ($0.fileName, $0.title) })
        return PageLayout.page(
            title: bookTitle, bookTitle: bookTitle, sidebar: Sidebar.html(pages: pages, current: nil),
            main: IndexPage.main(bookTitle: bookTitle, pages: pages), pager: pager)
    }

    private func write(_ text: String, to relativePath: String) throws {
        let url = outputDirectory.appendingPathComponent(relativePath)
        do {
            try Data(text.utf8).write(to: url, options: .atomic)
        } catch {
            throw RenderError.cannotWrite(url.path, reason: error.localizedDescription)
        }
    }
}

/// Why the book could not be written.
public enum RenderError: Error, Equatable, CustomStringConvertible {
    /// Two chapters would be written to the same page.
    case duplicatePage(String, first: String, second: String)
    /// A file or directory could not be created.
    case cannotWrite(String, reason: String)

    public var description: String {
        switch self {
        case .duplicatePage(let page, let first, let second):
            "\(second): would be written to \(page), which \(first) already uses; rename one of them"
        case .cannotWrite(let path, let reason):
            "cannot write \(path): \(reason)"
        }
    }
}
