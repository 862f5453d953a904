// libFuzzer entry point for the predicate format parser (see scripts/fuzz-predicates.sh).
//
// Every input must parse or throw a PredicateFormatError: never trap, hang or overflow
// the stack. Whatever parses must print a format that parses back to the same text.

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
    } catch let error as PredicateFormatError where error.detail.hasPrefix("nesting deeper") {
        // Printing may add parentheses, so a text near the nesting limit may print past it.
    } catch {
        fatalError("printed format does not parse:\n  input:   \(text)\n  printed: \(printed)\n  error:   \(error)")
    }
    return 0
}
