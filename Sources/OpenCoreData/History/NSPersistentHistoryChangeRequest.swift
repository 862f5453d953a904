import Foundation

/// A request to read or purge persistent history; run it with
/// ``NSManagedObjectContext/execute(_:)``.
///
/// ```swift
/// let request = NSPersistentHistoryChangeRequest.fetchHistory(after: lastToken)
/// let result = try context.execute(request) as! NSPersistentHistoryResult
/// let transactions = result.result as! [NSPersistentHistoryTransaction]
/// ```
///
/// History is read from every SQLite store of the context's coordinator that tracks it
/// (or from the request's `affectedStores`), transactions in the order they were committed.
public final class NSPersistentHistoryChangeRequest: NSPersistentStoreRequest {
    private enum Operation {
        case fetchAfterToken(NSPersistentHistoryToken?)
        case fetchAfterDate(Date)
        case fetchAfterTransaction(NSPersistentHistoryTransaction?)
        case fetchWithRequest(NSFetchRequest<NSFetchRequestResult>)
        case deleteBeforeToken(NSPersistentHistoryToken?)
        case deleteBeforeDate(Date)
        case deleteBeforeTransaction(NSPersistentHistoryTransaction?)
    }

    private let operation: Operation
    /// What the request returns; ``NSPersistentHistoryResultType/transactionsAndChanges``
    /// by default.
    public var resultType: NSPersistentHistoryResultType = .transactionsAndChanges

    private init(_ operation: Operation) {
        self.operation = operation
        super.init()
    }

    /// The token the request fetches after or purges before, if it was made with one.
    public var token: NSPersistentHistoryToken? {
        switch operation {
        case .fetchAfterToken(let token), .deleteBeforeToken(let token): return token
        default: return nil
        }
    }

    /// The fetch request of ``fetchHistory(withFetch:)``.
    public var fetchRequest: NSFetchRequest<NSFetchRequestResult>? {
        if case .fetchWithRequest(let request) = operation { return request }
        return nil
    }

    /// Every transaction committed after `token`; all history when `token` is `nil`.
    ///
    /// Executing it throws ``NSPersistentHistoryTokenExpiredError`` (134301) when history
    /// after the token has been purged.
    public class func fetchHistory(after token: NSPersistentHistoryToken?) -> Self { Self(.fetchAfterToken(token)) }
    /// Every transaction committed after `date`.
    public class func fetchHistory(after date: Date) -> Self { Self(.fetchAfterDate(date)) }
    /// Every transaction committed after `transaction`; all history when it is `nil`.
    public class func fetchHistory(after transaction: NSPersistentHistoryTransaction?) -> Self { Self(.fetchAfterTransaction(transaction)) }
    /// The transactions (for a request over ``NSPersistentHistoryTransaction/fetchRequest``)
    /// or changes (over ``NSPersistentHistoryChange/fetchRequest``) matching `fetchRequest`'s
    /// predicate, in its sort order, up to its fetch limit. Transactions matched through
    /// their changes keep only the matching changes.
    public class func fetchHistory(withFetch fetchRequest: NSFetchRequest<NSFetchRequestResult>) -> Self { Self(.fetchWithRequest(fetchRequest)) }
    /// Purges the transactions committed before `token`'s (it stays); all history when
    /// `token` is `nil`.
    public class func deleteHistory(before token: NSPersistentHistoryToken?) -> Self { Self(.deleteBeforeToken(token)) }
    /// Purges the transactions committed before `date`.
    public class func deleteHistory(before date: Date) -> Self { Self(.deleteBeforeDate(date)) }
    /// Purges the transactions committed before `transaction` (it stays); all history
    /// when it is `nil`.
    public class func deleteHistory(before transaction: NSPersistentHistoryTransaction?) -> Self { Self(.deleteBeforeTransaction(transaction)) }

    override func execute(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        guard let coordinator = context.persistentStoreCoordinator else {
            throw coreDataError(NSPersistentStoreOperationError, userInfo: [NSLocalizedDescriptionKey: "The context has no persistent store coordinator."])
        }
        let stores = (affectedStores ?? coordinator.persistentStores).filter { store in store.sqliteEngine.map { $0.historyTracking || $0.isReadOnlyWithoutHistory } ?? false }
        switch operation {
        case .deleteBeforeToken(let token):
            return try purge(stores) { store in token.map { .transaction($0.storeTokens[store.identifier] ?? 0) } }
        case .deleteBeforeDate(let date):
            return try purge(stores) { _ in .date(date) }
        case .deleteBeforeTransaction(let transaction):
            return try purge(stores) { store in
                guard let transaction else { return nil }
                return .transaction(transaction.storeID == store.identifier ? transaction.transactionNumber : 0)
            }
        case .fetchAfterToken(let token):
            return try fetch(stores) { store in token?.storeTokens[store.identifier].map { .transaction($0) } }
        case .fetchAfterDate(let date):
            return try fetch(stores) { _ in .date(date) }
        case .fetchAfterTransaction(let transaction):
            return try fetch(stores) { store in
                guard let transaction, transaction.storeID == store.identifier else { return nil }
                return .transaction(transaction.transactionNumber)
            }
        case .fetchWithRequest(let request):
            return try fetch(stores, matching: request)
        }
    }

