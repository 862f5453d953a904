import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads the mapping model Xcode's editor writes: a `.xcmappingmodel` directory holding
/// `xcmapping.xml`, which is a Core Data XML store of Xcode's own editing objects. One
/// `XDDEVMAPPINGMODEL` names the two models by path (`sourcemodelpath`,
/// `destinationmodelpath`); each `XDDEVENTITYMAPPING` holds `sourcename`,
/// `destinationname`, `name`, `mappingnumber` (the order), `mappingtypename`,
/// `migrationpolicyclassname`, `sourcefilterpredicatestring`, `autogenerateexpression`;
/// each `XDDEVATTRIBUTEMAPPING` and `XDDEVRELATIONSHIPMAPPING` holds `name`,
/// `autogenerateexpression` and, when written by hand, `valueexpressiondata` (a keyed
/// archive of the expression, ``ArchivedExpression``); a relationship mapping may name
/// `sourcekeypath` and `sourcemappingname`. What is not written is generated as Xcode's
/// compiler generates it: `$source.<name>` for an attribute, the destination instances of
/// the source's related objects for a relationship.
enum MappingModelFile {
    /// One `<object>` of the file.
    struct Object {
        var kind = ""
        var attributes: [String: String] = [:]
        var relationships: [String: [String]] = [:]

        func string(_ name: String) -> String? {
            guard let value = attributes[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
            return value
        }
        func flag(_ name: String) -> Bool { string(name).map { $0 == "1" || $0.lowercased() == "yes" || $0.lowercased() == "true" } ?? false }
    }

    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    /// The `xcmapping.xml` of `url` (the `.xcmappingmodel` directory or the file itself).
    static func xmlFile(for url: URL) -> URL {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            return url.appendingPathComponent("xcmapping.xml")
        }
        return url
    }

    /// The mapping model in the file at `url`. Entity hashes come from `sourceModel` and
    /// `destinationModel` when given, else from the models the file names, looked for from
    /// the mapping model's folder upwards (where a project keeps its models).
    static func load(_ url: URL, sourceModel: NSManagedObjectModel? = nil, destinationModel: NSManagedObjectModel? = nil) throws -> NSMappingModel {
        let file = xmlFile(for: url)
        guard let data = FileManager.default.contents(atPath: file.path) else { throw Problem(description: "cannot read \(file.path)") }
        let objects = try parse(data, file: file)
        guard let root = objects.values.first(where: { $0.kind == "XDDEVMAPPINGMODEL" }) else {
            throw Problem(description: "\(file.path) holds no XDDEVMAPPINGMODEL object: it is not a mapping model Xcode wrote")
        }
        let source = sourceModel ?? root.string("sourcemodelpath").flatMap { recordedModel($0, near: url) }
        let destination = destinationModel ?? root.string("destinationmodelpath").flatMap { recordedModel($0, near: url) }
        return try build(objects, source: source, destination: destination, file: file)
    }

    /// The models the file names by path, as the project recorded them.
    static func recordedModels(of url: URL) -> (source: NSManagedObjectModel?, destination: NSManagedObjectModel?) {
        guard let data = FileManager.default.contents(atPath: xmlFile(for: url).path),
            let objects = try? parse(data, file: xmlFile(for: url)),
            let root = objects.values.first(where: { $0.kind == "XDDEVMAPPINGMODEL" })
        else { return (nil, nil) }
        return (root.string("sourcemodelpath").flatMap { recordedModel($0, near: url) },
                root.string("destinationmodelpath").flatMap { recordedModel($0, near: url) })
    }

    private static func recordedModel(_ recorded: String, near url: URL) -> NSManagedObjectModel? {
        var candidates = [URL(fileURLWithPath: recorded)]
        var directory = url.deletingLastPathComponent()
        while directory.path != "/" && !directory.path.isEmpty {
            candidates.append(directory.appendingPathComponent(recorded))
            directory.deleteLastPathComponent()
        }
        for candidate in candidates where FileManager.default.fileExists(atPath: candidate.path) {
            if let model = try? NSManagedObjectModel.load(contentsOf: candidate) { return model }
        }
        return nil
    }

