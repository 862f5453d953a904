import Foundation

/// What a derived attribute computes, in the forms Core Data's SQLite store supports
/// (Apple's `NSDerivedAttributeDescription` documentation lists them): a value read along
/// at most one to-one, optionally through a string function; `@count` or `@sum` over a
/// to-many; or the current time.
enum Derivation {
    enum StringFunction: String {
        case canonical = "canonical:", lowercase = "lowercase:", uppercase = "uppercase:"
    }

    /// `name` (one attribute of the entity) or `author.name` (an attribute across a to-one).
    case value(NSAttributeDescription, through: NSRelationshipDescription?, function: StringFunction?)
    /// `items.@count`.
    case count(NSRelationshipDescription)
    /// `items.@sum.price`.
    case sum(NSRelationshipDescription, NSAttributeDescription)
    /// `items.@min.price` or `items.@max.price` (Core Data's store generates these too).
    case extreme(NSRelationshipDescription, NSAttributeDescription, maximum: Bool)
    /// `now()`.
    case now

    /// Why a derivation cannot be computed, as a sentence naming the attribute.
    struct Unsupported: Error {
        let message: String
    }

    /// The derivation of `attribute`, declared on `entity`.
    init(_ attribute: NSDerivedAttributeDescription, of entity: NSEntityDescription) throws {
        let owner = "\(entity.name ?? "?").\(attribute.name)"
        guard let text = attribute.derivationExpressionFormat, !text.isEmpty else {
            throw Unsupported(message: "The derived attribute \(owner) has no derivation expression.")
        }
        let expression: NSExpression
        do { expression = try attribute.derivationExpression ?? NSExpression(validatingFormat: text) } catch {
            throw Unsupported(message: "The derivation \"\(text)\" of \(owner) is not a valid expression.")
        }
        func unsupported(_ why: String) -> Unsupported {
            Unsupported(message: "The derivation \"\(text)\" of \(owner) is not supported: \(why).")
        }
        func keyPath(_ expression: NSExpression) throws -> [String] {
            guard expression.expressionType == .keyPath else { throw unsupported("a key path is expected") }
            return expression.keyPathComponents
        }
        func storedAttribute(_ name: String, of entity: NSEntityDescription) throws -> NSAttributeDescription {
            guard let found = entity.attributesByName[name], !found.isTransient else {
                throw unsupported("\(entity.name ?? "?") has no stored attribute named \(name)")
            }
            return found
        }
        func relationship(_ name: String, toMany: Bool) throws -> (NSRelationshipDescription, destination: NSEntityDescription) {
            guard let found = entity.relationshipsByName[name], found.isToMany == toMany, let destination = found.destinationEntity else {
                throw unsupported("\(entity.name ?? "?") has no \(toMany ? "to-many" : "to-one") relationship named \(name)")
            }
            return (found, destination)
        }
        func value(_ path: [String], _ function: StringFunction?) throws -> Derivation {
            switch path.count {
            case 1: return .value(try storedAttribute(path[0], of: entity), through: nil, function: function)
            case 2:
                let (toOne, destination) = try relationship(path[0], toMany: false)
                return .value(try storedAttribute(path[1], of: destination), through: toOne, function: function)
            default: throw unsupported("a key path crosses at most one to-one relationship")
            }
        }
        func aggregate(_ path: [String], _ function: String) throws -> Derivation {
            let (toMany, destination) = try relationship(path.first ?? "", toMany: true)
            switch (function, path.count) {
            case ("@count", 1): return .count(toMany)
            case ("@sum", 2): return .sum(toMany, try storedAttribute(path[1], of: destination))
            case ("@min", 2), ("@max", 2): return .extreme(toMany, try storedAttribute(path[1], of: destination), maximum: function == "@max")
            default: throw unsupported("\(function) takes \(function == "@count" ? "a to-many relationship" : "a to-many relationship and an attribute")")
            }
        }

        switch expression.expressionType {
        case .keyPath:
            let path = try keyPath(expression)
            if let index = path.firstIndex(where: { $0.hasPrefix("@") }) {
                guard index == 1 else { throw unsupported("a collection operator follows one to-many relationship") }
                self = try aggregate([path[0]] + path.dropFirst(2), path[index])
            } else {
                self = try value(path, nil)
            }
        case .function:
            let name = expression.function
            let arguments = expression.arguments ?? []
            switch name {
            case "now", "now()":
                guard arguments.isEmpty else { throw unsupported("now() takes no argument") }
                self = .now
            case "count:", "sum:", "min:", "max:":
                guard arguments.count == 1 else { throw unsupported("\(name) takes one key path") }
                self = try aggregate(try keyPath(arguments[0]), "@" + name.dropLast())
            default:
                guard let function = StringFunction(rawValue: name) else {
                    throw unsupported("the function \(name) is not one of canonical:, lowercase:, uppercase:, count:, sum:, min:, max:, now()")
                }
                guard arguments.count == 1 else { throw unsupported("\(name) takes one key path") }
                self = try value(try keyPath(arguments[0]), function)
            }
        default:
            throw unsupported("a key path or a function is expected")
        }
    }
}
