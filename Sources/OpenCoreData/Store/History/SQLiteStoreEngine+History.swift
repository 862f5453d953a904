import Foundation

/// One `ATRANSACTION` row and its changes, as read from the store.
struct HistoryTransactionRecord {
    let number: Int64
    let timestamp: Date
    let author: String?
    let bundleID: String?
    let contextName: String?
    let processID: String?
    var changes: [HistoryChangeRecord] = []
}

/// One `ACHANGE` row, decoded.
struct HistoryChangeRecord {
    let changeID: Int64
    let type: NSPersistentHistoryChangeType
    let key: StoreKey
    let transactionNumber: Int64
    /// Property slots of the entity's property table that an update changed.
    let updatedSlots: [Int]?
    /// Preserved attribute values of a deleted object, by name.
    let tombstone: [String: Any]?
}

/// Where a history fetch or purge starts or ends.
enum HistoryBound {
    case transaction(Int64)
    case date(Date)
}

extension SQLiteStoreEngine {
    /// Turns history tracking on when the options ask for it (creating the tables), and
    /// matches Core Data when they do not but the store has history: the store opens
    /// read-only, with Core Data's fault message on standard error.
    func openHistory(options: [AnyHashable: Any]?) throws {
        postsRemoteChanges = Self.flag(options?[NSPersistentStoreRemoteChangeNotificationPostOptionKey])
        if Self.flag(options?[NSPersistentHistoryTrackingKey]) {
            try inTransaction { try HistorySchema.create(in: connection, schema: schema) }
            historyTracking = true
        } else if try HistorySchema.hasHistory(in: connection) {
            isReadOnlyWithoutHistory = true
            let location = url?.absoluteString ?? "(memory)"
            FileHandle.standardError.write(Data("CoreData: fault: Store opened without NSPersistentHistoryTrackingKey but previously had been opened with NSPersistentHistoryTrackingKey - Forcing into Read Only mode store at '\(location)'\n".utf8))
        }
    }

    /// An option's value as a flag: `true`, a non-zero number, or (as apps pass it) a
    /// dictionary holding the key with a true value.
    static func flag(_ value: Any?) -> Bool {
        switch value {
        case let flag as Bool: return flag
        case let number as NSNumber: return number.boolValue
        case let number as Int: return number != 0
        case let dictionary as [String: Any]: return dictionary.values.contains { flag($0) }
        case let dictionary as [AnyHashable: Any]: return dictionary.values.contains { flag($0) }
        default: return false
        }
    }

    // MARK: Reading

    /// The number of the newest transaction, `nil` when there is none (or no tracking).
    func newestHistoryTransaction() throws -> Int64? {
        lock.lock()
        defer { lock.unlock() }
        guard try database.tableExists("ATRANSACTION") else { return nil }
        return try database.withStatement("SELECT max(Z_PK) FROM ATRANSACTION") { statement in
            guard try statement.step(), !statement.isNull(0) else { return nil }
            return statement.int64(0)
        }
    }

