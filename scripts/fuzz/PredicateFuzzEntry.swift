// libFuzzer entry point for the predicate format parser (see scripts/fuzz-predicates.sh).
//
// Every input must parse or throw a PredicateFormatError: never trap, hang or overflow
// the stack. Whatever parses must print a format that parses back to the same text and
// to the same tree: `(a + b).c` printed as `a + b.c` would read back the same text twice
// yet mean something else, so the trees are compared too.

@_cdecl("LLVMFuzzerTestOneInput")
public func predicateFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let arguments: [Any] = ["name", 3, "x", 2.5, [1, 2], "a.b", true]
    var parser = PredicateParser(format: text, arguments: arguments)
    guard let predicate = try? parser.parsePredicate() else {
        var expressionParser = PredicateParser(format: text, arguments: arguments)
        if let expression = try? expressionParser.parseExpression() { _ = expression.description }
        return 0
    }
    let printed = predicate.predicateFormat
    var again = PredicateParser(format: printed, arguments: [])
    do {
        let reparsed = try again.parsePredicate()
        if reparsed.predicateFormat != printed {
            fatalError("round trip changed the text:\n  input:   \(text)\n  printed: \(printed)\n  again:   \(reparsed.predicateFormat)")
        }
        let before = FuzzTree.predicate(predicate), after = FuzzTree.predicate(reparsed)
        if before != after {
            fatalError("round trip changed the meaning:\n  input:   \(text)\n  printed: \(printed)\n  tree:    \(before)\n  again:   \(after)")
        }
    } catch let error as PredicateFormatError where error.detail.hasPrefix("nesting deeper") {
        // Printing may add parentheses, so a text near the nesting limit may print past it.
    } catch {
        fatalError("printed format does not parse:\n  input:   \(text)\n  printed: \(printed)\n  error:   \(error)")
    }
    return 0
}

/// A fully parenthesised dump of a parsed predicate, independent of how it prints.
enum FuzzTree {
    static func predicate(_ predicate: NSPredicate) -> String {
        if let comparison = predicate as? NSComparisonPredicate {
            return "(cmp \(comparison.predicateOperatorType.rawValue) \(comparison.comparisonPredicateModifier.rawValue) "
                + "\(comparison.options.rawValue) \(comparison.customSelector?.name ?? "-") "
                + expression(comparison.leftExpression) + " " + expression(comparison.rightExpression) + ")"
        }
        if let compound = predicate as? NSCompoundPredicate {
            return "(\(compound.compoundPredicateType.rawValue) " + compound.predicates.map(self.predicate).joined(separator: " ") + ")"
        }
        return predicate.predicateFormat
    }

    static func expression(_ expression: NSExpression) -> String {
        switch expression.node {
        case .constant(let value):
            // A collection argument (`%@` with [1, 2]) prints as the list `{1, 2}` reads back.
            if let elements = unwrapAny(value).flatMap(collectionElements) {
                return "(list " + elements.map { self.expression(NSExpression(forConstantValue: $0)) }.joined(separator: " ") + ")"
            }
            return "(const " + PredicateFormatter.constant(value) + ")"
        case .evaluatedObject: return "SELF"
        case .variable(let name): return "$" + name
        case .keyPath(_, let components): return "(key " + components.joined(separator: " ") + ")"
        case .function("valueForKeyPath:", let operand?, let arguments)
            where arguments.count == 1 && arguments[0].constantValue.flatMap(PredicateValues.string) != nil:
            // Key-value coding reads `a.b` after x as `a`, then `b`; and a key after a key
            // path or SELF extends the key path. The printed `x.a.b` reads back that way.
            let path = arguments[0].constantValue.flatMap(PredicateValues.string) ?? ""
            var base = operand
            for key in path.split(separator: ".", omittingEmptySubsequences: false).map(String.init) {
                switch base.node {
                case .keyPath(_, let components): base = NSExpression(forKeyPath: (components + [key]).joined(separator: "."))
                case .evaluatedObject: base = NSExpression(forKeyPath: key)
                default:
                    base = NSExpression(node: .function(name: "valueForKeyPath:", operand: base, arguments: [NSExpression(forConstantValue: key)]))
                }
            }
            guard case .function(_, let inner?, let keys) = base.node else { return self.expression(base) }
            return "(fn valueForKeyPath: " + self.expression(inner) + " " + keys.map(self.expression).joined(separator: " ") + ")"
        case .function(let name, let operand, let arguments):
            return "(fn \(name) " + (operand.map(self.expression) ?? "-") + " " + arguments.map(self.expression).joined(separator: " ") + ")"
        case .setOperation(let type, let left, let right):
            return "(set \(type.rawValue) " + self.expression(left) + " " + self.expression(right) + ")"
        case .subquery(let collection, let variable, let predicate):
            return "(subquery " + self.expression(collection) + " $" + variable + " " + self.predicate(predicate) + ")"
        case .aggregate(let items): return "(list " + items.map(self.expression).joined(separator: " ") + ")"
        case .anyKey: return "ANYKEY"
        case .block: return "BLOCK"
        case .conditional(let predicate, let yes, let no):
            return "(if " + self.predicate(predicate) + " " + self.expression(yes) + " " + self.expression(no) + ")"
        }
    }
}
