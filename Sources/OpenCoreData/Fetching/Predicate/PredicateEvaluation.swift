import Foundation

/// What a comparison computes once when its right side is a constant: the value itself
/// (classified), the string folded for `[c]`/`[d]`, a compiled `LIKE` pattern or regular
/// expression, the elements of an `IN` collection.
struct PreparedComparison {
    var hasConstant = false
    var constant: PredicateScalar = .null
    /// The constant string folded for the options.
    var foldedString: String?
    var like: PredicateStrings.LikePattern?
    var regex: NSRegularExpression?
    /// The constant pattern, when it is not a valid regular expression.
    var regexError: String?
    /// `IN` and `BETWEEN`: the collection's elements, classified.
    var elements: [PredicateScalar]?
    /// `IN` with `[c]`/`[d]` over strings only: their folded text.
    var foldedElements: Set<String>?

    init(operator op: NSComparisonPredicate.Operator, right: NSExpression, options: NSComparisonPredicate.Options) {
        guard right.isConstant else { return }
        hasConstant = true
        constant = PredicateScalar(right.value(of: nil, PredicateEvaluationContext(variables: [:])))
        switch constant {
        case .string(let string):
            let folded = PredicateStrings.fold(string, options)
            foldedString = folded
            switch op {
            case .like: like = PredicateStrings.LikePattern(folded)
            case .matches:
                do {
                    regex = try PredicateStrings.regularExpression(
                        PredicateStrings.fold(string, options.subtracting(.caseInsensitive)),
                        caseInsensitive: options.contains(.caseInsensitive))
                } catch {
                    regexError = string
                }
            default: break
            }
        case .other(let value) where op == .in || op == .between:
            guard let items = collectionOrDictionaryElements(value) else { break }
            let scalars = items.map { PredicateScalar($0) }
            elements = scalars
            if op == .in, !PredicateStrings.foldingOptions(options).isEmpty {
                let strings = scalars.compactMap(\.string)
                if strings.count == scalars.count { foldedElements = Set(strings.map { PredicateStrings.fold($0, options) }) }
            }
        default:
            break
        }
    }
}

/// One comparison of two values, as `NSComparisonPredicate` evaluates it.
enum PredicateComparison {
    static func compare(_ left: PredicateScalar, _ op: NSComparisonPredicate.Operator, _ right: PredicateScalar,
                        options: NSComparisonPredicate.Options, prepared: PreparedComparison) -> Bool {
        switch op {
        case .equalTo:
            return equal(left, right, options: options, prepared: prepared)
        case .notEqualTo:
            return !equal(left, right, options: options, prepared: prepared)
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            guard let order = PredicateScalar.order(left, right, options: options) else { return false }
            switch op {
            case .lessThan: return order == .orderedAscending
            case .lessThanOrEqualTo: return order != .orderedDescending
            case .greaterThan: return order == .orderedDescending
            default: return order != .orderedAscending
            }
        case .beginsWith, .endsWith:
            guard case .string(let subject) = left, let needle = folded(right, options, prepared) else { return false }
            return PredicateStrings.substring(op, subject, folded: needle, options: options)
        case .contains:
            switch left {
            case .string(let subject):
                guard let needle = folded(right, options, prepared) else { return false }
                return PredicateStrings.substring(.contains, subject, folded: needle, options: options)
            case .other(let container):
                guard let elements = collectionOrDictionaryElements(container) else { return false }
                return elements.contains { PredicateScalar.equal(PredicateScalar($0), right, options: options) }
            default:
                return false
            }
        case .in:
            return isIn(left, right, options: options, prepared: prepared)
        case .like:
            guard case .string(let subject) = left else { return false }
            if let pattern = prepared.like { return pattern.matches(PredicateStrings.fold(subject, options)) }
            guard case .string(let text) = right else { return false }
            return PredicateStrings.LikePattern(PredicateStrings.fold(text, options)).matches(PredicateStrings.fold(subject, options))
        case .matches:
            guard case .string(let subject) = left else { return false }
            let stripped = PredicateStrings.fold(subject, options.subtracting(.caseInsensitive))
            if let regex = prepared.regex { return PredicateStrings.matches(regex, stripped) }
            if let pattern = prepared.regexError { raiseRegexException(subject, pattern, options) }
            guard case .string(let pattern) = right else { return false }
            do {
                let regex = try PredicateStrings.regularExpression(
                    PredicateStrings.fold(pattern, options.subtracting(.caseInsensitive)),
                    caseInsensitive: options.contains(.caseInsensitive))
                return PredicateStrings.matches(regex, stripped)
            } catch {
                raiseRegexException(subject, pattern, options)
            }
        case .between:
            let bounds: [PredicateScalar]
            if let elements = prepared.elements {
                bounds = elements
            } else if case .other(let value) = right, let items = collectionElements(value) {
                bounds = items.map { PredicateScalar($0) }
            } else {
                return false
            }
            guard bounds.count == 2,
                let low = PredicateScalar.order(left, bounds[0], options: options),
                let high = PredicateScalar.order(left, bounds[1], options: options)
            else { return false }
            return low != .orderedAscending && high != .orderedDescending
        case .customSelector:
            return false
        }
    }