    /// Transactions after `bound` (all when `nil`), oldest first, with their changes when
    /// `withChanges`.
    ///
    /// - Throws: ``NSPersistentHistoryTokenExpiredError`` (134301) when history after a
    ///   transaction `bound` has been purged: the caller missed changes.
    func fetchHistory(after bound: HistoryBound?, withChanges: Bool = true) throws -> [HistoryTransactionRecord] {
        lock.lock()
        defer { lock.unlock() }
        guard try database.tableExists("ATRANSACTION") else { return [] }
        if case .transaction(let number) = bound { try checkNotExpired(number) }
        var sql = """
            SELECT t.Z_PK, t.ZTIMESTAMP, a.ZNAME, b.ZNAME, c.ZNAME, p.ZNAME FROM ATRANSACTION t \
            LEFT JOIN ATRANSACTIONSTRING a ON a.Z_PK = t.ZAUTHORTS LEFT JOIN ATRANSACTIONSTRING b ON b.Z_PK = t.ZBUNDLEIDTS \
            LEFT JOIN ATRANSACTIONSTRING c ON c.Z_PK = t.ZCONTEXTNAMETS LEFT JOIN ATRANSACTIONSTRING p ON p.Z_PK = t.ZPROCESSIDTS
            """
        switch bound {
        case .transaction: sql += " WHERE t.Z_PK > ?"
        case .date: sql += " WHERE t.ZTIMESTAMP > ?"
        case nil: break
        }
        var transactions: [HistoryTransactionRecord] = []
        try database.withStatement(sql + " ORDER BY t.Z_PK") { statement in
            switch bound {
            case .transaction(let number): statement.bindKey(number, at: 1)
            case .date(let date): statement.bind(date.timeIntervalSinceReferenceDate, at: 1)
            case nil: break
            }
            while try statement.step() {
                func text(_ column: Int32) -> String? { statement.isNull(column) ? nil : statement.string(column) }
                transactions.append(HistoryTransactionRecord(
                    number: statement.int64(0), timestamp: Date(timeIntervalSinceReferenceDate: statement.double(1)),
                    author: text(2), bundleID: text(3), contextName: text(4), processID: text(5)))
            }
        }
        guard withChanges, let first = transactions.first else { return transactions }
        let changes = try fetchChanges(fromTransaction: first.number)
        var index: [Int64: Int] = [:]
        for (position, transaction) in transactions.enumerated() { index[transaction.number] = position }
        for change in changes {
            if let position = index[change.transactionNumber] { transactions[position].changes.append(change) }
        }
        return transactions
    }

    /// Every change of transactions numbered `first` and later, in order.
    private func fetchChanges(fromTransaction first: Int64) throws -> [HistoryChangeRecord] {
        let tombstones = try HistorySchema.tombstoneColumns(in: database)
        let extra = (0..<tombstones).map { ", ZTOMBSTONE\($0)" }.joined()
        let sql = "SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(extra) FROM ACHANGE WHERE ZTRANSACTIONID >= ? ORDER BY Z_PK"
        return try database.withStatement(sql) { statement in
            statement.bindKey(first, at: 1)
            var changes: [HistoryChangeRecord] = []
            while try statement.step() {
                let type = NSPersistentHistoryChangeType(rawValue: Int(statement.int64(1))) ?? .update
                let key = StoreKey(entityNumber: Int(statement.int64(2)), primaryKey: statement.int64(3))
                var tombstone: [String: Any]?
                if type == .delete, let mapped = schema.entity(number: key.entityNumber) {
                    var values: [String: Any] = [:]
                    for (offset, preserved) in HistorySchema.preservedAttributes(of: mapped).enumerated() where offset < tombstones {
                        if let value = try RowCodec.read(statement, column: Int32(6 + offset), storage: preserved.storage, attribute: preserved.attribute, external: externalStorage) {
                            values[preserved.attribute.name] = value
                        }
                    }
                    tombstone = values
                }
                changes.append(HistoryChangeRecord(
                    changeID: statement.int64(0), type: type, key: key, transactionNumber: statement.int64(4),
                    updatedSlots: type == .update && !statement.isNull(5) ? HistoryColumns.slots(statement.data(5)) : nil,
                    tombstone: tombstone))
            }
            return changes
        }
    }

    /// Throws 134301 when transactions after `number` were purged.
    private func checkNotExpired(_ number: Int64) throws {
        // Numbers come from AUTOINCREMENT and a save's number is used only if it commits,
        // so the numbers ever given are 1...sequence, and the ones kept are the newest.
        let bounds = try database.withStatement("SELECT (SELECT min(Z_PK) FROM ATRANSACTION), (SELECT seq FROM sqlite_sequence WHERE name = 'ATRANSACTION')") { statement -> (oldestKept: Int64, sequence: Int64)? in
            guard try statement.step() else { return nil }
            let sequence = statement.isNull(1) ? 0 : statement.int64(1)
            return (statement.isNull(0) ? sequence + 1 : statement.int64(0), sequence)
        }
        guard let (oldestKept, sequence) = bounds else { return }
        if number + 1 < oldestKept, number < sequence {
            throw coreDataError(NSPersistentHistoryTokenExpiredError, userInfo: [
                NSLocalizedDescriptionKey: "The history token is older than the oldest history the store still has: the history after it has been deleted.",
                NSAffectedStoresErrorKey: [],
            ])
        }
    }

