import Foundation

/// A fetched property computed by an expression, for dictionary-result fetch requests:
/// `sum:(distance)`, `count:(hikes)`, `max:(date)`.
///
/// ```swift
/// let total = NSExpressionDescription()
/// total.name = "totalDistance"
/// total.expression = NSExpression(format: "sum:(distance)")
/// total.expressionResultType = .doubleAttributeType
/// ```
open class NSExpressionDescription: NSPropertyDescription {
    /// The expression whose value the property holds.
    open var expression: NSExpression?
    /// The attribute type of the result. Defaults to `.undefinedAttributeType`.
    open var expressionResultType: NSAttributeType = .undefinedAttributeType

    /// Creates a description with no name, expression or result type.
    public override init() { super.init() }

    open override var description: String {
        "(\(type(of: self))), name \(name), isOptional \(isOptional ? 1 : 0), isTransient \(isTransient ? 1 : 0), entity \(entity?.name ?? "(null)"), expression \(expression.map { $0.description } ?? "(null)"), expressionResultType \(expressionResultType.rawValue)"
    }
}
