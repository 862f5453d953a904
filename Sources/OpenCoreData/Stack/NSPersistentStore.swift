import Foundation

/// The SQLite store type: one database file, saved incrementally. The default.
public let NSSQLiteStoreType = "SQLite"
/// A store kept in memory only; its contents are gone when the coordinator goes.
public let NSInMemoryStoreType = "InMemory"
/// An atomic store in one file: read whole when it is added, rewritten whole at every save.
public let NSBinaryStoreType = "Binary"
/// The XML atomic store, which Core Data offers on macOS only; adding one here fails with
/// ``NSPersistentStoreInvalidTypeError``, as on iOS.
public let NSXMLStoreType = "XML"

/// A persistent store: the file (or memory) where a coordinator keeps objects' rows.
///
/// You rarely create one yourself: ``NSPersistentStoreCoordinator/addPersistentStore(ofType:configurationName:at:options:)``
/// and ``NSPersistentContainer/loadPersistentStores(completionHandler:)`` do.
open class NSPersistentStore {
    /// The kinds of store, as Core Data's `NSPersistentStore.StoreType` names them.
    public struct StoreType: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// ``NSSQLiteStoreType``.
        public static let sqlite = StoreType(rawValue: NSSQLiteStoreType)
        /// ``NSInMemoryStoreType``.
        public static let inMemory = StoreType(rawValue: NSInMemoryStoreType)
        /// ``NSBinaryStoreType``.
        public static let binary = StoreType(rawValue: NSBinaryStoreType)
    }

    /// The store's type string, e.g. `"SQLite"`, or the type an ``NSIncrementalStore``
    /// subclass was registered and added under.
    public internal(set) var type: String
    /// The store file, or `/dev/null` for an in-memory store.
    public var url: URL?
    /// The configuration whose entities the store holds; `PF_DEFAULT_CONFIGURATION_NAME` for all.
    public let configurationName: String
    /// The options the store was added with.
    public let options: [AnyHashable: Any]?
    /// Whether saves to this store are refused.
    public var isReadOnly: Bool
    /// The coordinator the store belongs to; not retained (the coordinator owns its stores).
    public internal(set) var persistentStoreCoordinator: NSPersistentStoreCoordinator? {
        get { coordinatorHandle?.target }
        set { coordinatorHandle = newValue?.handle }
    }
    /// The coordinator's handle, held instead of a weak reference (``TargetHandle``).
    private var coordinatorHandle: TargetHandle<NSPersistentStoreCoordinator>?
    /// What object IDs and the engine hold instead of a weak reference to the store, so
    /// that retaining and releasing the store stays on the runtime's fast path.
    /// It carries the store's UUID, for the IDs (``storeIdentifier``).
    let handle: StoreHandle

    /// The engine behind the store boundary: ``SQLiteStoreEngine`` for the SQLite,
    /// in-memory and binary stores, ``IncrementalStoreEngine`` for an ``NSIncrementalStore``.
    let engine: any PersistentStoreEngine
    /// The same engine when it is a SQLite one (query generations, history, derived
    /// values): read once, so the row cache's hot path costs no cast.
    let sqliteEngine: SQLiteStoreEngine?
    /// Whether this is an ``NSIncrementalStore``, told to contexts' registrations: a flag,
    /// so that registering the objects of a large SQLite fetch costs no cast each.
    let isIncremental: Bool

    /// Tells the store that a context now uses the object of `objectID`; only an
    /// ``NSIncrementalStore`` listens (`managedObjectContextDidRegisterObjects(with:)`).
    /// Costs a flag test for other stores (it runs for every object a fetch registers).
    @inline(__always)
    func contextDidRegister(_ objectID: NSManagedObjectID) {
        if isIncremental { (self as? NSIncrementalStore)?.noteRegistered([objectID]) }
    }

    /// Tells the store that a context let go of the object of `objectID`.
    @inline(__always)
    func contextDidUnregister(_ objectID: NSManagedObjectID) {
        if isIncremental { (self as? NSIncrementalStore)?.noteUnregistered([objectID]) }
    }

    /// Tells the store that a context let go of the objects of `objectIDs`.
    func contextDidUnregister(_ objectIDs: [NSManagedObjectID]) {
        if isIncremental { (self as? NSIncrementalStore)?.noteUnregistered(objectIDs) }
    }
    /// Rows last read or written, by key: lets faults fire without SQL. While a context
    /// pinned to a query generation reads on this thread, the rows of its snapshot.
    var rowCache: RowCache {
        if let scope = GenerationScope.current, let sqliteEngine, let snapshot = scope.snapshot(for: sqliteEngine) {
            return snapshot.rowCache
        }
        return sharedRowCache
    }
    /// The rows of the store's newest state, shared by every unpinned context.
    private let sharedRowCache = RowCache()

    init(type: String, configurationName: String?, url: URL?, options: [AnyHashable: Any]?, engine: any PersistentStoreEngine) {
        self.type = type
        self.configurationName = configurationName ?? "PF_DEFAULT_CONFIGURATION_NAME"
        self.url = url
        self.options = options
        // A store with history opened without tracking is read-only, as in Core Data.
        self.isReadOnly = (options?[NSReadOnlyPersistentStoreOption] as? Bool) ?? false || (engine as? SQLiteStoreEngine)?.isReadOnlyWithoutHistory == true
        self.engine = engine
        self.sqliteEngine = engine as? SQLiteStoreEngine
        self.isIncremental = engine is IncrementalStoreEngine
        self.handle = StoreHandle(identifier: engine.identifier)
        handle.attach(self)
        sqliteEngine?.storeHandle = handle
        sqliteEngine?.watchRemoteChanges()
    }

    /// The store's unique identifier, a UUID made when the store file was created.
    public var identifier: String! { storeIdentifier }
    /// Read once, when the store is added: every permanent object ID names its store, from
    /// any queue (a `lazy` property made on first use raced between contexts; found by
    /// ThreadSanitizer), and the UUID never changes.
    /// Set once more only for an incremental store, by its coordinator, after
    /// ``NSIncrementalStore/loadMetadata()`` and before the store is published.
    /// Kept by the store's handle, which object IDs hold.
    var storeIdentifier: String {
        get { handle.identifier }
        set { handle.identifier = newValue }
    }

    /// The store's metadata: its UUID, type and the version hashes of the model that wrote it.
    ///
    /// Setting it changes what this property returns at once; the store file gets it with
    /// the next save to the store, as in Core Data (the UUID and type are kept).
    public var metadata: [String: Any]! {
        get { engine.metadata }
        set {
            if let sqliteEngine { sqliteEngine.setMetadataAtNextSave(newValue ?? [:]) } else { try? engine.setMetadata(newValue ?? [:]) }
        }
    }

    /// For an atomic (binary) store, the private working database the engine uses; the
    /// store file at ``url`` is a complete copy of it, replaced at every save.
    var atomicWorkingURL: URL?

    /// Writes an atomic store's whole file: a fresh copy of the working database, moved
    /// over the old file in one rename. Does nothing for other stores.
    func writeAtomicFile() throws {
        guard atomicWorkingURL != nil, let url else { return }
        let fresh = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString)")
        try engine.copyDatabase(to: fresh)
        guard rename(fresh.path, url.path) == 0 else {
            try? FileManager.default.removeItem(at: fresh)
            throw coreDataError(NSPersistentStoreSaveError, userInfo: [NSLocalizedDescriptionKey: "Could not replace the store file \(url.lastPathComponent) (errno \(errno))."])
        }
    }

    // MARK: Store files

    /// The metadata of the store file at `url`, read without adding the store. The
    /// coordinator's ``NSPersistentStoreCoordinator/metadataForPersistentStore(ofType:at:options:)``
    /// calls it on the class of the type asked for: here, the SQLite and binary stores'.
    /// An ``NSIncrementalStore`` subclass overrides it to read its own files.
    ///
    /// - Throws: 260 (`NSFileReadNoSuchFileError`) when there is no file, 134020 for a
    ///   database that is not a Core Data store.
    open class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        try SQLiteStoreEngine.readMetadata(at: url)
    }

    /// Replaces the metadata of the store file at `url`, keeping its UUID and type. The
    /// coordinator's ``NSPersistentStoreCoordinator/setMetadata(_:forPersistentStoreOfType:at:options:)``
    /// calls it on the class of the type asked for; an ``NSIncrementalStore`` subclass
    /// overrides it to write its own files.
    open class func setMetadata(_ metadata: [String: Any]?, forPersistentStoreAt url: URL) throws {
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

    deinit {
        handle.clear()
        engine.close()
        if let atomicWorkingURL { try? FileManager.default.removeItem(at: atomicWorkingURL.deletingLastPathComponent()) }
    }
}