    /// `==` with a prepared folded right-hand string where there is one.
    @inline(__always)
    private static func equal(_ left: PredicateScalar, _ right: PredicateScalar, options: NSComparisonPredicate.Options, prepared: PreparedComparison) -> Bool {
        if let folded = prepared.foldedString, case .string(let subject) = left {
            return PredicateStrings.equal(subject, folded: folded, options: options)
        }
        return PredicateScalar.equal(left, right, options: options)
    }

    /// The right-hand string folded for `options`, from the prepared constant when possible.
    @inline(__always)
    private static func folded(_ right: PredicateScalar, _ options: NSComparisonPredicate.Options, _ prepared: PreparedComparison) -> String? {
        if let folded = prepared.foldedString { return folded }
        guard case .string(let text) = right else { return nil }
        return PredicateStrings.fold(text, options)
    }

    /// `IN`: membership in a collection (a dictionary's values), or a substring of a string.
    private static func isIn(_ left: PredicateScalar, _ right: PredicateScalar, options: NSComparisonPredicate.Options, prepared: PreparedComparison) -> Bool {
        if let set = prepared.foldedElements {
            guard case .string(let subject) = left else { return false }
            return set.contains(PredicateStrings.fold(subject, options))
        }
        if let elements = prepared.elements {
            return elements.contains { PredicateScalar.equal(left, $0, options: options) }
        }
        switch right {
        case .string(let haystack):
            guard case .string(let needle) = left else { return false }
            return PredicateStrings.substring(.contains, haystack, folded: PredicateStrings.fold(needle, options), options: options)
        case .other(let container):
            guard let elements = collectionOrDictionaryElements(container) else { return false }
            return elements.contains { PredicateScalar.equal(left, PredicateScalar($0), options: options) }
        default:
            return false
        }
    }
}

/// Foundation's exception for `MATCHES` with a pattern that is not a regular expression,
/// raised when a string is first matched against it (in memory, or in a SQLite fetch by
/// `NSCoreDataMatches` on the first row with a value), in Foundation's format
/// `Can't do regex matching, reason: Can't open pattern <ICU error> (string …, pattern …,
/// case …, canon …)` without the ICU error's name, which NSRegularExpression on Linux does
/// not report; Foundation names `NSInternalInconsistencyException` for every ICU error but
/// `U_REGEX_RULE_SYNTAX` (see LinuxDifferences.md).
func raiseRegexException(_ subject: String, _ pattern: String, _ options: NSComparisonPredicate.Options) -> Never {
    let caseFlag = options.contains(.caseInsensitive) ? 1 : 0
    let canonFlag = options.contains(.diacriticInsensitive) ? 2 : 0
    raiseCoreDataException(.internalInconsistency,
                           "Can't do regex matching, reason: Can't open pattern (string \(subject), pattern \(pattern), case \(caseFlag), canon \(canonFlag))")
}
