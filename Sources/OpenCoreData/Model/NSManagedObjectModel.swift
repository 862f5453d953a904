import Foundation

/// The schema: the entities of an object graph, their properties, configurations and
/// stored fetch request templates.
///
/// Build one in code, or load one that Xcode wrote with ``init(contentsOf:)``.
open class NSManagedObjectModel: CustomStringConvertible {
    private var entityList: [NSEntityDescription] = []
    private var configurationMembers: [String: [NSEntityDescription]] = [:]
    /// Fetch request templates by name; `fetchRequestTemplate(forName:)` hands them out.
    var fetchRequestTemplates: [String: Any] = [:]
    /// Fetch request templates read from a model file, by name: the entity and the
    /// predicate's format string, turned into requests by the fetching code.
    var fetchRequestTemplateSources: [String: (entityName: String, predicateFormat: String?)] = [:]
    /// Set once a coordinator uses the model; Core Data forbids edits after that.
    public internal(set) var isEditable: Bool = true {
        didSet {
            freezeFetchRequestTemplates()
            // Built now, while one thread has the model: contexts on several queues read
            // the tables at once, and building them lazily there would race.
            if !isEditable { for entity in entityList { _ = entity.propertyTable } }
        }
    }
    /// Identifiers naming this version of the model (Xcode's "Model Version Identifier").
    public var versionIdentifiers: Set<AnyHashable> = []
    /// Where the model was loaded from, when it came from a file.
    public internal(set) var sourceURL: URL?

    /// Creates an empty, editable model; add entities before a coordinator uses it.
    public init() {}

    /// The model's entities. Setting them makes this model their owner.
    public var entities: [NSEntityDescription] {
        get { entityList }
        set {
            entityList = newValue
            for entity in newValue { entity.managedObjectModel = self }
        }
    }

    /// Entities by name.
    public var entitiesByName: [String: NSEntityDescription] {
        Dictionary(entityList.compactMap { entity in entity.name.map { ($0, entity) } }, uniquingKeysWith: { a, _ in a })
    }

    /// The entity ``entitiesByName`` has for `name` (the first of that name), found without
    /// building that dictionary: the look-up behind every `insertNewObject(forEntityName:into:)`
    /// and every fetch request made by entity name, where building it was a dictionary and
    /// an array allocated, filled and freed per call.
    func entity(named name: String) -> NSEntityDescription? {
        for entity in entityList where entity.name == name { return entity }
        return nil
    }

    /// The names of the model's configurations.
    public var configurations: [String] { configurationMembers.keys.sorted() }

    /// The entities of a configuration; `nil` names the default one, which holds them all.
    public func entities(forConfigurationName configuration: String?) -> [NSEntityDescription]? {
        guard let configuration, configuration != "PF_DEFAULT_CONFIGURATION_NAME" else { return entityList }
        return configurationMembers[configuration]
    }

    /// Makes `entities` the members of configuration `configuration`.
    public func setEntities(_ entities: [NSEntityDescription], forConfigurationName configuration: String) {
        configurationMembers[configuration] = entities
    }

    /// Each entity's version hash by entity name: what a store records to recognise its model.
    public var entityVersionHashesByName: [String: Data] {
        Dictionary(entityList.compactMap { entity in entity.name.map { ($0, entity.versionHash) } }, uniquingKeysWith: { a, _ in a })
    }

    /// Whether a store with `metadata` was written with a model whose entities hash
    /// like this one's.
    public func isConfiguration(withName configuration: String?, compatibleWithStoreMetadata metadata: [String: Any]) -> Bool {
        guard let stored = metadata[NSStoreModelVersionHashesKey] as? [String: Data] else { return false }
        let entities = entities(forConfigurationName: configuration) ?? []
        let expected = Dictionary(entities.compactMap { entity in entity.name.map { ($0, entity.versionHash) } }, uniquingKeysWith: { a, _ in a })
        return stored == expected
    }

    open var description: String {
        "(<NSManagedObjectModel>) isEditable \(isEditable ? 1 : 0), entities {\(entityList.compactMap(\.name).sorted().joined(separator: ", "))}, fetch request templates {\(fetchRequestTemplates.keys.sorted().joined(separator: ", "))}"
    }
}

/// The metadata key of a store's entity version hashes.
public let NSStoreModelVersionHashesKey = "NSStoreModelVersionHashes"
/// The metadata key of a store's unique identifier.
public let NSStoreUUIDKey = "NSStoreUUID"
/// The metadata key of a store's type.
public let NSStoreTypeKey = "NSStoreType"
/// The metadata key of the model version identifiers a store was written with.
public let NSStoreModelVersionIdentifiersKey = "NSStoreModelVersionIdentifiers"
