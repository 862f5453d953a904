import Foundation

/// What a comparison computes once when its right side is a constant: the value itself,
/// the string folded for `[c]`/`[d]`, a compiled `LIKE` pattern or regular expression, the
/// elements of an `IN` collection.
struct PreparedComparison {
    var hasConstant = false
    var constant: Any?
    /// The constant string folded for the options.
    var foldedString: String?
    var like: PredicateStrings.LikePattern?
    var regex: NSRegularExpression?
    var regexError: String?
    /// `IN`: the collection's elements, and their folded text when they are all strings.
    var elements: [Any]?
    var foldedElements: Set<String>?

    init(operator op: NSComparisonPredicate.Operator, right: NSExpression, options: NSComparisonPredicate.Options) {
        guard right.isConstant else { return }
        hasConstant = true
        constant = unwrapAny(right.value(of: nil, PredicateEvaluationContext(variables: [:])))
        guard let value = constant, !(value is NSNull) else { return }
        if let string = PredicateValues.string(value) {
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
                    regexError = "Can't do regex matching, reason: Can't open pattern \(string): \(error)"
                }
            default: break
            }
        } else if op == .in, let items = collectionOrDictionaryElements(value) {
            elements = items
            if !PredicateStrings.foldingOptions(options).isEmpty {
                let strings = items.compactMap(PredicateValues.string)
                if strings.count == items.count { foldedElements = Set(strings.map { PredicateStrings.fold($0, options) }) }
            }
        }
    }
}

/// One comparison of two values, as `NSComparisonPredicate` evaluates it.
enum PredicateComparison {
    static func compare(_ lhs: Any?, _ op: NSComparisonPredicate.Operator, _ rhs: Any?,
                        options: NSComparisonPredicate.Options, prepared: PreparedComparison) -> Bool {
        let left = unwrapAny(lhs)
        switch op {
        case .equalTo:
            return equal(left, rhs, options: options, prepared: prepared)
        case .notEqualTo:
            return !equal(left, rhs, options: options, prepared: prepared)
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            guard let order = PredicateValues.order(left, rhs, options: options) else { return false }
            switch op {
            case .lessThan: return order == .orderedAscending
            case .lessThanOrEqualTo: return order != .orderedDescending
            case .greaterThan: return order == .orderedDescending
            default: return order != .orderedAscending
            }
        case .beginsWith, .endsWith:
            guard let subject = left.flatMap(PredicateValues.string), let needle = folded(rhs, options, prepared) else { return false }
            return PredicateStrings.substring(op, subject, folded: needle, options: options)
        case .contains:
            guard let container = left, !(container is NSNull) else { return false }
            if let subject = PredicateValues.string(container) {
                guard let needle = folded(rhs, options, prepared) else { return false }
                return PredicateStrings.substring(.contains, subject, folded: needle, options: options)
            }
            guard let elements = collectionOrDictionaryElements(container) else { return false }
            return elements.contains { PredicateValues.equal($0, rhs, options: options) }
        case .in:
            return isIn(left, rhs, options: options, prepared: prepared)
        case .like:
            guard let subject = left.flatMap(PredicateValues.string) else { return false }
            if let pattern = prepared.like { return pattern.matches(PredicateStrings.fold(subject, options)) }
            guard let text = unwrapAny(rhs).flatMap(PredicateValues.string) else { return false }
            return PredicateStrings.LikePattern(PredicateStrings.fold(text, options)).matches(PredicateStrings.fold(subject, options))
        case .matches:
            guard let subject = left.flatMap(PredicateValues.string) else { return false }
            let stripped = PredicateStrings.fold(subject, options.subtracting(.caseInsensitive))
            if let regex = prepared.regex { return PredicateStrings.matches(regex, stripped) }
            if let error = prepared.regexError { fatalError(error) }
            guard let pattern = unwrapAny(rhs).flatMap(PredicateValues.string) else { return false }
            do {
                let regex = try PredicateStrings.regularExpression(
                    PredicateStrings.fold(pattern, options.subtracting(.caseInsensitive)),
                    caseInsensitive: options.contains(.caseInsensitive))
                return PredicateStrings.matches(regex, stripped)
            } catch {
                fatalError("Can't do regex matching, reason: Can't open pattern \(pattern): \(error)")
            }
        case .between:
            guard let bounds = unwrapAny(rhs).flatMap(collectionElements), bounds.count == 2,
                let low = PredicateValues.order(left, bounds[0], options: options),
                let high = PredicateValues.order(left, bounds[1], options: options)
            else { return false }
            return low != .orderedAscending && high != .orderedDescending
        case .customSelector:
            return false
        }
    }

    /// `==` with a prepared folded right-hand string where there is one.
    @inline(__always)
    private static func equal(_ left: Any?, _ right: Any?, options: NSComparisonPredicate.Options, prepared: PreparedComparison) -> Bool {
        if let folded = prepared.foldedString, let value = left, let subject = PredicateValues.string(value) {
            return PredicateStrings.equal(subject, folded: folded, options: options)
        }
        return PredicateValues.equal(left, right, options: options)
    }

    /// The right-hand string folded for `options`, from the prepared constant when possible.
    @inline(__always)
    private static func folded(_ right: Any?, _ options: NSComparisonPredicate.Options, _ prepared: PreparedComparison) -> String? {
        if let folded = prepared.foldedString { return folded }
        guard let text = unwrapAny(right).flatMap(PredicateValues.string) else { return nil }
        return PredicateStrings.fold(text, options)
    }

    /// `IN`: membership in a collection (a dictionary's values), or a substring of a string.
    private static func isIn(_ left: Any?, _ right: Any?, options: NSComparisonPredicate.Options, prepared: PreparedComparison) -> Bool {
        if let set = prepared.foldedElements {
            guard let value = left, let subject = PredicateValues.string(value) else { return false }
            return set.contains(PredicateStrings.fold(subject, options))
        }
        if let elements = prepared.elements {
            return elements.contains { PredicateValues.equal(left, $0, options: options) }
        }
        guard let container = unwrapAny(right), !(container is NSNull) else { return false }
        if let haystack = PredicateValues.string(container) {
            guard let value = left, let needle = PredicateValues.string(value) else { return false }
            return PredicateStrings.substring(.contains, haystack, folded: PredicateStrings.fold(needle, options), options: options)
        }
        guard let elements = collectionOrDictionaryElements(container) else { return false }
        return elements.contains { PredicateValues.equal(left, $0, options: options) }
    }
}
