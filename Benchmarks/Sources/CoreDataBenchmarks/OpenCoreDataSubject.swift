import Foundation
import OpenCoreData

/// OpenCoreData used as an app uses Core Data: a container, managed objects set through
/// key-value coding, one save per write phase, a fresh container per phase.
struct OpenCoreDataSubject: Subject {
    static let name = "OpenCoreData"
    private let url: URL
    private var container: NSPersistentContainer?
    private var ids: [NSManagedObjectID] = []

    init(databaseURL: URL) throws { url = databaseURL }

    static let model = makeModel(className: nil)
    /// The same model with `TypedItem` as the entity's class, for the typed-properties phase.
    static let typedModel = makeModel(className: String(reflecting: TypedItem.self))

    private static func makeModel(className: String?) -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            return attribute
        }
        let item = NSEntityDescription()
        item.name = "Item"
        if let className { item.managedObjectClassName = className }
        item.properties = [
            attribute("name", .stringAttributeType), attribute("category", .stringAttributeType),
            attribute("price", .doubleAttributeType), attribute("quantity", .integer32AttributeType),
            attribute("createdAt", .dateAttributeType), attribute("isActive", .booleanAttributeType),
            attribute("notes", .stringAttributeType), attribute("code", .integer64AttributeType),
        ]
        let model = NSManagedObjectModel()
        model.entities = [item]
        return model
    }

    private func makeContainer(model: NSManagedObjectModel = Self.model) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Benchmark", managedObjectModel: model)
        container.persistentStoreDescriptions.first!.url = url
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    mutating func prepare(_ phase: Phase) throws {
        if phase == .fetchByID {
            // The IDs, as URIs, from a throwaway container: the measured one starts cold.
            // (An ID belongs to its coordinator, so it is resolved again in the new one.)
            let uris: [URL] = try {
                let request = NSFetchRequest<NSManagedObjectID>(entityName: "Item")
                request.resultType = .managedObjectIDResultType
                request.sortDescriptors = [NSSortDescriptor(key: "code", ascending: true)]
                let all = try makeContainer().viewContext.fetch(request)
                return ItemValues.lookupPositions().map { all[$0].uriRepresentation() }
            }()
            let container = try makeContainer()
            let coordinator = container.persistentStoreCoordinator
            ids = try uris.map { uri in
                guard let id = coordinator.managedObjectID(forURIRepresentation: uri) else { throw BenchmarkError("no ID for \(uri)") }
                return id
            }
            self.container = container
            return
        }
        container = try makeContainer(model: phase == .fetchAllTyped ? Self.typedModel : Self.model)
    }

    mutating func run(_ phase: Phase) throws -> Int {
        let context = container!.viewContext
        switch phase {
        case .insert:
            let entity = Self.model.entitiesByName["Item"]!
            for index in 0..<ItemValues.count {
                let values = ItemValues(index: index)
                let item = NSManagedObject(entity: entity, insertInto: context)
                item.setValue(values.name, forKey: "name")
                item.setValue(values.category, forKey: "category")
                item.setValue(values.price, forKey: "price")
                item.setValue(values.quantity, forKey: "quantity")
                item.setValue(values.createdAt, forKey: "createdAt")
                item.setValue(values.isActive, forKey: "isActive")
                item.setValue(values.notes, forKey: "notes")
                item.setValue(values.code, forKey: "code")
            }
            try context.save()
            return ItemValues.count
        case .fetchAll:
            let items = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
            return items.reduce(0) { checksum, item in
                checksum &+ (item.value(forKey: "name") as! String).utf8.count &+ Int(item.value(forKey: "quantity") as! Int32)
            }
        case .fetchAllTyped:
            let items = try context.fetch(NSFetchRequest<TypedItem>(entityName: "Item"))
            return items.reduce(0) { checksum, item in checksum &+ item.name!.utf8.count &+ Int(item.quantity) }
        case .fetchBatched, .fetchBatchedRefreshing:
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.fetchBatchSize = 20
            let items = try context.fetch(request)
            var checksum = 0
            for item in items {
                checksum &+= (item.value(forKey: "name") as! String).utf8.count &+ Int(item.value(forKey: "quantity") as! Int32)
                // What Apple's guides advise for walking many objects: let go of the values read.
                if phase == .fetchBatchedRefreshing { context.refresh(item, mergeChanges: false) }
            }
            return checksum
        case .fetchByID:
            var checksum = 0
            for id in ids {
                let item = try context.existingObject(with: id)
                checksum &+= (item.value(forKey: "name") as! String).utf8.count
            }
            return checksum
        case .updateAll:
            let items = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
            var checksum = 0
            for item in items {
                let quantity = (item.value(forKey: "quantity") as! Int32) + 1
                item.setValue(quantity, forKey: "quantity")
                checksum &+= Int(quantity)
            }
            try context.save()
            return checksum
        case .deleteAll:
            let items = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
            for item in items { context.delete(item) }
            try context.save()
            return items.count
        }
    }
}

/// The benchmark's entity with typed properties, as an app declares its classes.
final class TypedItem: NSManagedObject {
    @Managed var name: String?
    @Managed var quantity: Int32
}
