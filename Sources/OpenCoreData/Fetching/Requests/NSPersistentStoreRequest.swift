import Foundation

/// The kinds of request a context can hand to its stores. Raw values match Core Data's.
public enum NSPersistentStoreRequestType: UInt, Sendable {
    /// An ``NSFetchRequest`` (or an ``NSAsynchronousFetchRequest``).
    case fetchRequestType = 1
    /// A save (Core Data's internal save request).
    case saveRequestType = 2
    /// An ``NSBatchInsertRequest``.
    case batchInsertRequestType = 5
    /// An ``NSBatchUpdateRequest``.
    case batchUpdateRequestType = 6
    /// An ``NSBatchDeleteRequest``.
    case batchDeleteRequestType = 7
}

/// A request a context passes to its persistent stores: a fetch, or a batch insert,
/// update or delete that works on the store directly.
///
/// Run one with ``NSManagedObjectContext/execute(_:)``.
open class NSPersistentStoreRequest {
    /// The stores the request applies to; all of the coordinator's stores when `nil`.
    open var affectedStores: [NSPersistentStore]?

    /// Creates a request for all of the coordinator's stores.
    public init() {}

    /// What kind of request this is.
    open var requestType: NSPersistentStoreRequestType { .fetchRequestType }

    /// Runs the request in `context`. Each request type overrides this.
    func execute(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        raiseCoreDataException(.invalidArgument, "Unknown request type \(type(of: self))")
    }
}

/// What ``NSManagedObjectContext/execute(_:)`` returns; each request type has its own
/// subclass (``NSBatchUpdateResult``, ``NSBatchDeleteResult``, ``NSBatchInsertResult``,
/// ``NSAsynchronousFetchResult``).
open class NSPersistentStoreResult {
    /// Creates an empty result; each request type returns its own subclass.
    public init() {}
}

/// The result of a request that runs in the background: its progress, its error, and a
/// way to cancel it.
open class NSPersistentStoreAsynchronousResult: NSPersistentStoreResult {
    /// The context that executed the request.
    public let managedObjectContext: NSManagedObjectContext
    /// The error the operation ended with, if any (set before the completion block runs).
    public internal(set) var operationError: Error?
    /// The operation's progress: `totalUnitCount` is the number of results (or the
    /// request's estimate), `completedUnitCount` counts the results made so far.
    public let progress: Progress?

    init(context: NSManagedObjectContext, progress: Progress?) {
        self.managedObjectContext = context
        self.progress = progress
    }

    /// Stops the operation if it has not finished; its completion block then receives a
    /// result with no `finalResult` and an `operationError` of code
    /// `NSUserCancelledError` (3072).
    open func cancel() {
        progress?.cancel()
        cancelRequested = true
    }

    /// Set by ``cancel()``; read on the context's queue while the operation runs.
    var cancelRequested: Bool {
        get { lock.lock(); defer { lock.unlock() }; return cancelFlag }
        set { lock.lock(); cancelFlag = newValue; lock.unlock() }
    }
    private var cancelFlag = false
    private let lock = NSLock()
}