    // MARK: Fetching

    private func transactions(_ stores: [NSPersistentStore], bound: (NSPersistentStore) -> HistoryBound?) throws -> [NSPersistentHistoryTransaction] {
        var all: [NSPersistentHistoryTransaction] = []
        for store in stores {
            for record in try store.engine.sqlite(for: "Persistent history").fetchHistory(after: bound(store), withChanges: resultType != .transactionsOnly && resultType != .count) {
                let transaction = NSPersistentHistoryTransaction(record: record, store: store)
                if resultType != .transactionsOnly, resultType != .count {
                    transaction.changes = record.changes.compactMap { change in
                        guard let entity = store.engine.entity(forNumber: change.key.entityNumber) else { return nil }
                        return NSPersistentHistoryChange(record: change, objectID: NSManagedObjectID(store: store, key: change.key, entity: entity), transaction: transaction)
                    }
                }
                all.append(transaction)
            }
        }
        if stores.count > 1 { all.sort { $0.timestamp < $1.timestamp } }
        return all
    }

    private func fetch(_ stores: [NSPersistentStore], bound: (NSPersistentStore) -> HistoryBound?) throws -> NSPersistentHistoryResult {
        result(try transactions(stores, bound: bound))
    }

    private func fetch(_ stores: [NSPersistentStore], matching request: NSFetchRequest<NSFetchRequestResult>) throws -> NSPersistentHistoryResult {
        let wanted = resultType
        resultType = .transactionsAndChanges
        defer { resultType = wanted }
        var transactions = try self.transactions(stores, bound: { _ in nil })
        if request.entity === HistoryEntities.change || request.entityName == "Change" {
            var changes = transactions.flatMap { $0.changes ?? [] }
            if let predicate = request.predicate { changes = changes.filter { predicate.evaluate(with: $0) } }
            if let sort = request.sortDescriptors, !sort.isEmpty { changes = sortedObjects(changes, using: sort) }
            if request.fetchLimit > 0 { changes = Array(changes.prefix(request.fetchLimit)) }
            let kept = Set(changes.map { ObjectIdentifier($0) })
            transactions = transactions.filter { transaction in
                transaction.changes = transaction.changes?.filter { kept.contains(ObjectIdentifier($0)) }
                return !(transaction.changes ?? []).isEmpty
            }
            resultType = wanted
            if wanted == .changesOnly { return NSPersistentHistoryResult(result: changes, resultType: wanted) }
            return result(transactions)
        }
        if let predicate = request.predicate { transactions = transactions.filter { predicate.evaluate(with: $0) } }
        if let sort = request.sortDescriptors, !sort.isEmpty { transactions = sortedObjects(transactions, using: sort) }
        if request.fetchLimit > 0 { transactions = Array(transactions.prefix(request.fetchLimit)) }
        resultType = wanted
        return result(transactions)
    }

    /// The result of a fetch in the request's result type.
    private func result(_ transactions: [NSPersistentHistoryTransaction]) -> NSPersistentHistoryResult {
        switch resultType {
        case .statusOnly: return NSPersistentHistoryResult(result: NSNumber(value: true), resultType: resultType)
        case .count: return NSPersistentHistoryResult(result: NSNumber(value: transactions.count), resultType: resultType)
        case .objectIDs:
            var seen = Set<NSManagedObjectID>()
            let ids = transactions.flatMap { $0.changes ?? [] }.map(\.changedObjectID).filter { seen.insert($0).inserted }
            return NSPersistentHistoryResult(result: ids, resultType: resultType)
        case .transactionsOnly:
            transactions.forEach { $0.changes = nil }
            return NSPersistentHistoryResult(result: transactions, resultType: resultType)
        case .changesOnly: return NSPersistentHistoryResult(result: transactions.flatMap { $0.changes ?? [] }, resultType: resultType)
        case .transactionsAndChanges: return NSPersistentHistoryResult(result: transactions, resultType: resultType)
        }
    }

    // MARK: Purging

    private func purge(_ stores: [NSPersistentStore], bound: (NSPersistentStore) -> HistoryBound?) throws -> NSPersistentHistoryResult {
        var deleted = 0
        for store in stores { deleted += try store.engine.sqlite(for: "Persistent history").deleteHistory(before: bound(store)) }
        switch resultType {
        case .count: return NSPersistentHistoryResult(result: NSNumber(value: deleted), resultType: resultType)
        default: return NSPersistentHistoryResult(result: NSNumber(value: true), resultType: resultType)
        }
    }
}

/// What an ``NSPersistentHistoryChangeRequest`` returns.
public final class NSPersistentHistoryResult: NSPersistentStoreResult {
    /// The transactions, changes, object IDs, count or status, as ``resultType`` says.
    public let result: Any?
    /// The kind of ``result``.
    public let resultType: NSPersistentHistoryResultType

    init(result: Any?, resultType: NSPersistentHistoryResultType) {
        self.result = result
        self.resultType = resultType
    }
}
