import Foundation

/// Turns the attribute strings of a model file's `<attribute>` and `<relationship>`
/// elements into property descriptions.
enum ModelFileValues {
    /// A problem with one element; the parser adds the file and line.
    struct Problem: Error {
        let text: String
    }

    /// Xcode writes booleans as `YES`/`NO`; a missing one is `NO`.
    static func flag(_ text: String?) -> Bool {
        guard let text = text?.lowercased() else { return false }
        return text == "yes" || text == "true" || text == "1"
    }

    /// The flags every property element may carry: optional, transient, indexed, …
    static func applyPropertyFlags(_ attributes: [String: String], to property: NSPropertyDescription) {
        property.isOptional = flag(attributes["optional"])
        property.isTransient = flag(attributes["transient"])
        property.isIndexed = flag(attributes["indexed"])
        property.isIndexedBySpotlight = flag(attributes["spotlightIndexingEnabled"])
        property.versionHashModifier = attributes["versionHashModifier"]
        property.renamingIdentifier = attributes["elementID"]
    }

    static func attribute(named name: String, _ attributes: [String: String]) throws -> NSAttributeDescription {
        let attribute: NSAttributeDescription
        if attributes["attributeType"] == "Composite" {
            // Its elements come from the model-level <composite> it names (ModelFileParser).
            attribute = NSCompositeAttributeDescription()
        } else if flag(attributes["derived"]) {
            let derived = NSDerivedAttributeDescription()
            derived.derivationExpressionFormat = attributes["derivationExpression"]
            attribute = derived
        } else {
            attribute = NSAttributeDescription()
        }
        attribute.name = name
        let typeName = attributes["attributeType"] ?? "Undefined"
        guard let type = NSAttributeType(modelFileName: typeName) else {
            throw Problem(text: "attribute \(name) has unknown attributeType \"\(typeName)\"")
        }
        attribute.attributeType = type
        attribute.valueTransformerName = attributes["valueTransformerName"]
        if let className = attributes["customClassName"], !className.isEmpty { attribute.attributeValueClassName = className }
        attribute.allowsExternalBinaryDataStorage = flag(attributes["allowsExternalBinaryDataStorage"])
        attribute.preservesValueInHistoryOnDeletion = flag(attributes["preserveAfterDeletion"])
        if let text = attributes["defaultValueString"] {
            attribute.defaultValue = try defaultValue(text, type: type, attribute: name)
        } else if type == .dateAttributeType, let seconds = attributes["defaultDateTimeInterval"] {
            guard let interval = Double(seconds) else { throw Problem(text: "attribute \(name) has an invalid defaultDateTimeInterval \"\(seconds)\"") }
            attribute.defaultValue = Date(timeIntervalSinceReferenceDate: interval)
        }
        attribute.constraints = try constraints(attributes, attribute: name)
        return attribute
    }

    /// The default value as the Swift type the attribute type stores (`Int16`, `Int32`,
    /// `Int64`, `Decimal`, `Double`, `Float`, `String`, `Bool`, `Date`, `UUID`, `URL`).
    static func defaultValue(_ text: String, type: NSAttributeType, attribute name: String) throws -> Any? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        func invalid() -> Problem { Problem(text: "attribute \(name) has a default value \"\(text)\" that is not a valid \(type.modelFileName)") }
        switch type {
        case .integer16AttributeType: guard let value = Int16(trimmed) else { throw invalid() }; return value
        case .integer32AttributeType: guard let value = Int32(trimmed) else { throw invalid() }; return value
        case .integer64AttributeType: guard let value = Int64(trimmed) else { throw invalid() }; return value
        case .doubleAttributeType: guard let value = Double(trimmed) else { throw invalid() }; return value
        case .floatAttributeType: guard let value = Float(trimmed) else { throw invalid() }; return value
        case .decimalAttributeType: guard let value = Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX")) else { throw invalid() }; return value
        case .booleanAttributeType:
            switch trimmed.lowercased() {
            case "yes", "true", "1": return true
            case "no", "false", "0": return false
            default: throw invalid()
            }
        case .stringAttributeType: return text
        case .dateAttributeType:
            guard let seconds = Double(trimmed) else { throw invalid() }
            return Date(timeIntervalSinceReferenceDate: seconds)
        case .UUIDAttributeType: guard let value = UUID(uuidString: trimmed) else { throw invalid() }; return value
        case .URIAttributeType: guard let value = URL(string: trimmed) else { throw invalid() }; return value
        case .binaryDataAttributeType, .transformableAttributeType, .undefinedAttributeType, .objectIDAttributeType, .compositeAttributeType:
            return nil  // Xcode offers no default for these.
        }
    }

    /// Minimum and maximum (values for numbers, lengths for strings), date range, pattern.
    static func constraints(_ attributes: [String: String], attribute name: String) throws -> AttributeConstraints {
        var rules = AttributeConstraints()
        func number(_ key: String) throws -> Decimal? {
            guard let text = attributes[key] else { return nil }
            guard let value = Decimal(string: text.trimmingCharacters(in: .whitespaces), locale: Locale(identifier: "en_US_POSIX")) else {
                throw Problem(text: "attribute \(name) has an invalid \(key) \"\(text)\"")
            }
            return value
        }
        func seconds(_ key: String) throws -> Double? {
            guard let text = attributes[key] else { return nil }
            guard let value = Double(text) else { throw Problem(text: "attribute \(name) has an invalid \(key) \"\(text)\"") }
            return value
        }
        rules.minimum = try number("minValueString")
        rules.maximum = try number("maxValueString")
        rules.minimumDate = try seconds("minDateTimeInterval")
        rules.maximumDate = try seconds("maxDateTimeInterval")
        if let pattern = attributes["regularExpressionString"], !pattern.isEmpty {
            guard (try? NSRegularExpression(pattern: pattern)) != nil else {
                throw Problem(text: "attribute \(name) has a regularExpressionString that does not compile: \(pattern)")
            }
            rules.regularExpression = pattern
        }
        return rules
    }

    static func relationship(named name: String, _ attributes: [String: String]) throws -> NSRelationshipDescription {
        let relationship = NSRelationshipDescription()
        relationship.name = name
        guard let destination = attributes["destinationEntity"], !destination.isEmpty else {
            throw Problem(text: "relationship \(name) has no destinationEntity")
        }
        relationship.destinationEntityName = destination
        relationship.inverseName = attributes["inverseName"]
        relationship.isOrdered = flag(attributes["ordered"])
        let toMany = flag(attributes["toMany"])
        func count(_ key: String) throws -> Int? {
            guard let text = attributes[key] else { return nil }
            guard let value = Int(text), value >= 0 else { throw Problem(text: "relationship \(name) has an invalid \(key) \"\(text)\"") }
            return value
        }
        // A to-many without maxCount is unbounded (0); a to-one holds at most one.
        relationship.maxCount = toMany ? (try count("maxCount") ?? 0) : 1
        relationship.minCount = try count("minCount") ?? (toMany || flag(attributes["optional"]) ? 0 : 1)
        switch attributes["deletionRule"] ?? "Nullify" {
        case "Nullify": relationship.deleteRule = .nullifyDeleteRule
        case "Cascade": relationship.deleteRule = .cascadeDeleteRule
        case "Deny": relationship.deleteRule = .denyDeleteRule
        case "No Action": relationship.deleteRule = .noActionDeleteRule
        case let other: throw Problem(text: "relationship \(name) has unknown deletionRule \"\(other)\"")
        }
        return relationship
    }
}
