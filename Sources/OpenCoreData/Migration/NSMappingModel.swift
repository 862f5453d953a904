import Foundation

/// How to turn a store written with one model (the source) into a store for another
/// (the destination): one ``NSEntityMapping`` per destination entity, or per source
/// entity that goes away.
///
/// Core Data infers one for simple changes
/// (``inferredMappingModel(forSourceModel:destinationModel:)``); for the rest you build
/// one in code and hand it to an ``NSMigrationManager``.
open class NSMappingModel: CustomStringConvertible {
    /// The entity mappings, in the order the migration runs them.
    public var entityMappings: [NSEntityMapping]! = []

    /// An empty mapping model; add entity mappings to ``entityMappings``.
    public init() {}

    /// The entity mappings by name.
    public var entityMappingsByName: [String: NSEntityMapping] {
        Dictionary((entityMappings ?? []).compactMap { mapping in mapping.name.map { ($0, mapping) } }, uniquingKeysWith: { first, _ in first })
    }

    /// A mapping model found in `bundles` (the main bundle when `nil`) for the two models,
    /// or `nil` when there is none.
    ///
    /// On Linux a bundle holds no compiled mapping models (`.cdm`): this looks at the
    /// `.xcmappingmodel` files Xcode's editor writes, in each bundle's resources (for `nil`,
    /// also beside the executable and in the working directory), taking one whose recorded
    /// models hash like `sourceModel` and `destinationModel`, and at mapping models given to
    /// ``register(_:)``; see LinuxDifferences.md.
    public convenience init?(from bundles: [Bundle]?, forSourceModel sourceModel: NSManagedObjectModel?, destinationModel: NSManagedObjectModel?) {
        guard let sourceModel, let destinationModel else { return nil }
        let found = NSMappingModel.registered.first(where: { $0.maps(from: sourceModel, to: destinationModel) })
            ?? NSMappingModel.mappingModelFile(in: bundles, from: sourceModel, to: destinationModel)
        guard let found else { return nil }
        self.init()
        entityMappings = found.entityMappings
    }

    /// The mapping model of an Xcode mapping model file: a `.xcmappingmodel` directory (or
    /// its `xcmapping.xml`), or `nil` with the reason on standard error when the file cannot
    /// be read. A compiled `.cdm` is not readable here.
    ///
    /// The entity version hashes come from the two models the file names by path, looked for
    /// from the file's folder upwards, as a project keeps them; a value expression written in
    /// Xcode's editor (an archived `NSExpression`) is read back, and the ones Xcode generates
    /// (`$source.name`, the destination instances of a relationship) are generated the same way.
    public convenience init?(contentsOf url: URL?) {
        guard let url else { return nil }
        do {
            let loaded = try MappingModelFile.load(url)
            self.init()
            entityMappings = loaded.entityMappings
        } catch {
            FileHandle.standardError.write(Data("OpenCoreData: cannot read the mapping model \(url.lastPathComponent): \(error)\n".utf8))
            return nil
        }
    }

    /// The first `.xcmappingmodel` in the resources of `bundles` (or the places an app's
    /// models are looked for, for `nil`) whose recorded models are these two.
    private static func mappingModelFile(in bundles: [Bundle]?, from source: NSManagedObjectModel, to destination: NSManagedObjectModel) -> NSMappingModel? {
        let directories = bundles.map { $0.map { $0.resourceURL ?? $0.bundleURL } } ?? ModelLocator.searchDirectories()
        for directory in directories {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
            for name in names where name.hasSuffix(".xcmappingmodel") {
                let url = directory.appendingPathComponent(name)
                let recorded = MappingModelFile.recordedModels(of: url)
                guard let recordedSource = recorded.source, let recordedDestination = recorded.destination,
                    recordedSource.entityVersionHashesByName == source.entityVersionHashesByName,
                    recordedDestination.entityVersionHashesByName == destination.entityVersionHashesByName,
                    let model = try? MappingModelFile.load(url, sourceModel: source, destinationModel: destination)
                else { continue }
                return model
            }
        }
        return nil
    }

    /// Mapping models that ``init(from:forSourceModel:destinationModel:)`` and automatic
    /// migration find, as Core Data finds the compiled mapping models of an app bundle.
    /// Guarded by `registryLock`: stores may be added from several threads.
    nonisolated(unsafe) private static var registeredModels: [NSMappingModel] = []
    private static let registryLock = NSLock()

    static var registered: [NSMappingModel] {
        registryLock.lock(); defer { registryLock.unlock() }
        return registeredModels
    }

    /// Makes `mappingModel` findable by automatic migration, as a mapping model file in
    /// an app bundle is on Apple platforms. (A Linux addition: there is no compiled bundle.)
    public static func register(_ mappingModel: NSMappingModel) {
        registryLock.lock(); defer { registryLock.unlock() }
        registeredModels.append(mappingModel)
    }

    /// Forgets every mapping model given to ``register(_:)``.
    public static func unregisterAll() {
        registryLock.lock(); defer { registryLock.unlock() }
        registeredModels.removeAll()
    }

