import Foundation

/// Prints predicates and expressions in Foundation's canonical form: `name == "x"`,
/// `rating > 3`, `name BEGINSWITH[cd] "a"`, `ANY hikes.date > CAST(…, "NSDate")`,
/// `SUBQUERY(hikes, $h, $h.rating > 3).@count > 0`, `name == nil`, compound predicates
/// with their compound operands in parentheses.
enum PredicateFormatter {
    static func comparison(_ predicate: NSComparisonPredicate) -> String {
        let left = expression(predicate.leftExpression), right = expression(predicate.rightExpression)
        if predicate.predicateOperatorType == .customSelector, let selector = predicate.customSelector {
            return "FUNCTION(\(left), \(quoted(selector.name)), \(right))"
        }
        var text = ""
        switch predicate.comparisonPredicateModifier {
        case .any: text = "ANY "
        case .all: text = "ALL "
        case .direct: break
        }
        text += left + " " + operatorText(predicate.predicateOperatorType) + optionsText(predicate.options) + " " + right
        return text
    }

    static func operatorText(_ op: NSComparisonPredicate.Operator) -> String {
        switch op {
        case .lessThan: return "<"
        case .lessThanOrEqualTo: return "<="
        case .greaterThan: return ">"
        case .greaterThanOrEqualTo: return ">="
        case .equalTo: return "=="
        case .notEqualTo: return "!="
        case .matches: return "MATCHES"
        case .like: return "LIKE"
        case .beginsWith: return "BEGINSWITH"
        case .endsWith: return "ENDSWITH"
        case .in: return "IN"
        case .contains: return "CONTAINS"
        case .between: return "BETWEEN"
        case .customSelector: return "FUNCTION"
        }
    }

    /// `[cd]`, `[c]`, `[d]`, `[n]` or nothing.
    static func optionsText(_ options: NSComparisonPredicate.Options) -> String {
        var letters = ""
        if options.contains(.caseInsensitive) { letters += "c" }
        if options.contains(.diacriticInsensitive) { letters += "d" }
        if options.contains(.normalized) { letters += "n" }
        return letters.isEmpty ? "" : "[" + letters + "]"
    }

    static func compound(_ predicate: NSCompoundPredicate) -> String {
        func operand(_ sub: NSPredicate) -> String {
            sub is NSCompoundPredicate ? "(" + sub.predicateFormat + ")" : sub.predicateFormat
        }
        let subs = predicate.predicates
        switch predicate.compoundPredicateType {
        case .not:
            // `NOT NOT a` needs no parentheses; `NOT (a AND b)` does.
            guard let first = subs.first else { return "NOT TRUEPREDICATE" }
            if let inner = first as? NSCompoundPredicate, inner.compoundPredicateType == .not { return "NOT " + first.predicateFormat }
            return "NOT " + operand(first)
        case .and:
            if subs.isEmpty { return "TRUEPREDICATE" }
            if subs.count == 1 { return subs[0].predicateFormat }
            return subs.map(operand).joined(separator: " AND ")
        case .or:
            if subs.isEmpty { return "FALSEPREDICATE" }
            if subs.count == 1 { return subs[0].predicateFormat }
            return subs.map(operand).joined(separator: " OR ")
        }
    }

    // MARK: Expressions

    static func expression(_ expression: NSExpression) -> String {
        switch expression.node {
        case .constant(let value): return constant(value)
        case .evaluatedObject: return "SELF"
        case .variable(let name): return "$" + name
        case .keyPath(_, let components): return components.map(escapedKey).joined(separator: ".")
        case .function(let name, let operand, let arguments): return function(name, operand, arguments)
        case .setOperation(let type, let left, let right):
            let word = type == .unionSet ? "UNION" : (type == .intersectSet ? "INTERSECT" : "MINUS")
            // Set operations group from the left, so only a right operand that is one needs
            // parentheses: `a UNION (b MINUS c)`.
            let rightText = isSetOperation(right) ? "(" + self.expression(right) + ")" : self.expression(right)
            return self.expression(left) + " " + word + " " + rightText
        case .subquery(let collection, let variable, let predicate):
            return "SUBQUERY(" + self.expression(collection) + ", $" + variable + ", " + predicate.predicateFormat + ")"
        case .aggregate(let items):
            return "{" + items.map(self.expression).joined(separator: ", ") + "}"
        case .anyKey: return "ANYKEY"
        case .block(_, let arguments):
            return "BLOCK(" + ([address(of: expression)] + (arguments ?? []).map(self.expression)).joined(separator: ", ") + ")"
        case .conditional(let predicate, let yes, let no):
            return "TERNARY(" + predicate.predicateFormat + ", " + self.expression(yes) + ", " + self.expression(no) + ")"
        }
    }

    /// Binding strength of the infix arithmetic operators.
    private static func precedence(_ expression: NSExpression) -> Int? {
        guard case .function(let name, nil, let arguments) = expression.node, arguments.count == 2 else { return nil }
        switch name {
        case "add:to:", "from:subtract:": return 1
        case "multiply:by:", "divide:by:": return 2
        case "raise:toPower:": return 3
        default: return nil
        }
    }

