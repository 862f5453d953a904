import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads the `contents` XML Xcode writes for a `.xcdatamodel` into a model.
///
/// Entities and properties are built while reading; names that refer to other entities
/// (parents, destinations, inverses, configuration members) are kept with their line and
/// resolved by ``ModelFileResolver`` once the whole file is read.
final class ModelFileParser: NSObject, XMLParserDelegate {
    let file: URL
    let model = NSManagedObjectModel()
    /// Every reference to resolve, in file order.
    private(set) var pending = PendingReferences()

    private var currentEntity: NSEntityDescription?
    private var entityProperties: [NSPropertyDescription] = []
    private var currentProperty: NSPropertyDescription?
    private var currentConstraint: [String]?
    private var currentCompoundIndex: [String]?
    private var currentFetchIndex: (name: String, line: Int, predicate: String?, elements: [NSFetchIndexElementDescription])?
    private var currentConfiguration: String?
    private var userInfo: [AnyHashable: Any]?
    private var failure: NSError?
    private weak var parser: XMLParser?
    /// Open elements, innermost last, to report a document that ends inside one.
    private var openElements: [String] = []
    private var sawModel = false
    /// The model-level `<composite name="…">` being read: its elements' XML attributes.
    private var currentComposite: (name: String, elements: [[String: String]])?
    /// Composite types by name, each element as its XML attributes.
    private var compositeTypes: [String: [[String: String]]] = [:]
    /// Composite attributes of entities, with the type they name and their line.
    private var compositeUses: [(attribute: NSCompositeAttributeDescription, type: String?, line: Int)] = []

    init(file: URL) { self.file = file }

    /// Parses `data`, the contents of ``file``.
    func parse(_ data: Data) throws -> NSManagedObjectModel {
        let parser = XMLParser(data: data)
        self.parser = parser
        parser.delegate = self
        let succeeded = parser.parse()
        if let failure { throw failure }
        guard succeeded else {
            throw ModelFileError.at(file, line: max(parser.lineNumber, 1), xmlParserMessage(parser.parserError))
        }
        // corelibs' parser accepts some truncated documents without an error.
        if let open = openElements.last {
            throw ModelFileError.at(file, line: max(parser.lineNumber, 1), "malformed XML: the document ends inside <\(open)>")
        }
        guard sawModel else { throw ModelFileError.at(file, line: 1, "not a Core Data model: there is no <model> element") }
        try resolveComposites()
        try ModelFileResolver(file: file, model: model, pending: pending).resolve()
        model.sourceURL = file
        return model
    }

    private var line: Int { parser?.lineNumber ?? 0 }

