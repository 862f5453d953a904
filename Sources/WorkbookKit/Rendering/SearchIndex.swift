/// The client-side search index: a script that defines `window.BOOK_INDEX`.
///
/// A script rather than JSON because browsers refuse `fetch` from `file://` pages,
/// while a `<script src>` loads anywhere.
enum SearchIndex {
    /// One entry per section of every chapter, in book order.
    static func script(pages: [ChapterPage]) -> String {
        var lines: [String] = []
        for page in pages {
            for section in page.sections {
                let fields = [
                    "chapter:" + literal(page.title),
                    "section:" + literal(section.level == 1 ? "" : section.title),
                    "url:" + literal(PageLayout.href(page.fileName, anchor: section.anchor)),
                    "text:" + literal(section.text),
                ]
                lines.append("{" + fields.joined(separator: ",") + "}")
            }
        }
        return "window.BOOK_INDEX = [\n" + lines.joined(separator: ",\n") + "\n];\n"
    }

    /// A JavaScript string literal. `<`, `>` and `&` are escaped too, so the text can
    /// never close a script element, whatever page embeds it.
    static func literal(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "<", ">", "&", "\u{2028}", "\u{2029}":
                result += "\\u" + hex4(scalar.value)
            default:
                if scalar.value < 0x20 { result += "\\u" + hex4(scalar.value) } else { result.unicodeScalars.append(scalar) }
            }
        }
        return result + "\""
    }

    private static func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
