import OpenCoreDataMacros
import SwiftDiagnostics
import SwiftParser
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import SwiftSyntaxMacrosTestSupport
import XCTest

private let macros: [String: Macro.Type] = ["Managed": ManagedMacro.self]

final class ManagedMacroTests: XCTestCase {
    func testExpandsInAClassBody() {
        assertMacroExpansion(
            """
            final class Trail: NSManagedObject {
                @Managed var name: String?
                @Managed var rating: Double
            }
            """,
            expandedSource: """
                final class Trail: NSManagedObject {
                    var name: String? {
                        get {
                            managedValue(forKey: "name")
                        }
                        set {
                            setManagedValue(newValue, forKey: "name")
                        }
                    }
                    var rating: Double {
                        get {
                            managedValue(forKey: "rating")
                        }
                        set {
                            setManagedValue(newValue, forKey: "rating")
                        }
                    }
                }
                """,
            macros: macros)
    }

    func testExpandsInAnExtensionAsXcodeGeneratesThem() {
        assertMacroExpansion(
            """
            extension Trail {
                @Managed public var tags: [String]?
            }
            """,
            expandedSource: """
                extension Trail {
                    public var tags: [String]? {
                        get {
                            managedValue(forKey: "tags")
                        }
                        set {
                            setManagedValue(newValue, forKey: "tags")
                        }
                    }
                }
                """,
            macros: macros)
    }

    func testBacktickedNamesUseThePlainKey() {
        assertMacroExpansion(
            "@Managed var `default`: Bool",
            expandedSource: """
                var `default`: Bool {
                    get {
                        managedValue(forKey: "default")
                    }
                    set {
                        setManagedValue(newValue, forKey: "default")
                    }
                }
                """,
            macros: macros)
    }

    func testLetIsRejected() {
        assertMacroExpansion(
            "@Managed let name: String?",
            expandedSource: "let name: String?",
            diagnostics: [DiagnosticSpec(message: "@Managed properties must be declared with 'var'", line: 1, column: 10)],
            macros: macros)
    }

    func testInitialValueIsRejected() {
        assertMacroExpansion(
            "@Managed var rating: Double = 0",
            expandedSource: "var rating: Double = 0",
            diagnostics: [
                DiagnosticSpec(
                    message: "@Managed property 'rating' cannot have an initial value; set a default value in the model or in awakeFromInsert()",
                    line: 1, column: 29)
            ],
            macros: macros)
    }

    func testMissingTypeIsRejected() {
        assertMacroExpansion(
            "@Managed var name",
            expandedSource: "var name",
            diagnostics: [DiagnosticSpec(message: "@Managed property 'name' needs an explicit type", line: 1, column: 14)],
            macros: macros)
    }

    func testSeveralBindingsAreRejected() {
        // swift-syntax rejects these before the macro runs; the macro checks again for
        // hosts that do not.
        assertMacroExpansion(
            "@Managed var a: Int, b: Int",
            expandedSource: "var a: Int, b: Int",
            diagnostics: [DiagnosticSpec(message: "accessor macro can only be applied to a single variable", line: 1, column: 1)],
            macros: macros)
        XCTAssertEqual(
            directExpansionError("@Managed var a: Int, b: Int"),
            "@Managed applies to exactly one property per declaration")
    }

    func testOwnAccessorsAreRejected() {
        assertMacroExpansion(
            "@Managed var name: String { \"x\" }",
            expandedSource: "var name: String { \"x\" }",
            diagnostics: [DiagnosticSpec(message: "@Managed property 'name' cannot declare its own accessors", line: 1, column: 14)],
            macros: macros)
    }

    func testNonPropertyIsRejected() {
        // The compiler refuses accessor macros on functions itself; called directly, the
        // macro explains.
        XCTAssertEqual(directExpansionError("@Managed func name() {}"), "@Managed can only be applied to a 'var' property")
    }

    /// The message of the error the macro throws when expanded on the first declaration of
    /// `source` without swift-syntax's own checks.
    private func directExpansionError(_ source: String) -> String? {
        let file = Parser.parse(source: source)
        guard let declaration = file.statements.first?.item.as(DeclSyntax.self),
            let attribute = declaration.asProtocol(WithAttributesSyntax.self)?.attributes.first?.as(AttributeSyntax.self)
        else { return "no declaration" }
        do {
            _ = try ManagedMacro.expansion(of: attribute, providingAccessorsOf: declaration, in: BasicMacroExpansionContext())
            return nil
        } catch let error as DiagnosticsError {
            return error.diagnostics.first?.message
        } catch {
            return "\(error)"
        }
    }
}
