import Foundation

/// An attribute whose value the store computes from other values (Xcode's "Derived").
///
/// The model loader keeps the derivation as written in the model file; the fetching code
/// turns it into an expression.
open class NSDerivedAttributeDescription: NSAttributeDescription {
    /// The derivation's source text, e.g. `notes.@count` or `now()`.
    var derivationExpressionFormat: String?

    public override init() { super.init() }

    override func versionHashComponents() -> [String] {
        super.versionHashComponents() + ["derived", derivationExpressionFormat ?? ""]
    }
}
