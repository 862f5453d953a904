import Foundation

/// Reads an `NSExpression` from the keyed archive Xcode's mapping model editor stores
/// (`valueexpressiondata` in `xcmapping.xml`).
///
/// Foundation's expression classes archive themselves under these class names and keys
/// (the keys Cocoa-compatible readers of Apple's archives decode): `NSConstantValueExpression`
/// (`NSConstantValue`), `NSVariableExpression` (`NSVariable`), `NSSelfExpression`,
/// `NSKeyPathSpecifierExpression` (`NSKeyPath`), `NSFunctionExpression` and its subclass
/// `NSKeyPathExpression` (`NSOperand`, `NSSelectorName`, `NSArguments`) and
/// `NSAggregateExpression` (`NSCollection`). Each is decoded by a stand-in class registered
/// for that name, which turns it into the library's ``NSExpression``.
enum ArchivedExpression {
    /// The expression archived in `data`, or `nil` when the archive holds something else.
    static func decode(_ data: Data) -> NSExpression? {
        guard let unarchiver = try? NSKeyedUnarchiver(forReadingFrom: data) else { return nil }
        unarchiver.requiresSecureCoding = false
        for (name, stand) in standIns { unarchiver.setClass(stand, forClassName: name) }
        defer { unarchiver.finishDecoding() }
        return (unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? ExpressionStandIn)?.expression
    }

    static let standIns: [(String, AnyClass)] = [
        ("NSConstantValueExpression", ConstantStandIn.self),
        ("NSVariableExpression", VariableStandIn.self),
        ("NSSelfExpression", SelfStandIn.self),
        ("NSKeyPathSpecifierExpression", KeyPathSpecifierStandIn.self),
        ("NSFunctionExpression", FunctionStandIn.self),
        ("NSKeyPathExpression", FunctionStandIn.self),
        ("NSAggregateExpression", AggregateStandIn.self),
    ]

    /// A decoded archive object standing for one expression.
    class ExpressionStandIn: NSObject, NSCoding {
        var expression: NSExpression?
        required init?(coder: NSCoder) { super.init() }
        override init() { super.init() }
        func encode(with coder: NSCoder) {}

        static func expression(_ value: Any?) -> NSExpression? { (value as? ExpressionStandIn)?.expression }
    }

    final class ConstantStandIn: ExpressionStandIn {
        required init?(coder: NSCoder) {
            super.init()
            expression = NSExpression(forConstantValue: coder.decodeObject(forKey: "NSConstantValue"))
        }
    }

    final class VariableStandIn: ExpressionStandIn {
        required init?(coder: NSCoder) {
            super.init()
            guard let name = coder.decodeObject(forKey: "NSVariable") as? String else { return nil }
            expression = NSExpression(forVariable: name)
        }
    }

    final class SelfStandIn: ExpressionStandIn {
        required init?(coder: NSCoder) {
            super.init()
            expression = NSExpression(expressionType: .evaluatedObject)
        }
    }

    /// The key path argument of a key path expression, kept as a constant string.
    final class KeyPathSpecifierStandIn: ExpressionStandIn {
        required init?(coder: NSCoder) {
            super.init()
            guard let keyPath = coder.decodeObject(forKey: "NSKeyPath") as? String else { return nil }
            expression = NSExpression(forConstantValue: keyPath)
        }
    }

    /// `FUNCTION(operand, 'selector', arguments…)`; `valueForKeyPath:` on the evaluated
    /// object is a plain key path (`name`), on a variable a variable's key path (`$source.name`).
    final class FunctionStandIn: ExpressionStandIn {
        required init?(coder: NSCoder) {
            super.init()
            guard let selector = coder.decodeObject(forKey: "NSSelectorName") as? String else { return nil }
            let operand = ExpressionStandIn.expression(coder.decodeObject(forKey: "NSOperand"))
            let arguments = ((coder.decodeObject(forKey: "NSArguments") as? [Any]) ?? []).compactMap(ExpressionStandIn.expression)
            if selector == "valueForKeyPath:", let path = arguments.first?.constantValue as? String {
                if operand == nil || operand?.expressionType == .evaluatedObject {
                    expression = NSExpression(forKeyPath: path)
                    return
                }
            }
            if let operand {
                expression = NSExpression(forFunction: operand, selectorName: selector, arguments: arguments)
            } else if ExpressionFunctions.isKnown(selector) {
                expression = NSExpression(forFunction: selector, arguments: arguments)
            } else {
                return nil
            }
        }
    }

    final class AggregateStandIn: ExpressionStandIn {
        required init?(coder: NSCoder) {
            super.init()
            let items = ((coder.decodeObject(forKey: "NSCollection") as? [Any]) ?? []).compactMap(ExpressionStandIn.expression)
            expression = NSExpression(forAggregate: items)
        }
    }
}
