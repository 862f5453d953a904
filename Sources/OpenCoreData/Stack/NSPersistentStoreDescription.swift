import Foundation

/// How to open one persistent store: where, of which type, with which options.
///
/// ```swift
/// let description = NSPersistentStoreDescription(url: URL(fileURLWithPath: "/dev/null"))
/// description.type = NSInMemoryStoreType
/// container.persistentStoreDescriptions = [description]
/// ```
open class NSPersistentStoreDescription: CustomStringConvertible {
    /// The store type; ``NSSQLiteStoreType`` unless set.
    public var type: String = NSSQLiteStoreType
    /// The configuration of the model the store holds; `nil` for all entities.
    public var configuration: String?
    /// The store file.
    public var url: URL?
    /// Options passed to the store when it is added.
    public private(set) var options: [String: NSObject] = [:]
    /// Open the store read-only.
    public var isReadOnly: Bool = false
    /// Seconds to wait for the database lock.
    public var timeout: TimeInterval = 240
    /// SQLite pragmas to set when the store opens.
    public private(set) var sqlitePragmas: [String: NSObject] = [:]
    /// Whether `loadPersistentStores` returns before the store is open and calls its
    /// handler later, on another thread.
    public var shouldAddStoreAsynchronously: Bool = false
    /// Whether to migrate the store when its model changed.
    public var shouldMigrateStoreAutomatically: Bool = true
    /// Whether to infer the mapping model for such a migration.
    public var shouldInferMappingModelAutomatically: Bool = true

    /// A description with no URL yet; the container gives it the default one.
    public init() {}

    /// A description of the store at `url`.
    public init(url: URL) { self.url = url }

    /// Sets (or, with `nil`, removes) an option.
    public func setOption(_ option: NSObject?, forKey key: String) { options[key] = option }

    /// Sets (or, with `nil`, removes) a SQLite pragma.
    public func setValue(_ value: NSObject?, forPragmaNamed name: String) { sqlitePragmas[name] = value }

    /// The options as the coordinator receives them.
    var storeOptions: [AnyHashable: Any] {
        var all: [AnyHashable: Any] = [:]
        for (key, value) in options { all[key] = value }
        if isReadOnly { all[NSReadOnlyPersistentStoreOption] = true }
        all[NSPersistentStoreTimeoutOption] = timeout
        if !sqlitePragmas.isEmpty { all[NSSQLitePragmasOption] = sqlitePragmas }
        all[NSMigratePersistentStoresAutomaticallyOption] = shouldMigrateStoreAutomatically
        all[NSInferMappingModelAutomaticallyOption] = shouldInferMappingModelAutomatically
        return all
    }

    open var description: String {
        "<NSPersistentStoreDescription: \(cocoaAddress(of: self))> (type: \(type), url: \(url?.absoluteString ?? "(null)"))"
    }
}
