import Foundation

/// A recursive-descent parser for Apple's predicate format grammar, substituting format
/// arguments as it goes (`%@` a constant, `%K` a key path).
///
/// Precedence, loosest first: `OR`/`||`, `AND`/`&&`, `NOT`/`!`, comparison; in
/// expressions `UNION`/`INTERSECT`/`MINUS`, `+`/`-`, `*`/`/`, `**` (right-associative),
/// unary `-`, then `.key` and `[index]`. `a AND b AND c` nests to the left, as Apple's
/// parser does, and prints `(a AND b) AND c`.
struct PredicateParser {
    let format: String
    private var tokens: [PredicateToken] = []
    private var position = 0
    private let arguments: [Any]
    private var argumentIndex = 0
    private var depth = 0
    /// Token positions of `(` already found not to open a parenthesized predicate, with the
    /// error that attempt met. Remembering them keeps backtracking linear per parenthesis
    /// (without it, nested `TERNARY(` and `(` take exponential time).
    private var notPredicateParentheses: [Int: PredicateFormatError?] = [:]

    /// Deeper nesting than this is refused, so that hostile input cannot exhaust the stack.
    static let maximumDepth = 256

    init(format: String, arguments: [Any]) {
        self.format = format
        self.arguments = arguments
    }

    /// Parses the whole format as a predicate.
    mutating func parsePredicate() throws -> NSPredicate {
        tokens = try PredicateLexer.tokens(format)
        let predicate = try orPredicate()
        guard current.isEnd else { throw unexpected(current, expecting: "AND, OR or the end of the format") }
        return predicate
    }

    /// Parses the whole format as an expression.
    mutating func parseExpression() throws -> NSExpression {
        tokens = try PredicateLexer.tokens(format)
        let expression = try self.expression()
        guard current.isEnd else { throw unexpected(current, expecting: "an operator or the end of the format") }
        return expression
    }

    // MARK: Tokens

    private var current: PredicateToken { tokens[position] }

    private func peekToken(_ offset: Int = 1) -> PredicateToken {
        tokens[min(position + offset, tokens.count - 1)]
    }

    private mutating func advance() {
        if position < tokens.count - 1 { position += 1 }
    }

    private func error(_ kind: PredicateFormatError.Kind, at token: PredicateToken, _ detail: String) -> PredicateFormatError {
        PredicateFormatError(format: format, position: token.offset, kind: kind, detail: detail)
    }

    private func unexpected(_ token: PredicateToken, expecting what: String) -> PredicateFormatError {
        error(token.isEnd ? .expectedExpression : .unexpectedToken, at: token, "expected \(what), found \(token.text)")
    }

    private mutating func expect(_ symbol: String, _ kind: PredicateFormatError.Kind, _ context: String) throws {
        guard current.isSymbol(symbol) else {
            throw error(kind, at: current, "expected \"\(symbol)\" \(context), found \(current.text)")
        }
        advance()
    }

    private mutating func nest() throws {
        depth += 1
        if depth > Self.maximumDepth {
            throw error(.unexpectedToken, at: current, "nesting deeper than \(Self.maximumDepth) levels")
        }
    }

    // MARK: Predicates

    private mutating func orPredicate() throws -> NSPredicate {
        try nest()
        defer { depth -= 1 }
        var left = try andPredicate()
        while current.keyword == "OR" || current.isSymbol("||") {
            advance()
            let right = try andPredicate()
            left = NSCompoundPredicate(type: .or, subpredicates: [left, right])
        }
        return left
    }

    private mutating func andPredicate() throws -> NSPredicate {
        var left = try notPredicate()
        while current.keyword == "AND" || current.isSymbol("&&") {
            advance()
            let right = try notPredicate()
            left = NSCompoundPredicate(type: .and, subpredicates: [left, right])
        }
        return left
    }

    private mutating func notPredicate() throws -> NSPredicate {
        if current.keyword == "NOT" || current.isSymbol("!") {
            advance()
            try nest()
            defer { depth -= 1 }
            return NSCompoundPredicate(type: .not, subpredicates: [try notPredicate()])
        }
        return try primaryPredicate()
    }