    /// Whether this mapping model was made for exactly these two models: every entity
    /// mapping's version hashes match the entities it names.
    func maps(from source: NSManagedObjectModel, to destination: NSManagedObjectModel) -> Bool {
        let sources = source.entitiesByName, destinations = destination.entitiesByName
        var coveredDestinations: Set<String> = []
        for mapping in entityMappings ?? [] {
            if let name = mapping.sourceEntityName {
                guard let entity = sources[name], mapping.sourceEntityVersionHash == nil || mapping.sourceEntityVersionHash == entity.versionHash else { return false }
            }
            if let name = mapping.destinationEntityName {
                guard let entity = destinations[name], mapping.destinationEntityVersionHash == nil || mapping.destinationEntityVersionHash == entity.versionHash else { return false }
                coveredDestinations.insert(name)
            }
        }
        return coveredDestinations == Set(destinations.keys)
    }

    open var description: String {
        "(<NSMappingModel>) entityMappings {\((entityMappings ?? []).compactMap(\.name).joined(separator: ", "))}"
    }
}

/// What an entity mapping does. Raw values match Core Data's.
public enum NSEntityMappingType: UInt, Sendable {
    /// Not set yet.
    case undefinedEntityMappingType = 0
    /// Run by the mapping's custom policy alone.
    case customEntityMappingType = 1
    /// A destination entity with no source: nothing is copied.
    case addEntityMappingType = 2
    /// A source entity with no destination: its instances are dropped.
    case removeEntityMappingType = 3
    /// Instances copied unchanged.
    case copyEntityMappingType = 4
    /// Instances copied with their properties transformed.
    case transformEntityMappingType = 5
}

/// How the instances of one source entity become instances of one destination entity.
open class NSEntityMapping: CustomStringConvertible {
    /// The mapping's name, e.g. `TrailToTrail`.
    public var name: String!
    /// What the mapping does (copy, transform, add, remove or custom).
    public var mappingType: NSEntityMappingType = .undefinedEntityMappingType
    /// The name of the entity in the source model; `nil` for an added entity.
    public var sourceEntityName: String?
    /// The source entity's version hash, checked against the source model.
    public var sourceEntityVersionHash: Data?
    /// The name of the entity in the destination model; `nil` for a removed entity.
    public var destinationEntityName: String?
    /// The destination entity's version hash, checked against the destination model.
    public var destinationEntityVersionHash: Data?
    /// How each destination attribute gets its value.
    public var attributeMappings: [NSPropertyMapping]?
    /// How each destination relationship gets its objects.
    public var relationshipMappings: [NSPropertyMapping]?
    /// The source instances to migrate; `nil` means every instance of the source entity
    /// (sub-entities excluded: each has its own mapping).
    public var sourceExpression: NSExpression?
    /// Free-form information for the mapping's policy.
    public var userInfo: [AnyHashable: Any]?
    /// The name of an ``NSEntityMigrationPolicy`` subclass that runs this mapping
    /// (with its module, as `NSStringFromClass` gives it, or registered with
    /// ``NSEntityMigrationPolicy/register(_:)``).
    public var entityMigrationPolicyClassName: String?

    /// An empty entity mapping; set its names, type and property mappings.
    public init() {}

    open var description: String {
        "(<NSEntityMapping>) name \(name ?? "(null)"), mappingType \(mappingType.rawValue), sourceEntityName \(sourceEntityName ?? "(null)"), destinationEntityName \(destinationEntityName ?? "(null)")"
    }
}

/// How one destination property gets its value: an expression evaluated with
/// `$source` (the source instance), `$manager`, `$entityMapping`, `$propertyMapping`
/// and `$entityPolicy` set.
open class NSPropertyMapping: CustomStringConvertible {
    /// The destination property's name.
    public var name: String?
    /// The value, e.g. `NSExpression(format: "$source.name")`; `nil` leaves the
    /// destination's default value.
    public var valueExpression: NSExpression?
    /// Free-form information for the mapping's policy.
    public var userInfo: [AnyHashable: Any]?

    /// An empty property mapping; set its name and value expression.
    public init() {}

    open var description: String {
        "(<NSPropertyMapping>) name \(name ?? "(null)"), valueExpression \(valueExpression.map { "\($0)" } ?? "(null)")"
    }
}

/// Keys of the variables a mapping's expressions see, as Core Data names them:
/// `$manager`, the migration manager.
public let NSMigrationManagerKey = "manager"
/// `$source`: the source instance being migrated.
public let NSMigrationSourceObjectKey = "source"
/// `$destination`: the destination instance being filled in.
public let NSMigrationDestinationObjectKey = "destination"
/// `$entityMapping`: the entity mapping being run.
public let NSMigrationEntityMappingKey = "entityMapping"
/// `$propertyMapping`: the property mapping being evaluated.
public let NSMigrationPropertyMappingKey = "propertyMapping"
/// `$entityPolicy`: the entity mapping's migration policy.
public let NSMigrationEntityPolicyKey = "entityPolicy"
