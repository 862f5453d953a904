import Foundation

/// Reading and writing a store's metadata, and copying, replacing and deleting store files
/// without going around the coordinator.
extension NSPersistentStoreCoordinator {
    /// The metadata of the store at `url` without adding it: its UUID, type and the
    /// version hashes of the model that wrote it. For a type registered with
    /// ``registerStoreClass(_:forStoreType:)``, the registered class reads it
    /// (``NSPersistentStore/metadataForPersistentStore(with:)``).
    ///
    /// - Throws: 260 (`NSFileReadNoSuchFileError`) when there is no file,
    ///   ``NSPersistentStoreInvalidTypeError`` for a type without files, 134020 for a
    ///   database that is not a Core Data store.
    public class func metadataForPersistentStore(ofType storeType: String, at url: URL, options: [AnyHashable: Any]? = nil) throws -> [String: Any] {
        try fileStoreClass(for: storeType).metadataForPersistentStore(with: url)
    }

    /// ``metadataForPersistentStore(ofType:at:options:)`` with a store type.
    public class func metadataForPersistentStore(type: NSPersistentStore.StoreType, at url: URL, options: [AnyHashable: Any]? = nil) throws -> [String: Any] {
        try metadataForPersistentStore(ofType: type.rawValue, at: url, options: options)
    }

    /// Replaces the metadata of the store file at `url`, which must not be added to a
    /// coordinator. The store's UUID and type stay. A registered type's class writes it
    /// (``NSPersistentStore/setMetadata(_:forPersistentStoreAt:)``).
    public class func setMetadata(_ metadata: [String: Any]?, forPersistentStoreOfType storeType: String, at url: URL, options: [AnyHashable: Any]? = nil) throws {
        try fileStoreClass(for: storeType).setMetadata(metadata, forPersistentStoreAt: url)
    }

    /// The metadata of `store`, one of this coordinator's stores.
    public func metadata(for store: NSPersistentStore) -> [String: Any] {
        store.metadata ?? [:]
    }

    /// Replaces the metadata of `store`, keeping its UUID and type. Add your own keys
    /// beside Core Data's; they survive lightweight migrations.
    ///
    /// As in Core Data, the store file gets the new metadata with the next save to the
    /// store; ``metadata(for:)`` returns it at once. To change a store file's metadata
    /// without a save, use ``setMetadata(_:forPersistentStoreOfType:at:options:)``.
    public func setMetadata(_ metadata: [String: Any]?, for store: NSPersistentStore) {
        store.metadata = metadata ?? [:]
    }

    /// Copies `store` to `url` as a store of `storeType`, removes `store` from the
    /// coordinator and adds the copy in its place, returning it. The original file stays.
    ///
    /// - Throws: ``NSPersistentStoreOperationError`` when a file is already at `url` or
    ///   the store type cannot be written to a file.
    public func migratePersistentStore(_ store: NSPersistentStore, to url: URL, options: [AnyHashable: Any]? = nil, withType storeType: String) throws -> NSPersistentStore {
        if storeType == NSInMemoryStoreType { return try migratePersistentStoreIntoMemory(store, url: url, options: options) }
        let destinationClass = try Self.fileStoreClass(for: storeType)
        guard !FileManager.default.fileExists(atPath: url.path) else {
            throw coreDataError(NSPersistentStoreOperationError, userInfo: [
                NSLocalizedDescriptionKey: "Can't migrate the store to \(url.lastPathComponent): a file is already there.",
                NSFilePathErrorKey: url.path,
            ])
        }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        if destinationClass is NSIncrementalStore.Type || store is NSIncrementalStore {
            return try migratePersistentStoreByObjects(store, to: url, options: options, type: storeType)
        }
        try store.engine.copyDatabase(to: url)
        do {
            try Self.copyExternalData(from: store.url, to: url)
            let added = try addPersistentStore(ofType: storeType, configurationName: store.configurationName == "PF_DEFAULT_CONFIGURATION_NAME" ? nil : store.configurationName, at: url, options: options)
            try remove(store)
            return added
        } catch {
            try? Self.removeStoreFiles(at: url)
            throw error
        }
    }