    private mutating func primaryPredicate() throws -> NSPredicate {
        switch current.keyword {
        case "TRUEPREDICATE":
            advance()
            return NSPredicate(value: true)
        case "FALSEPREDICATE":
            advance()
            return NSPredicate(value: false)
        default:
            break
        }
        guard current.isSymbol("(") else { return try comparison() }
        // `(` opens either a parenthesized predicate or an expression such as `(a + b) > 3`.
        let savedPosition = position, savedArgument = argumentIndex
        if let known = notPredicateParentheses[savedPosition] {
            return try comparisonAfterFailedParenthesis(known, furthest: savedPosition)
        }
        var predicateError: PredicateFormatError?
        do {
            advance()
            let inner = try orPredicate()
            if current.isSymbol(")") {
                advance()
                if !continuesExpression(current) { return inner }
            } else {
                predicateError = error(.expectedClosingParenthesis, at: current, "expected \")\", found \(current.text)")
            }
        } catch let failure as PredicateFormatError {
            predicateError = failure
        }
        let furthest = position
        position = savedPosition
        argumentIndex = savedArgument
        notPredicateParentheses[savedPosition] = .some(predicateError)
        return try comparisonAfterFailedParenthesis(predicateError, furthest: furthest)
    }

    /// Parses a comparison from the current `(`, after reading it as a predicate failed with
    /// `predicateError` (or succeeded but was followed by an operator); reports whichever
    /// reading got further into the text.
    private mutating func comparisonAfterFailedParenthesis(_ predicateError: PredicateFormatError?, furthest: Int) throws -> NSPredicate {
        let start = position
        do {
            return try comparison()
        } catch let failure as PredicateFormatError {
            if let predicateError, predicateError.position > failure.position || (furthest > start && predicateError.position >= failure.position) {
                throw predicateError
            }
            throw failure
        }
    }

    /// Whether `token` can only continue an expression (so a parenthesized group before it
    /// was an expression, not a predicate).
    private func continuesExpression(_ token: PredicateToken) -> Bool {
        if case .symbol(let symbol) = token.kind {
            return ["==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "**", ".", "["].contains(symbol)
        }
        guard let keyword = token.keyword else { return false }
        return ["IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES", "BETWEEN", "UNION", "INTERSECT", "MINUS"].contains(keyword)
            || keyword.hasPrefix("UTI-")
    }

    private mutating func comparison() throws -> NSPredicate {
        var modifier = NSComparisonPredicate.Modifier.direct
        var negate = false
        switch current.keyword {
        case "ANY", "SOME":
            modifier = .any
            advance()
        case "ALL":
            modifier = .all
            advance()
        case "NONE":
            modifier = .any
            negate = true
            advance()
        default:
            break
        }
        let left = try expression()
        let operatorToken = current
        let op: NSComparisonPredicate.Operator
        switch current.kind {
        case .symbol("=="): op = .equalTo
        case .symbol("!="): op = .notEqualTo
        case .symbol("<"): op = .lessThan
        case .symbol("<="): op = .lessThanOrEqualTo
        case .symbol(">"): op = .greaterThan
        case .symbol(">="): op = .greaterThanOrEqualTo
        default:
            switch current.keyword {
            case "BETWEEN": op = .between
            case "IN": op = .in
            case "CONTAINS": op = .contains
            case "BEGINSWITH": op = .beginsWith
            case "ENDSWITH": op = .endsWith
            case "LIKE": op = .like
            case "MATCHES": op = .matches
            case "UTI-CONFORMS-TO", "UTI-EQUALS":
                throw error(.unsupportedOperator, at: current, "\(current.text) needs Uniform Type Identifiers, which Linux does not have")
            default:
                throw error(
                    .expectedOperator, at: current,
                    "expected a comparison operator (==, !=, <, <=, >, >=, BETWEEN, IN, CONTAINS, BEGINSWITH, ENDSWITH, LIKE, MATCHES), found \(current.text)")
            }
        }
        advance()
        let options = try comparisonOptions(after: operatorToken)
        let right = try expression()
        let predicate = NSComparisonPredicate(leftExpression: left, rightExpression: right, modifier: modifier, type: op, options: options)
        return negate ? NSCompoundPredicate(type: .not, subpredicates: [predicate]) : predicate
    }

    /// `[c]`, `[d]`, `[cd]`, `[n]` right after an operator.
    private mutating func comparisonOptions(after operatorToken: PredicateToken) throws -> NSComparisonPredicate.Options {
        guard current.isSymbol("[") else { return [] }
        let open = current
        advance()
        guard case .identifier(let letters, false) = current.kind else {
            throw error(.unknownOptions, at: current, "expected comparison options such as c, d or cd after \(operatorToken.text)[")
        }
        var options: NSComparisonPredicate.Options = []
        for letter in letters.lowercased() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "n": options.insert(.normalized)
            case "l": break  // locale-sensitive: Foundation's folding already uses Unicode rules
            default:
                throw error(.unknownOptions, at: current, "unknown comparison option \"\(letter)\" in [\(letters)] (expected c, d, n)")
            }
        }
        advance()
        guard current.isSymbol("]") else {
            throw error(.expectedClosingBracket, at: current, "expected \"]\" to close the options opened at offset \(open.offset), found \(current.text)")
        }
        advance()
        return options
    }

