import Foundation

/// Reading and writing a store's metadata, and copying, replacing and deleting store files
/// without going around the coordinator.
extension NSPersistentStoreCoordinator {
    /// The metadata of the store at `url` without adding it: its UUID, type and the
    /// version hashes of the model that wrote it.
    ///
    /// - Throws: 260 (`NSFileReadNoSuchFileError`) when there is no file,
    ///   ``NSPersistentStoreInvalidTypeError`` for a type without files, 134020 for a
    ///   database that is not a Core Data store.
    public class func metadataForPersistentStore(ofType storeType: String, at url: URL, options: [AnyHashable: Any]? = nil) throws -> [String: Any] {
        try checkFileStoreType(storeType)
        return try SQLiteStoreEngine.readMetadata(at: url)
    }

    /// ``metadataForPersistentStore(ofType:at:options:)`` with a store type.
    public class func metadataForPersistentStore(type: NSPersistentStore.StoreType, at url: URL, options: [AnyHashable: Any]? = nil) throws -> [String: Any] {
        try metadataForPersistentStore(ofType: type.rawValue, at: url, options: options)
    }

    /// Replaces the metadata of the store file at `url`, which must not be added to a
    /// coordinator. The store's UUID and type stay.
    public class func setMetadata(_ metadata: [String: Any]?, forPersistentStoreOfType storeType: String, at url: URL, options: [AnyHashable: Any]? = nil) throws {
        try checkFileStoreType(storeType)
        let existing = try SQLiteStoreEngine.readMetadata(at: url)
        let database = try SQLiteDatabase(path: url.path, create: false)
        defer { database.close() }
        var updated = metadata ?? [:]
        updated[NSStoreUUIDKey] = existing[NSStoreUUIDKey]
        updated[NSStoreTypeKey] = existing[NSStoreTypeKey]
        try database.execute("BEGIN EXCLUSIVE")
        do {
            try StoreMetadata.write(updated, to: database)
            try database.execute("COMMIT")
        } catch {
            database.rollbackQuietly()
            throw error
        }
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
        try Self.checkFileStoreType(storeType)
        guard !FileManager.default.fileExists(atPath: url.path) else {
            throw coreDataError(NSPersistentStoreOperationError, userInfo: [
                NSLocalizedDescriptionKey: "Can't migrate the store to \(url.lastPathComponent): a file is already there.",
                NSFilePathErrorKey: url.path,
            ])
        }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
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
        try Self.checkFileStoreType(storeType)
        guard sourceURL.standardizedFileURL != destinationURL.standardizedFileURL else { return }
        _ = try SQLiteStoreEngine.readMetadata(at: sourceURL)
        try FileManager.default.createDirectory(at: destinationURL.deletingLastPathComponent(), withIntermediateDirectories: true)
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
        try Self.checkFileStoreType(storeType)
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

    /// Store types whose stores are files this coordinator can copy and read.
    private static func checkFileStoreType(_ storeType: String) throws {
        guard storeType == NSSQLiteStoreType || storeType == NSBinaryStoreType else {
            throw coreDataError(NSPersistentStoreInvalidTypeError, userInfo: [
                NSLocalizedDescriptionKey: "Store type \(storeType) has no store file; use NSSQLiteStoreType or NSBinaryStoreType."
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
