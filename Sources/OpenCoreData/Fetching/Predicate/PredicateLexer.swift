import Foundation

/// One token of a predicate format string, with its offset (in Unicode scalars).
struct PredicateToken {
    enum Kind {
        /// A key or keyword; `escaped` when written `#name` (never a keyword then). Collection
        /// operators lex as identifiers that start with `@`.
        case identifier(String, escaped: Bool)
        /// A selector-style function name with colons: `sum:`, `add:to:`.
        case selector(String)
        case string(String)
        case integer(Int)
        case double(Double)
        /// `$name`.
        case variable(String)
        /// A format specifier without its `%`: `@`, `K`, `d`, `ld`, `%`.
        case format(String)
        /// Punctuation and operators: `(` `)` `{` `}` `[` `]` `,` `.` `+` `-` `*` `**` `/`
        /// `==` `!=` `<` `<=` `>` `>=` `&&` `||` `!` `:=`. `=` lexes as `==`, `=>` as `>=`,
        /// `=<` as `<=`, `<>` as `!=`.
        case symbol(String)
        case end
    }

    let kind: Kind
    let offset: Int

    /// The token's text for error messages.
    var text: String {
        switch kind {
        case .identifier(let name, let escaped): return escaped ? "#" + name : name
        case .selector(let name): return name
        case .string(let text): return "\"" + text + "\""
        case .integer(let value): return String(value)
        case .double(let value): return String(value)
        case .variable(let name): return "$" + name
        case .format(let spec): return "%" + spec
        case .symbol(let symbol): return symbol
        case .end: return "the end of the format"
        }
    }

    /// The keyword this token spells (upper-cased), if it is an unescaped identifier.
    var keyword: String? {
        if case .identifier(let name, false) = kind { return name.uppercased() }
        return nil
    }

    func isSymbol(_ symbol: String) -> Bool {
        if case .symbol(let own) = kind { return own == symbol }
        return false
    }

    var isEnd: Bool {
        if case .end = kind { return true }
        return false
    }
}

/// Splits a predicate format string into tokens.
struct PredicateLexer {
    /// Apple's reserved words (plus `FUNCTION`, `TERNARY`, `UNION`, `INTERSECT`, `MINUS`
    /// which its parser also treats specially). `#word` makes one a key.
    static let reservedWords: Set<String> = [
        "AND", "OR", "IN", "NOT", "ALL", "ANY", "SOME", "NONE", "LIKE", "CASEINSENSITIVE", "CI", "MATCHES",
        "CONTAINS", "BEGINSWITH", "ENDSWITH", "BETWEEN", "NULL", "NIL", "SELF", "TRUE", "YES", "FALSE", "NO",
        "FIRST", "LAST", "SIZE", "ANYKEY", "SUBQUERY", "CAST", "TRUEPREDICATE", "FALSEPREDICATE",
    ]

    let format: String
    private let scalars: [Unicode.Scalar]
    private var index = 0

    init(format: String) {
        self.format = format
        scalars = Array(format.unicodeScalars)
    }

    /// Every token of the format, ending with `.end`.
    static func tokens(_ format: String) throws -> [PredicateToken] {
        var lexer = PredicateLexer(format: format)
        var tokens: [PredicateToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.isEnd { return tokens }
        }
    }

    private func error(_ kind: PredicateFormatError.Kind, at position: Int, _ detail: String) -> PredicateFormatError {
        PredicateFormatError(format: format, position: position, kind: kind, detail: detail)
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    /// Whether `key` lexes back as one key: an identifier, or `@` and an identifier (a
    /// collection operator). Reserved words count; the printer escapes them with `#`.
    static func isKey(_ key: String) -> Bool {
        var scalars = key.unicodeScalars[...]
        if scalars.first == "@" { scalars = scalars.dropFirst() }
        guard let first = scalars.first, isIdentifierStart(first) else { return false }
        return scalars.dropFirst().allSatisfy(isIdentifierPart)
    }

    private static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || (scalar.isASCII ? (scalar.properties.isAlphabetic) : scalar.properties.isAlphabetic)
    }

    private static func isIdentifierPart(_ scalar: Unicode.Scalar) -> Bool {
        isIdentifierStart(scalar) || ("0"..."9").contains(scalar) || (!scalar.isASCII && scalar.properties.numericType != nil)
    }