    // MARK: Expressions

    private mutating func expression() throws -> NSExpression {
        try nest()
        defer { depth -= 1 }
        var left = try additive()
        while let keyword = current.keyword, ["UNION", "INTERSECT", "MINUS"].contains(keyword) {
            advance()
            let right = try additive()
            switch keyword {
            case "UNION": left = NSExpression(forUnionSet: left, with: right)
            case "INTERSECT": left = NSExpression(forIntersectSet: left, with: right)
            default: left = NSExpression(forMinusSet: left, with: right)
            }
        }
        return left
    }

    private mutating func additive() throws -> NSExpression {
        var left = try multiplicative()
        while current.isSymbol("+") || current.isSymbol("-") {
            let name = current.isSymbol("+") ? "add:to:" : "from:subtract:"
            advance()
            let right = try multiplicative()
            left = NSExpression(node: .function(name: name, operand: nil, arguments: [left, right]))
        }
        return left
    }

    private mutating func multiplicative() throws -> NSExpression {
        var left = try power()
        while current.isSymbol("*") || current.isSymbol("/") {
            let name = current.isSymbol("*") ? "multiply:by:" : "divide:by:"
            advance()
            let right = try power()
            left = NSExpression(node: .function(name: name, operand: nil, arguments: [left, right]))
        }
        return left
    }

    private mutating func power() throws -> NSExpression {
        let base = try unary()
        guard current.isSymbol("**") else { return base }
        advance()
        try nest()
        defer { depth -= 1 }
        let exponent = try power()
        return NSExpression(node: .function(name: "raise:toPower:", operand: nil, arguments: [base, exponent]))
    }

    private mutating func unary() throws -> NSExpression {
        if current.isSymbol("-") {
            advance()
            try nest()
            defer { depth -= 1 }
            let operand = try unary()
            if case .constant(let value) = operand.node, let number = value.flatMap(PredicateValues.number) {
                switch number {
                case .int(let int) where int != Int64.min: return NSExpression(forConstantValue: Int(-int))
                // An infinite argument (`-%@` with .infinity) stays a subtraction: a constant
                // -inf would print as "-inf", which reads back as the negated key path `inf`.
                case .double(let double) where double.isFinite: return NSExpression(forConstantValue: -double)
                case .decimal(let decimal): return NSExpression(forConstantValue: -decimal)
                default: break
                }
            }
            return NSExpression(node: .function(name: "from:subtract:", operand: nil, arguments: [NSExpression(forConstantValue: 0), operand]))
        }
        if current.isSymbol("+") {
            advance()
            return try unary()
        }
        return try postfix()
    }

    private mutating func postfix() throws -> NSExpression {
        var base = try primary()
        while true {
            if current.isSymbol(".") {
                advance()
                let key = try keyAfterDot()
                switch base.node {
                case .keyPath(let path, _): base = NSExpression(forKeyPath: path + "." + key)
                case .evaluatedObject: base = NSExpression(forKeyPath: key)
                default:
                    base = NSExpression(node: .function(name: "valueForKeyPath:", operand: base, arguments: [NSExpression(forConstantValue: key)]))
                }
            } else if current.isSymbol("[") {
                let open = current
                advance()
                let index: NSExpression
                if let keyword = current.keyword, let symbol = PredicateIndexSymbol(rawValue: keyword), peekToken().isSymbol("]") {
                    index = NSExpression(forConstantValue: symbol)
                    advance()
                } else {
                    index = try expression()
                }
                guard current.isSymbol("]") else {
                    throw error(.expectedClosingBracket, at: current, "expected \"]\" to close the index opened at offset \(open.offset), found \(current.text)")
                }
                advance()
                base = NSExpression(node: .function(name: "objectFrom:withIndex:", operand: nil, arguments: [base, index]))
            } else {
                return base
            }
        }
    }

