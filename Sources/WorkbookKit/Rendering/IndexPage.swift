/// The book's front page: the table of contents.
enum IndexPage {
    /// The contents: every chapter title with its second-level headings.
    static func main(bookTitle: String, pages: [ChapterPage]) -> HTML {
        var html: HTML = "<h1>\(bookTitle)</h1>\n<nav class=\"toc\" aria-label=\"Table of contents\">\n<ol class=\"chapters\">\n"
        for page in pages {
            html += "<li><a href=\"\(PageLayout.href(page.fileName))\">\(page.title)</a>"
            let subsections = page.sections.filter { $0.level == 2 }
            if !subsections.isEmpty {
                html += "\n<ol class=\"sections\">\n"
                for section in subsections {
                    html += "<li><a href=\"\(PageLayout.href(page.fileName, anchor: section.anchor))\">\(section.title)</a></li>\n"
                }
                html += "</ol>\n"
            }
            html += "</li>\n"
        }
        html += "</ol>\n</nav>\n"
        return html
    }
}
