import Foundation

/// What an ``NSBatchUpdateRequest`` returns. Raw values match Core Data's.
public enum NSBatchUpdateRequestResultType: UInt, Sendable {
    /// `true` when the update succeeded.
    case statusOnlyResultType = 0
    /// The IDs of the updated objects.
    case updatedObjectIDsResultType = 1
    /// How many objects were updated.
    case updatedObjectsCountResultType = 2
}

/// Changes attribute values of every matching object directly in the SQLite store, without
/// loading the objects into a context.
///
/// The store runs one statement in one transaction, as Core Data's SQLite store does:
/// `UPDATE OR FAIL Z… AS t0 SET Z… = ?, Z_OPT = (Z_OPT + 1) WHERE …`, the predicate
/// translated to SQL as a fetch translates it, so each matching row gets the new values
/// and its version goes up by one. New values are constants or expressions SQLite can
/// compute from the row (its attributes and arithmetic on them); a predicate or expression
/// SQL cannot express stops the program with `NSInvalidArgumentException`, and derived
/// attributes cannot be set. Validation does not run, and no context sees the
/// change until you merge it (``NSManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)``
/// with the IDs from `.updatedObjectIDsResultType`).
///
/// ```swift
/// let request = NSBatchUpdateRequest(entityName: "Trail")
/// request.predicate = NSPredicate(format: "rating >= 4.5")
/// request.propertiesToUpdate = ["isFavorite": true]
/// request.resultType = .updatedObjectIDsResultType
/// let result = try context.execute(request) as! NSBatchUpdateResult
/// ```
open class NSBatchUpdateRequest: NSPersistentStoreRequest {
    /// The name of the entity whose objects change.
    public let entityName: String
    private var resolvedEntity: NSEntityDescription?
    /// Which objects change; all of the entity's when `nil`.
    open var predicate: NSPredicate?
    /// Whether objects of sub-entities change too. Defaults to `true`.
    open var includesSubentities: Bool = true
    /// What the result holds. Defaults to `.statusOnlyResultType`.
    open var resultType: NSBatchUpdateRequestResultType = .statusOnlyResultType
    /// The new values by attribute (its name or its description): constants, or
    /// `NSExpression`s evaluated against each object's stored values
    /// (`NSExpression(format: "rating + 1")`).
    open var propertiesToUpdate: [AnyHashable: Any]?

    /// A request updating objects of the entity named `entityName`.
    public init(entityName: String) {
        self.entityName = entityName
        super.init()
    }

    /// A request updating objects of `entity`.
    public init(entity: NSEntityDescription) {
        self.entityName = entity.name ?? ""
        self.resolvedEntity = entity
        super.init()
    }

    /// The entity: the one the request was made with, or (once executed) the one its name
    /// found in the context's model.
    open var entity: NSEntityDescription? { resolvedEntity }

    /// The entity, from the request or from `model`.
    func entity(in model: NSManagedObjectModel) -> NSEntityDescription {
        if let resolvedEntity { return resolvedEntity }
        guard let found = model.entity(named: entityName) else {
            raiseCoreDataException(.invalidArgument, "NSBatchUpdateRequest could not locate an NSEntityDescription for entity name '\(entityName)'")
        }
        resolvedEntity = found
        return found
    }

    open override var requestType: NSPersistentStoreRequestType { .batchUpdateRequestType }

    override func execute(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        try context.executeBatchUpdate(self)
    }
}

/// The result of an ``NSBatchUpdateRequest``.
open class NSBatchUpdateResult: NSPersistentStoreResult {
    /// `NSNumber(true)`, the updated objects' `[NSManagedObjectID]`, or their count as an
    /// `NSNumber`, as the request's `resultType` asked.
    public let result: Any?
    /// The kind of value in ``result``.
    public let resultType: NSBatchUpdateRequestResultType

    init(result: Any?, resultType: NSBatchUpdateRequestResultType) {
        self.result = result
        self.resultType = resultType
    }
}
