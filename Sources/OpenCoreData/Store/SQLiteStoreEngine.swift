import Foundation

/// The SQLite store: opens or creates the file, writes Core Data's schema, reads and
/// writes rows.
///
/// Thread-safe: every method serializes on one recursive lock, because contexts on
/// different queues share one store (recursive, so that a save's body may read through
/// the engine on the thread that holds the lock).
final class SQLiteStoreEngine {
    /// The store file, or `nil` for an in-memory store.
    let url: URL?
    let model: NSManagedObjectModel
    let configurationName: String?
    /// Entity numbers, tables and columns.
    let schema: StoreSchema
    /// Files of large binary values, beside the store.
    let externalStorage: ExternalBinaryStorage

    let lock = NSRecursiveLock()
    /// The connection; closed by ``close()``.
    let connection: SQLiteDatabase
    /// The connection reads go through: the snapshot's, while a context pinned to a query
    /// generation reads on this thread (see `GenerationScope`), else ``connection``.
    var database: SQLiteDatabase { GenerationScope.current?.snapshot(for: self)?.connection ?? connection }
    /// Whether the store is a file in WAL journal mode, which query generations need.
    let usesWriteAheadLog: Bool
    private var storedMetadata: [String: Any] = [:]
    /// Metadata written inside the running save, applied when it commits.
    var pendingMetadata: [String: Any]?
    /// Metadata set on the store (``setMetadataAtNextSave(_:)``) that the next save writes.
    private var unsavedMetadata: [String: Any]?
    /// SQL text and column plans, built once per entity. Used under the engine's lock and
    /// calling out to nothing, so not checked for overlapping access at run time (a check
    /// per statement).
    @exclusivity(unchecked) var plans = StorePlans()
    /// The plan of the last key looked up and its entity number: look-ups one after
    /// another are mostly of one entity, and finding the plan again took two table
    /// look-ups (the entity's root, then its plan). Plans never change once built. Used
    /// under the engine's lock, so not checked for overlapping access at run time.
    @exclusivity(unchecked) var lastKeyPlan: (entityNumber: Int, plan: SelectPlan)?
    /// The decoder of the last row looked up by key, kept for the next look-up: making one
    /// per look-up retained and released each of its eight tables. Used under the engine's
    /// lock, so not checked for overlapping access at run time.
    @exclusivity(unchecked) var lastKeyDecoder: RowDecoder?
    /// The triggers that compute derived attributes.
    let derivedAttributes: DerivedAttributeSQL
    /// The rows those triggers wrote since the last save looked (``DerivedValueReports``).
    let derivedValueReports = DerivedValueReports()
    /// Whether saves record persistent history (`NSPersistentHistoryTrackingKey`).
    var historyTracking = false
    /// Set when a store with history was opened without tracking: Core Data then opens
    /// it read-only.
    var isReadOnlyWithoutHistory = false
    /// Whether to post `NSPersistentStoreRemoteChange` after each save.
    var postsRemoteChanges = false
    /// The store this engine serves, for the notifications it posts.
    var persistentStore: NSPersistentStore? { storeHandle?.target }
    /// The store's handle, held instead of a weak reference (``TargetHandle``).
    var storeHandle: TargetHandle<NSPersistentStore>?
    /// Polls for commits of other connections and processes (see `watchRemoteChanges()`).
    var remoteChangeWatcher: DispatchSourceTimer?