    /// An in-memory copy of `store` (rows and metadata) added in its place. Data kept in
    /// files beside the store (external binary storage) has no place in memory: a model
    /// that allows it is refused.
    private func migratePersistentStoreIntoMemory(_ store: NSPersistentStore, url: URL, options: [AnyHashable: Any]?) throws -> NSPersistentStore {
        if store.engine.sqlSchema?.entities.contains(where: \.hasExternalData) == true {
            throw coreDataError(NSPersistentStoreOperationError, userInfo: [
                NSLocalizedDescriptionKey: "Can't migrate the store into memory: its model keeps binary data in external files; migrate it to a SQLite file instead.",
            ])
        }
        let configuration = store.configurationName == "PF_DEFAULT_CONFIGURATION_NAME" ? nil : store.configurationName
        let added = try addPersistentStore(ofType: NSInMemoryStoreType, configurationName: configuration, at: url, options: options)
        do {
            try added.engine.sqlite(for: "Migrating a store into memory").replaceContents(from: store.engine.sqlite(for: "Migrating a store into memory"))
            try remove(store)
            return added
        } catch {
            try? remove(added)
            throw error
        }
    }

    /// A copy of `store` made object by object into a new store of `storeType`, added in
    /// its place: the way between store kinds that share no file format (a custom
    /// incremental store and SQLite, in either direction). Every object and relationship
    /// is copied through two contexts (an identity mapping run by ``NSMigrationManager``);
    /// the copy is removed again when anything fails.
    private func migratePersistentStoreByObjects(_ store: NSPersistentStore, to url: URL, options: [AnyHashable: Any]?, type storeType: String) throws -> NSPersistentStore {
        guard let sourceURL = store.url else {
            throw coreDataError(NSPersistentStoreOperationError, userInfo: [NSLocalizedDescriptionKey: "Can't migrate a store that has no URL."])
        }
        let configuration = store.configurationName == "PF_DEFAULT_CONFIGURATION_NAME" ? nil : store.configurationName
        do {
            let manager = NSMigrationManager(sourceModel: managedObjectModel, destinationModel: managedObjectModel)
            let identity = try NSMappingModel.inferredMappingModel(forSourceModel: managedObjectModel, destinationModel: managedObjectModel)
            try manager.migrateObjects(from: sourceURL, sourceType: store.type, sourceOptions: store.options, mapping: identity,
                                       to: url, type: storeType, options: options)
            let added = try addPersistentStore(ofType: storeType, configurationName: configuration, at: url, options: options)
            try remove(store)
            return added
        } catch {
            try? Self.removeStoreFiles(at: url)
            throw error
        }
    }

    /// ``migratePersistentStore(_:to:options:withType:)`` with a store type.
    public func migratePersistentStore(_ store: NSPersistentStore, to url: URL, options: [AnyHashable: Any]? = nil, type: NSPersistentStore.StoreType) throws -> NSPersistentStore {
        try migratePersistentStore(store, to: url, options: options, withType: type.rawValue)
    }

