import Foundation

/// An attribute whose value the store computes from other values (Xcode's "Derived").
///
/// Core Data supports these derivations in a SQLite store:
///
/// | Derivation | Example |
/// |---|---|
/// | an attribute, or an attribute across a to-one | `name`, `author.name` |
/// | `canonical:`, `lowercase:` or `uppercase:` of one of those | `canonical:(name)` |
/// | `@count` of a to-many, `@sum`, `@min` or `@max` of an attribute across one | `items.@count`, `items.@sum.price` |
/// | the current time | `now()` |
///
/// The store computes the value when a save writes the values it depends on (SQLite
/// triggers, as Core Data's store does); the object in memory keeps the value it had until it
/// is refreshed or fetched again.
///
/// ```swift
/// let searchName = NSDerivedAttributeDescription()
/// searchName.name = "searchName"
/// searchName.attributeType = .stringAttributeType
/// searchName.derivationExpression = NSExpression(format: "canonical:(name)")
/// ```
open class NSDerivedAttributeDescription: NSAttributeDescription {
    /// The derivation's source text, e.g. `notes.@count` or `now()`, as the model file
    /// writes it.
    var derivationExpressionFormat: String?
    /// The expression set from code, kept as given.
    private var assignedExpression: NSExpression?

    /// Creates a derived attribute with no name and no derivation.
    public override init() { super.init() }

    /// The expression the store evaluates to produce the attribute's value.
    ///
    /// A key path (`name`, `author.name`, `items.@count`, `items.@sum.price`) or a function
    /// (`canonical:(name)`, `lowercase:(name)`, `uppercase:(name)`, `now()`). A model file's
    /// `derivationExpression` text is parsed when first read; text that does not parse
    /// reads as `nil`, and adding a store for the model then fails, naming the attribute.
    open var derivationExpression: NSExpression? {
        get {
            if let assignedExpression { return assignedExpression }
            return derivationExpressionFormat.flatMap { try? NSExpression(validatingFormat: $0) }
        }
        set {
            assignedExpression = newValue
            derivationExpressionFormat = newValue.map { $0.description }
        }
    }

    /// Core Data hashes a derived attribute by the printed form of its derivation
    /// expression (and of its filtering predicate, which the model editor never sets),
    /// without the attribute hash. No hash computed by Apple for a derived attribute was
    /// at hand to check this against.
    override func computeVersionHash() -> Data {
        var hasher = VersionHasher()
        hasher.add(derivationExpressionFormat.map(Self.printedDerivation))
        return hasher.finalize()
    }

    /// The derivation as Core Data prints it: Core Data turns a key path ending in
    /// `.@count` into `count:(path)`, and `.@sum` or `.@total` into `sum:(path)`;
    /// other derivations print as the model file writes them.
    static func printedDerivation(_ text: String) -> String {
        for (suffix, function) in [(".@count", "count:"), (".@sum", "sum:"), (".@total", "sum:")] where text.hasSuffix(suffix) {
            return "\(function)(\(text.dropLast(suffix.count)))"
        }
        return text
    }
}
