import Foundation

/// An expression in a predicate: a constant, the evaluated object, a key path, a variable,
/// a function, an aggregate, a set operation, a subquery or a conditional.
///
/// Expressions are immutable trees. A predicate's SQL translation walks them through
/// ``expressionType`` and the properties that go with each type (``constantValue``,
/// ``keyPath``, ``function`` with ``operand`` and ``arguments``, ``collection``, …).
///
/// ```swift
/// let total = NSExpression(format: "sum:(hikes.distance)")
/// let value = NSExpression(format: "4 + 5 - 2**3").expressionValue(with: nil, context: nil)  // 1
/// ```
open class NSExpression: NSObject, NSCopying {
    /// The kinds of expression. Raw values are Apple's.
    public enum ExpressionType: UInt, Sendable {
        /// A constant value (`NSExpression(forConstantValue:)`).
        case constantValue = 0
        /// The object being evaluated: `SELF` in a format string.
        case evaluatedObject = 1
        /// A substitution variable such as `$NAME`, replaced before evaluation.
        case variable = 2
        /// A key path read from the evaluated object (`NSExpression(forKeyPath:)`).
        case keyPath = 3
        /// A function applied to arguments, such as `sum:` or `uppercase:`.
        case function = 4
        /// The union of two collections (`UNION`).
        case unionSet = 5
        /// The intersection of two collections (`INTERSECT`).
        case intersectSet = 6
        /// The elements of one collection not in another (`MINUS`).
        case minusSet = 7
        /// A `SUBQUERY(collection, $x, predicate)`: the elements that match.
        case subquery = 13
        /// A literal collection of expressions: `{1, 2, 3}`.
        case aggregate = 14
        /// Any key of the evaluated object (Apple's `NSAnyKeyExpressionType`).
        case anyKey = 15
        /// An expression computed by a Swift closure.
        case block = 19
        /// `TERNARY(predicate, true, false)`: one of two expressions, by a predicate.
        case conditional = 20
    }

    /// The tree node; immutable once built.
    enum Node {
        case constant(Any?)
        case evaluatedObject
        case variable(String)
        case keyPath(String, components: [String])
        /// A built-in function (`sum:`, `add:to:`, …) or, with an operand, `FUNCTION(operand,
        /// 'selector', …)`; `valueForKeyPath:` with an operand is `$x.key`, `objectFrom:withIndex:`
        /// is `a[i]`, `castObject:toType:` is `CAST(x, "Type")`.
        case function(name: String, operand: NSExpression?, arguments: [NSExpression])
        case setOperation(ExpressionType, NSExpression, NSExpression)
        case subquery(collection: NSExpression, variable: String, predicate: NSPredicate)
        case aggregate([NSExpression])
        case anyKey
        case block((Any?, [Any], NSMutableDictionary?) -> Any?, [NSExpression]?)
        case conditional(NSPredicate, NSExpression, NSExpression)
    }

    let node: Node

    init(node: Node) {
        self.node = node
        super.init()
    }

    // MARK: Creating

    /// Creates an expression of `type` with no content; only meaningful for
    /// `.evaluatedObject` and `.anyKey`.
    public convenience init(expressionType type: ExpressionType) {
        switch type {
        case .evaluatedObject: self.init(node: .evaluatedObject)
        case .anyKey: self.init(node: .anyKey)
        default: self.init(node: .constant(nil))
        }
    }

    /// An expression for a constant value, e.g. `"Ridge"` or `3`.
    public convenience init(forConstantValue value: Any?) {
        self.init(node: .constant(unwrapAny(value)))
    }

    /// The object the predicate is evaluated against (`SELF`).
    open class func expressionForEvaluatedObject() -> NSExpression {
        NSExpression(node: .evaluatedObject)
    }

    /// `ANYKEY`: every value of a dictionary.
    open class func expressionForAnyKey() -> NSExpression {
        NSExpression(node: .anyKey)
    }

    /// A substitution variable, `$name`, bound by `evaluate(with:substitutionVariables:)`
    /// or `withSubstitutionVariables(_:)`.
    public convenience init(forVariable name: String) {
        self.init(node: .variable(name))
    }

