import Foundation

/// What an ``NSBatchInsertRequest`` returns. Raw values match Core Data's.
public enum NSBatchInsertRequestResultType: UInt, Sendable {
    /// `true` when the insert succeeded.
    case statusOnly = 0
    /// The IDs of the objects inserted or, in an upsert, updated.
    case objectIDs = 1
    /// How many objects were inserted or, in an upsert, updated.
    case count = 2
}

/// Inserts many objects of one entity directly into the SQLite store, without creating
/// managed objects in a context.
///
/// The values come from an array of dictionaries (attribute name to value), or from a
/// handler called once per object that fills a dictionary or a managed object and returns
/// `true` to stop (the values of that last call are not inserted). Attributes without a
/// value get the model's default value. Relationships cannot be set, validation does not
/// run, and contexts learn about the new objects only when you merge them.
///
/// Into an entity with uniqueness constraints the insert is an upsert decided by the
/// executing context's merge policy: under the error policy a row whose constrained
/// values are already stored is dropped (`INSERT OR IGNORE`); under any other policy the
/// stored row is updated with the values the first dictionary names (every attribute for
/// the managed-object handler) and its version goes up by one (`ON CONFLICT … DO UPDATE`).
///
/// ```swift
/// let request = NSBatchInsertRequest(entityName: "Trail", objects: [
///     ["name": "Kungsleden", "lengthKm": 440.0],
///     ["name": "Laugavegur", "lengthKm": 55.0],
/// ])
/// try context.execute(request)
/// ```
open class NSBatchInsertRequest: NSPersistentStoreRequest {
    /// The name of the entity whose objects are inserted.
    public let entityName: String
    private var resolvedEntity: NSEntityDescription?
    /// The objects' values, one dictionary per object.
    open var objectsToInsert: [[String: Any]]?
    /// Called until it returns `true`; each call fills one object's values.
    open var dictionaryHandler: ((NSMutableDictionary) -> Bool)?
    /// Called until it returns `true`; each call fills one (context-less) object.
    open var managedObjectHandler: ((NSManagedObject) -> Bool)?
    /// What the result holds. Defaults to `.statusOnly`.
    open var resultType: NSBatchInsertRequestResultType = .statusOnly

    /// An insert of `dictionaries` into the entity named `entityName`.
    public init(entityName: String, objects dictionaries: [[String: Any]]) {
        self.entityName = entityName
        self.objectsToInsert = dictionaries
        super.init()
    }

    /// An insert of `dictionaries` into `entity`.
    public init(entity: NSEntityDescription, objects dictionaries: [[String: Any]]) {
        self.entityName = entity.name ?? ""
        self.resolvedEntity = entity
        self.objectsToInsert = dictionaries
        super.init()
    }

    /// An insert into `entity` whose values `handler` supplies, one dictionary per call.
    public init(entity: NSEntityDescription, dictionaryHandler handler: @escaping (NSMutableDictionary) -> Bool) {
        self.entityName = entity.name ?? ""
        self.resolvedEntity = entity
        self.dictionaryHandler = handler
        super.init()
    }

    /// An insert into `entity` whose values `handler` sets on one object per call.
    public init(entity: NSEntityDescription, managedObjectHandler handler: @escaping (NSManagedObject) -> Bool) {
        self.entityName = entity.name ?? ""
        self.resolvedEntity = entity
        self.managedObjectHandler = handler
        super.init()
    }

    /// An insert into the entity named `entityName` whose values `handler` supplies.
    public init(entityName: String, dictionaryHandler handler: @escaping (NSMutableDictionary) -> Bool) {
        self.entityName = entityName
        self.dictionaryHandler = handler
        super.init()
    }

    /// An insert into the entity named `entityName` whose values `handler` sets on objects.
    public init(entityName: String, managedObjectHandler handler: @escaping (NSManagedObject) -> Bool) {
        self.entityName = entityName
        self.managedObjectHandler = handler
        super.init()
    }

    /// The entity; found by name in the context's model when the request was made with a name.
    open var entity: NSEntityDescription? { resolvedEntity }

    /// The entity, from the request or from `model`.
    func entity(in model: NSManagedObjectModel) -> NSEntityDescription {
        if let resolvedEntity { return resolvedEntity }
        guard let found = model.entity(named: entityName) else {
            raiseCoreDataException(.invalidArgument, "NSBatchInsertRequest could not locate an NSEntityDescription for entity name '\(entityName)'")
        }
        resolvedEntity = found
        return found
    }

    open override var requestType: NSPersistentStoreRequestType { .batchInsertRequestType }

    override func execute(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        try context.executeBatchInsert(self)
    }
}

/// The result of an ``NSBatchInsertRequest``.
open class NSBatchInsertResult: NSPersistentStoreResult {
    /// `NSNumber(true)`, the inserted objects' `[NSManagedObjectID]`, or their count as an
    /// `NSNumber`, as the request's `resultType` asked.
    public let result: Any?
    /// The kind of value in ``result``.
    public let resultType: NSBatchInsertRequestResultType

    init(result: Any?, resultType: NSBatchInsertRequestResultType) {
        self.result = result
        self.resultType = resultType
    }
}
