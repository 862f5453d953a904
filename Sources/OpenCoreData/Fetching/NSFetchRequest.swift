import Foundation

/// What a fetch request returns. Raw values match Core Data's.
public struct NSFetchRequestResultType: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// Managed objects (the default).
    public static let managedObjectResultType = NSFetchRequestResultType([])
    /// Their object IDs.
    public static let managedObjectIDResultType = NSFetchRequestResultType(rawValue: 1 << 0)
    /// One dictionary of property values per object (`propertiesToFetch`).
    public static let dictionaryResultType = NSFetchRequestResultType(rawValue: 1 << 1)
    /// A single `NSNumber`: how many objects match.
    public static let countResultType = NSFetchRequestResultType(rawValue: 1 << 2)
}

/// A description of objects to fetch: an entity, an optional predicate, an order and limits.
///
/// ```swift
/// let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
/// request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
/// let trails = try context.fetch(request)
/// ```
///
/// `ResultType` is meant to be a ``NSFetchRequestResult`` type, as on Apple platforms, but
/// is not constrained: without the Objective-C runtime a protocol type does not conform
/// to itself, and `NSFetchRequest<NSFetchRequestResult>` must still compile.
open class NSFetchRequest<ResultType>: NSPersistentStoreRequest, CustomStringConvertible {
    /// The name of the entity to fetch.
    public var entityName: String?
    /// The entity to fetch; found by ``entityName`` in the context's model when not set.
    public var entity: NSEntityDescription? {
        didSet { if let name = entity?.name { entityName = name } }
    }
    /// Which objects to return; all of them when `nil`.
    public var predicate: NSPredicate? { willSet { checkMutable() } }
    /// The order of the results; store order (by primary key) when `nil` or empty.
    public var sortDescriptors: [NSSortDescriptor]? { willSet { checkMutable() } }
    /// The most results to return; 0 means no limit.
    public var fetchLimit: Int = 0 { willSet { checkMutable() } }
    /// How many leading results to skip.
    public var fetchOffset: Int = 0 { willSet { checkMutable() } }
    /// How many objects to load at a time; 0 loads all at once. With a batch size the
    /// fetch reads only object IDs (`SELECT t0.Z_ENT, t0.Z_PK …`) and returns faults; the
    /// first fault of each batch to fire loads the rows of its whole batch in one
    /// statement. (Core Data returns a lazily loading array instead; a Swift `[T]` cannot
    /// load lazily, so the batching happens when the objects are touched.)
    public var fetchBatchSize: Int = 0 { willSet { checkMutable() } }
    /// What the request returns: objects, object IDs, dictionaries or a count.
    public var resultType: NSFetchRequestResultType = .managedObjectResultType { willSet { checkMutable() } }
    /// Whether objects of sub-entities match too. Defaults to `true`.
    public var includesSubentities: Bool = true { willSet { checkMutable() } }
    /// Whether the context's unsaved inserts, changes and deletions are taken into account.
    /// Defaults to `true`.
    public var includesPendingChanges: Bool = true { willSet { checkMutable() } }
    /// Whether returned objects stay faults until touched (their data waits in the row
    /// cache). Defaults to `true`; `false` returns them with their values loaded.
    public var returnsObjectsAsFaults: Bool = true { willSet { checkMutable() } }
    /// The attribute names a dictionary result holds; all attributes when `nil`.
    public var propertiesToFetch: [Any]? { willSet { checkMutable() } }
    /// Whether a dictionary result drops duplicate dictionaries.
    public var returnsDistinctResults: Bool = false { willSet { checkMutable() } }
    /// The attributes (names or descriptions) whose values group a dictionary result:
    /// one dictionary per group, aggregates in `propertiesToFetch` computed per group.
    public var propertiesToGroupBy: [Any]? { willSet { checkMutable() } }
    /// Which groups of a grouped dictionary result to keep, evaluated against each group.
    public var havingPredicate: NSPredicate? { willSet { checkMutable() } }
    /// Whether objects already registered in the context are refreshed with the fetched values.
    public var shouldRefreshRefetchedObjects: Bool = false { willSet { checkMutable() } }
    /// Whether the fetch reads the objects' values with their IDs. Defaults to `true`;
    /// `false` fetches only IDs (`SELECT t0.Z_ENT, t0.Z_PK …`), and each object loads its
    /// row when first touched.
    public var includesPropertyValues: Bool = true { willSet { checkMutable() } }
    /// Relationship key paths (`"trail"`, `"hikes"`, `"hikes.hikers"`) whose destinations
    /// are fetched along with the results, one statement per relationship, instead of one
    /// fault at a time.
    public var relationshipKeyPathsForPrefetching: [String]? { willSet { checkMutable() } }
    /// Set on templates handed out by an immutable model: changing them is an error.
    var isImmutableTemplate = false

    /// A request with no entity yet.
    public override init() { super.init() }

    /// A request for objects of the entity named `entityName`.
    ///
    /// ```swift
    /// let request = NSFetchRequest<Trail>(entityName: "Trail")
    /// request.predicate = NSPredicate(format: "region == %@", "Iceland")
    /// request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
    /// let icelandic = try context.fetch(request)
    /// ```
    ///
    /// - Parameter entityName: the entity's name in the model. The name is resolved when the
    ///   request runs; an unknown name then stops the program, as Core Data raises
    ///   `NSInternalInconsistencyException`.
    public init(entityName: String) {
        self.entityName = entityName
        super.init()
    }

    override func execute(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        try context.executeFetchAsStoreRequest(self)
    }

    private func checkMutable() {
        if isImmutableTemplate {
            raiseCoreDataException(.internalInconsistency, "Can't modify a named fetch request in an immutable model.")
        }
    }

    open var description: String {
        "<NSFetchRequest: \(cocoaAddress(of: self))> (entity: \(entityName ?? "(null)"); predicate: (\(predicate.map { "\($0)" } ?? "null")); sortDescriptors: (\(sortDescriptors.map { $0.map { "\($0)" }.joined(separator: ", ") } ?? "null")); type: \(resultTypeName))"
    }

    private var resultTypeName: String {
        switch resultType {
        case .managedObjectIDResultType: "NSManagedObjectIDResultType"
        case .dictionaryResultType: "NSDictionaryResultType"
        case .countResultType: "NSCountResultType"
        default: "NSManagedObjectResultType"
        }
    }
}
