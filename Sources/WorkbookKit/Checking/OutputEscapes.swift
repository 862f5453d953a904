/// How recorded output writes what a Markdown code block cannot hold, or would read as a
/// pattern: a Swift-style escape `\u{HEX}` stands for the one Unicode scalar HEX.
///
/// `verify --update` writes these escapes for
/// - `…` (U+2026), which in a recording is a wildcard: `\u{2026}` matches only itself,
/// - control characters other than the tab (a carriage return inside a line, NUL, the
///   escape character of terminal colours, DEL and the C1 controls), which a code block
///   cannot show or libcmark would change,
/// - a backslash that starts `u{`, so that text which looks like an escape stays itself.
///
/// Everything else, backslashes included, is recorded as printed, so existing recordings
/// keep their meaning. An author may write the escapes by hand too.
enum OutputEscapes {
    /// The line as `--update` records it.
    static func escape(_ line: String) -> String {
        let scalars = Array(line.unicodeScalars)
        guard scalars.contains(where: { needsEscape($0) || $0 == "\\" }) else { return line }
        var result = String.UnicodeScalarView()
        for (offset, scalar) in scalars.enumerated() {
            let startsEscape = scalar == "\\" && offset + 2 < scalars.count && scalars[offset + 1] == "u" && scalars[offset + 2] == "{"
            if needsEscape(scalar) || startsEscape {
                result.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// `text` with its control characters other than newline and tab written as escapes,
    /// as the book shows output: a NUL or a terminal's escape sequence cannot be shown in
    /// a page, and a carriage return would hide what came before it. `…` and backslashes
    /// stay as they are: a reader sees text, not a pattern.
    static func visible(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0) && $0 != "\n" && $0 != "…" }) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if needsEscape(scalar) && scalar != "\n" && scalar != "…" {
                result.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// Whether `scalar` is written as an escape.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09: false
        case 0x00...0x1F, 0x7F...0x9F, 0x2026: true
        default: false
        }
    }

    /// A recorded line read as a pattern: the literal runs between its wildcards (unescaped
    /// `…`), with escapes decoded. One run means no wildcard.
    static func pattern(_ line: String) -> [[Unicode.Scalar]] {
        let scalars = Array(line.unicodeScalars)
        var parts: [[Unicode.Scalar]] = [[]]
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "…" {
                parts.append([])
                index += 1
            } else if scalar == "\\", let (decoded, length) = decode(scalars, at: index) {
                parts[parts.count - 1].append(decoded)
                index += length
            } else {
                parts[parts.count - 1].append(scalar)
                index += 1
            }
        }
        return parts
    }

    /// The scalar of the escape `\u{HEX}` at `index` and the escape's length, or nil when
    /// there is no well-formed escape there.
    private static func decode(_ scalars: [Unicode.Scalar], at index: Int) -> (Unicode.Scalar, Int)? {
        guard index + 3 < scalars.count, scalars[index + 1] == "u", scalars[index + 2] == "{" else { return nil }
        var digits = ""
        var end = index + 3
        while end < scalars.count, scalars[end] != "}", digits.count <= 8 {
            guard scalars[end].properties.isASCIIHexDigit else { return nil }
            digits.unicodeScalars.append(scalars[end])
            end += 1
        }
        guard end < scalars.count, scalars[end] == "}", !digits.isEmpty, digits.count <= 8,
              let value = UInt32(digits, radix: 16), let scalar = Unicode.Scalar(value)
        else { return nil }
        return (scalar, end - index + 1)
    }
}
