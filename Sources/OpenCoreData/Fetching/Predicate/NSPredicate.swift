import Foundation

/// A logical condition on an object, used to filter fetch results and collections.
///
/// Create one from a format string (see Apple's "Predicate Format String Syntax"), from a
/// value or a block, or build ``NSComparisonPredicate`` and ``NSCompoundPredicate`` trees
/// directly. A predicate made from a format string is an instance of the class its text
/// describes, as in Foundation:
///
/// ```swift
/// let predicate = NSPredicate(format: "name BEGINSWITH[cd] %@ AND rating > %d", "a", 3)
/// predicate is NSCompoundPredicate                 // true
/// predicate.evaluate(with: ["name": "Ágnes", "rating": 4])  // true
/// print(predicate)  // name BEGINSWITH[cd] "a" AND rating > 3
/// ```
///
/// Predicates are immutable and may be shared between threads.
open class NSPredicate: NSObject, NSCopying, _PredicateFormatInitializing {
    enum Kind {
        case value(Bool)
        case block((Any?, [String: Any]?) -> Bool)
        /// A comparison or compound predicate: the subclass evaluates.
        case tree
    }

    let kind: Kind

    init(kind: Kind) {
        self.kind = kind
        super.init()
    }

    /// A predicate that always evaluates to `value` (`TRUEPREDICATE` / `FALSEPREDICATE`).
    public convenience init(value: Bool) {
        self.init(kind: .value(value))
    }

    /// A predicate that calls `block` with the evaluated object and the substitution
    /// variables. Block predicates cannot be translated to SQL; Core Data refuses them in
    /// fetch requests for SQLite stores.
    public convenience init(block: @escaping (Any?, [String: Any]?) -> Bool) {
        self.init(kind: .block(block))
    }

    /// Whether the predicate holds for `object`.
    open func evaluate(with object: Any?) -> Bool {
        evaluate(object, PredicateEvaluationContext(variables: [:]))
    }

    /// Whether the predicate holds for `object`, with `$variables` taken from `bindings`.
    open func evaluate(with object: Any?, substitutionVariables bindings: [String: Any]?) -> Bool {
        if case .block(let block) = kind { return block(object, bindings) }
        return evaluate(object, PredicateEvaluationContext(variables: bindings ?? [:]))
    }

    /// A copy with every `$variable` found in `variables` replaced by its value.
    ///
    /// ```swift
    /// let template = NSPredicate(format: "name BEGINSWITH $letter")
    /// template.withSubstitutionVariables(["letter": "R"])  // name BEGINSWITH "R"
    /// ```
    open func withSubstitutionVariables(_ variables: [String: Any]) -> Self {
        substituting(variables) as! Self
    }

    /// The predicate's format string, as Foundation prints it: `name == "x"`,
    /// `rating > 3`, `date > CAST(585000000.000000, "NSDate")`, `TRUEPREDICATE`.
    open var predicateFormat: String {
        switch kind {
        case .value(let value): return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .block: return "BLOCKPREDICATE(" + PredicateFormatter.address(of: self) + ")"
        case .tree: return ""
        }
    }

    open override var description: String { predicateFormat }

    /// Kept for API compatibility: predicates are never archived on Linux, so evaluation is
    /// always allowed.
    open func allowEvaluation() {}

    open func copy(with zone: NSZone? = nil) -> Any { self }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSPredicate else { return false }
        if other === self { return true }
        switch (kind, other.kind) {
        case let (.value(a), .value(b)): return a == b
        case (.tree, .tree): return type(of: self) == type(of: other) && predicateFormat == other.predicateFormat
        default: return false
        }
    }

    open override var hash: Int { predicateFormat.hashValue }

    // MARK: Internals the subclasses override

    /// Evaluates against `object` with the variables of `context`.
    func evaluate(_ object: Any?, _ context: PredicateEvaluationContext) -> Bool {
        switch kind {
        case .value(let value): return value
        case .block(let block): return block(object, context.variables)
        case .tree: return false
        }
    }

    /// The predicate with `$variables` replaced by constants.
    func substituting(_ variables: [String: Any]) -> NSPredicate { self }
}

/// Gives ``NSPredicate`` and its subclasses their format-string initializers, which (as
/// in Foundation) produce an instance of the class the text describes: a comparison, a
/// compound predicate, `TRUEPREDICATE`. An implementation detail: do not adopt it.
public protocol _PredicateFormatInitializing {}

extension _PredicateFormatInitializing where Self: NSPredicate {
    /// Parses `predicateFormat`, substituting `arguments` for `%@`, `%K`, `%d` and the other
    /// format specifiers.
    ///
    /// Arguments may be any Swift values: strings, every integer and floating-point type,
    /// `Bool`, `Date`, `Data`, `UUID`, `URL`, `Decimal`, arrays, sets, dictionaries, objects
    /// (managed objects and object IDs included), `NSExpression`s and `nil`. `%K` takes a
    /// key path string.
    ///
    /// A malformed format traps with Foundation's message, `Unable to parse the format
    /// string "…"`, followed by what was wrong and where; use
    /// ``init(validatingFormat:_:)`` to get an error instead.
    ///
    /// ```swift
    /// let longInRegion = NSPredicate(format: "%K == %@ AND lengthKm > %@",
    ///                                "region", "Iceland", NSNumber(value: 30))
    /// ```
    ///
    /// - Parameters:
    ///   - predicateFormat: the predicate in Apple's format-string syntax.
    ///   - arguments: one value per format specifier, in order.
    public init(format predicateFormat: String, _ arguments: Any?...) {
        do {
            self = try Self.parsed(predicateFormat, arguments.map { $0 as Any })
        } catch {
            raiseCoreDataException(.invalidArgument, String(describing: error))
        }
    }

    /// Parses `predicateFormat`, taking the format specifiers' values from `arguments` in order.
    public init(format predicateFormat: String, argumentArray arguments: [Any]?) {
        do {
            self = try Self.parsed(predicateFormat, arguments ?? [])
        } catch {
            raiseCoreDataException(.invalidArgument, String(describing: error))
        }
    }

    /// Parses `predicateFormat` like ``init(format:_:)``, but throws a
    /// ``PredicateFormatError`` (with the offending position) instead of trapping.
    ///
    /// ```swift
    /// do {
    ///     _ = try NSPredicate(validatingFormat: "name == ")
    /// } catch let error as PredicateFormatError {
    ///     print(error.position)  // 8
    /// }
    /// ```
    public init(validatingFormat predicateFormat: String, _ arguments: Any?...) throws {
        self = try Self.parsed(predicateFormat, arguments.map { $0 as Any })
    }

    /// Parses `predicateFormat` with the values of `arguments`, throwing a
    /// ``PredicateFormatError`` when it is malformed.
    public init(validatingFormat predicateFormat: String, argumentArray arguments: [Any]?) throws {
        self = try Self.parsed(predicateFormat, arguments ?? [])
    }

    private static func parsed(_ format: String, _ arguments: [Any]) throws -> Self {
        var parser = PredicateParser(format: format, arguments: arguments)
        let parsed = try parser.parsePredicate()
        guard let typed = parsed as? Self else {
            throw PredicateFormatError(
                format: format, position: 0, kind: .unexpectedToken,
                detail: "the format describes a \(type(of: parsed)), not a \(Self.self)")
        }
        return typed
    }
}
