import Foundation

/// The frame every page shares: head, top bar with search and theme toggle, scripts.
enum PageLayout {
    /// A whole document around `main`.
    static func page(title: String, bookTitle: String, sidebar: HTML, main: HTML, pager: HTML) -> HTML {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(title)</title>
        <link rel="stylesheet" href="assets/book.css">
        <script>\(themeBootstrap)</script>
        </head>
        <body>
        <a class="skip-link" href="#content">Skip to the text</a>
        <header class="topbar">
        <button type="button" id="sidebar-toggle" aria-controls="sidebar" aria-expanded="false" aria-label="Show the table of contents">☰</button>
        <a class="home" href="index.html">\(bookTitle)</a>
        <div class="search" role="search">
        <input type="search" id="search-input" placeholder="Search the book" aria-label="Search the book" autocomplete="off">
        <ol id="search-results" hidden></ol>
        </div>
        <button type="button" id="theme-toggle" aria-label="Switch between light and dark theme">◐</button>
        </header>
        <div class="layout">
        \(sidebar)<div class="page">
        <main id="content">
        \(main)</main>
        \(pager)</div>
        </div>
        <script src="assets/search-index.js"></script>
        <script src="assets/book.js"></script>
        </body>
        </html>

        """
    }

    /// Applies the remembered theme before first paint, so a dark page never flashes light.
    private static let themeBootstrap: HTML =
        "try{var t=localStorage.getItem('book-theme');if(t==='light'||t==='dark')document.documentElement.dataset.theme=t;}catch(e){}"

    /// Previous/next links; either side may be missing.
    static func pager(previous: (href: String, title: String)?, next: (href: String, title: String)?) -> HTML {
        guard previous != nil || next != nil else { return .empty }
        var html: HTML = "<nav class=\"pager\" aria-label=\"Chapters\">\n"
        if let previous {
            html += "<a class=\"previous\" rel=\"prev\" href=\"\(href(previous.href))\">← \(previous.title)</a>\n"
        }
        if let next {
            html += "<a class=\"next\" rel=\"next\" href=\"\(href(next.href))\">\(next.title) →</a>\n"
        }
        html += "</nav>\n"
        return html
    }

    /// Percent-encodes a relative page name (and optional fragment) for use in `href`.
    static func href(_ page: String, anchor: String? = nil) -> String {
        let encoded = page.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? page
        guard let anchor else { return encoded }
        return encoded + "#" + (anchor.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed) ?? anchor)
    }
}
