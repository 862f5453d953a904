/// A fragment of HTML that is safe to write into a page.
///
/// A value can only come from escaping text, from a template literal written in this
/// module (`HTML("<p>\(text)</p>")`, where interpolated strings are escaped), or from
/// markup that an HTML producer already escaped (cmark). Raw chapter text and program
/// output are `String`s, so they cannot reach a page without passing through `escape`.
struct HTML: Equatable, Sendable, ExpressibleByStringInterpolation {
    /// The markup, ready to be written.
    private(set) var rendered: String

    /// The empty fragment.
    static let empty = HTML(markup: "")

    private init(markup: String) { rendered = markup }

    /// Escapes `text` so that it displays literally, in element content and in quoted attributes.
    init(escaping text: String) { rendered = HTML.escape(text) }

    /// Wraps markup produced by libcmark, which escapes the text it renders and
    /// suppresses raw HTML from the chapter.
    init(commonMarkOutput markup: String) { rendered = markup }

    /// A template literal: the literal text is trusted markup.
    init(stringLiteral value: String) { rendered = value }

    init(stringInterpolation: Interpolation) { rendered = stringInterpolation.markup }

    /// Joins fragments, with an optional trusted separator between them.
    init<S: Sequence>(joining parts: S, separator: HTML = .empty) where S.Element == HTML {
        rendered = parts.map(\.rendered).joined(separator: separator.rendered)
    }

    static func + (lhs: HTML, rhs: HTML) -> HTML { HTML(markup: lhs.rendered + rhs.rendered) }

    static func += (lhs: inout HTML, rhs: HTML) { lhs.rendered += rhs.rendered }

    /// Replaces the five characters that are special in content or attribute values.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Builds a template: literal segments are trusted, interpolated strings are escaped.
    struct Interpolation: StringInterpolationProtocol {
        fileprivate var markup = ""

        init(literalCapacity: Int, interpolationCount: Int) {
            markup.reserveCapacity(literalCapacity + interpolationCount * 16)
        }

        mutating func appendLiteral(_ literal: String) { markup += literal }

        /// Text from a chapter, program output or a file name: always escaped.
        mutating func appendInterpolation(_ text: String) { markup += HTML.escape(text) }

        /// A fragment that is already safe.
        mutating func appendInterpolation(_ fragment: HTML) { markup += fragment.rendered }

        mutating func appendInterpolation(_ number: Int) { markup += String(number) }
    }
}
