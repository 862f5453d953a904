import Foundation

/// What an ``NSBatchDeleteRequest`` returns. Raw values match Core Data's.
public enum NSBatchDeleteRequestResultType: UInt, Sendable {
    /// `true` when the deletion succeeded.
    case resultTypeStatusOnly = 0
    /// The IDs of the deleted objects.
    case resultTypeObjectIDs = 1
    /// How many objects were deleted.
    case resultTypeCount = 2
}

/// Deletes every object a fetch request matches (or the objects with the given IDs)
/// directly in the SQLite store, without loading them into a context.
///
/// It runs in one transaction as one `DELETE FROM Z… WHERE Z_PK IN (SELECT t0.Z_PK …)`, the
/// fetch request's predicate translated to SQL, and applies the delete rules the way Core
/// Data's SQLite store does, with temporary triggers created around that statement:
/// *cascade* deletes the related rows too, *nullify* clears the related rows' references
/// or raises their version (and fails the request when the other side is mandatory), *no
/// action* leaves them, and a *deny* rule anywhere the deletion reaches (or a
/// many-to-many whose other side is *no action*) makes the request fail with
/// `NSCoreDataError` (134060), "Delete rule is not supported for batch deletes".
/// `.resultTypeCount` counts the rows of the request's entity, not those the rules
/// deleted; `.resultTypeObjectIDs` reads the matching IDs first, in the same transaction.
/// A predicate SQL cannot express stops the program with `NSInvalidArgumentException`.
/// Validation does not run and contexts keep the deleted objects until you merge the
/// deletion (``NSManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)`` with the
/// IDs from `.resultTypeObjectIDs`).
///
/// ```swift
/// let old = NSFetchRequest<NSFetchRequestResult>(entityName: "Hike")
/// old.predicate = NSPredicate(format: "date < %@", cutoff as NSDate)
/// let request = NSBatchDeleteRequest(fetchRequest: old)
/// request.resultType = .resultTypeObjectIDs
/// ```
open class NSBatchDeleteRequest: NSPersistentStoreRequest {
    /// The fetch request naming the objects to delete.
    public let fetchRequest: NSFetchRequest<NSFetchRequestResult>
    /// What the result holds. Defaults to `.resultTypeStatusOnly`.
    open var resultType: NSBatchDeleteRequestResultType = .resultTypeStatusOnly
    /// The objects to delete when the request was made from IDs.
    let objectIDs: [NSManagedObjectID]?

    /// A request deleting every object `fetch` matches (its entity, predicate, sort
    /// descriptors, offset and limit).
    public init<T>(fetchRequest fetch: NSFetchRequest<T>) {
        self.fetchRequest = fetch.copy(as: NSFetchRequestResult.self)
        self.objectIDs = nil
        super.init()
    }

    /// A request deleting the objects with `objects`, which must all be of one entity.
    public init(objectIDs objects: [NSManagedObjectID]) {
        let request = NSFetchRequest<NSFetchRequestResult>()
        if let entity = objects.first?.entity { request.entity = entity }
        request.predicate = NSPredicate(format: "self IN %@", argumentArray: [objects])
        self.fetchRequest = request
        self.objectIDs = objects
        super.init()
    }

    open override var requestType: NSPersistentStoreRequestType { .batchDeleteRequestType }

    override func execute(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        try context.executeBatchDelete(self)
    }
}

/// The result of an ``NSBatchDeleteRequest``.
open class NSBatchDeleteResult: NSPersistentStoreResult {
    /// `NSNumber(true)`, the deleted objects' `[NSManagedObjectID]`, or their count as an
    /// `NSNumber`, as the request's `resultType` asked.
    public let result: Any?
    /// The kind of value in ``result``.
    public let resultType: NSBatchDeleteRequestResultType

    init(result: Any?, resultType: NSBatchDeleteRequestResultType) {
        self.result = result
        self.resultType = resultType
    }
}
