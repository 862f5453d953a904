import Foundation

extension NSPersistentStoreCoordinator {
    /// Migrates the store file at `url` to this coordinator's model before it is opened,
    /// when `NSMigratePersistentStoresAutomaticallyOption` is on and the file was written
    /// with another model, as Core Data does inside `addPersistentStore`.
    ///
    /// The source model is the version of this model's `.xcdatamodeld` (or else of a
    /// model in the main bundle) whose hashes match the store; the mapping model one
    /// registered for the pair, or else, with `NSInferMappingModelAutomaticallyOption`,
    /// the inferred one.
    func migrateIfNeeded(storeAt url: URL, configurationName: String?, options: [AnyHashable: Any]?) throws {
        // A store opened read-only is never written, not even to migrate it: it then fails
        // to open with 134100 like any store that does not fit.
        guard Self.flag(options?[NSMigratePersistentStoresAutomaticallyOption]), !Self.flag(options?[NSReadOnlyPersistentStoreOption]),
            FileManager.default.fileExists(atPath: url.path),
            let metadata = try? SQLiteStoreEngine.readMetadata(at: url),
            !managedObjectModel.isConfiguration(withName: configurationName, compatibleWithStoreMetadata: metadata)
        else { return }
        let candidates = managedObjectModel.siblingVersions + Self.extraSourceModels
        if let staged = options?[NSPersistentStoreStagedMigrationManagerOptionKey] as? NSStagedMigrationManager {
            try staged.migrateStore(at: url, candidates: candidates + [managedObjectModel], configurationName: configurationName)
            // The stages may stop short of this coordinator's model: the rest is lightweight.
            guard let after = try? SQLiteStoreEngine.readMetadata(at: url),
                !managedObjectModel.isConfiguration(withName: configurationName, compatibleWithStoreMetadata: after)
            else { return }
            return try migrateIfNeeded(storeAt: url, configurationName: configurationName, options: options.map { options in
                var rest = options
                rest[NSPersistentStoreStagedMigrationManagerOptionKey] = nil
                return rest
            })
        }
        guard let source = candidates.first(where: { $0.isConfiguration(withName: configurationName, compatibleWithStoreMetadata: metadata) })
            ?? NSManagedObjectModel.mergedModel(from: nil, forStoreMetadata: metadata)
        else { throw MigrationErrors.missingSourceModel(url: url, metadata: metadata) }
        let mapping: NSMappingModel
        if let found = NSMappingModel(from: nil, forSourceModel: source, destinationModel: managedObjectModel) {
            mapping = found
        } else if Self.flag(options?[NSInferMappingModelAutomaticallyOption]) {
            do {
                mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: managedObjectModel)
            } catch {
                throw MigrationErrors.missingMappingModel(source: source, destination: managedObjectModel, underlying: error)
            }
        } else {
            throw MigrationErrors.missingMappingModel(source: source, destination: managedObjectModel, underlying: nil)
        }
        let manager = NSMigrationManager(sourceModel: source, destinationModel: managedObjectModel)
        try manager.migrateStoreInPlace(at: url, mapping: mapping, configurationName: configurationName)
    }

    /// Models automatic migration also considers as the source, after the versions of the
    /// coordinator's own model: the tests' models built in code, which no bundle holds.
    nonisolated(unsafe) static var extraSourceModels: [NSManagedObjectModel] = []

    /// An option's Boolean value (`true`, or an `NSNumber` holding it).
    static func flag(_ value: Any?) -> Bool {
        if let bool = value as? Bool { return bool }
        if let number = value as? NSNumber { return number.boolValue }
        return false
    }
}
