import Foundation

/// String comparison as predicates do it. `[c]` folds case and `[d]` strips diacritics with
/// Foundation's Unicode folding (`String.folding(options:locale:)`: `straße` equals
/// `STRASSE`, `Éclair` equals `eclair`); `[n]` and no options compare literally.
enum PredicateStrings {
    /// The folding options a set of comparison options asks for.
    @inline(__always)
    static func foldingOptions(_ options: NSComparisonPredicate.Options) -> String.CompareOptions {
        var folding: String.CompareOptions = []
        if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
        return folding
    }

    /// `string` folded for `options`; unchanged when no folding is asked for. ASCII text,
    /// the common case, is folded here directly (Foundation's Unicode folding costs tens of
    /// times more); anything else goes through `String.folding(options:locale:)`.
    @inline(__always)
    static func fold(_ string: String, _ options: NSComparisonPredicate.Options) -> String {
        let folding = foldingOptions(options)
        if folding.isEmpty { return string }
        if let ascii = asciiFolded(string, caseInsensitive: folding.contains(.caseInsensitive)) { return ascii }
        return string.folding(options: folding, locale: nil)
    }

    /// The folded form of an ASCII string (lower case when `caseInsensitive`; ASCII has no
    /// diacritics), or `nil` when `string` is not ASCII.
    static func asciiFolded(_ string: String, caseInsensitive: Bool) -> String? {
        var hasUpper = false
        for byte in string.utf8 {
            if byte >= 0x80 { return nil }
            if byte >= 65 && byte <= 90 { hasUpper = true }
        }
        guard caseInsensitive, hasUpper else { return string }
        return String(decoding: string.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
    }

    /// `==` on strings: literal (as `-[NSString isEqual:]`) without options, else equality
    /// of the folded strings.
    static func equal(_ a: String, _ b: String, options: NSComparisonPredicate.Options) -> Bool {
        if foldingOptions(options).isEmpty { return a.utf8.elementsEqual(b.utf8) }
        return fold(a, options) == fold(b, options)
    }

    /// Equality where `b` is already folded for `options`.
    @inline(__always)
    static func equal(_ a: String, folded b: String, options: NSComparisonPredicate.Options) -> Bool {
        if foldingOptions(options).isEmpty { return a.utf8.elementsEqual(b.utf8) }
        return fold(a, options) == b
    }

    /// Unicode order of two strings (canonically equivalent strings are the same), after
    /// folding for `options`.
    static func order(_ a: String, _ b: String, options: NSComparisonPredicate.Options) -> ComparisonResult {
        let x = fold(a, options), y = fold(b, options)
        return x < y ? .orderedAscending : (x == y ? .orderedSame : .orderedDescending)
    }

    // MARK: Substring operators

    /// `BEGINSWITH`, `ENDSWITH`, `CONTAINS` on strings whose needle is already folded. An
    /// empty needle matches nothing, as with `NSString`'s `hasPrefix:` and `rangeOfString:`.
    static func substring(_ op: NSComparisonPredicate.Operator, _ haystack: String, folded needle: String, options: NSComparisonPredicate.Options) -> Bool {
        guard !needle.isEmpty else { return false }
        let subject = fold(haystack, options)
        switch op {
        case .beginsWith: return subject.hasPrefix(needle)
        case .endsWith: return subject.hasSuffix(needle)
        default: return subject.range(of: needle) != nil
        }
    }

    // MARK: LIKE

    /// A compiled `LIKE` pattern: `*` matches any run of characters, `?` exactly one;
    /// `\*` and `\?` match themselves.
    struct LikePattern {
        enum Piece: Equatable { case literal(Character), any, star }
        let pieces: [Piece]

        init(_ pattern: String) {
            var pieces: [Piece] = []
            var escaped = false
            for character in pattern {
                if escaped {
                    pieces.append(.literal(character))
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "*" {
                    if pieces.last != .star { pieces.append(.star) }
                } else if character == "?" {
                    pieces.append(.any)
                } else {
                    pieces.append(.literal(character))
                }
            }
            if escaped { pieces.append(.literal("\\")) }
            self.pieces = pieces
        }

        /// Whether the whole of `text` matches (greedy with backtracking to the last star).
        func matches(_ text: String) -> Bool {
            let characters = Array(text)
            var t = 0, p = 0
            var starPiece = -1, starText = 0
            while t < characters.count {
                if p < pieces.count {
                    switch pieces[p] {
                    case .star:
                        starPiece = p
                        starText = t
                        p += 1
                        continue
                    case .any:
                        t += 1
                        p += 1
                        continue
                    case .literal(let character) where character == characters[t]:
                        t += 1
                        p += 1
                        continue
                    default:
                        break
                    }
                }
                guard starPiece >= 0 else { return false }
                p = starPiece + 1
                starText += 1
                t = starText
            }
            while p < pieces.count, pieces[p] == .star { p += 1 }
            return p == pieces.count
        }
    }

    // MARK: MATCHES

    /// Compiles `pattern` (ICU syntax) so that it must match the whole string, as `MATCHES`
    /// requires. Compiled expressions are cached by pattern and options.
    static func regularExpression(_ pattern: String, caseInsensitive: Bool) throws -> NSRegularExpression {
        let key = (caseInsensitive ? "i:" : "s:") + pattern
        regexLock.lock()
        if let cached = regexCache[key] {
            regexLock.unlock()
            return cached
        }
        regexLock.unlock()
        let expression = try NSRegularExpression(
            pattern: "\\A(?:" + pattern + ")\\z",
            options: caseInsensitive ? [.caseInsensitive] : [])
        regexLock.lock()
        if regexCache.count > 256 { regexCache.removeAll() }
        regexCache[key] = expression
        regexLock.unlock()
        return expression
    }

    /// Whether `expression` (from ``regularExpression(_:caseInsensitive:)``) matches `string`.
    static func matches(_ expression: NSRegularExpression, _ string: String) -> Bool {
        expression.firstMatch(in: string, options: [], range: NSRange(location: 0, length: string.utf16.count)) != nil
    }

    // The cache is shared by every thread that evaluates predicates; the lock keeps it whole.
    private static let regexLock = NSLock()
    nonisolated(unsafe) private static var regexCache: [String: NSRegularExpression] = [:]
}
