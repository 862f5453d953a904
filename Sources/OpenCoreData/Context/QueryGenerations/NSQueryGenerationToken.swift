import Foundation

/// An opaque token naming a query generation: the state of the stores at one moment,
/// which a pinned context keeps reading while others save.
///
/// Pass ``current`` to ``NSManagedObjectContext/setQueryGenerationFrom(_:)`` to pin a
/// context to the newest generation (taken lazily, at the context's next fetch or fault),
/// or another context's ``NSManagedObjectContext/queryGenerationToken`` to pin both to the
/// same one. Tokens compare equal when they name the same generation.
///
/// ```swift
/// try viewContext.setQueryGenerationFrom(.current)
/// let pinned = try viewContext.count(for: request)   // stays put while others save
/// ```
public final class NSQueryGenerationToken: Equatable, CustomStringConvertible {
    /// The token that stands for "the newest generation": pinning to it pins the context
    /// to the stores' state at its next read.
    public static let current = NSQueryGenerationToken(generation: nil)

    /// The snapshot this token names; `nil` for ``current``.
    let generation: QueryGeneration?

    init(generation: QueryGeneration?) {
        self.generation = generation
    }

    /// Whether both tokens name the same generation.
    public static func == (lhs: NSQueryGenerationToken, rhs: NSQueryGenerationToken) -> Bool {
        lhs === rhs || (lhs.generation != nil && lhs.generation === rhs.generation)
    }

    /// `<NSQueryGenerationToken: 0x…>`, or `current` for the marker token.
    public var description: String {
        guard let generation else { return "<NSQueryGenerationToken: current>" }
        return "<NSQueryGenerationToken: \(cocoaAddress(of: generation))>"
    }
}

/// One query generation: for each WAL SQLite store of a coordinator, a read transaction
/// held open on a connection of its own, so that SQLite keeps showing that connection the
/// database as it was when the transaction began, whatever other connections and
/// processes commit meanwhile.
///
/// Taken lazily, at the first read through it (Core Data pins "on the next read"), for
/// the stores the coordinator has then; stores added later are read unpinned. Released
/// (the read transactions end, so the write-ahead log can be checkpointed past them) when
/// no token and no context refers to it any more. Thread-safe: contexts on different
/// queues may share one generation.
final class QueryGeneration {
    weak var coordinator: NSPersistentStoreCoordinator?
    /// The identifiers of the stores the generation may pin (WAL SQLite stores when it was made).
    let storeIdentifiers: Set<String>
    private let lock = NSLock()
    /// `nil` until the first read.
    private var snapshots: [ObjectIdentifier: StoreSnapshot]?

    init(coordinator: NSPersistentStoreCoordinator, stores: [NSPersistentStore]) {
        self.coordinator = coordinator
        self.storeIdentifiers = Set(stores.map { $0.identifier })
    }

    /// Begins the read transactions if that has not happened yet.
    func openIfNeeded() {
        lock.lock()
        defer { lock.unlock() }
        guard snapshots == nil else { return }
        var opened: [ObjectIdentifier: StoreSnapshot] = [:]
        for store in coordinator?.persistentStores ?? [] where storeIdentifiers.contains(store.identifier) {
            // A store whose snapshot cannot be taken is read unpinned, as Core Data reads
            // stores that do not support generations.
            if let engine = store.sqliteEngine, let snapshot = try? StoreSnapshot(engine: engine) { opened[ObjectIdentifier(engine)] = snapshot }
        }
        snapshots = opened
    }

    /// The snapshot of `engine`'s store, if the generation pins it.
    func snapshot(for engine: SQLiteStoreEngine) -> StoreSnapshot? {
        lock.lock()
        defer { lock.unlock() }
        return snapshots?[ObjectIdentifier(engine)]
    }
}

/// A read transaction on a connection of its own, and the rows read through it.
final class StoreSnapshot {
    let connection: SQLiteDatabase
    /// Rows read in this snapshot: kept apart from the store's shared cache, which holds
    /// newer rows.
    let rowCache = RowCache()
    private weak var engine: SQLiteStoreEngine?

    /// Opens a connection to the engine's file and starts a read transaction on it,
    /// under the engine's lock so that no save of this process is half done.
    init(engine: SQLiteStoreEngine) throws {
        guard let url = engine.url, engine.usesWriteAheadLog else {
            throw coreDataError(NSCoreDataError, userInfo: [NSLocalizedDescriptionKey: "Query generations need a SQLite store in WAL journal mode."])
        }
        self.engine = engine
        engine.lock.lock()
        defer { engine.lock.unlock() }
        connection = try SQLiteDatabase(path: url.path, create: false)
        if let handle = connection.handle { SQLFunctions.register(on: handle) }
        do {
            try connection.execute("BEGIN DEFERRED")
            // A deferred transaction takes its snapshot at its first read.
            _ = try connection.tableExists("Z_METADATA")
        } catch {
            connection.close()
            throw error
        }
    }

    deinit {
        // Used only under the engine's lock: end it there too.
        engine?.lock.lock()
        connection.rollbackQuietly()
        connection.close()
        engine?.lock.unlock()
    }
}

/// The query generation the current thread reads through, set around a pinned context's
/// reads. Thread-local (a pthread key), so that a context pinned on one queue never
/// changes what another queue's context reads, at the cost of a pointer load per look-up.
enum GenerationScope {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The generation the thread reads through now, if any.
    static var current: QueryGeneration? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<QueryGeneration>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Runs `body` reading through `generation` (`nil`: reading the stores' newest state).
    static func with<T>(_ generation: QueryGeneration?, _ body: () throws -> T) rethrows -> T {
        let previous = pthread_getspecific(key)
        generation?.openIfNeeded()
        pthread_setspecific(key, generation.map { Unmanaged.passUnretained($0).toOpaque() })
        defer { pthread_setspecific(key, previous) }
        return try withExtendedLifetime(generation) { try body() }
    }
}