    /// A key path such as `"trail.region.name"` or `"hikes.@count"`.
    public convenience init(forKeyPath keyPath: String) {
        self.init(node: .keyPath(keyPath, components: splitKeyPath(keyPath)))
    }

    /// A key path given as a Swift key path to a stored property, e.g. `\Trail.name`.
    public convenience init<Root, Value>(forKeyPath keyPath: KeyPath<Root, Value>) {
        guard let name = keyPathName(keyPath) else {
            fatalError("NSExpression(forKeyPath:): cannot find the property name of \(keyPath); use a string key path")
        }
        self.init(forKeyPath: name)
    }

    /// A built-in function applied to `parameters` (expressions), e.g.
    /// `NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "distance")])`.
    /// Traps on a name that is not one of Core Data's functions.
    public convenience init(forFunction name: String, arguments parameters: [Any]) {
        guard ExpressionFunctions.isKnown(name) else {
            fatalError("Unable to parse function name '\(name)' into supported selector (\(name))")
        }
        self.init(node: .function(name: name, operand: nil, arguments: parameters.map(NSExpression.wrap)))
    }

    /// `FUNCTION(target, 'selectorName', arguments…)`: a method called on the value of
    /// `target`. Without the Objective-C runtime only these methods can be called:
    /// `valueForKeyPath:`, `valueForKey:`, `self`, `copy`, `description`, `uppercaseString`,
    /// `lowercaseString`, `length`, `count` and the built-in functions (`sum:`, …).
    public convenience init(forFunction target: NSExpression, selectorName name: String, arguments parameters: [Any]?) {
        self.init(node: .function(name: name, operand: target, arguments: (parameters ?? []).map(NSExpression.wrap)))
    }

    /// `{a, b, c}`: an array of the values of `subexpressions`.
    public convenience init(forAggregate subexpressions: [Any]) {
        self.init(node: .aggregate(subexpressions.map(NSExpression.wrap)))
    }

    /// `left UNION right`.
    public convenience init(forUnionSet left: NSExpression, with right: NSExpression) {
        self.init(node: .setOperation(.unionSet, left, right))
    }

    /// `left INTERSECT right`.
    public convenience init(forIntersectSet left: NSExpression, with right: NSExpression) {
        self.init(node: .setOperation(.intersectSet, left, right))
    }

    /// `left MINUS right`.
    public convenience init(forMinusSet left: NSExpression, with right: NSExpression) {
        self.init(node: .setOperation(.minusSet, left, right))
    }

    /// `SUBQUERY(collection, $variable, predicate)`: the elements of `expression` for which
    /// `predicate` holds, with `$variable` bound to each.
    public convenience init(forSubquery expression: NSExpression, usingIteratorVariable variable: String, predicate: NSPredicate) {
        self.init(node: .subquery(collection: expression, variable: variable, predicate: predicate))
    }

    /// `TERNARY(predicate, trueExpression, falseExpression)`.
    public convenience init(forConditional predicate: NSPredicate, trueExpression: NSExpression, falseExpression: NSExpression) {
        self.init(node: .conditional(predicate, trueExpression, falseExpression))
    }

    /// An expression computed by `block` from the evaluated object, the values of
    /// `arguments` and the variable context.
    public convenience init(block: @escaping (Any?, [Any], NSMutableDictionary?) -> Any, arguments: [NSExpression]?) {
        self.init(node: .block({ block($0, $1, $2) }, arguments))
    }

    static func wrap(_ value: Any) -> NSExpression {
        (value as? NSExpression) ?? NSExpression(forConstantValue: value)
    }

    // MARK: Inspecting

    /// What kind of expression this is.
    open var expressionType: ExpressionType {
        switch node {
        case .constant: return .constantValue
        case .evaluatedObject: return .evaluatedObject
        case .variable: return .variable
        case .keyPath: return .keyPath
        case .function: return .function
        case .setOperation(let type, _, _): return type
        case .subquery: return .subquery
        case .aggregate: return .aggregate
        case .anyKey: return .anyKey
        case .block: return .block
        case .conditional: return .conditional
        }
    }

    /// The value of a constant expression (`nil` for other kinds).
    open var constantValue: Any? {
        switch node {
        case .constant(let value): return value
        case .aggregate(let items) where items.allSatisfy({ $0.expressionType == .constantValue }):
            return items.map { $0.constantValue ?? NSNull() }
        default: return nil
        }
    }