    /// Opens the store at `url`, creating file and schema when missing. `url == nil` or
    /// `/dev/null` means an in-memory database.
    ///
    /// Throws `NSPersistentStoreIncompatibleVersionHashError` (134100) when the model's
    /// version hashes differ from the store's, naming the entities that differ; 259
    /// (`NSFileReadCorruptFileError`) with `NSSQLiteErrorDomain` for a file that is not a
    /// SQLite database or is damaged; `NSPersistentStoreIncompatibleSchemaError` (134020)
    /// for a SQLite database that is not a Core Data store.
    init(url: URL?, model: NSManagedObjectModel, configurationName: String?, options: [AnyHashable: Any]?) throws {
        let inMemory = url == nil || url?.path == "/dev/null"
        self.url = inMemory ? nil : url
        self.model = model
        self.configurationName = configurationName
        self.schema = StoreSchema(model: model, configurationName: configurationName)
        for mapped in schema.entities {
            for case let composite as NSCompositeAttributeDescription in mapped.entity.declaredProperties {
                if let problem = composite.storageProblem {
                    throw coreDataError(NSPersistentStoreIncompatibleSchemaError, userInfo: [NSLocalizedDescriptionKey: problem])
                }
            }
        }
        do {
            self.derivedAttributes = try DerivedAttributeSQL(schema: schema)
        } catch let unsupported as Derivation.Unsupported {
            // Apple: adding a store whose model has derived attributes the store cannot
            // compute fails (the error code is not documented).
            throw coreDataError(NSPersistentStoreIncompatibleSchemaError, userInfo: [NSLocalizedDescriptionKey: unsupported.message])
        }
        self.externalStorage = ExternalBinaryStorage(storeURL: inMemory ? nil : url)
        if let url = self.url {
            try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        }
        self.connection = try SQLiteDatabase(path: self.url?.path)
        let pragmas = options?["NSSQLitePragmasOption"] as? [String: Any] ?? [:]
        let journalMode = pragmas.first { $0.key.lowercased() == "journal_mode" }.map { "\($0.value)".lowercased() }
        self.usesWriteAheadLog = !inMemory && (journalMode == nil || journalMode == "wal")
        let database = connection
        // NSPersistentStoreTimeoutOption: seconds to wait for another connection's lock.
        if let timeout = Self.seconds(options?[NSPersistentStoreTimeoutOption]) { database.setBusyTimeout(seconds: timeout) }
        // The predicate and sort functions fetches translated to SQL call (Fetching/SQL).
        if let handle = database.handle { SQLFunctions.register(on: handle, derivedValueReports: derivedValueReports) }
        do {
            try applyPragmas(options?["NSSQLitePragmasOption"] as? [String: Any] ?? [:], inMemory: inMemory)
            storedMetadata = try openOrCreateSchema()
            try openHistory(options: options)
        } catch {
            database.close()
            throw error
        }
    }

    deinit {
        remoteChangeWatcher?.cancel()
        connection.close()
    }

    /// A timeout option's value in seconds, whatever number type it was given as.
    private static func seconds(_ value: Any?) -> TimeInterval? {
        switch value {
        case let seconds as Double: return seconds
        case let seconds as Int: return TimeInterval(seconds)
        case let number as NSNumber: return number.doubleValue
        default: return nil
        }
    }

    /// Closes the database (finalizing cached statements). Idempotent.
    func close() {
        lock.lock()
        defer { lock.unlock() }
        remoteChangeWatcher?.cancel()
        remoteChangeWatcher = nil
        connection.rollbackQuietly()
        connection.close()
    }

    // MARK: Metadata

    /// The store's metadata: `NSStoreUUID`, `NSStoreType` ("SQLite"),
    /// `NSStoreModelVersionHashes` (`[String: Data]` by entity name),
    /// `NSStoreModelVersionIdentifiers`, and whatever ``setMetadata(_:)`` added.
    var metadata: [String: Any] {
        lock.lock()
        defer { lock.unlock() }
        return unsavedMetadata ?? storedMetadata
    }

    /// Replaces the metadata (keeping the store's UUID and type) from now on, writing it to
    /// `Z_METADATA` with the next save, as Core Data's `setMetadata(_:for:)` does.
    func setMetadataAtNextSave(_ metadata: [String: Any]) {
        lock.lock()
        defer { lock.unlock() }
        var updated = metadata
        updated[NSStoreUUIDKey] = storedMetadata[NSStoreUUIDKey]
        updated[NSStoreTypeKey] = StoreMetadata.storeType
        unsavedMetadata = updated
    }

    /// Replaces the metadata (keeping the store's UUID and type) and writes it to
    /// `Z_METADATA` at once, or with the running save when called inside one.
    func setMetadata(_ metadata: [String: Any]) throws {
        lock.lock()
        defer { lock.unlock() }
        var updated = metadata
        updated[NSStoreUUIDKey] = storedMetadata[NSStoreUUIDKey]
        updated[NSStoreTypeKey] = StoreMetadata.storeType
        if database.isInTransaction {
            try StoreMetadata.write(updated, to: database)
            pendingMetadata = updated
            return
        }
        try inTransaction { try StoreMetadata.write(updated, to: database) }
        storedMetadata = updated
    }