    private mutating func next() throws -> PredicateToken {
        while let scalar = peek(), scalar.properties.isWhitespace { index += 1 }
        let start = index
        guard let scalar = peek() else { return PredicateToken(kind: .end, offset: start) }

        func token(_ kind: PredicateToken.Kind) -> PredicateToken { PredicateToken(kind: kind, offset: start) }

        if scalar == "\"" || scalar == "'" { return token(.string(try string(quote: scalar))) }
        if ("0"..."9").contains(scalar) || (scalar == "." && peek(1).map { ("0"..."9").contains($0) } == true) {
            return token(try number())
        }
        if scalar == "$" {
            index += 1
            guard let first = peek(), Self.isIdentifierStart(first) else {
                throw error(.invalidCharacter, at: start, "expected a variable name after \"$\"")
            }
            return token(.variable(identifierText()))
        }
        if scalar == "#" {
            index += 1
            guard let first = peek(),
                Self.isIdentifierStart(first) || (first == "@" && peek(1).map(Self.isIdentifierStart) == true)
            else {
                throw error(.invalidCharacter, at: start, "expected a key after \"#\"")
            }
            if first == "@" { index += 1 }
            return token(.identifier((first == "@" ? "@" : "") + identifierText(), escaped: true))
        }
        if scalar == "@" {
            index += 1
            guard let first = peek(), Self.isIdentifierStart(first) else {
                throw error(.invalidCharacter, at: start, "expected a collection operator or key after \"@\"")
            }
            return token(.identifier("@" + identifierText(), escaped: true))
        }
        if Self.isIdentifierStart(scalar) { return token(identifierOrSelector(start: start)) }
        if scalar == "%" { return token(.format(try formatSpecifier())) }

        index += 1
        let nextScalar = peek()
        func two(_ second: Unicode.Scalar, _ symbol: String) -> Bool {
            guard nextScalar == second else { return false }
            index += 1
            return true
        }
        switch scalar {
        case "(", ")", "{", "}", "[", "]", ",", ".", "+", "/":
            return token(.symbol(String(scalar)))
        case "-":
            return token(.symbol("-"))
        case "*":
            return token(.symbol(two("*", "**") ? "**" : "*"))
        case "=":
            if two("=", "==") { return token(.symbol("==")) }
            if two(">", "=>") { return token(.symbol(">=")) }
            if two("<", "=<") { return token(.symbol("<=")) }
            return token(.symbol("=="))
        case "<":
            if two("=", "<=") { return token(.symbol("<=")) }
            if two(">", "<>") { return token(.symbol("!=")) }
            return token(.symbol("<"))
        case ">":
            return token(.symbol(two("=", ">=") ? ">=" : ">"))
        case "!":
            return token(.symbol(two("=", "!=") ? "!=" : "!"))
        case "&":
            if two("&", "&&") { return token(.symbol("&&")) }
        case "|":
            if two("|", "||") { return token(.symbol("||")) }
        case ":":
            if two("=", ":=") { return token(.symbol(":=")) }
        default:
            break
        }
        throw error(.invalidCharacter, at: start, "unexpected character \"\(scalar)\"")
    }

    private mutating func identifierText() -> String {
        var text = String.UnicodeScalarView()
        while let scalar = peek(), Self.isIdentifierPart(scalar) {
            text.append(scalar)
            index += 1
        }
        return String(text)
    }

    /// `name`, or `sum:` / `add:to:` when colons follow (but not `:=`).
    private mutating func identifierOrSelector(start: Int) -> PredicateToken.Kind {
        let name = identifierText()
        if name.uppercased() == "UTI", peek() == "-" {
            for word in ["-CONFORMS-TO", "-EQUALS"] {
                let candidate = String(String.UnicodeScalarView(scalars[index..<min(scalars.count, index + word.unicodeScalars.count)]))
                if candidate.uppercased() == word {
                    index += word.unicodeScalars.count
                    return .identifier("UTI" + word, escaped: false)
                }
            }
        }
        guard peek() == ":", peek(1) != "=" else { return .identifier(name, escaped: false) }
        var selector = name
        while peek() == ":", peek(1) != "=" {
            index += 1
            selector += ":"
            let save = index
            guard let first = peek(), Self.isIdentifierStart(first) else { break }
            let part = identifierText()
            if peek() == ":", peek(1) != "=" {
                selector += part
            } else {
                index = save
                break
            }
        }
        return .selector(selector)
    }

