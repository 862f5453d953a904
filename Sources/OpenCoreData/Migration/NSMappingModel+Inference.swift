import Foundation

extension NSMappingModel {
    /// The mapping model Core Data infers between two models, for lightweight migration.
    ///
    /// A destination entity or property matches the source one whose name equals its
    /// ``NSPropertyDescription/renamingIdentifier`` (or, without one, its own name). It
    /// handles added and removed entities, attributes and relationships, renames,
    /// optional becoming non-optional (the default value fills the gaps), changes of the
    /// inheritance tree, and numeric types that widen (Integer 16 to 32 to 64, integers
    /// to Double or Decimal, Float to Double).
    ///
    /// - Throws: ``NSInferredMappingModelError`` (134190) naming the entity and property
    ///   when a change cannot be inferred, such as a String becoming a Date.
    public class func inferredMappingModel(forSourceModel sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel) throws -> NSMappingModel {
        let mapping = NSMappingModel()
        let sources = sourceModel.entitiesByName
        var matchedSources: Set<String> = []
        var entityMappingNames: [String: String] = [:]  // destination entity name → mapping name
        var sourceForDestination: [String: NSEntityDescription] = [:]
        let destinations = destinationModel.entities.sorted { ($0.name ?? "") < ($1.name ?? "") }
        for destination in destinations {
            guard let name = destination.name else { continue }
            let source = InferenceMatching.match(destination.renamingIdentifier, name, in: sources)
            if let source, let sourceName = source.name {
                matchedSources.insert(sourceName)
                sourceForDestination[name] = source
                entityMappingNames[name] = "\(sourceName)To\(name)"
            } else {
                entityMappingNames[name] = name
            }
        }
        for destination in destinations {
            guard let name = destination.name else { continue }
            let entityMapping = NSEntityMapping()
            entityMapping.name = entityMappingNames[name]
            entityMapping.destinationEntityName = name
            entityMapping.destinationEntityVersionHash = destination.versionHash
            guard let source = sourceForDestination[name] else {
                entityMapping.mappingType = .addEntityMappingType
                mapping.entityMappings.append(entityMapping)
                continue
            }
            entityMapping.sourceEntityName = source.name
            entityMapping.sourceEntityVersionHash = source.versionHash
            entityMapping.mappingType = source.versionHash == destination.versionHash && source.name == name ? .copyEntityMappingType : .transformEntityMappingType
            entityMapping.attributeMappings = try attributeMappings(from: source, to: destination)
            entityMapping.relationshipMappings = relationshipMappings(from: source, to: destination, sourceForDestination: sourceForDestination)
            mapping.entityMappings.append(entityMapping)
        }
        for source in sourceModel.entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
            guard let name = source.name, !matchedSources.contains(name) else { continue }
            let entityMapping = NSEntityMapping()
            entityMapping.name = name
            entityMapping.mappingType = .removeEntityMappingType
            entityMapping.sourceEntityName = name
            entityMapping.sourceEntityVersionHash = source.versionHash
            mapping.entityMappings.append(entityMapping)
        }
        return mapping
    }

    private static func attributeMappings(from source: NSEntityDescription, to destination: NSEntityDescription) throws -> [NSPropertyMapping] {
        let sourceAttributes = source.attributesByName.filter { !$0.value.isTransient }
        var mappings: [NSPropertyMapping] = []
        for attribute in destination.properties.compactMap({ $0 as? NSAttributeDescription }).sorted(by: { $0.name < $1.name }) where !attribute.isTransient {
            let mapping = NSPropertyMapping()
            mapping.name = attribute.name
            if let match = InferenceMatching.match(attribute.renamingIdentifier, attribute.name, in: sourceAttributes) {
                guard InferenceMatching.canConvert(match.attributeType, to: attribute.attributeType) else {
                    throw coreDataError(NSInferredMappingModelError, userInfo: [
                        NSLocalizedDescriptionKey: "Can't find or automatically infer mapping model for migration",
                        "reason": "Cannot infer a mapping from \(match.attributeType.modelFileName) to \(attribute.attributeType.modelFileName) for attribute \(destination.name ?? "").\(attribute.name)",
                        "entity": destination.name ?? "", "property": attribute.name,
                    ])
                }
                mapping.valueExpression = NSExpression(format: "$source.\(match.name)")
            }
            mappings.append(mapping)
        }
        return mappings
    }

    private static func relationshipMappings(from source: NSEntityDescription, to destination: NSEntityDescription, sourceForDestination: [String: NSEntityDescription]) -> [NSPropertyMapping] {
        let sourceRelationships = source.relationshipsByName.filter { !$0.value.isTransient }
        var mappings: [NSPropertyMapping] = []
        for relationship in destination.properties.compactMap({ $0 as? NSRelationshipDescription }).sorted(by: { $0.name < $1.name }) where !relationship.isTransient {
            let mapping = NSPropertyMapping()
            mapping.name = relationship.name
            if let match = InferenceMatching.match(relationship.renamingIdentifier, relationship.name, in: sourceRelationships),
                let destinationName = relationship.destinationEntity?.name,
                let mappedDestination = sourceForDestination[destinationName],
                let matchDestination = match.destinationEntity,
                mappedDestination.isKindOf(entity: matchDestination) || matchDestination.isKindOf(entity: mappedDestination)
            {
                mapping.valueExpression = NSExpression(format: "FUNCTION($manager, 'destinationInstancesForSourceRelationshipNamed:sourceInstances:', %@, $source.\(match.name))", match.name)
            }
            mappings.append(mapping)
        }
        return mappings
    }
}

/// The matching rules of mapping inference.
enum InferenceMatching {
    /// The element of `candidates` a destination element matches: the one named by its
    /// renaming identifier, else the one with its name.
    static func match<T>(_ renamingIdentifier: String?, _ name: String, in candidates: [String: T]) -> T? {
        if let renamingIdentifier, let found = candidates[renamingIdentifier] { return found }
        return candidates[name]
    }

    /// Whether values of `source` type can be carried into `destination` without loss.
    static func canConvert(_ source: NSAttributeType, to destination: NSAttributeType) -> Bool {
        if source == destination { return true }
        let widening: [NSAttributeType: Set<NSAttributeType>] = [
            .integer16AttributeType: [.integer32AttributeType, .integer64AttributeType, .doubleAttributeType, .decimalAttributeType],
            .integer32AttributeType: [.integer64AttributeType, .doubleAttributeType, .decimalAttributeType],
            .integer64AttributeType: [.decimalAttributeType],
            .floatAttributeType: [.doubleAttributeType],
            .booleanAttributeType: [.integer16AttributeType, .integer32AttributeType, .integer64AttributeType],
        ]
        return widening[source]?.contains(destination) ?? false
    }
}