/// Option key: open the store read-only.
public let NSReadOnlyPersistentStoreOption = "NSReadOnlyPersistentStoreOption"
/// Option key: migrate the store automatically when its model version changed.
public let NSMigratePersistentStoresAutomaticallyOption = "NSMigratePersistentStoresAutomaticallyOption"
/// Option key: infer the mapping model of an automatic migration.
public let NSInferMappingModelAutomaticallyOption = "NSInferMappingModelAutomaticallyOption"
/// Option key: a dictionary of SQLite pragmas to set when the store opens.
public let NSSQLitePragmasOption = "NSSQLitePragmasOption"
/// Option key: seconds to wait for the database lock.
public let NSPersistentStoreTimeoutOption = "NSPersistentStoreTimeoutOption"

/// The rows of one store last read or written, shared by every context of the coordinator.
///
/// Core Data's row cache: a fault fires from here when it can, so re-faulting an object
/// costs no SQL. Guarded by a lock because contexts on different queues share it.
///
/// A row stays while anything else holds it: an object's snapshot, or a fault waiting to
/// fire (its `heldRow`). Each time the cache has doubled since it last looked, it drops
/// the rows it alone holds (``sweep()``), so the rows of objects a program let go of do not
/// stay for the store's life; Core Data's cache counts its contexts' references the same way.
final class RowCache {
    /// Not checked for overlapping access at run time: every access holds `lock` and calls
    /// out to nothing but the rows' own deinit (which touches no cache). A table of its own
    /// rather than a dictionary: see StoreKeyTable.swift.
    @exclusivity(unchecked) private var rows = StoreKeyTable<StoreRow>()
    private let lock = NSLock()
    /// This cache's number, unique in the process and never 0: what a row's `currentIn`
    /// holds while it is this cache's current row.
    let identity: UInt64 = RowCache.nextIdentity()
    private static let identityLock = NSLock()
    private static var lastIdentity: UInt64 = 0

