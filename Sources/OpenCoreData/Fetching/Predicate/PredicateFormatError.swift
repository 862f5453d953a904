import Foundation

/// A predicate or expression format string that could not be parsed, with where and why.
///
/// Thrown by `NSPredicate(validatingFormat:…)` and `NSExpression(validatingFormat:…)`; the
/// non-throwing initializers trap with its ``description``. The ``reason`` is Foundation's
/// exception reason (`Unable to parse the format string "…"`, `Insufficient arguments for
/// conversion characters specified in format string.`); the description adds what was
/// wrong and the position:
///
/// ```
/// Unable to parse the format string "name == " (expected an expression at offset 8)
/// ```
///
/// As an `NSError` it is in `NSCocoaErrorDomain` with code `NSFormattingError` (2048).
public struct PredicateFormatError: Error, CustomStringConvertible, Equatable {
    /// What went wrong.
    public enum Kind: String, Sendable, Equatable {
        /// A quoted string has no closing quote.
        case unterminatedString
        /// A character that cannot start any token.
        case invalidCharacter
        /// A number that cannot be read (`1.2.3`).
        case invalidNumber
        /// An operand was missing, as after `name ==`.
        case expectedExpression
        /// Two operands with no operator between them.
        case expectedOperator
        /// A `(` with no matching `)`.
        case expectedClosingParenthesis
        /// A `{` with no matching `}`.
        case expectedClosingBrace
        /// A `[` with no matching `]`.
        case expectedClosingBracket
        /// Arguments of a function or aggregate not separated by a comma.
        case expectedComma
        /// A token where none can stand, such as text after a complete predicate.
        case unexpectedToken
        /// A `FUNCTION` name or `name:` function that does not exist.
        case unknownFunction
        /// Comparison options in brackets other than `c`, `d`, `n` and `l`.
        case unknownOptions
        /// More `%@`, `%K` or `%d` specifiers than arguments.
        case insufficientArguments
        /// A `%` specifier the format syntax does not have.
        case unrecognizedConversionSpecifier
        /// A `%K` argument that is not a string (or Swift key path).
        case keyPathArgumentNotString
        /// An operator that cannot be applied where it was written.
        case unsupportedOperator
    }

    /// The whole format string.
    public let format: String
    /// Where the problem is: an offset in Unicode scalars from the start of ``format``
    /// (the same as the character offset for ASCII text).
    public let position: Int
    /// The kind of problem.
    public let kind: Kind
    /// A sentence saying what was expected or found.
    public let detail: String

    /// Creates an error for `format`, at `position`, of the given `kind`.
    public init(format: String, position: Int, kind: Kind, detail: String) {
        self.format = format
        self.position = position
        self.kind = kind
        self.detail = detail
    }

    /// Foundation's exception reason for this problem.
    public var reason: String {
        switch kind {
        case .insufficientArguments: return "Insufficient arguments for conversion characters specified in format string."
        case .unrecognizedConversionSpecifier: return "Unrecognized conversion specifier '\(detailSpecifier)' in format string."
        default: return "Unable to parse the format string \"\(format)\""
        }
    }

    /// Foundation's reason, then the detail and the position.
    public var description: String {
        "\(reason) (\(detail) at offset \(position))"
    }

    private var detailSpecifier: String {
        let scalars = Array(format.unicodeScalars)
        guard position + 1 < scalars.count else { return "" }
        var index = position + 1
        while index < scalars.count, "lhqLjzt".unicodeScalars.contains(scalars[index]) { index += 1 }
        return index < scalars.count ? String(scalars[index]) : ""
    }
}

extension PredicateFormatError: CustomNSError, LocalizedError {
    public static var errorDomain: String { NSCocoaErrorDomain }
    public var errorCode: Int { CocoaError.formatting.rawValue }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: description] }
    public var errorDescription: String? { description }
}