    /// A quoted string; `\n \t \r \0 \\ \" \'`, `\ooo` (octal), `\xHH`, `\uHHHH` escapes.
    private mutating func string(quote: Unicode.Scalar) throws -> String {
        let start = index
        index += 1
        var text = String.UnicodeScalarView()
        while true {
            guard let scalar = peek() else {
                throw error(.unterminatedString, at: start, "unterminated string starting with \(quote)")
            }
            index += 1
            if scalar == quote { return String(text) }
            guard scalar == "\\" else {
                text.append(scalar)
                continue
            }
            guard let escape = peek() else {
                throw error(.unterminatedString, at: start, "unterminated string starting with \(quote)")
            }
            index += 1
            switch escape {
            case "n": text.append("\n")
            case "t": text.append("\t")
            case "r": text.append("\r")
            case "0"..."7":
                var value = escape.value - 48
                var digits = 1
                while digits < 3, let digit = peek(), ("0"..."7").contains(digit) {
                    value = value * 8 + digit.value - 48
                    index += 1
                    digits += 1
                }
                if let decoded = Unicode.Scalar(value) { text.append(decoded) }
            case "x", "X", "u", "U":
                let count = (escape == "x" || escape == "X") ? 2 : 4
                var value: UInt32 = 0
                for _ in 0..<count {
                    guard let digit = peek(), let nibble = UInt32(String(digit), radix: 16) else {
                        throw error(.invalidCharacter, at: index, "expected \(count) hexadecimal digits after \\\(escape)")
                    }
                    value = value * 16 + nibble
                    index += 1
                }
                guard let decoded = Unicode.Scalar(value) else {
                    throw error(.invalidCharacter, at: index, "\\\(escape) escape is not a Unicode scalar")
                }
                text.append(decoded)
            default:
                text.append(escape)
            }
        }
    }

    /// Integers (decimal, `0x`, `0o`, `0b`), decimals and exponents.
    private mutating func number() throws -> PredicateToken.Kind {
        let start = index
        if peek() == "0", let prefix = peek(1), "xXoObB".unicodeScalars.contains(prefix) {
            let radix = (prefix == "x" || prefix == "X") ? 16 : ((prefix == "o" || prefix == "O") ? 8 : 2)
            index += 2
            var digits = ""
            while let scalar = peek(), let _ = Int(String(scalar), radix: radix) {
                digits.unicodeScalars.append(scalar)
                index += 1
            }
            try rejectTrailingIdentifier(start)
            guard !digits.isEmpty else { throw error(.invalidNumber, at: start, "expected digits after 0\(prefix)") }
            if let value = Int(digits, radix: radix) { return .integer(value) }
            if let value = UInt64(digits, radix: radix) { return .double(Double(value)) }
            throw error(.invalidNumber, at: start, "number too large")
        }
        var text = ""
        var isInteger = true
        func digits() {
            while let scalar = peek(), ("0"..."9").contains(scalar) {
                text.unicodeScalars.append(scalar)
                index += 1
            }
        }
        digits()
        if peek() == ".", let after = peek(1), ("0"..."9").contains(after) {
            isInteger = false
            text += "."
            index += 1
            digits()
        }
        if let e = peek(), e == "e" || e == "E" {
            var lookahead = 1
            if let sign = peek(1), sign == "+" || sign == "-" { lookahead = 2 }
            if let digit = peek(lookahead), ("0"..."9").contains(digit) {
                isInteger = false
                for _ in 0..<lookahead {
                    text.unicodeScalars.append(peek()!)
                    index += 1
                }
                digits()
            }
        }
        try rejectTrailingIdentifier(start)
        if isInteger, let value = Int(text) { return .integer(value) }
        if text.hasPrefix(".") { text = "0" + text }
        guard let value = Double(text) else { throw error(.invalidNumber, at: start, "malformed number") }
        // Infinity has no literal: it would print as `inf`, which reads back as a key path.
        guard value.isFinite else { throw error(.invalidNumber, at: start, "number \(text) is too large for a double") }
        return .double(value)
    }

    private func rejectTrailingIdentifier(_ start: Int) throws {
        if let scalar = peek(), Self.isIdentifierPart(scalar) {
            throw error(.invalidNumber, at: start, "malformed number")
        }
    }

    /// `%@`, `%K`, `%%`, and printf conversions with `h`, `hh`, `l`, `ll`, `q`, `L`, `z`,
    /// `j`, `t` length modifiers.
    private mutating func formatSpecifier() throws -> String {
        let start = index
        index += 1
        var spec = ""
        while let scalar = peek(), "hlqLjzt".unicodeScalars.contains(scalar) {
            spec.unicodeScalars.append(scalar)
            index += 1
        }
        guard let conversion = peek() else {
            throw error(.unrecognizedConversionSpecifier, at: start, "format specifier at the end of the format")
        }
        index += 1
        guard "@KdiDuUoOxXfFeEgGaAcCsSp%".unicodeScalars.contains(conversion) else {
            throw error(.unrecognizedConversionSpecifier, at: start, "unrecognized conversion specifier \"%\(spec)\(conversion)\"")
        }
        spec.unicodeScalars.append(conversion)
        return spec
    }
}