    /// Reads the metadata again from `Z_METADATA` (after the contents were replaced),
    /// writing `identifier` back as the store's UUID.
    func reloadMetadata(keepingIdentifier identifier: String) throws {
        guard var metadata = try StoreMetadata.read(database) else { return }
        metadata[NSStoreUUIDKey] = identifier
        try inTransaction { try StoreMetadata.write(metadata, to: database) }
        storedMetadata = metadata
        unsavedMetadata = nil
    }

    /// The store's UUID (`metadata[NSStoreUUIDKey]`).
    var identifier: String { metadata[NSStoreUUIDKey] as? String ?? "" }

    /// The metadata of the store file at `url`, without opening it as a store (no model
    /// needed): what `NSPersistentStoreCoordinator.metadataForPersistentStore(ofType:at:)`
    /// returns.
    ///
    /// Throws 260 (`NSFileReadNoSuchFileError`) when there is no file, 259 when it is not a
    /// SQLite database, `NSPersistentStoreIncompatibleSchemaError` (134020) when it is a
    /// database without Core Data's metadata.
    static func readMetadata(at url: URL) throws -> [String: Any] {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw coreDataError(NSFileReadNoSuchFileError, userInfo: [
                NSLocalizedDescriptionKey: "The file “\(url.lastPathComponent)” couldn’t be opened because there is no such file.",
                NSFilePathErrorKey: url.path,
            ])
        }
        let database = try SQLiteDatabase(path: url.path, create: false)
        defer { database.close() }
        guard try database.tableExists("Z_METADATA"), let metadata = try StoreMetadata.read(database) else {
            throw coreDataError(NSPersistentStoreIncompatibleSchemaError, userInfo: [
                NSLocalizedDescriptionKey: "The file “\(url.lastPathComponent)” is not a Core Data SQLite store: it has no metadata.",
                NSFilePathErrorKey: url.path,
            ])
        }
        return metadata
    }

    // MARK: Entity numbers

    /// The Z_ENT of `entity`; 0 when the store does not hold the entity.
    func entityNumber(for entity: NSEntityDescription) -> Int { schema.entity(entity)?.number ?? 0 }

    /// The entity numbered `number`, if any.
    func entity(forNumber number: Int) -> NSEntityDescription? { schema.entity(number: number)?.entity }

    // MARK: Primary keys and saves

    /// Reserves `count` primary keys for `entity` the way Core Data does, in a transaction
    /// of its own: `BEGIN EXCLUSIVE`, read `Z_MAX`, `UPDATE OR FAIL` it, `COMMIT`. Every
    /// entity of an inheritance tree draws on its root's `Z_PRIMARYKEY` row, because the
    /// tree's rows share one table and its `Z_PK`s.
    func allocatePrimaryKeys(for entity: NSEntityDescription, count: Int) throws -> ClosedRange<Int64> {
        lock.lock()
        defer { lock.unlock() }
        if database.isInTransaction { return try allocateKeysInTransaction(for: entity, count: count) }
        return try inTransaction { try allocateKeysInTransaction(for: entity, count: count) }
    }

    /// Runs `body` in one exclusive transaction (`BEGIN EXCLUSIVE` … `COMMIT`). If `body` or
    /// `COMMIT` throws, everything is rolled back, including external data files written in
    /// it, and the error is rethrown. Files of replaced or deleted values are removed after
    /// the commit.
    func performSave(_ body: (SQLiteSaveTransaction) throws -> Void) throws {
        // Writes go to the store's own connection, never to a query generation's snapshot.
        let historyNumber = try GenerationScope.with(nil) { try performSaveUnpinned(body) }
        // Outside the lock: observers may read the store at once, from any queue.
        saveDidCommit(historyTransaction: historyNumber)
    }

    /// ``performSave(_:)`` under the lock; returns the history transaction it recorded.
    private func performSaveUnpinned(_ body: (SQLiteSaveTransaction) throws -> Void) throws -> Int64? {
        lock.lock()
        defer { lock.unlock() }
        let transaction = SQLiteSaveTransaction(engine: self)
        defer { transaction.end() }
        do {
            try inTransaction {
                try body(transaction)
                if let unsavedMetadata, pendingMetadata == nil {
                    try StoreMetadata.write(unsavedMetadata, to: database)
                    pendingMetadata = unsavedMetadata
                }
            }
        } catch {
            externalStorage.transactionRolledBack()
            pendingMetadata = nil
            throw error
        }
        externalStorage.transactionCommitted()
        if let pendingMetadata { storedMetadata = pendingMetadata }
        pendingMetadata = nil
        unsavedMetadata = nil
        return transaction.recordedHistory?.transactionNumber
    }

    /// `BEGIN EXCLUSIVE`, `body`, `COMMIT`; `ROLLBACK` and rethrow on any error.
    func inTransaction<T>(_ body: () throws -> T) throws -> T {
        try database.execute("BEGIN EXCLUSIVE")
        do {
            let result = try body()
            try database.execute("COMMIT")
            return result
        } catch {
            database.rollbackQuietly()
            throw error
        }
    }

    /// Reads and advances `Z_MAX` of the root of `entity`'s tree; the caller holds a transaction.
    func allocateKeysInTransaction(for entity: NSEntityDescription, count: Int) throws -> ClosedRange<Int64> {
        guard count >= 1 else {
            throw coreDataError(NSCoreDataError, userInfo: [NSLocalizedDescriptionKey: "Asked to reserve \(count) primary keys; at least 1 is needed."])
        }
        let mapped = try storeEntity(entity)
        let rootNumber = Int64(schema.entity(mapped.table.root)?.number ?? mapped.number)
        let stored: Int64? = try database.withStatement("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?") { select in
            select.bindKey(rootNumber, at: 1)
            return try select.step() ? select.int64(0) : nil
        }
        guard let max = stored else {
            throw coreDataError(NSPersistentStoreOperationError, userInfo: [NSLocalizedDescriptionKey: "Z_PRIMARYKEY has no row for entity \(entity.name ?? "") (Z_ENT \(rootNumber))."])
        }
        let newMax = max + Int64(count)
        let changes = try database.withStatement("UPDATE OR FAIL Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ? AND Z_MAX = ?") { update in
            update.bindKey(newMax, at: 1)
            update.bindKey(rootNumber, at: 2)
            update.bindKey(max, at: 3)
            try update.execute()
            return update.changes
        }
        guard changes == 1 else {
            throw coreDataError(NSPersistentStoreOperationError, userInfo: [NSLocalizedDescriptionKey: "Z_PRIMARYKEY changed while primary keys were being reserved for \(entity.name ?? "")."])
        }
        return (max + 1)...newMax
    }

    /// The mapping of `entity`, or the error Core Data gives for an entity the store lacks.
    func storeEntity(_ entity: NSEntityDescription) throws -> StoreEntity {
        guard let mapped = schema.entity(entity) else {
            throw coreDataError(NSPersistentStoreOperationError, userInfo: [
                NSLocalizedDescriptionKey: "The store does not hold entity \(entity.name ?? "(null)") (configuration \(configurationName ?? "default"))."
            ])
        }
        return mapped
    }

    /// The mapping of entity number `number`.
    func storeEntity(number: Int) throws -> StoreEntity {
        guard let mapped = schema.entity(number: number) else {
            throw coreDataError(NSPersistentStoreOperationError, userInfo: [NSLocalizedDescriptionKey: "The store has no entity numbered \(number)."])
        }
        return mapped
    }

    // MARK: Opening

    /// WAL and full synchronous by default, then the caller's `NSSQLitePragmasOption`.
    ///
    /// `synchronous=FULL` syncs the WAL at every commit: a save that returned survives a
    /// SIGKILL and a power loss, and WAL never leaves a torn file behind.
    private func applyPragmas(_ requested: [String: Any], inMemory: Bool) throws {
        var pragmas: [(String, String)] = []
        if !inMemory { pragmas.append(("journal_mode", "wal")) }
        pragmas.append(("synchronous", "full"))
        for (name, value) in requested.sorted(by: { $0.key < $1.key }) {
            let text = "\(value)"
            if let existing = pragmas.firstIndex(where: { $0.0 == name.lowercased() }) {
                pragmas[existing].1 = text
            } else {
                pragmas.append((name, text))
            }
        }
        for (name, value) in pragmas {
            // PRAGMA takes no bound parameters: accept plain names and plain values only.
            guard name.allSatisfy({ $0.isLetter || $0 == "_" }), !value.isEmpty,
                value.allSatisfy({ $0.isLetter || $0.isNumber || "_-.".contains($0) })
            else {
                throw coreDataError(NSPersistentStoreOpenError, userInfo: [NSLocalizedDescriptionKey: "Unsupported SQLite pragma in NSSQLitePragmasOption: \(name) = \(value)"])
            }
            try database.pragma("pragma \(name)=\(value)")
        }
    }

    /// Reads the existing store's metadata and checks it against the model, or creates the
    /// schema of a new (empty) database. Returns the metadata.
    private func openOrCreateSchema() throws -> [String: Any] {
        if try !database.tableExists("Z_METADATA") {
            // Created inside an exclusive transaction: a second process opening the same new
            // file waits, then finds the schema made.
            let created: [String: Any]? = try inTransaction {
                guard try !database.tableExists("Z_METADATA") else { return nil }
                return try createSchema()
            }
            if let created { return created }
        }
        guard let metadata = try StoreMetadata.read(database) else {
            throw coreDataError(NSPersistentStoreIncompatibleSchemaError, userInfo: [NSLocalizedDescriptionKey: "The store has no metadata row in Z_METADATA."])
        }
        if let error = StoreMetadata.incompatibility(of: metadata, with: model, configurationName: configurationName) { throw error }
        try checkEntityNumbers()
        return metadata
    }

    /// Creates every table, index and bookkeeping row; the caller holds a transaction.
    private func createSchema() throws -> [String: Any] {
        let tableCount = try database.withStatement("SELECT count(*) FROM sqlite_master WHERE type = 'table'") { existing in
            try existing.step() ? existing.int64(0) : 0
        }
        guard tableCount == 0 else {
            throw coreDataError(NSPersistentStoreIncompatibleSchemaError, userInfo: [
                NSLocalizedDescriptionKey: "The file is a SQLite database, but not a Core Data store (it has tables and no Z_METADATA)."
            ])
        }
        for table in schema.tables { try database.executeUncached(SchemaSQL.createTable(table)) }
        for join in schema.joinTables { try database.executeUncached(SchemaSQL.createJoinTable(join)) }
        for index in SchemaSQL.createIndexes(schema) { try database.executeUncached(index) }
        for trigger in derivedAttributes.createTriggers() { try database.executeUncached(trigger) }
        try database.executeUncached(SchemaSQL.createPrimaryKeyTable)
        for mapped in schema.entities {
            try database.withStatement(SchemaSQL.insertPrimaryKeyRow) { insert in
                insert.bindKey(Int64(mapped.number), at: 1)
                insert.bind(mapped.entity.name ?? "", at: 2)
                insert.bindKey(Int64(mapped.superNumber), at: 3)
                try insert.execute()
            }
        }
        try database.executeUncached(SchemaSQL.createMetadataTable)
        try database.executeUncached(SchemaSQL.createModelCacheTable)
        let metadata = StoreMetadata.initial(model: model, configurationName: configurationName, uuid: UUID().uuidString)
        try StoreMetadata.write(metadata, to: database)
        return metadata
    }

    /// Checks that `Z_PRIMARYKEY` has a row for each of the schema's entity numbers, with
    /// the same parent number. Entity numbers, not the names in `Z_NAME`, tie rows to
    /// entities: after a migration renames an entity through its renaming identifier,
    /// Core Data keeps the old name in `Z_NAME` and still opens the store with the new
    /// model. (The version hashes, checked before, already cover the entity names.)
    private func checkEntityNumbers() throws {
        let storedSuper: [Int: Int] = try database.withStatement("SELECT Z_ENT, Z_SUPER FROM Z_PRIMARYKEY") { statement in
            var stored: [Int: Int] = [:]
            while try statement.step() { stored[Int(statement.int64(0))] = Int(statement.int64(1)) }
            return stored
        }
        for mapped in schema.entities where storedSuper[mapped.number] != mapped.superNumber {
            let found = storedSuper[mapped.number].map { "has parent \($0)" } ?? "has no row"
            throw coreDataError(NSPersistentStoreIncompatibleSchemaError, userInfo: [
                NSLocalizedDescriptionKey: "Z_PRIMARYKEY entity \(mapped.number) \(found), but the model's entity \(mapped.number) (\(mapped.entity.name ?? "(null)")) has parent \(mapped.superNumber)."
            ])
        }
    }
}
