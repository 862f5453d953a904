import Foundation
import OpenCoreData

/// OpenCoreData used as an app uses Core Data: a container opened afresh for the timed
/// work, relationships followed and deletions saved through the context.
struct OpenCoreDataGraph: GraphSubject {
    static let name = "OpenCoreData"
    private let url: URL
    /// The object the timed work starts from, as an app would keep it: by its URI.
    private var start: URL?
    /// The timed run's container, kept past the measurement: an app keeps its objects, so
    /// tearing 100,000 of them down is not part of the work measured.
    private var kept: NSPersistentContainer?
    private var keptObject: NSManagedObject?

    init(databaseURL: URL) throws { url = databaseURL }

    /// Trail ↔ Hike (one-to-many, hikes cascade) and Node ↔ Node (parent and children,
    /// children cascade).
    static let model: NSManagedObjectModel = {
        func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            return attribute
        }
        func relationship(_ name: String, to entity: NSEntityDescription, toMany: Bool, rule: NSDeleteRule) -> NSRelationshipDescription {
            let relationship = NSRelationshipDescription()
            relationship.name = name
            relationship.destinationEntity = entity
            relationship.maxCount = toMany ? 0 : 1
            relationship.deleteRule = rule
            return relationship
        }
        let trail = NSEntityDescription(), hike = NSEntityDescription(), node = NSEntityDescription()
        trail.name = "Trail"; hike.name = "Hike"; node.name = "Node"
        let hikes = relationship("hikes", to: hike, toMany: true, rule: .cascadeDeleteRule)
        let hikeTrail = relationship("trail", to: trail, toMany: false, rule: .nullifyDeleteRule)
        hikes.inverseRelationship = hikeTrail; hikeTrail.inverseRelationship = hikes
        trail.properties = [attribute("name", .stringAttributeType), hikes]
        hike.properties = [attribute("distance", .integer64AttributeType), attribute("note", .stringAttributeType), hikeTrail]
        let children = relationship("children", to: node, toMany: true, rule: .cascadeDeleteRule)
        let parent = relationship("parent", to: node, toMany: false, rule: .nullifyDeleteRule)
        children.inverseRelationship = parent; parent.inverseRelationship = children
        node.properties = [attribute("name", .stringAttributeType), children, parent]
        let model = NSManagedObjectModel()
        model.entities = [trail, hike, node]
        return model
    }()

    private func container() throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Graph", managedObjectModel: Self.model)
        container.persistentStoreDescriptions.first!.url = url
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    mutating func prepare(_ phase: GraphPhase) throws {
        let context = try container().viewContext
        let first: NSManagedObject
        switch phase {
        case .traverse:
            let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
            trail.setValue("Te Araroa", forKey: "name")
            for index in 0..<GraphSizes.hikes {
                let hike = NSEntityDescription.insertNewObject(forEntityName: "Hike", into: context)
                hike.setValue(GraphSizes.distance(index), forKey: "distance")
                hike.setValue("hike \(index)", forKey: "note")
                hike.setValue(trail, forKey: "trail")
            }
            first = trail
        case .cascade:
            let root = NSEntityDescription.insertNewObject(forEntityName: "Node", into: context)
            root.setValue("root", forKey: "name")
            for branchIndex in 0..<GraphSizes.branches {
                let branch = NSEntityDescription.insertNewObject(forEntityName: "Node", into: context)
                branch.setValue("branch \(branchIndex)", forKey: "name")
                branch.setValue(root, forKey: "parent")
                for leafIndex in 0..<GraphSizes.leavesPerBranch {
                    let leaf = NSEntityDescription.insertNewObject(forEntityName: "Node", into: context)
                    leaf.setValue("leaf \(branchIndex).\(leafIndex)", forKey: "name")
                    leaf.setValue(branch, forKey: "parent")
                }
            }
            first = root
        }
        try context.save()
        start = first.objectID.uriRepresentation()
    }

    /// The starting object in a fresh container's view context.
    private func startObject(in container: NSPersistentContainer) throws -> NSManagedObject {
        guard let start, let id = container.persistentStoreCoordinator.managedObjectID(forURIRepresentation: start) else {
            throw BenchmarkError("no starting object")
        }
        return try container.viewContext.existingObject(with: id)
    }

    mutating func run(_ phase: GraphPhase) throws -> Int64 {
        let container = try container()
        kept = container
        let context = container.viewContext
        switch phase {
        case .traverse:
            let trail = try startObject(in: container)
            keptObject = trail
            var total: Int64 = 0
            for hike in trail.value(forKey: "hikes") as! Set<NSManagedObject> {
                total += (hike.value(forKey: "distance") as! NSNumber).int64Value
            }
            return total
        case .cascade:
            let root = try startObject(in: container)
            context.delete(root)
            try context.save()
            let left = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Node"))
            return Int64(GraphSizes.nodes) * 10 + Int64(left)
        }
    }
}