    // MARK: Reading the XML

    private final class Reader: NSObject, XMLParserDelegate {
        var objects: [String: Object] = [:]
        private var current: (id: String, object: Object)?
        private var attributeName: String?
        private var text = ""

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            switch name {
            case "object":
                var object = Object()
                object.kind = (attributes["type"] ?? "").uppercased()
                current = (attributes["id"] ?? "", object)
            case "attribute" where current != nil:
                attributeName = attributes["name"]?.lowercased()
                text = ""
            case "relationship" where current != nil:
                if let relationship = attributes["name"]?.lowercased() {
                    current?.object.relationships[relationship] = (attributes["idrefs"] ?? "").split(separator: " ").map(String.init)
                }
            default: break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if attributeName != nil { text += string }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            switch name {
            case "attribute":
                if let attributeName { current?.object.attributes[attributeName] = text }
                attributeName = nil
            case "object":
                if let current { objects[current.id] = current.object }
                current = nil
            default: break
            }
        }
    }

    private static func parse(_ data: Data, file: URL) throws -> [String: Object] {
        let parser = XMLParser(data: data)
        let reader = Reader()
        parser.delegate = reader
        guard parser.parse() else {
            throw Problem(description: "\(file.path) is not well-formed XML (line \(parser.lineNumber))")
        }
        return reader.objects
    }

    // MARK: Building the mapping model

    private static func build(_ objects: [String: Object], source: NSManagedObjectModel?, destination: NSManagedObjectModel?, file: URL) throws -> NSMappingModel {
        let mappings = objects.values.filter { $0.kind == "XDDEVENTITYMAPPING" }
            .sorted { Int($0.string("mappingnumber") ?? "") ?? 0 < Int($1.string("mappingnumber") ?? "") ?? 0 }
        func defaultName(_ object: Object) -> String {
            let sourceName = object.string("sourcename"), destinationName = object.string("destinationname")
            if let sourceName, let destinationName { return "\(sourceName)To\(destinationName)" }
            return destinationName ?? sourceName ?? ""
        }
        let names = mappings.map { $0.string("name") ?? defaultName($0) }
        var nameByDestination: [String: String] = [:]
        for (object, name) in zip(mappings, names) {
            if let destinationName = object.string("destinationname"), nameByDestination[destinationName] == nil { nameByDestination[destinationName] = name }
        }

        var entityMappings: [NSEntityMapping] = []
        for (object, name) in zip(mappings, names) {
            let mapping = NSEntityMapping()
            mapping.name = name
            mapping.sourceEntityName = object.string("sourcename")
            mapping.destinationEntityName = object.string("destinationname")
            let sourceEntity = mapping.sourceEntityName.flatMap { source?.entity(named: $0) }
            let destinationEntity = mapping.destinationEntityName.flatMap { destination?.entity(named: $0) }
            mapping.sourceEntityVersionHash = sourceEntity?.versionHash
            mapping.destinationEntityVersionHash = destinationEntity?.versionHash
            mapping.mappingType = mappingType(object.string("mappingtypename"), source: mapping.sourceEntityName, destination: mapping.destinationEntityName,
                                              sameHash: sourceEntity != nil && sourceEntity?.versionHash == destinationEntity?.versionHash,
                                              policy: object.string("migrationpolicyclassname"))
            mapping.entityMigrationPolicyClassName = object.string("migrationpolicyclassname")
            if let predicateText = object.string("sourcefilterpredicatestring"), let entityName = mapping.sourceEntityName {
                mapping.sourceExpression = try filteredSource(entityName, predicateText, mapping: name)
            }
            var attributeMappings: [NSPropertyMapping] = []
            var relationshipMappings: [NSPropertyMapping] = []
            for (key, isRelationship) in [("attributemappings", false), ("relationshipmappings", true)] {
                for id in object.relationships[key] ?? [] {
                    guard let property = objects[id], let propertyName = property.string("name") else { continue }
                    let propertyMapping = NSPropertyMapping()
                    propertyMapping.name = propertyName
                    propertyMapping.valueExpression = try valueExpression(property, name: propertyName, isRelationship: isRelationship,
                                                                          sourceEntity: sourceEntity, nameByDestination: nameByDestination, mapping: name)
                    if isRelationship { relationshipMappings.append(propertyMapping) } else { attributeMappings.append(propertyMapping) }
                }
            }
            mapping.attributeMappings = attributeMappings.sorted { ($0.name ?? "") < ($1.name ?? "") }
            mapping.relationshipMappings = relationshipMappings.sorted { ($0.name ?? "") < ($1.name ?? "") }
            entityMappings.append(mapping)
        }
        let model = NSMappingModel()
        model.entityMappings = entityMappings
        return model
    }

