import SwiftCompilerPlugin
import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Managed var name: String?` — the Linux spelling of `@NSManaged`.
///
/// Swift reserves `@NSManaged` for the Objective-C runtime, which Linux lacks, so the
/// property becomes a computed one whose accessors go through the managed object's
/// key-value storage, exactly where Core Data's dynamic accessors go.
public struct ManagedMacro: AccessorMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self) else {
            throw diagnostic(node, "@Managed can only be applied to a 'var' property")
        }
        guard variable.bindingSpecifier.tokenKind == .keyword(.var) else {
            throw diagnostic(variable.bindingSpecifier, "@Managed properties must be declared with 'var'")
        }
        guard variable.bindings.count == 1, let binding = variable.bindings.first,
            let identifier = binding.pattern.as(IdentifierPatternSyntax.self)
        else {
            throw diagnostic(variable, "@Managed applies to exactly one property per declaration")
        }
        guard binding.typeAnnotation != nil else {
            throw diagnostic(binding, "@Managed property '\(identifier.identifier.text)' needs an explicit type")
        }
        if let initializer = binding.initializer {
            throw diagnostic(
                initializer,
                "@Managed property '\(identifier.identifier.text)' cannot have an initial value; set a default value in the model or in awakeFromInsert()"
            )
        }
        if binding.accessorBlock != nil {
            throw diagnostic(binding, "@Managed property '\(identifier.identifier.text)' cannot declare its own accessors")
        }
        let key = identifier.identifier.text.trimmingBackticks
        return [
            "get { managedValue(forKey: \(literal: key)) }",
            "set { setManagedValue(newValue, forKey: \(literal: key)) }",
        ]
    }

    private static func diagnostic(_ node: some SyntaxProtocol, _ message: String) -> DiagnosticsError {
        DiagnosticsError(diagnostics: [Diagnostic(node: Syntax(node), message: ManagedMacroMessage(message: message))])
    }
}

struct ManagedMacroMessage: DiagnosticMessage {
    let message: String
    var diagnosticID: MessageID { MessageID(domain: "OpenCoreDataMacros", id: "Managed") }
    var severity: DiagnosticSeverity { .error }
}

extension String {
    fileprivate var trimmingBackticks: String {
        hasPrefix("`") && hasSuffix("`") && count >= 2 ? String(dropFirst().dropLast()) : self
    }
}

@main
struct OpenCoreDataMacrosPlugin: CompilerPlugin {
    let providingMacros: [Macro.Type] = [ManagedMacro.self]
}
