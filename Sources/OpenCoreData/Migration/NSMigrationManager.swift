import Foundation

/// Runs a migration: turns a store written with the source model into one for the
/// destination model, following a mapping model.
///
/// ```swift
/// let manager = NSMigrationManager(sourceModel: v1, destinationModel: v2)
/// try manager.migrateStore(from: oldURL, type: NSSQLiteStoreType, options: nil,
///                          mapping: mapping, to: newURL, type: NSSQLiteStoreType, options: nil)
/// ```
open class NSMigrationManager {
    /// The model of the stores this manager migrates from.
    public let sourceModel: NSManagedObjectModel
    /// The model of the stores this manager migrates to.
    public let destinationModel: NSManagedObjectModel
    /// The mapping model of the running (or last) migration.
    public private(set) var mappingModel: NSMappingModel!
    /// Free-form information for the policies of the running migration.
    public var userInfo: [AnyHashable: Any]?
    /// How far the running migration is, from 0 to 1.
    public internal(set) var migrationProgress: Float = 0 {
        didSet { progressObserver?(migrationProgress) }
    }
    /// Called with ``migrationProgress`` each time it changes. (Core Data reports progress
    /// through key-value observing, which Linux lacks for arbitrary objects.)
    public var progressObserver: ((Float) -> Void)?
    /// Core Data migrates SQLite stores inside the store when it can; kept for API
    /// compatibility, always `true` here.
    public var usesStoreSpecificMigrationManager: Bool = true
    /// The entity mapping being run.
    public internal(set) var currentEntityMapping: NSEntityMapping!
    /// The context holding source instances during an object-by-object migration.
    public internal(set) var sourceContext: NSManagedObjectContext!
    /// The context holding destination instances during an object-by-object migration.
    public internal(set) var destinationContext: NSManagedObjectContext!
    /// Set by ``cancelMigrationWithError(_:)``; checked between objects.
    var cancellation: Error?
    /// Destination instances by entity mapping name and source object ID (object migration).
    var associations: [String: [NSManagedObjectID: [NSManagedObject]]] = [:]
    /// Source instances by entity mapping name and destination object (object migration).
    var reverseAssociations: [String: [ObjectIdentifier: [NSManagedObject]]] = [:]

    /// A manager for migrations from stores of `sourceModel` to stores of `destinationModel`.
    public init(sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel) {
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
    }

    /// Migrates the store at `sourceURL` into a new store at `destinationURL` (which must
    /// not exist yet), following `mapping`. The source store is left as it was.
    ///
    /// - Throws: ``NSMigrationError`` (134110) with the reason, ``NSMigrationCancelledError``
    ///   when a policy cancelled, ``NSMigrationManagerDestinationStoreError`` when the
    ///   destination exists; the destination file is removed on failure.
    open func migrateStore(
        from sourceURL: URL, type sourceType: NSPersistentStore.StoreType, options sourceOptions: [AnyHashable: Any]? = nil,
        mapping: NSMappingModel, to destinationURL: URL, type destinationType: NSPersistentStore.StoreType, options destinationOptions: [AnyHashable: Any]? = nil
    ) throws {
        try migrate(from: sourceURL, options: sourceOptions, mapping: mapping, to: destinationURL, type: destinationType.rawValue, options: destinationOptions)
    }

    /// ``migrateStore(from:type:options:mapping:to:type:options:)`` with store type strings,
    /// as Core Data spelled it before iOS 15; a `nil` mapping is inferred.
    open func migrateStore(
        from sourceURL: URL, sourceType sStoreType: String, options sOptions: [AnyHashable: Any]? = nil, with mappings: NSMappingModel?,
        toDestinationURL dURL: URL, destinationType dStoreType: String, destinationOptions dOptions: [AnyHashable: Any]? = nil
    ) throws {
        let mapping = try mappings ?? NSMappingModel.inferredMappingModel(forSourceModel: sourceModel, destinationModel: destinationModel)
        try migrate(from: sourceURL, options: sOptions, mapping: mapping, to: dURL, type: dStoreType, options: dOptions)
    }

