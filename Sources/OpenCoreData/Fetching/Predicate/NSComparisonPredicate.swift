import Foundation

/// A comparison of two expressions: `rating > 3`, `ANY hikes.date > %@`,
/// `name BEGINSWITH[cd] "a"`.
///
/// ```swift
/// let predicate = NSComparisonPredicate(
///     leftExpression: NSExpression(forKeyPath: "name"),
///     rightExpression: NSExpression(forConstantValue: "Ridge"),
///     modifier: .direct, type: .beginsWith, options: [.caseInsensitive])
/// print(predicate)  // name BEGINSWITH[c] "Ridge"
/// ```
open class NSComparisonPredicate: NSPredicate {
    /// How the left side is applied: directly, or to every/any element of a collection.
    /// Raw values are Apple's.
    public enum Modifier: UInt, Sendable {
        /// Compare the left side itself.
        case direct = 0
        /// Every element of the left-side collection must match (`ALL`).
        case all = 1
        /// At least one element of the left-side collection must match (`ANY`, `SOME`).
        case any = 2
    }

    /// The comparison. Raw values are Apple's (`NSPredicateOperatorType`).
    public enum Operator: UInt, Sendable {
        /// `<`
        case lessThan = 0
        /// `<=` (also `=<`)
        case lessThanOrEqualTo = 1
        /// `>`
        case greaterThan = 2
        /// `>=` (also `=>`)
        case greaterThanOrEqualTo = 3
        /// `==` (also `=`)
        case equalTo = 4
        /// `!=` (also `<>`)
        case notEqualTo = 5
        /// `MATCHES`: the whole string matches a regular expression.
        case matches = 6
        /// `LIKE`: a pattern with `?` (one character) and `*` (any characters).
        case like = 7
        /// `BEGINSWITH`
        case beginsWith = 8
        /// `ENDSWITH`
        case endsWith = 9
        /// `IN`: the left side is an element of the right-side collection.
        case `in` = 10
        /// A comparison by a named method (`Selector`) of the left-side value.
        case customSelector = 11
        /// `CONTAINS`: a substring, or an element of a collection.
        case contains = 99
        /// `BETWEEN {low, high}`: within a closed range.
        case between = 100
    }

