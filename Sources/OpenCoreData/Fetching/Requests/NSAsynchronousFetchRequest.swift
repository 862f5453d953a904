import Foundation

/// A fetch that runs without blocking the caller: ``NSManagedObjectContext/execute(_:)``
/// returns at once, the fetch runs on the context's queue, and `completionBlock` receives
/// the result there.
///
/// ```swift
/// let request = NSAsynchronousFetchRequest(fetchRequest: Trail.fetchRequest()) { result in
///     print(result.finalResult?.count ?? 0, "trails")
/// }
/// let running = try context.execute(request) as! NSAsynchronousFetchResult<Trail>
/// running.progress?.totalUnitCount   // the number of results, once known
/// ```
///
/// Like every work item of a main-queue context, the fetch and its completion run when the
/// main queue gets to them (in an app, the next turn of the run loop).
open class NSAsynchronousFetchRequest<ResultType>: NSPersistentStoreRequest {
    /// The fetch to run.
    public let fetchRequest: NSFetchRequest<ResultType>
    /// Called on the context's queue with the finished (or cancelled) result.
    public let completionBlock: ((NSAsynchronousFetchResult<ResultType>) -> Void)?
    /// How many results you expect, for progress reporting before the count is known;
    /// 0 (the default) lets the fetch report its real count.
    open var estimatedResultCount: Int = 0

    /// A request running `request` and handing its result to `completionBlock`.
    public init(fetchRequest request: NSFetchRequest<ResultType>, completionBlock blk: ((NSAsynchronousFetchResult<ResultType>) -> Void)?) {
        self.fetchRequest = request
        self.completionBlock = blk
        super.init()
    }

    open override var requestType: NSPersistentStoreRequestType { .fetchRequestType }

    override func execute(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        context.executeAsynchronousFetch(self)
    }
}

/// The result of an ``NSAsynchronousFetchRequest``: the fetched objects once the fetch has
/// finished, its progress, and ``NSPersistentStoreAsynchronousResult/cancel()``.
open class NSAsynchronousFetchResult<ResultType>: NSPersistentStoreAsynchronousResult {
    /// The request that produced this result.
    public let fetchRequest: NSAsynchronousFetchRequest<ResultType>
    /// The results; `nil` until the fetch finishes, and when it failed or was cancelled.
    public internal(set) var finalResult: [ResultType]?

    init(fetchRequest: NSAsynchronousFetchRequest<ResultType>, context: NSManagedObjectContext, progress: Progress?) {
        self.fetchRequest = fetchRequest
        super.init(context: context, progress: progress)
    }
}
