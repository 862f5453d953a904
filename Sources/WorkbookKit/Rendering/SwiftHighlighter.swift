import SwiftIDEUtils
import SwiftParser
import SwiftSyntax

/// Turns Swift source into HTML with one `<span class="hl-…">` per classified token run.
///
/// The source is tokenized by swift-syntax's parser, so the colours follow the language
/// (contextual keywords, string interpolation, attributes) rather than a regex guess.
/// Code that does not parse still highlights: the parser recovers and classifies what it can.
enum SwiftHighlighter {
    /// The highlighted code, every character of `code` present exactly once.
    static func highlight(_ code: String) -> HTML {
        let bytes = Array(code.utf8)
        let tree = Parser.parse(source: code)
        var html = HTML.empty
        var position = 0
        for classified in tree.classifications {
            let start = max(classified.range.lowerBound.utf8Offset, position)
            let end = min(classified.range.upperBound.utf8Offset, bytes.count)
            guard start < end else { continue }
            if start > position {
                html += HTML(escaping: text(bytes, position, start))
            }
            let piece = text(bytes, start, end)
            if let name = cssClass(for: classified.kind) {
                html += "<span class=\"hl-\(name)\">\(piece)</span>"
            } else {
                html += HTML(escaping: piece)
            }
            position = end
        }
        if position < bytes.count {
            html += HTML(escaping: text(bytes, position, bytes.count))
        }
        return html
    }

    /// Decodes a byte range; classifications end on token boundaries, never inside a character.
    private static func text(_ bytes: [UInt8], _ start: Int, _ end: Int) -> String {
        String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// The class suffix for a kind, or nil for text shown in the default colour.
    static func cssClass(for kind: SyntaxClassification) -> String? {
        switch kind {
        case .keyword: "keyword"
        case .type: "type"
        case .stringLiteral: "string"
        case .integerLiteral, .floatLiteral: "number"
        case .lineComment, .blockComment: "comment"
        case .docLineComment, .docBlockComment: "comment hl-doc"
        case .attribute: "attribute"
        case .ifConfigDirective: "directive"
        case .regexLiteral: "regex"
        case .editorPlaceholder: "placeholder"
        case .argumentLabel: "label"
        case .dollarIdentifier: "variable"
        case .identifier, .operator, .none: nil
        }
    }
}
