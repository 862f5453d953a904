import Foundation

/// The store classes registered by type name, shared by every coordinator of the process.
/// Guarded by a lock: stores may be added from several threads.
enum RegisteredStoreClasses {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var classes: [String: NSIncrementalStore.Type] = [:]

    static func register(_ storeClass: NSIncrementalStore.Type?, for type: String) {
        lock.lock(); defer { lock.unlock() }
        classes[type] = storeClass
    }

    static func storeClass(for type: String) -> NSIncrementalStore.Type? {
        lock.lock(); defer { lock.unlock() }
        return classes[type]
    }

    static var all: [String: NSIncrementalStore.Type] {
        lock.lock(); defer { lock.unlock() }
        return classes
    }
}

extension NSPersistentStoreCoordinator {
    /// Makes `storeClass` the class of stores of type `storeType`, so that
    /// ``addPersistentStore(ofType:configurationName:at:options:)`` with that type creates
    /// one; `nil` removes the registration.
    ///
    /// On Linux only ``NSIncrementalStore`` subclasses can be registered (Core Data also
    /// accepts `NSAtomicStore` subclasses, which the library does not have). Register
    /// before adding a store of the type, once per process.
    ///
    /// ```swift
    /// NSPersistentStoreCoordinator.registerStoreClass(TrailFileStore.self, forStoreType: "TrailFile")
    /// ```
    public class func registerStoreClass(_ storeClass: AnyClass?, forStoreType storeType: String) {
        guard let storeClass else {
            RegisteredStoreClasses.register(nil, for: storeType)
            return
        }
        guard let incremental = storeClass as? NSIncrementalStore.Type else {
            raiseCoreDataException(.invalidArgument, "\(storeClass) is not a subclass of NSIncrementalStore; only NSIncrementalStore subclasses can be registered as store classes.")
        }
        RegisteredStoreClasses.register(incremental, for: storeType)
    }

    /// Registers `storeClass` for a ``NSPersistentStore/StoreType`` (the newer spelling of
    /// ``registerStoreClass(_:forStoreType:)``).
    public class func registerStoreClass(_ storeClass: AnyClass?, type storeType: NSPersistentStore.StoreType) {
        registerStoreClass(storeClass, forStoreType: storeType.rawValue)
    }

    /// Every store type a coordinator can add, with its class: the built-in types and
    /// those registered with ``registerStoreClass(_:forStoreType:)``.
    ///
    /// Core Data wraps each class in an `NSValue`; here the dictionary holds the class.
    public class var registeredStoreTypes: [String: AnyClass] {
        var types: [String: AnyClass] = [
            NSSQLiteStoreType: NSPersistentStore.self,
            NSInMemoryStoreType: NSPersistentStore.self,
            NSBinaryStoreType: NSPersistentStore.self,
        ]
        for (type, storeClass) in RegisteredStoreClasses.all { types[type] = storeClass }
        return types
    }

    /// Creates a store of a registered class, loads its metadata and checks it.
    func addIncrementalStore(
        _ storeClass: NSIncrementalStore.Type, type storeType: String, configurationName configuration: String?,
        at storeURL: URL?, options: [AnyHashable: Any]?
    ) throws -> NSPersistentStore {
        if let configuration, managedObjectModel.entities(forConfigurationName: configuration) == nil {
            throw coreDataError(NSPersistentStoreInvalidTypeError, userInfo: [
                NSLocalizedDescriptionKey: "The model has no configuration named \(configuration)."
            ])
        }
        let url = storeURL ?? URL(fileURLWithPath: "/dev/null")
        let store = storeClass.init(persistentStoreCoordinator: self, configurationName: configuration, at: url, options: options)
        store.type = storeType
        // Errors of the store's own code reach the caller unchanged.
        try store.loadMetadata()
        let metadata = store.metadata ?? [:]
        guard metadata[NSStoreTypeKey] as? String == storeType else {
            throw coreDataError(NSPersistentStoreTypeMismatchError, userInfo: [
                NSLocalizedDescriptionKey: "The store type in the metadata does not match the specified store type.",
                "reason": "The store type in the metadata does not match the specified store type.",
                "metadata": metadata,
            ])
        }
        guard let uuid = metadata[NSStoreUUIDKey] as? String, !uuid.isEmpty else {
            throw coreDataError(NSPersistentStoreTypeMismatchError, userInfo: [
                NSLocalizedDescriptionKey: "The store's metadata has no \(NSStoreUUIDKey); loadMetadata() must set it.",
                "metadata": metadata,
            ])
        }
        store.storeIdentifier = uuid
        return store
    }
}
