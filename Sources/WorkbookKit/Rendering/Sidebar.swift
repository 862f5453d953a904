/// The table of contents beside the text: every chapter, each with its sections.
///
/// The current chapter's sections are open and its entry is marked `aria-current`; the
/// others are closed `<details>`, one click from their sections. The script scrolls the
/// current entry into view and marks the section being read.
enum Sidebar {
    /// The sidebar for the page named `current` (nil for the index page).
    static func html(pages: [ChapterPage], current: String?) -> HTML {
        var html: HTML = "<nav class=\"sidebar\" id=\"sidebar\" aria-label=\"Table of contents\">\n<ol class=\"sidebar-chapters\">\n"
        for page in pages {
            let isCurrent = page.fileName == current
            let currentMark: HTML = isCurrent ? " aria-current=\"page\"" : .empty
            let link: HTML = "<a href=\"\(PageLayout.href(page.fileName))\"\(currentMark)>\(page.title)</a>"
            let sections = page.sections.filter { $0.level == 2 }
            guard !sections.isEmpty else {
                html += "<li>\(link)</li>\n"
                continue
            }
            html += "<li><details\(isCurrent ? " open" : "")><summary>\(link)</summary>\n<ol class=\"sidebar-sections\">\n"
            for section in sections {
                // Within the current page a bare fragment keeps the reader on the page.
                let target = isCurrent ? "#" + section.anchor : PageLayout.href(page.fileName, anchor: section.anchor)
                html += "<li><a href=\"\(target)\">\(section.title)</a></li>\n"
            }
            html += "</ol>\n</details></li>\n"
        }
        html += "</ol>\n</nav>\n"
        return html
    }
}
