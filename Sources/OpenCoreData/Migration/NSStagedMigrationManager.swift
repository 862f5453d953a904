import Digest
import Foundation

/// Option key of `NSPersistentStoreDescription`: an ``NSStagedMigrationManager`` whose
/// stages migrate the store when it is added.
public let NSPersistentStoreStagedMigrationManagerOptionKey = "NSPersistentStoreStagedMigrationManagerOptionKey"

extension NSManagedObjectModel {
    /// A checksum naming this version of the model: the base64 SHA-256 of its entities'
    /// names and version hashes, in name order. Stages name model versions by it.
    ///
    /// (Xcode writes its own checksum into the compiled model; that computation is not
    /// public, so this one differs from it: see LinuxDifferences.md.)
    public var versionChecksum: String {
        var sha = SHA256()
        for (name, hash) in entityVersionHashesByName.sorted(by: { $0.key < $1.key }) {
            sha.update(name)
            sha.update(hash)
        }
        return Data(sha.finalize()).base64EncodedString()
    }
}

/// A model version named by its checksum, for the stages of a staged migration.
open class NSManagedObjectModelReference {
    /// The model this reference stands for.
    public let resolvedModel: NSManagedObjectModel
    /// The checksum the reference was made with.
    public let versionChecksum: String

    /// A reference to `model`.
    public init(model: NSManagedObjectModel, versionChecksum: String) {
        resolvedModel = model
        self.versionChecksum = versionChecksum
    }

    /// A reference to the model at `fileURL` (an `.xcdatamodel` version).
    public convenience init(fileURL: URL, versionChecksum: String) {
        guard let model = NSManagedObjectModel(contentsOf: fileURL) else {
            fatalError("NSManagedObjectModelReference: cannot load a model from \(fileURL.path)")
        }
        self.init(model: model, versionChecksum: versionChecksum)
    }
}

/// One step of a staged migration.
open class NSMigrationStage {
    /// A name for the stage, for your logs.
    public var label: String?
    /// A stage without a label.
    public init() {}
}

/// A stage of lightweight migrations through the model versions it lists, by checksum.
open class NSLightweightMigrationStage: NSMigrationStage {
    /// The model versions of the stage, by ``NSManagedObjectModel/versionChecksum``.
    public let versionChecksums: [String]

    /// A stage through the model versions with these checksums, in order.
    public init(_ versionChecksums: [String]) {
        self.versionChecksums = versionChecksums
        super.init()
    }
}

/// A stage from one model version to the next in which your code runs before and after
/// the (lightweight) migration: `willMigrateHandler` with the store open with the current
/// model, `didMigrateHandler` with it open with the next one, each through the manager's
/// ``NSStagedMigrationManager/container``.
open class NSCustomMigrationStage: NSMigrationStage {
    /// The model version the stage starts from.
    public let currentModel: NSManagedObjectModelReference
    /// The model version the stage ends at.
    public let nextModel: NSManagedObjectModelReference
    /// Runs before the migration, with the store open with ``currentModel``.
    public var willMigrateHandler: ((NSStagedMigrationManager, NSCustomMigrationStage) throws -> Void)?
    /// Runs after the migration, with the store open with ``nextModel``.
    public var didMigrateHandler: ((NSStagedMigrationManager, NSCustomMigrationStage) throws -> Void)?

    /// A stage from `currentModel` to `nextModel`.
    public init(migratingFrom currentModel: NSManagedObjectModelReference, to nextModel: NSManagedObjectModelReference) {
        self.currentModel = currentModel
        self.nextModel = nextModel
        super.init()
    }
}

/// Migrates a store through a series of stages when it is added; set it on the store
/// description with ``NSPersistentStoreStagedMigrationManagerOptionKey``.
open class NSStagedMigrationManager: NSObject {
    /// The stages, run in order from the store's model version.
    public let stages: [NSMigrationStage]
    /// During a custom stage's handlers, a container with the store open.
    public internal(set) var container: NSPersistentContainer?

    /// A manager that runs `stages` in order.
    public init(_ stages: [NSMigrationStage]) {
        self.stages = stages
        super.init()
    }

    /// The model versions the stages go through, in order; a lightweight stage's
    /// checksums are looked up among `candidates`.
    func versions(candidates: [NSManagedObjectModel]) throws -> [(model: NSManagedObjectModel, customStage: NSCustomMigrationStage?)] {
        var chain: [(NSManagedObjectModel, NSCustomMigrationStage?)] = []
        func append(_ model: NSManagedObjectModel, _ stage: NSCustomMigrationStage?) {
            if let last = chain.last, last.0.versionChecksum == model.versionChecksum {
                if stage != nil { chain[chain.count - 1].1 = stage }
                return
            }
            chain.append((model, stage))
        }
        for stage in stages {
            if let custom = stage as? NSCustomMigrationStage {
                append(custom.currentModel.resolvedModel, custom)
                append(custom.nextModel.resolvedModel, nil)
            } else if let lightweight = stage as? NSLightweightMigrationStage {
                for checksum in lightweight.versionChecksums {
                    guard let model = candidates.first(where: { $0.versionChecksum == checksum }) else {
                        throw coreDataError(134504, userInfo: [
                            NSLocalizedDescriptionKey: "Cannot use staged migration with an unknown model version.",
                            "reason": "No model version with checksum \(checksum) (stage \(stage.label ?? "unnamed"))",
                        ])
                    }
                    append(model, nil)
                }
            }
        }
        return chain
    }

    /// Runs the stages on the store at `url`, from the version that wrote it to the last
    /// version of the last stage.
    func migrateStore(at url: URL, candidates: [NSManagedObjectModel], configurationName: String?) throws {
        let chain = try versions(candidates: candidates)
        let metadata = try SQLiteStoreEngine.readMetadata(at: url)
        guard var index = chain.firstIndex(where: { $0.model.isConfiguration(withName: configurationName, compatibleWithStoreMetadata: metadata) }) else {
            throw coreDataError(134504, userInfo: [NSLocalizedDescriptionKey: "Cannot use staged migration with an unknown model version."])
        }
        while index + 1 < chain.count {
            let (source, custom) = chain[index]
            let destination = chain[index + 1].model
            if let custom, let handler = custom.willMigrateHandler { try withContainer(source, url: url) { try handler(self, custom) } }
            let mapping: NSMappingModel
            do {
                mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
            } catch {
                throw MigrationErrors.missingMappingModel(source: source, destination: destination, underlying: error)
            }
            try NSMigrationManager(sourceModel: source, destinationModel: destination).migrateStoreInPlace(at: url, mapping: mapping, configurationName: configurationName)
            if let custom, let handler = custom.didMigrateHandler { try withContainer(destination, url: url) { try handler(self, custom) } }
            index += 1
        }
    }

    /// Opens the store with `model` in ``container`` for the length of `body`.
    private func withContainer(_ model: NSManagedObjectModel, url: URL, _ body: () throws -> Void) throws {
        let opened = NSPersistentContainer(name: url.deletingPathExtension().lastPathComponent, managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: url)
        description.shouldMigrateStoreAutomatically = false
        opened.persistentStoreDescriptions = [description]
        var loadError: Error?
        opened.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        container = opened
        defer {
            container = nil
            opened.viewContext.reset()
            for store in opened.persistentStoreCoordinator.persistentStores {
                try? opened.persistentStoreCoordinator.remove(store)
                store.engine.close()
            }
        }
        try body()
    }
}
