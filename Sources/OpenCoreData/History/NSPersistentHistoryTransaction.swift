import Foundation

/// One save (or batch request) as persistent history recorded it: when, by whom, and
/// which objects it inserted, updated and deleted.
///
/// ```swift
/// for transaction in transactions where transaction.author != "app" {
///     viewContext.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
/// }
/// ```
public final class NSPersistentHistoryTransaction {
    /// When the transaction was committed.
    public let timestamp: Date
    /// Marks the history up to and including this transaction.
    public let token: NSPersistentHistoryToken
    /// The transaction's number in its store; later transactions have larger numbers.
    public let transactionNumber: Int64
    /// The identifier of the store it changed.
    public let storeID: String
    /// The bundle identifier of the program that saved (the process name on Linux when
    /// the program has no bundle).
    public let bundleID: String
    /// The process identifier of the program that saved.
    public let processID: String
    /// The saving context's ``NSManagedObjectContext/name``.
    public let contextName: String?
    /// The saving context's ``NSManagedObjectContext/transactionAuthor``.
    public let author: String?
    /// The changes, in the order they were written; `nil` when the request asked for
    /// transactions only.
    public internal(set) var changes: [NSPersistentHistoryChange]?

    init(record: HistoryTransactionRecord, store: NSPersistentStore) {
        timestamp = record.timestamp
        transactionNumber = record.number
        storeID = store.identifier
        token = NSPersistentHistoryToken(storeTokens: [store.identifier: record.number])
        bundleID = record.bundleID ?? ""
        processID = record.processID ?? ""
        contextName = record.contextName
        author = record.author
    }

    /// A `NSManagedObjectContextDidSave` notification naming the transaction's objects by
    /// ID (``NSInsertedObjectIDsKey``, ``NSUpdatedObjectIDsKey``, ``NSDeletedObjectIDsKey``):
    /// pass it to ``NSManagedObjectContext/mergeChanges(fromContextDidSave:)`` to bring a
    /// context up to date with this transaction.
    public func objectIDNotification() -> Notification {
        var inserted = Set<NSManagedObjectID>(), updated = Set<NSManagedObjectID>(), deleted = Set<NSManagedObjectID>()
        for change in changes ?? [] {
            switch change.changeType {
            case .insert: inserted.insert(change.changedObjectID)
            case .update: updated.insert(change.changedObjectID)
            case .delete: deleted.insert(change.changedObjectID)
            }
        }
        return Notification(name: .NSManagedObjectContextDidSave, object: nil, userInfo: [
            NSInsertedObjectIDsKey: inserted, NSUpdatedObjectIDsKey: updated, NSDeletedObjectIDsKey: deleted,
        ])
    }

    /// The entity that stands for transactions in history fetch requests.
    public static let entityDescription: NSEntityDescription? = HistoryEntities.transaction

    /// ``entityDescription``; the context plays no part.
    public static func entityDescription(with context: NSManagedObjectContext) -> NSEntityDescription? { entityDescription }

    /// A fetch request over transactions, for ``NSPersistentHistoryChangeRequest/fetchHistory(withFetch:)``:
    /// give it a predicate on `author`, `contextName`, `timestamp`, `bundleID`,
    /// `processID`, `storeID` or `transactionNumber`.
    public static var fetchRequest: NSFetchRequest<NSFetchRequestResult>? {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Transaction")
        request.entity = HistoryEntities.transaction
        return request
    }
}

extension NSPersistentHistoryTransaction: CustomStringConvertible {
    /// The transaction's number, time, author and changes, on one line.
    public var description: String {
        "<NSPersistentHistoryTransaction: \(transactionNumber) author: \(author ?? "(null)") contextName: \(contextName ?? "(null)") changes: \(changes?.count ?? 0)>"
    }
}

/// One object's insertion, update or deletion in a ``NSPersistentHistoryTransaction``.
public final class NSPersistentHistoryChange {
    /// The change's number; later changes have larger numbers.
    public let changeID: Int64
    /// The object that changed. For a deletion the object no longer exists; its ID still
    /// names it (and ``tombstone`` keeps its preserved values).
    public let changedObjectID: NSManagedObjectID
    /// Insert, update or delete.
    public let changeType: NSPersistentHistoryChangeType
    /// For a deletion, the values of the attributes marked
    /// ``NSAttributeDescription/preservesValueInHistoryOnDeletion``, by name; else `nil`.
    public let tombstone: [AnyHashable: Any]?
    /// For an update, the properties (attributes and relationships) it changed; else `nil`.
    public let updatedProperties: Set<NSPropertyDescription>?
    /// The transaction the change belongs to.
    public private(set) weak var transaction: NSPersistentHistoryTransaction?
    /// The changed object's entity, for fetch-request predicates (`changedEntity == %@`).
    let changedEntity: NSEntityDescription