    private func fail(_ message: String) {
        guard failure == nil else { return }
        failure = ModelFileError.at(file, line: line, message)
        parser?.abortParsing()
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        guard failure == nil else { return }
        openElements.append(name)
        switch name {
        case "model":
            sawModel = true
            if let identifier = attributes["userDefinedModelVersionIdentifier"], !identifier.isEmpty {
                model.versionIdentifiers = [identifier]
            }
        case "entity": startEntity(attributes)
        case "composite", "compositeAttribute" where currentEntity == nil:
            guard let compositeName = attributes["name"], !compositeName.isEmpty else { return fail("<\(name)> needs a name") }
            if compositeTypes[compositeName] != nil { return fail("composite \(compositeName) is declared twice") }
            currentComposite = (compositeName, [])
        case "attribute" where currentComposite != nil:
            guard let elementName = attributes["name"], !elementName.isEmpty else { return fail("<attribute> needs a name") }
            currentComposite?.elements.append(attributes)
        case "attribute", "relationship", "fetchedProperty": startProperty(name, attributes)
        case "uniquenessConstraint": currentConstraint = []
        case "compoundIndex": currentCompoundIndex = []
        case "constraint", "index":
            guard let value = attributes["value"] else { return fail("<\(name)> needs a value") }
            if currentConstraint != nil { currentConstraint?.append(value) } else { currentCompoundIndex?.append(value) }
        case "fetchIndex":
            guard let indexName = attributes["name"] else { return fail("<fetchIndex> needs a name") }
            currentFetchIndex = (indexName, line, attributes["partialIndexPredicate"], [])
        case "fetchIndexElement": addFetchIndexElement(attributes)
        case "userInfo": userInfo = [:]
        case "entry":
            guard let key = attributes["key"] else { return fail("<entry> needs a key") }
            userInfo?[key] = attributes["value"] ?? ""
        case "configuration":
            guard let configuration = attributes["name"] else { return fail("<configuration> needs a name") }
            currentConfiguration = configuration
            pending.configurations.append((configuration, []))
        case "memberEntity":
            guard currentConfiguration != nil, let member = attributes["name"] else { return fail("<memberEntity> needs a name inside a <configuration>") }
            pending.configurations[pending.configurations.count - 1].members.append((member, line))
        case "fetchRequest": addFetchRequest(attributes)
        default: break  // Layout (<elements>) and anything newer Xcode writes.
        }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        guard failure == nil else { return }
        _ = openElements.popLast()
        switch name {
        case "entity":
            currentEntity?.properties = entityProperties
            currentEntity = nil
        case "composite", "compositeAttribute" where currentComposite != nil && currentEntity == nil:
            if let composite = currentComposite { compositeTypes[composite.name] = composite.elements }
            currentComposite = nil
        case "attribute" where currentComposite != nil: break
        case "attribute", "relationship", "fetchedProperty": currentProperty = nil
        case "uniquenessConstraint":
            if let constraint = currentConstraint, !constraint.isEmpty { currentEntity?.uniquenessConstraints.append(constraint) }
            currentConstraint = nil
        case "compoundIndex":
            if let names = currentCompoundIndex, !names.isEmpty, let entity = currentEntity {
                let elements = names.map { NSFetchIndexElementDescription(propertyName: $0, collationType: .binary, isAscending: true) }
                let index = NSFetchIndexDescription(name: "\(entity.name ?? "")_\(names.joined(separator: "_"))", elements: elements)
                entity.indexes.append(index)
                pending.indexes.append((index, entity, line))
            }
            currentCompoundIndex = nil
        case "fetchIndex":
            if let spec = currentFetchIndex, let entity = currentEntity {
                let index = NSFetchIndexDescription(name: spec.name, elements: spec.elements)
                index.partialIndexPredicateFormat = spec.predicate
                entity.indexes.append(index)
                pending.indexes.append((index, entity, spec.line))
            }
            currentFetchIndex = nil
        case "userInfo":
            if let info = userInfo {
                if let property = currentProperty { property.userInfo = info } else { currentEntity?.userInfo = info }
            }
            userInfo = nil
        case "configuration": currentConfiguration = nil
        default: break
        }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        guard failure == nil else { return }
        failure = ModelFileError.at(file, line: max(parser.lineNumber, 1), xmlParserMessage(parseError))
    }

    private func startEntity(_ attributes: [String: String]) {
        guard currentEntity == nil else { return fail("<entity> cannot be nested in another entity") }
        guard let name = attributes["name"], !name.isEmpty else { return fail("<entity> needs a name") }
        if model.entities.contains(where: { $0.name == name }) { return fail("entity \(name) is declared twice") }
        let entity = NSEntityDescription()
        entity.name = name
        if let className = attributes["representedClassName"], !className.isEmpty { entity.managedObjectClassName = className }
        entity.codeGenerationType = attributes["codeGenerationType"]
        entity.isAbstract = ModelFileValues.flag(attributes["isAbstract"])
        entity.versionHashModifier = attributes["versionHashModifier"]
        entity.renamingIdentifier = attributes["elementID"]
        if let parent = attributes["parentEntity"] { pending.parents.append((entity, parent, line)) }
        model.entities.append(entity)
        currentEntity = entity
        entityProperties = []
    }

    private func startProperty(_ element: String, _ attributes: [String: String]) {
        guard currentEntity != nil else { return fail("<\(element)> must be inside an <entity>") }
        guard let name = attributes["name"], !name.isEmpty else { return fail("<\(element)> needs a name") }
        if entityProperties.contains(where: { $0.name == name }) { return fail("property \(name) is declared twice in entity \(currentEntity?.name ?? "")") }
        let property: NSPropertyDescription
        do {
            switch element {
            case "attribute":
                property = try ModelFileValues.attribute(named: name, attributes)
                if let composite = property as? NSCompositeAttributeDescription { compositeUses.append((composite, attributes["composite"], line)) }
            case "relationship":
                let relationship = try ModelFileValues.relationship(named: name, attributes)
                pending.relationships.append((relationship, line))
                property = relationship
            default:
                let fetched = NSFetchedPropertyDescription()
                fetched.name = name
                pending.fetchedProperties.append((fetched, line))
                property = fetched
            }
        } catch let message as ModelFileValues.Problem {
            return fail(message.text)
        } catch {
            return fail("\(error)")
        }
        ModelFileValues.applyPropertyFlags(attributes, to: property)
        entityProperties.append(property)
        currentProperty = property
    }

