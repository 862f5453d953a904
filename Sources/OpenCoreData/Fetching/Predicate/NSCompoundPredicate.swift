import Foundation

/// `AND`, `OR` or `NOT` of other predicates.
///
/// ```swift
/// let both = NSCompoundPredicate(andPredicateWithSubpredicates: [
///     NSPredicate(format: "rating > 3"), NSPredicate(format: "name BEGINSWITH 'R'"),
/// ])
/// print(both)  // rating > 3 AND name BEGINSWITH "R"
/// ```
///
/// An `AND` of no predicates is true and prints `TRUEPREDICATE`; an `OR` of none is false.
open class NSCompoundPredicate: NSPredicate {
    /// Raw values are Apple's.
    public enum LogicalType: UInt, Sendable {
        /// `NOT`: true when its one subpredicate is false.
        case not = 0
        /// `AND`: true when every subpredicate is true (and when there are none).
        case and = 1
        /// `OR`: true when any subpredicate is true (false when there are none).
        case or = 2
    }

    /// `AND`, `OR` or `NOT`.
    public let compoundPredicateType: LogicalType
    /// The operands, all `NSPredicate`s (typed `[Any]` as in Foundation).
    open var subpredicates: [Any] { predicates }

    let predicates: [NSPredicate]

    /// A compound of `type` over `subpredicates`; `.not` uses the first one.
    public init(type: LogicalType, subpredicates: [NSPredicate]) {
        compoundPredicateType = type
        predicates = subpredicates
        super.init(kind: .tree)
    }

    /// All of `subpredicates`.
    public convenience init(andPredicateWithSubpredicates subpredicates: [NSPredicate]) {
        self.init(type: .and, subpredicates: subpredicates)
    }

    /// Any of `subpredicates`.
    public convenience init(orPredicateWithSubpredicates subpredicates: [NSPredicate]) {
        self.init(type: .or, subpredicates: subpredicates)
    }

    /// The negation of `predicate`.
    public convenience init(notPredicateWithSubpredicate predicate: NSPredicate) {
        self.init(type: .not, subpredicates: [predicate])
    }

    open override var predicateFormat: String { PredicateFormatter.compound(self) }

    override func evaluate(_ object: Any?, _ context: PredicateEvaluationContext) -> Bool {
        switch compoundPredicateType {
        case .and:
            for predicate in predicates where !predicate.evaluate(object, context) { return false }
            return true
        case .or:
            for predicate in predicates where predicate.evaluate(object, context) { return true }
            return false
        case .not:
            guard let first = predicates.first else { return true }
            return !first.evaluate(object, context)
        }
    }

    override func substituting(_ variables: [String: Any]) -> NSPredicate {
        NSCompoundPredicate(type: compoundPredicateType, subpredicates: predicates.map { $0.substituting(variables) })
    }
}
