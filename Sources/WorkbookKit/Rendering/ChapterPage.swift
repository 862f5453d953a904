import Foundation

/// A chapter rendered to the body of its page, with what the index and search need.
struct ChapterPage {
    /// A heading on the page that the table of contents or search can link to.
    struct Section: Equatable {
        var level: Int
        var title: String
        var anchor: String
        /// Plain text of the prose under the heading, for search.
        var text: String
    }

    /// The page's file name, e.g. `01-first-program.html`.
    let fileName: String
    /// The chapter's file name in `Chapters/`, e.g. `01-first-program.md`, which the page
    /// names when a reader runs or saves an edit.
    let chapterFileName: String
    let title: String
    /// The article, without the surrounding layout.
    let article: HTML
    /// Headings in order; the first is the chapter title.
    let sections: [Section]

    init(chapter: Chapter, run: ChapterRun?) {
        fileName = ChapterPage.fileName(for: chapter)
        chapterFileName = chapter.fileName
        title = chapter.title
        var anchors = AnchorNamer()
        var sections: [Section] = []
        var body = HTML.empty
        let snippets = SnippetRenderer(run: run)
        let hasTitleHeading = chapter.blocks.contains {
            if case .prose(let prose) = $0, prose.heading?.level == 1 { true } else { false }
        }
        if !hasTitleHeading {
            let anchor = anchors.anchor(for: chapter.title)
            sections.append(Section(level: 1, title: chapter.title, anchor: anchor, text: ""))
            body += "<h1 id=\"\(anchor)\">\(chapter.title)</h1>\n" + ChapterPage.runLine(for: chapter)
        }
        for block in chapter.blocks {
            switch block {
            case .prose(let prose):
                if let heading = prose.heading {
                    let anchor = anchors.anchor(for: heading.text)
                    sections.append(Section(level: heading.level, title: heading.text, anchor: anchor, text: ""))
                    body += ChapterPage.heading(prose, heading: heading, anchor: anchor)
                    if heading.level == 1 && !sections.dropLast().contains(where: { $0.level == 1 }) {
                        body += ChapterPage.runLine(for: chapter)
                    }
                } else {
                    ChapterPage.addSearchText(prose.plainText, to: &sections, anchors: &anchors, title: chapter.title)
                    body += ChapterPage.callouts(HTML(commonMarkOutput: prose.html))
                }
            case .snippet(let snippet):
                if let html = snippets.render(snippet) {
                    // Code is searchable too: readers look for API names.
                    ChapterPage.addSearchText(snippet.code, to: &sections, anchors: &anchors, title: chapter.title)
                    body += html
                }
            case .dataFile(let file):
                body += snippets.render(file)
            }
        }
        if let problems = run?.problems, !problems.isEmpty {
            let items = HTML(joining: problems.map { "<li><code>\($0.description)</code></li>\n" })
            body = "<aside class=\"problems\">\n<p class=\"status status-problem\"><span class=\"label\">problems</span> this chapter did not run as written</p>\n<ul>\n\(items)</ul>\n</aside>\n" + body
        }
        article = body
        self.sections = sections
    }

    /// Appends searchable text to the current section; text before any heading belongs to the page top.
    private static func addSearchText(
        _ text: String, to sections: inout [Section], anchors: inout AnchorNamer, title: String
    ) {
        let words = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard !words.isEmpty else { return }
        if sections.isEmpty {
            sections.append(Section(level: 1, title: title, anchor: anchors.anchor(for: title), text: ""))
        }
        let last = sections.count - 1
        sections[last].text += (sections[last].text.isEmpty ? "" : " ") + words
    }

    /// The line under the chapter title with the command that runs the chapter.
    static func runLine(for chapter: Chapter) -> HTML {
        let number = chapter.fileName.prefix { $0.isNumber }
        let argument = number.isEmpty ? chapter.fileName : String(number)
        return "<p class=\"run-command\">Run this chapter: <code>.build/debug/workbook run \(argument)</code></p>\n"
    }

    /// A quotation that opens with **On Linux:** is a note about this platform: it is
    /// rendered as a call-out, so a reader can tell it from the lesson at a glance.
    static func callouts(_ html: HTML) -> HTML {
        let marker = "<blockquote>\n<p><strong>On Linux:</strong>"
        guard html.rendered.contains(marker) else { return html }
        return HTML(commonMarkOutput: html.rendered.replacingOccurrences(
            of: marker, with: "<blockquote class=\"callout on-linux\">\n<p><strong>On Linux:</strong>"))
    }

    /// The page name for a chapter: its slug, kept clear of `index.html` and of empty names.
    static func fileName(for chapter: Chapter) -> String {
        let slug = chapter.slug
        return slug.isEmpty || slug == "index" ? "chapter-\(slug).html" : "\(slug).html"
    }

    /// The heading as cmark rendered it (keeping inline markup), given an id and a self-link.
    private static func heading(_ prose: Prose, heading: Heading, anchor: String) -> HTML {
        let open = "<h\(heading.level)>"
        let close = "</h\(heading.level)>"
        let link: HTML = " <a class=\"anchor\" href=\"#\(anchor)\" aria-label=\"Link to this section\">#</a>"
        let markup = prose.html.trimmingCharacters(in: .whitespacesAndNewlines)
        guard markup.hasPrefix(open), markup.hasSuffix(close) else {
            return "<h\(heading.level) id=\"\(anchor)\">\(heading.text)\(link)</h\(heading.level)>\n"
        }
        let inner = HTML(commonMarkOutput: String(markup.dropFirst(open.count).dropLast(close.count)))
        return "<h\(heading.level) id=\"\(anchor)\">\(inner)\(link)</h\(heading.level)>\n"
    }
}