    /// The key after a `.`: any identifier (reserved words included), a collection
    /// operator, or `%K`.
    private mutating func keyAfterDot() throws -> String {
        switch current.kind {
        case .identifier(let name, _):
            advance()
            return name
        case .format(let spec) where spec == "K":
            let token = current
            let value = try nextArgument(token)
            advance()
            guard let key = keyPathString(value) else {
                throw error(.keyPathArgumentNotString, at: token, "%K needs a key path string, got \(describeArgument(value))")
            }
            return key
        default:
            throw unexpected(current, expecting: "a key after \".\"")
        }
    }

    private mutating func primary() throws -> NSExpression {
        let token = current
        switch token.kind {
        case .integer(let value):
            advance()
            return NSExpression(forConstantValue: value)
        case .double(let value):
            advance()
            return NSExpression(forConstantValue: value)
        case .string(let text):
            advance()
            return NSExpression(forConstantValue: text)
        case .variable(let name):
            advance()
            if current.isSymbol(":=") {
                throw error(.unsupportedOperator, at: current, "assignment expressions ($\(name) := …) are not supported")
            }
            return NSExpression(forVariable: name)
        case .format(let spec):
            advance()
            return try formatArgument(spec, token)
        case .symbol("{"):
            advance()
            var items: [NSExpression] = []
            if !current.isSymbol("}") {
                items.append(try expression())
                while current.isSymbol(",") {
                    advance()
                    items.append(try expression())
                }
            }
            guard current.isSymbol("}") else {
                throw error(.expectedClosingBrace, at: current, "expected \",\" or \"}\" in the list opened at offset \(token.offset), found \(current.text)")
            }
            advance()
            return NSExpression(forAggregate: items)
        case .symbol("("):
            advance()
            let inner = try expression()
            guard current.isSymbol(")") else {
                throw error(.expectedClosingParenthesis, at: current, "expected \")\" to close the parenthesis at offset \(token.offset), found \(current.text)")
            }
            advance()
            return inner
        case .selector(let name):
            advance()
            guard current.isSymbol("(") else { throw unexpected(current, expecting: "\"(\" after the function name \(name)") }
            return try functionCall(name, token, explicitSelector: true)
        case .identifier(let name, let escaped):
            advance()
            if escaped { return NSExpression(forKeyPath: name) }
            return try identifierExpression(name, token)
        default:
            throw unexpected(token, expecting: "an expression")
        }
    }

    private mutating func identifierExpression(_ name: String, _ token: PredicateToken) throws -> NSExpression {
        let keyword = name.uppercased()
        let call = current.isSymbol("(")
        switch keyword {
        case "TRUE", "YES": return NSExpression(forConstantValue: true)
        case "FALSE", "NO": return NSExpression(forConstantValue: false)
        case "NULL", "NIL": return NSExpression(forConstantValue: nil)
        case "SELF": return NSExpression.expressionForEvaluatedObject()
        case "ANYKEY": return NSExpression.expressionForAnyKey()
        case "SUBQUERY" where call: return try subquery(token)
        case "FUNCTION" where call: return try customFunction(token)
        case "CAST" where call: return try cast(token)
        case "TERNARY" where call: return try ternary(token)
        case "FIRST", "LAST", "SIZE", "FUNCTION", "TERNARY", "CAST", "SUBQUERY":
            break
        default:
            if PredicateLexer.reservedWords.contains(keyword) {
                throw error(.expectedExpression, at: token, "expected an expression, found the reserved word \(name) (write #\(name) for a key of that name)")
            }
        }
        if call { return try functionCall(name, token, explicitSelector: false) }
        return NSExpression(forKeyPath: name)
    }

    /// `name(arguments…)` or `name:(…)`.
    private mutating func functionCall(_ name: String, _ token: PredicateToken, explicitSelector: Bool) throws -> NSExpression {
        let arguments = try parenthesizedArguments(token)
        guard let selector = explicitSelector
            ? (ExpressionFunctions.isKnown(name) ? name : nil)
            : ExpressionFunctions.selectorName(forCall: name, argumentCount: arguments.count)
        else {
            throw error(.unknownFunction, at: token, "unknown function \(name)")
        }
        if let expected = ExpressionFunctions.arity[selector], expected != arguments.count {
            throw error(.unknownFunction, at: token, "\(selector) takes \(expected) argument\(expected == 1 ? "" : "s"), found \(arguments.count)")
        }
        return NSExpression(node: .function(name: selector, operand: nil, arguments: arguments))
    }