    /// The migration both spellings run.
    private func migrate(
        from sourceURL: URL, options sourceOptions: [AnyHashable: Any]?, mapping: NSMappingModel,
        to destinationURL: URL, type destinationType: String, options destinationOptions: [AnyHashable: Any]?
    ) throws {
        mappingModel = mapping
        migrationProgress = 0
        guard !FileManager.default.fileExists(atPath: destinationURL.path) else {
            throw coreDataError(NSMigrationManagerDestinationStoreError, userInfo: [
                NSLocalizedDescriptionKey: "Can't migrate into \(destinationURL.lastPathComponent): a file is already there.",
                "destinationURL": destinationURL,
            ])
        }
        let metadata: [String: Any]
        do {
            metadata = try SQLiteStoreEngine.readMetadata(at: sourceURL)
        } catch {
            throw coreDataError(NSMigrationManagerSourceStoreError, userInfo: [
                NSLocalizedDescriptionKey: "Can't read the source store \(sourceURL.lastPathComponent).", NSUnderlyingErrorKey: error, "sourceURL": sourceURL,
            ])
        }
        guard sourceModel.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) else {
            throw MigrationErrors.missingSourceModel(url: sourceURL, metadata: metadata)
        }
        do {
            if let plan = SQLiteMigrationPlan(mapping: mapping, source: sourceModel, destination: destinationModel, configurationName: nil) {
                try FileManager.default.createDirectory(at: destinationURL.deletingLastPathComponent(), withIntermediateDirectories: true)
                let source = try SQLiteDatabase(path: sourceURL.path, create: false)
                defer { source.close() }
                try source.withStatement("VACUUM INTO ?") { copy in
                    copy.bind(destinationURL.path, at: 1)
                    try copy.execute()
                }
                try SQLiteStoreMigration(url: destinationURL, plan: plan, configurationName: nil).run()
            } else {
                try migrateObjects(from: sourceURL, sourceOptions: sourceOptions, mapping: mapping, to: destinationURL, type: destinationType, options: destinationOptions)
            }
        } catch {
            try? NSPersistentStoreCoordinator.removeStoreFiles(at: destinationURL)
            throw error
        }
        migrationProgress = 1
    }

    /// Migrates the store at `url` where it is: in the file by SQL when the mapping model
    /// allows, else object by object into a file beside it that then replaces it.
    func migrateStoreInPlace(at url: URL, mapping: NSMappingModel, configurationName: String?) throws {
        mappingModel = mapping
        if let plan = SQLiteMigrationPlan(mapping: mapping, source: sourceModel, destination: destinationModel, configurationName: configurationName) {
            try SQLiteStoreMigration(url: url, plan: plan, configurationName: configurationName).run()
            migrationProgress = 1
            return
        }
        let destination = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).migrationdestination_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())")
        do {
            try migrateStore(from: url, type: .sqlite, mapping: mapping, to: destination, type: .sqlite)
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: destinationModel)
            try coordinator.replacePersistentStore(at: url, withPersistentStoreFrom: destination, ofType: NSSQLiteStoreType)
        } catch {
            try? NSPersistentStoreCoordinator.removeStoreFiles(at: destination)
            throw MigrationErrors.failed(source: url, destination: destination, error)
        }
        try? NSPersistentStoreCoordinator.removeStoreFiles(at: destination)
    }

    /// Stops the running migration; it fails with `error`.
    open func cancelMigrationWithError(_ error: Error) {
        cancellation = error
    }

    /// The source entity of an entity mapping.
    open func sourceEntity(for mapping: NSEntityMapping) -> NSEntityDescription? {
        mapping.sourceEntityName.flatMap { sourceModel.entity(named: $0) }
    }

    /// The destination entity of an entity mapping.
    open func destinationEntity(for mapping: NSEntityMapping) -> NSEntityDescription? {
        mapping.destinationEntityName.flatMap { destinationModel.entity(named: $0) }
    }
}
