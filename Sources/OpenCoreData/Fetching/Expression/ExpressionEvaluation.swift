import Foundation

extension NSExpression {
    /// The value of the expression for `object` with the variables in `context`.
    func value(of object: Any?, _ context: PredicateEvaluationContext) -> Any? {
        switch node {
        case .constant(let value):
            return value
        case .evaluatedObject:
            return object
        case .variable(let name):
            return context.variables[name]
        case .keyPath(_, let components):
            return keyPathValue(components: components[...], of: object)
        case .function(let name, let operand, let arguments):
            if let operand {
                return ExpressionFunctions.callMethod(name, on: operand.value(of: object, context), arguments: arguments.map { $0.value(of: object, context) })
            }
            return ExpressionFunctions.call(name, arguments.map { $0.value(of: object, context) })
        case .setOperation(let type, let left, let right):
            return setOperation(type, left.value(of: object, context), right.value(of: object, context))
        case .subquery(let collection, let variable, let predicate):
            guard let source = unwrapAny(collection.value(of: object, context)), let elements = collectionElements(source) else { return [Any]() }
            let saved = context.variables[variable]
            defer { context.variables[variable] = saved }
            var matching: [Any] = []
            for element in elements {
                context.variables[variable] = element
                if predicate.evaluate(element, context) { matching.append(element) }
            }
            return matching
        case .aggregate(let items):
            return items.map { $0.value(of: object, context) ?? NSNull() }
        case .anyKey:
            if let dictionary = object as? [AnyHashable: Any] { return Array(dictionary.values) }
            if let dictionary = object as? NSDictionary { return dictionary.allValues }
            return object
        case .block(let block, let arguments):
            let values = (arguments ?? []).map { $0.value(of: object, context) ?? NSNull() }
            let dictionary = NSMutableDictionary()
            for (key, value) in context.variables { dictionary[key] = value }
            return block(object, values, dictionary)
        case .conditional(let predicate, let yes, let no):
            return predicate.evaluate(object, context) ? yes.value(of: object, context) : no.value(of: object, context)
        }
    }

    private func setOperation(_ type: ExpressionType, _ left: Any?, _ right: Any?) -> Any? {
        let a = unwrapAny(left).flatMap(collectionOrDictionaryElements) ?? []
        let b = unwrapAny(right).flatMap(collectionOrDictionaryElements) ?? []
        func contains(_ list: [Any], _ value: Any) -> Bool {
            list.contains { PredicateValues.equal($0, value, options: []) }
        }
        switch type {
        case .unionSet: return distinct(a + b)
        case .intersectSet: return distinct(a.filter { contains(b, $0) })
        default: return distinct(a.filter { !contains(b, $0) })
        }
    }

    /// The expression with `$variables` found in `variables` replaced by constants. A
    /// subquery's own iterator variable is left alone inside it.
    func substituting(_ variables: [String: Any]) -> NSExpression {
        switch node {
        case .variable(let name):
            guard let value = variables[name] else { return self }
            return NSExpression(forConstantValue: value)
        case .function(let name, let operand, let arguments):
            return NSExpression(node: .function(name: name, operand: operand?.substituting(variables), arguments: arguments.map { $0.substituting(variables) }))
        case .setOperation(let type, let left, let right):
            return NSExpression(node: .setOperation(type, left.substituting(variables), right.substituting(variables)))
        case .subquery(let collection, let variable, let predicate):
            var inner = variables
            inner[variable] = nil
            return NSExpression(node: .subquery(collection: collection.substituting(variables), variable: variable, predicate: predicate.substituting(inner)))
        case .aggregate(let items):
            return NSExpression(node: .aggregate(items.map { $0.substituting(variables) }))
        case .block(let block, let arguments):
            return NSExpression(node: .block(block, arguments?.map { $0.substituting(variables) }))
        case .conditional(let predicate, let yes, let no):
            return NSExpression(node: .conditional(predicate.substituting(variables), yes.substituting(variables), no.substituting(variables)))
        case .constant, .evaluatedObject, .keyPath, .anyKey:
            return self
        }
    }

    /// Whether the expression's value does not depend on the evaluated object or variables.
    var isConstant: Bool {
        switch node {
        case .constant: return true
        case .aggregate(let items): return items.allSatisfy(\.isConstant)
        default: return false
        }
    }
}