    private static func nextIdentity() -> UInt64 {
        identityLock.lock(); defer { identityLock.unlock() }
        lastIdentity += 1
        return lastIdentity
    }
    /// The row count at which the next sweep runs.
    private var sweepCount = RowCache.minimumSweepCount
    /// No sweep below this many rows: small caches cost little to keep.
    static let minimumSweepCount = 4_096

    /// The number of rows cached.
    var count: Int {
        lock.lock(); defer { lock.unlock() }
        return rows.count
    }

    func row(for key: StoreKey) -> StoreRow? {
        lock.lock(); defer { lock.unlock() }
        return rows[key]
    }

    /// The cached row of `key`: `held` itself when it is still the cache's row for the key
    /// (the usual case for a fault firing from the row it was fetched with), which costs
    /// no look-up in a table of every cached row.
    func currentRow(holding held: StoreRow?, for key: StoreKey) -> StoreRow? {
        lock.lock(); defer { lock.unlock() }
        if let held, held.key == key, held.currentIn == identity { return held }
        return rows[key]
    }

    /// The cached rows of `keys`, in order; nil where none is cached.
    func rows(for keys: [StoreKey]) -> [StoreRow?] {
        lock.lock(); defer { lock.unlock() }
        return keys.map { rows[$0] }
    }

    /// Makes room for `count` more rows than are cached, before a save that will cache them
    /// (its stored duplicates now, its written rows at the end): grown once, not twice.
    func reserveCapacity(additional count: Int) {
        lock.lock(); defer { lock.unlock() }
        rows.reserveCapacity(rows.count + count)
    }

    /// Caches `row` and returns the cached row: the one already there when it has the same
    /// version, so that whoever holds that one still holds the cache's row; else `row`.
    @discardableResult
    func store(_ row: StoreRow) -> StoreRow {
        lock.lock(); defer { lock.unlock() }
        let cached = insert(row)
        sweepIfGrown()
        return cached
    }

    /// Caches `newRows`; returns the cached row of each, in order (see ``store(_:)-row``).
    @discardableResult
    func store(_ newRows: [StoreRow]) -> [StoreRow] {
        var cached: [StoreRow] = []
        cached.reserveCapacity(newRows.count)
        store(newRows) { cached.append($0) }
        return cached
    }

    /// Caches the rows of a save's written objects, as `store(_:)` caches an array of rows,
    /// for a caller that needs neither the cached rows back nor an array of the new ones
    /// (each a retain and a release per row).
    func store(writtenRows written: [(NSManagedObject, StoreRow)]) {
        // Each row placed from where the array holds it: through a lazy map of the rows,
        // each was copied out, and copied again as the cached row handed back, a retain
        // and a release each per row.
        storing(count: written.count) {
            written.forEachBorrowedPair { _, row in
                rows.withValue(for: row.key, default: row) { _ = settle(&$0, with: row) }
            }
        }
    }

