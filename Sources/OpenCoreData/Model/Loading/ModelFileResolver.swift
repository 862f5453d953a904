import Foundation

/// Connects the names a model file uses (parents, destinations, inverses, index
/// properties, configuration members, fetch request entities) to the descriptions they
/// name, failing with the line of the first name that matches nothing.
struct ModelFileResolver {
    let file: URL
    let model: NSManagedObjectModel
    let pending: PendingReferences

    func resolve() throws {
        let entities = model.entitiesByName
        func entity(_ name: String, line: Int, usedBy user: String) throws -> NSEntityDescription {
            guard let entity = entities[name] else { throw ModelFileError.at(file, line: line, "\(user) refers to entity \(name), which the model does not declare") }
            return entity
        }

        var children: [ObjectIdentifier: [NSEntityDescription]] = [:]
        var parentsByChild: [ObjectIdentifier: NSEntityDescription] = [:]
        for (child, parentName, line) in pending.parents {
            let parent = try entity(parentName, line: line, usedBy: "entity \(child.name ?? "")")
            children[ObjectIdentifier(parent), default: []].append(child)
            parentsByChild[ObjectIdentifier(child)] = parent
        }
        for (child, _, line) in pending.parents {
            // Walk up from each entity: meeting it again means the parents form a loop.
            var seen: Set<ObjectIdentifier> = [ObjectIdentifier(child)]
            var current = parentsByChild[ObjectIdentifier(child)]
            while let ancestor = current {
                guard seen.insert(ObjectIdentifier(ancestor)).inserted else {
                    throw ModelFileError.at(file, line: line, "entity \(child.name ?? "") inherits from itself")
                }
                current = parentsByChild[ObjectIdentifier(ancestor)]
            }
        }
        for parent in model.entities { if let list = children[ObjectIdentifier(parent)] { parent.subentities = list } }

        for (relationship, line) in pending.relationships {
            let owner = relationship.entity?.name ?? ""
            guard let destinationName = relationship.destinationEntityName else { continue }
            let destination = try entity(destinationName, line: line, usedBy: "relationship \(owner).\(relationship.name)")
            relationship.destinationEntity = destination
            if let inverseName = relationship.inverseName {
                guard let inverse = destination.relationshipsByName[inverseName] else {
                    throw ModelFileError.at(file, line: line, "relationship \(owner).\(relationship.name) names inverse \(inverseName), which entity \(destinationName) does not declare")
                }
                relationship.inverseRelationship = inverse
            }
        }

        for (index, owner, line) in pending.indexes {
            index.entity = owner
            for element in index.elements {
                guard let name = element.propertyName, let property = owner.propertiesByName[name] else {
                    throw ModelFileError.at(file, line: line, "index \(index.name) of entity \(owner.name ?? "") names property \(element.propertyName ?? ""), which the entity does not declare")
                }
                element.property = property
            }
        }

        for configuration in pending.configurations {
            let members = try configuration.members.map { try entity($0.name, line: $0.line, usedBy: "configuration \(configuration.name)") }
            model.setEntities(members, forConfigurationName: configuration.name)
        }

        for (fetched, line) in pending.fetchedProperties {
            let owner = fetched.entity?.name ?? ""
            guard let source = fetched.requestSource else {
                throw ModelFileError.at(file, line: line, "fetched property \(owner).\(fetched.name) has no <fetchRequest>")
            }
            let target = try entity(source.entityName, line: line, usedBy: "fetched property \(owner).\(fetched.name)")
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: source.entityName)
            request.entity = target
            if let format = source.predicateFormat, !format.isEmpty {
                do {
                    request.predicate = try NSPredicate(validatingFormat: format)
                } catch {
                    throw ModelFileError.at(file, line: line, "fetched property \(owner).\(fetched.name) has a predicate that cannot be read: \(error)")
                }
            }
            fetched.fetchRequest = request
        }

        for request in pending.fetchRequests {
            _ = try entity(request.entity, line: request.line, usedBy: "fetch request \(request.name)")
            model.fetchRequestTemplateSources[request.name] = (request.entity, request.predicate)
        }
    }
}
