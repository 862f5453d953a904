import Foundation

/// An attribute whose value the store computes from other values (Xcode's "Derived").
///
/// The model loader keeps the derivation as written in the model file; the fetching code
/// turns it into an expression.
open class NSDerivedAttributeDescription: NSAttributeDescription {
    /// The derivation's source text, e.g. `notes.@count` or `now()`.
    var derivationExpressionFormat: String?

    /// Creates a derived attribute with no name and no derivation.
    public override init() { super.init() }

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