    /// Caches `newRows`, handing `body` the cached row of each, in order.
    private func store<Rows: Collection>(_ newRows: Rows, _ body: (StoreRow) -> Void) where Rows.Element == StoreRow {
        storing(count: newRows.count) {
            for row in newRows { body(insert(row)) }
        }
    }

    /// Runs `placeAll`, which places `count` rows, with the lock held and the table grown
    /// for them first; then sweeps if need be.
    private func storing(count: Int, _ placeAll: () -> Void) {
        lock.lock(); defer { lock.unlock() }
        // Grown once for a large fetch, not by doubling (each growth rehashes every row).
        // The new rows may already be cached (a refetch, a save), so not by their sum.
        rows.reserveCapacity(Swift.max(rows.count, count))
        let wasEmpty = rows.isEmpty
        placeAll()
        if wasEmpty {
            // Every cached row is one of the new rows, which the caller holds: a sweep would
            // drop none, so only its next threshold is set (the scan of 100,000 rows just
            // read cost 6 % of a first fetch of them, a cache miss per row).
            if rows.count >= sweepCount { sweepCount = Self.sweepCount(after: rows.count) }
        } else {
            sweepIfGrown()
        }
    }

    private func insert(_ row: StoreRow) -> StoreRow {
        // One hash whether the key is cached or not (a refetch finds most rows cached,
        // a save's new rows and a first fetch find none): the entry is settled in place.
        var cached = row
        rows.withValue(for: row.key, default: row) { if !settle(&$0, with: row) { cached = $0 } }
        return cached
    }

    /// Settles the entry `slot` of `row`'s key (which is `row` itself when the key was
    /// not cached): a row of the same version already there stays, so that whoever holds
    /// it still holds the cache's row, and the answer is false; else `row` replaces it.
    private func settle(_ slot: inout StoreRow, with row: StoreRow) -> Bool {
        if slot !== row {
            if slot.version == row.version { return false }
            if slot.currentIn == identity { slot.currentIn = 0 }
            slot = row
        }
        row.currentIn = identity
        return true
    }

    /// Drops every row nothing but the cache holds.
    func sweep() {
        lock.lock(); defer { lock.unlock() }
        sweepLocked()
    }

    private func sweepIfGrown() {
        guard rows.count >= sweepCount else { return }
        sweepLocked()
    }

    /// Runs with the lock held, so no one can take a row from the cache meanwhile; a holder
    /// elsewhere that lets go during the sweep only keeps its row until the next one.
    private func sweepLocked() {
        // One pass: each entry held by nothing but the cache goes, and with it its row
        // (nothing else holds it, so it can never be seen current again).
        rows.removeAll { _, row in isKnownUniquelyReferenced(&row) }
        sweepCount = Self.sweepCount(after: rows.count)
        // Room for the rows until the next sweep, and no more: when most rows went
        // (objects looked up one by one and let go), later passes scan a smaller table.
        rows.shrink(toHold: sweepCount)
    }

    /// The row count at which the sweep after one that left `count` rows runs. Amortized:
    /// it waits until the cache has doubled again.
    private static func sweepCount(after count: Int) -> Int {
        Swift.max(minimumSweepCount, 2 * count)
    }

    /// Drops every cached row of the entities numbered `numbers`: what a batch request
    /// changed without saying which rows.
    func removeRows(ofEntities numbers: Set<Int>) {
        lock.lock(); defer { lock.unlock() }
        // A dropped row is current nowhere: a fault still holding it must look its key up
        // again, or it would fire with the old values once a refetch caches the new row.
        rows.removeAll { key, row in
            guard numbers.contains(key.entityNumber) else { return false }
            if row.currentIn == identity { row.currentIn = 0 }
            return true
        }
    }

    func remove(_ key: StoreKey) {
        lock.lock(); defer { lock.unlock() }
        if let removed = rows.removeValue(for: key), removed.currentIn == identity { removed.currentIn = 0 }
    }

    /// Drops the rows of `keys` in one hold of the lock: a save's deletions, which would
    /// otherwise take and release it once per deleted row.
    func remove(_ keys: [StoreKey]) {
        lock.lock(); defer { lock.unlock() }
        for key in keys {
            if let removed = rows.removeValue(for: key), removed.currentIn == identity { removed.currentIn = 0 }
        }
    }

    func removeAll() {
        lock.lock(); defer { lock.unlock() }
        rows.forEach { _, row in if row.currentIn == identity { row.currentIn = 0 } }
        rows.removeAll()
    }
}