    /// The key path of a key-path expression; for `$x.name` (a `valueForKeyPath:` function
    /// with an operand) the path after the operand.
    open var keyPath: String {
        switch node {
        case .keyPath(let path, _): return path
        case .function("valueForKeyPath:", _?, let arguments):
            return arguments.first?.constantValue.flatMap { PredicateValues.string($0) } ?? ""
        default: return ""
        }
    }

    /// The key path split at its dots (empty for other kinds).
    var keyPathComponents: [String] {
        if case .keyPath(_, let components) = node { return components }
        return []
    }

    /// The selector name of a function expression, e.g. `"sum:"` or `"add:to:"`.
    open var function: String {
        switch node {
        case .function(let name, _, _): return name
        case .block: return "BLOCK"
        default: return ""
        }
    }

    /// The variable name of a variable or subquery expression (without `$`).
    open var variable: String {
        switch node {
        case .variable(let name): return name
        case .subquery(_, let name, _): return name
        default: return ""
        }
    }

    /// The receiver of a `FUNCTION(…)` or `$x.key` expression.
    open var operand: NSExpression? {
        if case .function(_, let operand, _) = node { return operand }
        return nil
    }

    /// The arguments of a function or block expression.
    open var arguments: [NSExpression]? {
        switch node {
        case .function(_, _, let arguments): return arguments
        case .block(_, let arguments): return arguments
        default: return nil
        }
    }

    /// The subexpressions of an aggregate, or the collection of a subquery.
    open var collection: Any {
        switch node {
        case .aggregate(let items): return items
        case .subquery(let collection, _, _): return collection
        default: return [NSExpression]()
        }
    }

    /// The predicate of a subquery or conditional expression.
    open var predicate: NSPredicate {
        switch node {
        case .subquery(_, _, let predicate): return predicate
        case .conditional(let predicate, _, _): return predicate
        default: return NSPredicate(value: true)
        }
    }

    /// The left side of a set expression.
    open var left: NSExpression {
        if case .setOperation(_, let left, _) = node { return left }
        return self
    }

    /// The right side of a set expression.
    open var right: NSExpression {
        if case .setOperation(_, _, let right) = node { return right }
        return self
    }

    /// The expression a conditional gives when its predicate holds.
    open var `true`: NSExpression {
        if case .conditional(_, let yes, _) = node { return yes }
        return self
    }

    /// The expression a conditional gives when its predicate does not hold.
    open var `false`: NSExpression {
        if case .conditional(_, _, let no) = node { return no }
        return self
    }

    // MARK: Evaluating

    /// The value of the expression for `object`, reading `$variables` from `context` (which
    /// a subquery may extend while it runs).
    open func expressionValue(with object: Any?, context: NSMutableDictionary?) -> Any? {
        var variables: [String: Any] = [:]
        if let context {
            for case let (key as String, value) in context { variables[key] = value }
        }
        let evaluation = PredicateEvaluationContext(variables: variables)
        return value(of: object, evaluation)
    }

    open override var description: String { PredicateFormatter.expression(self) }

    open func copy(with zone: NSZone? = nil) -> Any { self }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSExpression else { return false }
        return other === self || other.description == description
    }

    open override var hash: Int { description.hashValue }
}

/// The variables visible while a predicate or expression is evaluated; subqueries bind
/// their iterator variable here for each element.
final class PredicateEvaluationContext {
    var variables: [String: Any]

    init(variables: [String: Any]) {
        self.variables = variables
    }
}

/// The property name of a Swift key path to a stored property: `\Trail.name` → `"name"`,
/// `\Trail.region.name` → `"region.name"`; `nil` for computed properties, whose names the
/// Linux runtime does not record.
func keyPathName(_ keyPath: AnyKeyPath) -> String? {
    let text = String(describing: keyPath)
    guard text.hasPrefix("\\"), !text.contains("<"), !text.contains("("), !text.contains("["),
        let dot = text.firstIndex(of: ".")
    else { return nil }
    let path = text[text.index(after: dot)...].replacingOccurrences(of: "?", with: "").replacingOccurrences(of: "!", with: "")
    return path.isEmpty ? nil : path
}