    private static func mappingType(_ name: String?, source: String?, destination: String?, sameHash: Bool, policy: String?) -> NSEntityMappingType {
        switch name?.lowercased() {
        case "custom": return .customEntityMappingType
        case "add": return .addEntityMappingType
        case "remove": return .removeEntityMappingType
        case "copy": return .copyEntityMappingType
        case "transform": return .transformEntityMappingType
        default:
            // "Undefined": decided from the entities, as Xcode's compiler decides.
            if policy != nil { return .customEntityMappingType }
            if source == nil { return .addEntityMappingType }
            if destination == nil { return .removeEntityMappingType }
            return sameHash ? .copyEntityMappingType : .transformEntityMappingType
        }
    }

    /// The source instances narrowed by the mapping's filter predicate.
    private static func filteredSource(_ entityName: String, _ predicateText: String, mapping: String) throws -> NSExpression {
        let predicate: NSPredicate
        do { predicate = try NSPredicate(validatingFormat: predicateText, argumentArray: []) } catch {
            throw Problem(description: "entity mapping \(mapping) has a filter predicate that cannot be read: \(predicateText)")
        }
        return NSExpression(block: { _, _, variables in
            guard let manager = variables?[NSMigrationManagerKey] as? NSMigrationManager, let context = manager.sourceContext else { return [NSManagedObject]() }
            let request = NSFetchRequest<NSManagedObject>(entityName: entityName)
            request.predicate = predicate
            request.includesSubentities = false
            return (try? context.fetch(request)) ?? [NSManagedObject]()
        }, arguments: nil)
    }

    private static func valueExpression(_ property: Object, name: String, isRelationship: Bool, sourceEntity: NSEntityDescription?,
                                        nameByDestination: [String: String], mapping: String) throws -> NSExpression? {
        if !property.flag("autogenerateexpression"), let encoded = property.string("valueexpressiondata") {
            guard let data = Data(base64Encoded: encoded, options: .ignoreUnknownCharacters), let expression = ArchivedExpression.decode(data) else {
                throw Problem(description: "the value expression of \(mapping).\(name) is an archive that cannot be read")
            }
            return expression
        }
        guard let sourceEntity else { return nil }
        if isRelationship {
            let keyPath = property.string("sourcekeypath") ?? name
            guard let relationship = sourceEntity.relationshipsByName[keyPath] else { return nil }
            guard let through = property.string("sourcemappingname") ?? relationship.destinationEntity?.name.flatMap({ nameByDestination[$0] }) else { return nil }
            return NSExpression(forFunction: NSExpression(forVariable: NSMigrationManagerKey), selectorName: "destinationInstancesForEntityMappingNamed:sourceInstances:",
                                arguments: [NSExpression(forConstantValue: through), sourceKeyPath(keyPath)])
        }
        guard sourceEntity.propertiesByName[name] != nil else { return nil }
        return sourceKeyPath(name)
    }

    /// `$source.<keyPath>`.
    private static func sourceKeyPath(_ keyPath: String) -> NSExpression {
        NSExpression(forFunction: NSExpression(forVariable: NSMigrationSourceObjectKey), selectorName: "valueForKeyPath:", arguments: [NSExpression(forConstantValue: keyPath)])
    }
}