    init(record: HistoryChangeRecord, objectID: NSManagedObjectID, transaction: NSPersistentHistoryTransaction) {
        changeID = record.changeID
        changedObjectID = objectID
        changeType = record.type
        changedEntity = objectID.entity
        tombstone = record.tombstone.map { values in Dictionary(uniqueKeysWithValues: values.map { (AnyHashable($0.key), $0.value) }) }
        if let slots = record.updatedSlots {
            let properties = objectID.entity.propertyTable.all
            updatedProperties = Set(slots.filter { $0 < properties.count }.map { properties[$0] })
        } else {
            updatedProperties = nil
        }
        self.transaction = transaction
    }

    /// The entity that stands for changes in history fetch requests.
    public static let entityDescription: NSEntityDescription? = HistoryEntities.change

    /// ``entityDescription``; the context plays no part.
    public static func entityDescription(with context: NSManagedObjectContext) -> NSEntityDescription? { entityDescription }

    /// A fetch request over changes, for ``NSPersistentHistoryChangeRequest/fetchHistory(withFetch:)``:
    /// give it a predicate on `changeType`, `changedObjectID`, `changedEntity` or `changeID`.
    public static var fetchRequest: NSFetchRequest<NSFetchRequestResult>? {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Change")
        request.entity = HistoryEntities.change
        return request
    }
}

extension NSPersistentHistoryChange: CustomStringConvertible {
    /// The change's number, type and object, on one line.
    public var description: String {
        let type = ["insert", "update", "delete"][changeType.rawValue]
        return "<NSPersistentHistoryChange: \(changeID) \(type) \(changedObjectID.uriRepresentation().absoluteString)>"
    }
}

/// Key-value reading for the predicates and sort descriptors of history fetch requests,
/// numbers as `NSNumber` as Core Data's properties give them.
extension NSPersistentHistoryTransaction: KeyValueCoding {
    /// The value of `key` (`author`, `contextName`, `timestamp`, `bundleID`, `processID`,
    /// `storeID`, `transactionNumber`, `token`, `changes`), or `nil`.
    public func value(forKey key: String) -> Any? {
        switch key {
        case "timestamp": return timestamp
        case "token": return token
        case "transactionNumber": return NSNumber(value: transactionNumber)
        case "storeID": return storeID
        case "bundleID": return bundleID
        case "processID": return processID
        case "contextName": return contextName
        case "author": return author
        case "changes": return changes
        default: return nil
        }
    }
}

extension NSPersistentHistoryChange: KeyValueCoding {
    /// The value of `key` (`changeID`, `changedObjectID`, `changeType`, `changedEntity`,
    /// `tombstone`, `updatedProperties`, `transaction`), or `nil`.
    public func value(forKey key: String) -> Any? {
        switch key {
        case "changeID": return NSNumber(value: changeID)
        case "changedObjectID": return changedObjectID
        case "changeType": return NSNumber(value: changeType.rawValue)
        case "changedEntity": return changedEntity
        case "tombstone": return tombstone
        case "updatedProperties": return updatedProperties
        case "transaction": return transaction
        default: return nil
        }
    }
}

/// The stand-in entities of history fetch requests: not part of any model.
enum HistoryEntities {
    static let transaction: NSEntityDescription = {
        let entity = NSEntityDescription()
        entity.name = "Transaction"
        return entity
    }()
    static let change: NSEntityDescription = {
        let entity = NSEntityDescription()
        entity.name = "Change"
        return entity
    }()
}

/// Property descriptions are compared by identity, as Objective-C objects are by default:
/// what lets ``NSPersistentHistoryChange/updatedProperties`` be a `Set`.
extension NSPropertyDescription: Hashable {
    /// Whether both are the same description object.
    public static func == (lhs: NSPropertyDescription, rhs: NSPropertyDescription) -> Bool { lhs === rhs }
    /// Hashes the description's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