    /// Replaces the contents of the store file at `destinationURL` (creating it when
    /// missing) with those of the store at `sourceURL`.
    ///
    /// The copy is made with SQLite's online backup inside one transaction on the
    /// destination, so the destination is either all old or all new and its write-ahead
    /// log stays consistent. Remove the destination from any coordinator first: stores
    /// still open on it would keep rows they read before.
    public func replacePersistentStore(at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil, withPersistentStoreFrom sourceURL: URL, sourceOptions: [AnyHashable: Any]? = nil, ofType storeType: String) throws {
        let storeClass = try Self.fileStoreClass(for: storeType)
        guard sourceURL.standardizedFileURL != destinationURL.standardizedFileURL else { return }
        _ = try storeClass.metadataForPersistentStore(with: sourceURL)
        try FileManager.default.createDirectory(at: destinationURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        if storeClass is NSIncrementalStore.Type {
            try Self.replaceFile(at: destinationURL, with: sourceURL)
            return
        }
        let source = try SQLiteDatabase(path: sourceURL.path, create: false)
        defer { source.close() }
        let destination = try SQLiteDatabase(path: destinationURL.path)
        defer { destination.close() }
        try destination.replaceContents(with: source)
        try Self.copyExternalData(from: sourceURL, to: destinationURL)
    }

    /// ``replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:ofType:)``
    /// with a store type.
    public func replacePersistentStore(at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil, withPersistentStoreFrom sourceURL: URL, sourceOptions: [AnyHashable: Any]? = nil, type: NSPersistentStore.StoreType) throws {
        try replacePersistentStore(at: destinationURL, destinationOptions: destinationOptions, withPersistentStoreFrom: sourceURL, sourceOptions: sourceOptions, ofType: type.rawValue)
    }

    /// Deletes the store file at `url` with its write-ahead log and external data,
    /// removing it from this coordinator first when it is one of its stores. Deleting a
    /// store that does not exist succeeds.
    public func destroyPersistentStore(at url: URL, ofType storeType: String, options: [AnyHashable: Any]? = nil) throws {
        _ = try Self.fileStoreClass(for: storeType)
        if let store = persistentStore(for: url) {
            try remove(store)
            store.engine.close()
        }
        try Self.removeStoreFiles(at: url)
    }

    /// ``destroyPersistentStore(at:ofType:options:)`` with a store type.
    public func destroyPersistentStore(at url: URL, type: NSPersistentStore.StoreType, options: [AnyHashable: Any]? = nil) throws {
        try destroyPersistentStore(at: url, ofType: type.rawValue, options: options)
    }

    // MARK: Files

    /// The class whose class methods read and write store files of `storeType`: the
    /// built-in SQLite and binary stores', or the class registered for the type.
    private static func fileStoreClass(for storeType: String) throws -> NSPersistentStore.Type {
        if storeType == NSSQLiteStoreType || storeType == NSBinaryStoreType { return NSPersistentStore.self }
        if let registered = RegisteredStoreClasses.storeClass(for: storeType) { return registered }
        throw coreDataError(NSPersistentStoreInvalidTypeError, userInfo: [
            NSLocalizedDescriptionKey: "Store type \(storeType) has no store file; use NSSQLiteStoreType, NSBinaryStoreType or a registered store type."
        ])
    }

    /// Puts a copy of the file at `source` in place of the file at `destination` in one
    /// rename, for a registered store type whose store is one file the library cannot
    /// open itself.
    private static func replaceFile(at destination: URL, with source: URL) throws {
        let fresh = destination.deletingLastPathComponent().appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString)")
        try FileManager.default.copyItem(at: source, to: fresh)
        guard rename(fresh.path, destination.path) == 0 else {
            let code = errno
            try? FileManager.default.removeItem(at: fresh)
            throw coreDataError(NSPersistentStoreOperationError, userInfo: [
                NSLocalizedDescriptionKey: "Could not replace the store file \(destination.lastPathComponent) (errno \(code)).", NSFilePathErrorKey: destination.path,
            ])
        }
    }

    /// The store file and everything SQLite and the store keep beside it.
    static func removeStoreFiles(at url: URL) throws {
        let manager = FileManager.default
        for suffix in ["", "-wal", "-shm", "-journal"] where manager.fileExists(atPath: url.path + suffix) {
            try manager.removeItem(atPath: url.path + suffix)
        }
        if let support = ExternalBinaryStorage(storeURL: url).directory?.deletingLastPathComponent(), manager.fileExists(atPath: support.path) {
            try manager.removeItem(at: support)
        }
    }

    /// Copies the external data files of the store at `source` beside the store at `destination`.
    private static func copyExternalData(from source: URL?, to destination: URL) throws {
        guard let from = ExternalBinaryStorage(storeURL: source).directory, FileManager.default.fileExists(atPath: from.path),
            let to = ExternalBinaryStorage(storeURL: destination).directory
        else { return }
        if FileManager.default.fileExists(atPath: to.path) { try FileManager.default.removeItem(at: to) }
        try FileManager.default.createDirectory(at: to.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: from, to: to)
    }
}
