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
        case unterminatedString
        case invalidCharacter
        case invalidNumber
        case expectedExpression
        case expectedOperator
        case expectedClosingParenthesis
        case expectedClosingBrace
        case expectedClosingBracket
        case expectedComma
        case unexpectedToken
        case unknownFunction
        case unknownOptions
        case insufficientArguments
        case unrecognizedConversionSpecifier
        case keyPathArgumentNotString
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