    private mutating func parenthesizedArguments(_ token: PredicateToken) throws -> [NSExpression] {
        try expect("(", .unexpectedToken, "after \(token.text)")
        var arguments: [NSExpression] = []
        if !current.isSymbol(")") {
            arguments.append(try expression())
            while current.isSymbol(",") {
                advance()
                arguments.append(try expression())
            }
        }
        guard current.isSymbol(")") else {
            throw error(.expectedClosingParenthesis, at: current, "expected \",\" or \")\" in the arguments of \(token.text), found \(current.text)")
        }
        advance()
        return arguments
    }

    /// `SUBQUERY(collection, $variable, predicate)`.
    private mutating func subquery(_ token: PredicateToken) throws -> NSExpression {
        try expect("(", .unexpectedToken, "after SUBQUERY")
        let collection = try expression()
        try expect(",", .expectedComma, "after the SUBQUERY collection")
        guard case .variable(let variable) = current.kind else {
            throw error(.unexpectedToken, at: current, "expected the SUBQUERY iterator variable ($name), found \(current.text)")
        }
        advance()
        try expect(",", .expectedComma, "after the SUBQUERY variable")
        let predicate = try orPredicate()
        try expect(")", .expectedClosingParenthesis, "to close SUBQUERY( at offset \(token.offset)")
        return NSExpression(forSubquery: collection, usingIteratorVariable: variable, predicate: predicate)
    }

    /// `FUNCTION(receiver, 'selectorName:', arguments…)`.
    private mutating func customFunction(_ token: PredicateToken) throws -> NSExpression {
        let arguments = try parenthesizedArguments(token)
        guard arguments.count >= 2, let name = arguments[1].constantValue.flatMap(PredicateValues.string) else {
            throw error(.unknownFunction, at: token, "FUNCTION needs a receiver and a selector name string")
        }
        return NSExpression(forFunction: arguments[0], selectorName: name, arguments: Array(arguments.dropFirst(2)))
    }

    /// `CAST(value, "NSDate")`; a constant number cast to a date becomes a date constant.
    private mutating func cast(_ token: PredicateToken) throws -> NSExpression {
        let arguments = try parenthesizedArguments(token)
        guard arguments.count == 2 else {
            throw error(.unknownFunction, at: token, "CAST takes a value and a class name, found \(arguments.count) arguments")
        }
        if arguments[0].isConstant, arguments[1].isConstant,
            let type = arguments[1].constantValue.flatMap(PredicateValues.string), type == "NSDate",
            let value = arguments[0].constantValue, PredicateValues.number(value) != nil || PredicateValues.date(value) != nil
        {
            return NSExpression(forConstantValue: ExpressionFunctions.cast(value, to: type))
        }
        return NSExpression(node: .function(name: "castObject:toType:", operand: nil, arguments: arguments))
    }

    /// `TERNARY(predicate, whenTrue, whenFalse)`.
    private mutating func ternary(_ token: PredicateToken) throws -> NSExpression {
        try expect("(", .unexpectedToken, "after TERNARY")
        let predicate = try orPredicate()
        try expect(",", .expectedComma, "after the TERNARY condition")
        let yes = try expression()
        try expect(",", .expectedComma, "after the TERNARY true value")
        let no = try expression()
        try expect(")", .expectedClosingParenthesis, "to close TERNARY( at offset \(token.offset)")
        return NSExpression(forConditional: predicate, trueExpression: yes, falseExpression: no)
    }

    // MARK: Format arguments

    private mutating func nextArgument(_ token: PredicateToken) throws -> Any? {
        guard argumentIndex < arguments.count else {
            throw error(.insufficientArguments, at: token, "no argument left for %\(token.text.dropFirst())")
        }
        defer { argumentIndex += 1 }
        return unwrapAny(arguments[argumentIndex])
    }

    private mutating func formatArgument(_ spec: String, _ token: PredicateToken) throws -> NSExpression {
        if spec == "%" { return NSExpression(forConstantValue: "%") }
        let value = try nextArgument(token)
        if spec == "K" {
            guard let path = keyPathString(value) else {
                throw error(.keyPathArgumentNotString, at: token, "%K needs a key path string, got \(describeArgument(value))")
            }
            return NSExpression(forKeyPath: path)
        }
        if let expression = value as? NSExpression { return expression }
        return NSExpression(forConstantValue: value)
    }

    private func keyPathString(_ value: Any?) -> String? {
        guard let value, let path = PredicateValues.string(value), !path.isEmpty else { return nil }
        return path
    }

    private func describeArgument(_ value: Any?) -> String {
        guard let value else { return "nil" }
        return "\(type(of: value)) \(String(describing: value).prefix(40))"
    }
}
