import Foundation

extension NSExpression {
    /// Parses an expression format such as `"hikes.@avg.rating"`, `"4 + 5 - 2**3"`,
    /// `"sum:(distance)"` or `"now()"`, substituting `arguments` for `%@`, `%K` and the
    /// other format specifiers. Traps on malformed text, as Foundation raises; use
    /// ``init(validatingFormat:_:)`` to get the error.
    public convenience init(format expressionFormat: String, _ arguments: Any?...) {
        self.init(format: expressionFormat, argumentArray: arguments.map { $0 as Any })
    }

    /// Parses `expressionFormat` with the values of `arguments` in order.
    public convenience init(format expressionFormat: String, argumentArray arguments: [Any]) {
        let parsed: NSExpression
        do {
            var parser = PredicateParser(format: expressionFormat, arguments: arguments)
            parsed = try parser.parseExpression()
        } catch {
            raiseCoreDataException(.invalidArgument, String(describing: error))
        }
        self.init(node: parsed.node)
    }

    /// Parses `expressionFormat`, throwing a ``PredicateFormatError`` when it is malformed.
    public convenience init(validatingFormat expressionFormat: String, _ arguments: Any?...) throws {
        try self.init(validatingFormat: expressionFormat, argumentArray: arguments.map { $0 as Any })
    }

    /// Parses `expressionFormat` with `arguments`, throwing a ``PredicateFormatError`` when
    /// it is malformed.
    public convenience init(validatingFormat expressionFormat: String, argumentArray arguments: [Any]) throws {
        var parser = PredicateParser(format: expressionFormat, arguments: arguments)
        let parsed = try parser.parseExpression()
        self.init(node: parsed.node)
    }
}