    /// Gives each composite attribute fresh elements built from the composite type it names
    /// (`composite="Address"`), so that two attributes of one type never share elements.
    private func resolveComposites() throws {
        for (attribute, typeName, line) in compositeUses {
            try fill(attribute, type: typeName, line: line, enclosing: [])
        }
    }

    /// Gives `attribute` the elements of the composite named `typeName`, nested composites
    /// included (`enclosing` lists the composites around it, to refuse one inside itself).
    private func fill(_ attribute: NSCompositeAttributeDescription, type typeName: String?, line: Int, enclosing: [String]) throws {
        guard let typeName, !typeName.isEmpty else {
            throw ModelFileError.at(file, line: line, "composite attribute \(attribute.name) does not name its composite (composite=\"…\")")
        }
        guard let elements = compositeTypes[typeName] else {
            throw ModelFileError.at(file, line: line, "composite attribute \(attribute.name) refers to composite \(typeName), which the model does not declare")
        }
        guard !enclosing.contains(typeName) else {
            throw ModelFileError.at(file, line: line, "composite \(typeName) contains itself")
        }
        attribute.elements = try elements.map { xml in
            let name = xml["name"] ?? ""
            let element: NSAttributeDescription
            do {
                element = try ModelFileValues.attribute(named: name, xml)
                ModelFileValues.applyPropertyFlags(xml, to: element)
            } catch let problem as ModelFileValues.Problem {
                throw ModelFileError.at(file, line: line, "composite \(typeName): \(problem.text)")
            }
            if let nested = element as? NSCompositeAttributeDescription {
                try fill(nested, type: xml["composite"], line: line, enclosing: enclosing + [typeName])
            }
            return element
        }
    }

    private func addFetchIndexElement(_ attributes: [String: String]) {
        guard currentFetchIndex != nil else { return fail("<fetchIndexElement> must be inside a <fetchIndex>") }
        guard let property = attributes["property"] else { return fail("<fetchIndexElement> needs a property") }
        let collation: NSFetchIndexElementType = attributes["type"]?.lowercased() == "rtree" ? .rTree : .binary
        let ascending = attributes["order"]?.lowercased() != "descending"
        currentFetchIndex?.elements.append(NSFetchIndexElementDescription(propertyName: property, collationType: collation, isAscending: ascending))
    }

    private func addFetchRequest(_ attributes: [String: String]) {
        if let fetched = currentProperty as? NSFetchedPropertyDescription {
            guard let entity = attributes["entity"] else { return fail("<fetchRequest> of fetched property \(fetched.name) needs an entity") }
            fetched.requestSource = (entity, attributes["predicateString"])
            return
        }
        guard let name = attributes["name"], let entity = attributes["entity"] else {
            return fail("<fetchRequest> needs a name and an entity")
        }
        pending.fetchRequests.append((name, entity, attributes["predicateString"], line))
    }

    /// Turns an XMLParser error into words. corelibs passes libxml2's error numbers
    /// through (its `XMLParser.ErrorCode` names are off by a few), so those are matched.
    private func xmlParserMessage(_ error: Error?) -> String {
        guard let error = error as NSError? else { return "malformed XML" }
        let reason: String
        switch error.code {
        case 4: reason = "the document is empty"
        case 5: reason = "the document ends too early or has content after its end"
        case 9: reason = "an invalid character"
        case 26, 27: reason = "an undeclared entity reference"
        case 38: reason = "'<' inside an attribute value"
        case 39, 40, 41: reason = "an attribute value is missing or not quoted"
        case 68: reason = "a name is required"
        case 73: reason = "'>' expected"
        case 76: reason = "an end tag does not match its start tag"
        case 77: reason = "the document ends inside a tag"
        default: reason = "XML syntax error"
        }
        return "malformed XML: \(reason) (libxml2 error \(error.code))"
    }
}

/// Names read from a model file that point at other declarations, with their lines.
struct PendingReferences {
    var parents: [(entity: NSEntityDescription, parent: String, line: Int)] = []
    var relationships: [(relationship: NSRelationshipDescription, line: Int)] = []
    var indexes: [(index: NSFetchIndexDescription, entity: NSEntityDescription, line: Int)] = []
    var configurations: [(name: String, members: [(name: String, line: Int)])] = []
    var fetchRequests: [(name: String, entity: String, predicate: String?, line: Int)] = []
    var fetchedProperties: [(property: NSFetchedPropertyDescription, line: Int)] = []
}
