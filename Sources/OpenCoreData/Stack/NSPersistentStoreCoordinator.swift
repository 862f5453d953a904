import Foundation

/// Connects a model to the persistent stores that hold its objects, and serves contexts.
///
/// ```swift
/// let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
/// try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil,
///                                    at: URL(fileURLWithPath: "Trailhead.sqlite"), options: nil)
/// ```
open class NSPersistentStoreCoordinator {
    /// The model whose entities the stores hold. Frozen (not editable) from now on.
    public let managedObjectModel: NSManagedObjectModel
    /// A name for debugging.
    public var name: String?
    private var stores: [NSPersistentStore] = []
    private let lock = NSRecursiveLock()

    /// A coordinator for `model`.
    public init(managedObjectModel model: NSManagedObjectModel) {
        self.managedObjectModel = model
        model.isEditable = false
        handle.attach(self)
    }

    /// What the coordinator's stores hold instead of a weak reference to it (``TargetHandle``).
    let handle = TargetHandle<NSPersistentStoreCoordinator>()

    deinit { handle.clear() }

    /// The stores added so far, in order.
    public var persistentStores: [NSPersistentStore] {
        lock.lock(); defer { lock.unlock() }
        return stores
    }

    /// Opens (creating when missing) a store and adds it.
    ///
    /// A type registered with ``registerStoreClass(_:forStoreType:)`` creates a store of
    /// the registered ``NSIncrementalStore`` subclass and calls its
    /// ``NSIncrementalStore/loadMetadata()``.
    ///
    /// - Throws: an `NSError` in `NSCocoaErrorDomain`: ``NSPersistentStoreInvalidTypeError``
    ///   ("Unsupported store type.") for a type neither built in nor registered;
    ///   ``NSPersistentStoreTypeMismatchError`` when an incremental store's metadata names
    ///   another type; whatever an incremental store's `loadMetadata()` throws, unchanged; ``NSPersistentStoreIncompatibleVersionHashError`` when the file
    ///   was written with a different model, and Core Data's codes for unreadable files.
    @discardableResult
    open func addPersistentStore(
        ofType storeType: String, configurationName configuration: String?, at storeURL: URL?,
        options: [AnyHashable: Any]? = nil
    ) throws -> NSPersistentStore {
        if let storeClass = RegisteredStoreClasses.storeClass(for: storeType) {
            let store = try addIncrementalStore(storeClass, type: storeType, configurationName: configuration, at: storeURL, options: options)
            publish(store)
            return store
        }
        let engineURL: URL?
        var atomicWorkingURL: URL?
        switch storeType {
        case NSSQLiteStoreType:
            guard let storeURL else {
                throw coreDataError(NSPersistentStoreInvalidTypeError, userInfo: [
                    NSLocalizedDescriptionKey: "A SQLite store needs a file URL."
                ])
            }
            engineURL = storeURL
            try FileManager.default.createDirectory(at: storeURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            try migrateIfNeeded(storeAt: storeURL, configurationName: configuration, options: options)
        case NSInMemoryStoreType:
            engineURL = nil
        case NSBinaryStoreType:
            // An atomic store: the engine works on a private copy of the file, read whole
            // now; each save writes the whole file again (NSPersistentStore.writeAtomicFile).
            guard let storeURL else {
                throw coreDataError(NSPersistentStoreInvalidTypeError, userInfo: [
                    NSLocalizedDescriptionKey: "A binary store needs a file URL."
                ])
            }
            try FileManager.default.createDirectory(at: storeURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            let working = FileManager.default.temporaryDirectory
                .appendingPathComponent("OpenCoreData-atomic-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: working, withIntermediateDirectories: true)
            let copy = working.appendingPathComponent("store.sqlite")
            if FileManager.default.fileExists(atPath: storeURL.path) {
                try FileManager.default.copyItem(at: storeURL, to: copy)
            }
            engineURL = copy
            atomicWorkingURL = copy
        case NSXMLStoreType:
            throw coreDataError(NSPersistentStoreInvalidTypeError, userInfo: [
                NSLocalizedDescriptionKey: "The XML store type is available on macOS only."
            ])
        default:
            // Core Data's reason for a type nobody registered is "Unsupported store type."
            throw coreDataError(NSPersistentStoreInvalidTypeError, userInfo: [
                NSLocalizedDescriptionKey: "Unsupported store type.",
                NSStoreTypeKey: storeType,
            ])
        }
        if let configuration, managedObjectModel.entities(forConfigurationName: configuration) == nil {
            throw coreDataError(NSPersistentStoreInvalidTypeError, userInfo: [
                NSLocalizedDescriptionKey: "The model has no configuration named \(configuration)."
            ])
        }
        let engine = try SQLiteStoreEngine(url: engineURL, model: managedObjectModel, configurationName: configuration, options: options)
        let store = NSPersistentStore(
            type: storeType, configurationName: configuration,
            url: storeURL ?? (storeType == NSInMemoryStoreType ? URL(fileURLWithPath: "/dev/null") : nil),
            options: options, engine: engine)
        store.persistentStoreCoordinator = self
        if let atomicWorkingURL {
            store.atomicWorkingURL = atomicWorkingURL
            if !FileManager.default.fileExists(atPath: storeURL!.path) { try store.writeAtomicFile() }
        }
        publish(store)
        return store
    }

    /// Adds an opened store to the list and says so.
    private func publish(_ store: NSPersistentStore) {
        lock.lock()
        stores.append(store)
        lock.unlock()
        NotificationCenter.default.post(name: .NSPersistentStoreCoordinatorStoresDidChange, object: self,
                                        userInfo: [NSAddedPersistentStoresKey: [store]])
    }

    /// Opens the store `description` describes, then calls `block` (on this thread, or
    /// on another when `shouldAddStoreAsynchronously` is set).
    open func addPersistentStore(
        with description: NSPersistentStoreDescription,
        completionHandler block: @escaping (NSPersistentStoreDescription, Error?) -> Void
    ) {
        let work = {
            do {
                try self.addPersistentStore(
                    ofType: description.type, configurationName: description.configuration,
                    at: description.url, options: description.storeOptions)
                block(description, nil)
            } catch {
                block(description, error)
            }
        }
        if description.shouldAddStoreAsynchronously {
            DispatchQueue.global().async(execute: work)
        } else {
            work()
        }
    }

    /// Removes `store`; its objects can no longer be fetched or saved. Contexts using the
    /// coordinator invalidate the objects they have from it (see
    /// `NSManagedObjectContextObjectsDidChange` and ``NSInvalidatedObjectsKey``).
    open func remove(_ store: NSPersistentStore) throws {
        lock.lock()
        stores.removeAll { $0 === store }
        lock.unlock()
        NotificationCenter.default.post(name: .NSPersistentStoreCoordinatorStoresDidChange, object: self,
                                        userInfo: [NSRemovedPersistentStoresKey: [store]])
        store.persistentStoreCoordinator = nil
    }

    /// The store whose file is `url`.
    open func persistentStore(for url: URL) -> NSPersistentStore? {
        persistentStores.first { $0.url?.standardizedFileURL == url.standardizedFileURL }
    }

    /// The ID that `url` (from ``NSManagedObjectID/uriRepresentation()``) stands for, or
    /// `nil` when no store of this coordinator has that UUID or the entity is unknown.
    /// Temporary IDs cannot be turned back into objects this way.
    open func managedObjectID(forURIRepresentation url: URL) -> NSManagedObjectID? {
        guard url.scheme == "x-coredata", let host = url.host else { return nil }
        let parts = url.path.split(separator: "/").map(String.init)
        guard parts.count == 2, parts[1].hasPrefix("p"), let primaryKey = Int64(parts[1].dropFirst()) else { return nil }
        guard let store = persistentStores.first(where: { $0.identifier.caseInsensitiveCompare(host) == .orderedSame }),
            let entity = managedObjectModel.entity(named: parts[0])
        else { return nil }
        return NSManagedObjectID(store: store, key: StoreKey(entityNumber: store.engine.entityNumber(for: entity), primaryKey: primaryKey), entity: entity)
    }

    // MARK: Routing

    /// The store that holds objects of `entity`: the first whose configuration lists it.
    func store(for entity: NSEntityDescription) -> NSPersistentStore? {
        for store in persistentStores {
            let members = managedObjectModel.entities(forConfigurationName: store.configurationName) ?? []
            if members.contains(where: { $0 === entity }) { return store }
        }
        return nil
    }

    /// The permanent ID of `key` in `store`, with its concrete entity.
    func objectID(for key: StoreKey, in store: NSPersistentStore) -> NSManagedObjectID? {
        guard let entity = store.engine.entity(forNumber: key.entityNumber) else { return nil }
        return NSManagedObjectID(store: store, key: key, entity: entity)
    }
}