    private static func isSetOperation(_ expression: NSExpression) -> Bool {
        if case .setOperation = expression.node { return true }
        return false
    }

    /// Whether `expression`, printed as `text`, is something a `.key` or `[index]` can
    /// follow without changing what it applies to: `(a + b).c`, `(x UNION y)[0]` and
    /// `(-5)[0]` need parentheses (without them `-5[0]` reads as `0 - 5[0]`). A constant is
    /// judged by its printed text, which is what is read back (`-0.0` prints as `0`).
    private static func printsAsPostfixBase(_ expression: NSExpression, _ text: String) -> Bool {
        switch expression.node {
        case .setOperation: return false
        case .function(let name, nil, let arguments) where arguments.count == 2 && ExpressionFunctions.infixOperators[name] != nil:
            return false
        case .constant: return !text.hasPrefix("-")
        default: return true
        }
    }

    /// `expression`, in parentheses when a postfix `.key` or `[index]` follows it and would
    /// otherwise bind to only part of it.
    private static func postfixBase(_ expression: NSExpression) -> String {
        let text = self.expression(expression)
        return printsAsPostfixBase(expression, text) ? text : "(" + text + ")"
    }

    /// A `valueForKeyPath:` key path prints after a `.` only when every key reads back as
    /// a key (`x.#self`, not a key path string such as `"a b"` that would not parse).
    private static func dottedKeys(_ path: String) -> String? {
        let keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard keys.allSatisfy(PredicateLexer.isKey) else { return nil }
        return keys.map(escapedKey).joined(separator: ".")
    }

    private static func function(_ name: String, _ operand: NSExpression?, _ arguments: [NSExpression]) -> String {
        let args = arguments.map(expression)
        if let operand {
            if name == "valueForKeyPath:", arguments.count == 1,
                let path = arguments[0].constantValue.flatMap(PredicateValues.string), let keys = dottedKeys(path) {
                // `SELF.k` reads back as the key path `k`, so it prints as one.
                if case .evaluatedObject = operand.node { return keys }
                return postfixBase(operand) + "." + keys
            }
            return "FUNCTION(" + ([expression(operand), quoted(name)] + args).joined(separator: ", ") + ")"
        }
        if let symbol = ExpressionFunctions.infixOperators[name], arguments.count == 2 {
            // An operand that is itself an infix operation prints in parentheses.
            // So does a set operation, which binds more loosely than arithmetic.
            let operands = zip(arguments, args).map { precedence($0) == nil && !isSetOperation($0) ? $1 : "(" + $1 + ")" }
            return operands[0] + " " + symbol + " " + operands[1]
        }
        if name == "objectFrom:withIndex:", arguments.count == 2 {
            // args[0] is already printed: printing arguments[0] again at every level of
            // `a[0][0]…` would double the work per level (found by fuzzing).
            return (printsAsPostfixBase(arguments[0], args[0]) ? args[0] : "(" + args[0] + ")") + "[" + args[1] + "]"
        }
        if name == "castObject:toType:", arguments.count == 2 {
            return "CAST(" + args[0] + ", " + args[1] + ")"
        }
        return name + "(" + args.joined(separator: ", ") + ")"
    }

    /// A key that is a reserved word prints with `#`, so that the text parses back.
    private static func escapedKey(_ key: String) -> String {
        PredicateLexer.reservedWords.contains(key.uppercased()) ? "#" + key : key
    }

    // MARK: Constants

    /// A constant as Foundation prints it in a predicate: strings quoted, numbers as
    /// `NSNumber` prints them (`true` is `1`), dates as `CAST(seconds, "NSDate")`,
    /// collections as `{a, b}`, `nil` as `nil`.
    static func constant(_ value: Any?) -> String {
        guard let value = unwrapAny(value), !(value is NSNull) else { return "nil" }
        if let string = PredicateValues.string(value) { return quoted(string) }
        if let symbol = value as? PredicateIndexSymbol { return symbol.rawValue }
        if let date = PredicateValues.date(value) {
            return "CAST(" + String(format: "%f", date.timeIntervalSinceReferenceDate) + ", \"NSDate\")"
        }
        if let expression = value as? NSExpression { return self.expression(expression) }
        if PredicateValues.number(value) != nil { return CocoaFormatter.scalarDescription(value) }
        if let elements = collectionElements(value) {
            return "{" + elements.map(constant).joined(separator: ", ") + "}"
        }
        switch value {
        case is UUID, is NSUUID, is URL, is NSURL, is Data, is NSData: return CocoaFormatter.scalarDescription(value)
        default: return String(describing: value)
        }
    }

    /// `"text"` with backslashes, quotes and control characters escaped.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// `0x…` for an object, as `BLOCKPREDICATE(0x…)` prints.
    static func address(of object: AnyObject) -> String {
        "0x" + String(UInt(bitPattern: ObjectIdentifier(object).hashValue), radix: 16)
    }
}