    // MARK: Purging

    /// Deletes the transactions (and their changes) older than `bound`; returns how many
    /// transactions went. Runs in an exclusive transaction of its own.
    func deleteHistory(before bound: HistoryBound?) throws -> Int {
        lock.lock()
        defer { lock.unlock() }
        guard try connection.tableExists("ATRANSACTION") else { return 0 }
        let condition: String
        switch bound {
        case .transaction: condition = "Z_PK < ?"
        case .date: condition = "ZTIMESTAMP < ?"
        case nil: condition = "1"
        }
        return try GenerationScope.with(nil) {
            try inTransaction {
                func run(_ sql: String) throws -> Int {
                    try connection.withStatement(sql) { statement in
                        switch bound {
                        case .transaction(let number): statement.bindKey(number, at: 1)
                        case .date(let date): statement.bind(date.timeIntervalSinceReferenceDate, at: 1)
                        case nil: break
                        }
                        try statement.execute()
                        return Int(statement.changes)
                    }
                }
                _ = try run("DELETE FROM ACHANGE WHERE ZTRANSACTIONID IN (SELECT Z_PK FROM ATRANSACTION WHERE \(condition))")
                return try run("DELETE FROM ATRANSACTION WHERE \(condition)")
            }
        }
    }

    // MARK: Notifying

    /// Starts watching for commits made by other connections (other coordinators, other
    /// processes) and posting `NSPersistentStoreRemoteChange` for them, as Core Data does
    /// for stores added with `NSPersistentStoreRemoteChangeNotificationPostOptionKey`.
    ///
    /// SQLite's `PRAGMA data_version` on this engine's connection changes exactly when
    /// another connection commits, never for this connection's own saves (which
    /// ``saveDidCommit(historyTransaction:)`` reports). Polled five times a second on a
    /// background queue; stopped by ``close()``. Started by the store once it is made,
    /// after every property the poll reads has been set.
    func watchRemoteChanges() {
        guard postsRemoteChanges, url != nil, remoteChangeWatcher == nil else { return }
        var lastVersion = try? dataVersion()
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        timer.schedule(deadline: .now() + 0.2, repeating: 0.2)
        timer.setEventHandler { [weak self] in
            guard let self, let version = try? self.dataVersion(), version != lastVersion else { return }
            lastVersion = version
            let newest = self.historyTracking ? (try? self.newestHistoryTransaction()) ?? nil : nil
            self.saveDidCommit(historyTransaction: newest)
        }
        remoteChangeWatcher = timer
        timer.resume()
    }

    /// `PRAGMA data_version` of the engine's own connection.
    private func dataVersion() throws -> Int64 {
        lock.lock()
        defer { lock.unlock() }
        guard connection.isOpen else { return 0 }
        return try connection.quietInteger("PRAGMA data_version") ?? 0
    }

    /// After a committed save: posts `NSPersistentStoreRemoteChange` when the store was
    /// added with `NSPersistentStoreRemoteChangeNotificationPostOptionKey`.
    func saveDidCommit(historyTransaction: Int64?) {
        guard postsRemoteChanges, let store = persistentStore, let coordinator = store.persistentStoreCoordinator else { return }
        var userInfo: [AnyHashable: Any] = [NSStoreUUIDKey: identifier]
        if let url = store.url { userInfo[NSPersistentStoreURLKey] = url }
        if let historyTransaction {
            userInfo[NSPersistentHistoryTokenKey] = NSPersistentHistoryToken(storeTokens: [identifier: historyTransaction])
        }
        NotificationCenter.default.post(name: .NSPersistentStoreRemoteChange, object: coordinator, userInfo: userInfo)
    }
}