    /// String comparison options: `[c]`, `[d]`, `[n]`. Raw values are Apple's.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// `[c]`: case-insensitive.
        public static let caseInsensitive = Options(rawValue: 1)
        /// `[d]`: diacritic-insensitive.
        public static let diacriticInsensitive = Options(rawValue: 2)
        /// `[n]`: the strings are already folded; compare them literally.
        public static let normalized = Options(rawValue: 4)
    }

    /// The expression on the left of the operator.
    public let leftExpression: NSExpression
    /// The expression on the right of the operator.
    public let rightExpression: NSExpression
    /// `ANY`, `ALL` or direct.
    public let comparisonPredicateModifier: Modifier
    /// The operator.
    public let predicateOperatorType: Operator
    /// The string options.
    public let options: Options
    /// The method of a `.customSelector` comparison.
    public let customSelector: Selector?

    /// What could be computed once from a constant right side.
    let prepared: PreparedComparison

    /// A comparison of `lhs` and `rhs` with `type`, applied per `modifier`.
    public init(leftExpression lhs: NSExpression, rightExpression rhs: NSExpression, modifier: Modifier, type: Operator, options: Options = []) {
        leftExpression = lhs
        rightExpression = rhs
        comparisonPredicateModifier = modifier
        predicateOperatorType = type
        self.options = options
        customSelector = nil
        prepared = PreparedComparison(operator: type, right: rhs, options: options)
        super.init(kind: .tree)
    }

    /// A comparison that calls `selector` on the left value with the right value. Without
    /// the Objective-C runtime only these can be called: `isEqual:`, `isEqualToString:`,
    /// `hasPrefix:`, `hasSuffix:`, `containsString:`, `isLessThan:`,
    /// `isLessThanOrEqualTo:`, `isGreaterThan:`, `isGreaterThanOrEqualTo:`, `isNotEqualTo:`,
    /// `isLike:`, `isCaseInsensitiveLike:`; any other traps here, naming the selector.
    public init(leftExpression lhs: NSExpression, rightExpression rhs: NSExpression, customSelector selector: Selector) {
        guard let mapped = CustomSelectorComparison.operatorAndOptions(selector.name) else {
            fatalError("NSComparisonPredicate: unrecognized selector \(selector.name) (without the Objective-C runtime a custom selector must be one of \(CustomSelectorComparison.supported.joined(separator: ", ")))")
        }
        leftExpression = lhs
        rightExpression = rhs
        comparisonPredicateModifier = .direct
        predicateOperatorType = .customSelector
        options = mapped.options
        customSelector = selector
        prepared = PreparedComparison(operator: mapped.operator, right: rhs, options: mapped.options)
        super.init(kind: .tree)
    }

    open override var predicateFormat: String { PredicateFormatter.comparison(self) }

    /// The operator actually applied (a custom selector's equivalent operator).
    var effectiveOperator: Operator {
        guard predicateOperatorType == .customSelector, let selector = customSelector else { return predicateOperatorType }
        return CustomSelectorComparison.operatorAndOptions(selector.name)?.operator ?? .equalTo
    }

    override func evaluate(_ object: Any?, _ context: PredicateEvaluationContext) -> Bool {
        let leftValue = leftExpression.value(of: object, context)
        let right = prepared.hasConstant ? prepared.constant : PredicateScalar(rightExpression.value(of: object, context))
        let op = effectiveOperator
        switch comparisonPredicateModifier {
        case .direct:
            return PredicateComparison.compare(PredicateScalar(leftValue), op, right, options: options, prepared: prepared)
        case .any:
            guard let elements = quantifiedElements(leftValue) else { return false }
            return elements.contains { PredicateComparison.compare(PredicateScalar($0), op, right, options: options, prepared: prepared) }
        case .all:
            guard let elements = quantifiedElements(leftValue) else { return true }
            return elements.allSatisfy { PredicateComparison.compare(PredicateScalar($0), op, right, options: options, prepared: prepared) }
        }
    }

    /// The elements `ANY` and `ALL` range over: a collection's elements, a single value as
    /// itself, `nil` as none.
    private func quantifiedElements(_ value: Any?) -> [Any]? {
        guard let value = unwrapAny(value), !(value is NSNull) else { return nil }
        return collectionElements(value) ?? [value]
    }

    override func substituting(_ variables: [String: Any]) -> NSPredicate {
        let left = leftExpression.substituting(variables), right = rightExpression.substituting(variables)
        if let selector = customSelector {
            return NSComparisonPredicate(leftExpression: left, rightExpression: right, customSelector: selector)
        }
        return NSComparisonPredicate(leftExpression: left, rightExpression: right, modifier: comparisonPredicateModifier,
                                     type: predicateOperatorType, options: options)
    }
}

/// The custom selectors a comparison predicate can call on Linux, as operators.
enum CustomSelectorComparison {
    static let table: [String: (operator: NSComparisonPredicate.Operator, options: NSComparisonPredicate.Options)] = [
        "isEqual:": (.equalTo, []), "isEqualTo:": (.equalTo, []), "isEqualToString:": (.equalTo, []),
        "isNotEqualTo:": (.notEqualTo, []),
        "hasPrefix:": (.beginsWith, []), "hasSuffix:": (.endsWith, []), "containsString:": (.contains, []),
        "isLessThan:": (.lessThan, []), "isLessThanOrEqualTo:": (.lessThanOrEqualTo, []),
        "isGreaterThan:": (.greaterThan, []), "isGreaterThanOrEqualTo:": (.greaterThanOrEqualTo, []),
        "isLike:": (.like, []), "isCaseInsensitiveLike:": (.like, [.caseInsensitive]),
    ]

    static var supported: [String] { table.keys.sorted() }

    static func operatorAndOptions(_ name: String) -> (operator: NSComparisonPredicate.Operator, options: NSComparisonPredicate.Options)? {
        table[name]
    }
}
