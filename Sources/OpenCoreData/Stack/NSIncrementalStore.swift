import Foundation

/// The superclass of stores you write yourself: Core Data asks your subclass for rows
/// one request at a time, and your subclass keeps them wherever it likes (a JSON file, a
/// web service, another database).
///
/// Override ``loadMetadata()``, ``execute(_:with:)``, ``newValuesForObject(with:with:)``,
/// ``newValue(forRelationship:forObjectWith:with:)`` and ``obtainPermanentIDs(for:)``;
/// turn your own identifiers into object IDs with ``newObjectID(for:referenceObject:)``
/// and back with ``referenceObject(for:)`` (do not override those two). Register the
/// class under a type name, then add a store of that type as you would a SQLite store:
///
/// ```swift
/// final class TrailFileStore: NSIncrementalStore { … }
///
/// NSPersistentStoreCoordinator.registerStoreClass(TrailFileStore.self, forStoreType: "TrailFile")
/// try coordinator.addPersistentStore(ofType: "TrailFile", configurationName: nil,
///                                    at: URL(fileURLWithPath: "trails.json"))
/// ```
///
/// The store does the work a SQLite store does in SQL: a fetch request reaches
/// ``execute(_:with:)`` with its predicate, sort descriptors, offset and limit, and the
/// store applies them (the context merges its own unsaved changes into what the store
/// returns). Errors your methods throw reach the caller of `fetch` or `save` unchanged.
///
/// Calls come from the queue of whichever context uses the store, one call at a time:
/// as Core Data's coordinator does, the library serializes them, so a store's own state
/// needs no lock.
open class NSIncrementalStore: NSPersistentStore {
    /// Creates the store; the coordinator calls this for a registered store type, then
    /// ``loadMetadata()``. A subclass that overrides it calls `super`.
    ///
    /// On Linux a subclass's own version of this initializer is marked `required` (the
    /// coordinator creates stores from their registered class), where Core Data code
    /// writes `override`. See LinuxDifferences.md.
    ///
    /// - Parameters:
    ///   - root: the coordinator adding the store.
    ///   - name: the model configuration whose entities the store holds; `nil` for all.
    ///   - url: the store's location.
    ///   - options: the options the store is added with.
    public required init(persistentStoreCoordinator root: NSPersistentStoreCoordinator?, configurationName name: String?,
                         at url: URL, options: [AnyHashable: Any]? = nil) {
        let engine = IncrementalStoreEngine(model: root?.managedObjectModel)
        super.init(type: "", configurationName: name, url: url, options: options, engine: engine)
        engine.storeHandle = handle
        persistentStoreCoordinator = root
    }

    /// The engine that turns the library's row reads and writes into calls of this store.
    var incrementalEngine: IncrementalStoreEngine { engine as! IncrementalStoreEngine }

    // MARK: Methods to override

    /// Reads the store's metadata and sets ``NSPersistentStore/metadata``; it must hold
    /// ``NSStoreUUIDKey`` (a UUID string, the same each time the store is opened) and
    /// ``NSStoreTypeKey`` (the type the class was registered under).
    ///
    /// - Throws: whatever stops the store from opening; `addPersistentStore` throws it
    ///   unchanged.
    open func loadMetadata() throws {
        throw mustOverride("loadMetadata()")
    }

    /// Runs a request and returns its result.
    ///
    /// For an ``NSFetchRequest``, return an array of what its `resultType` asks for, with
    /// the request's predicate, sort descriptors, offset and limit applied: managed
    /// objects (`context.object(with: newObjectID(…))`), object IDs, dictionaries, or one
    /// `NSNumber` holding the count. For an ``NSSaveChangesRequest``, write its inserted,
    /// updated and deleted objects and return an empty array. Batch requests
    /// (``NSBatchUpdateRequest``, ``NSBatchDeleteRequest``, ``NSBatchInsertRequest``) for
    /// the store's entities arrive here too: run one and return its result object, or
    /// throw if the store does not support it.
    ///
    /// Before a save request, the updated and deleted objects' versions are compared
    /// with the versions of the nodes ``newValuesForObject(with:with:)`` returns now; a
    /// difference is a conflict for the context's merge policy, as with a SQLite store.
    ///
    /// - Parameters:
    ///   - request: an ``NSFetchRequest``, ``NSSaveChangesRequest`` or batch request.
    ///   - context: the context the request runs for.
    /// - Throws: whatever went wrong; the caller of `fetch` or `save` gets it unchanged.
    open func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
        throw mustOverride("execute(_:with:)")
    }

    /// The stored values of one object: every attribute by name (missing or `NSNull` for
    /// nil), optionally to-one relationships as object IDs, and a version that grows with
    /// each save of the object.
    ///
    /// - Throws: when the object cannot be read. A fault that cannot be fulfilled stops
    ///   the program with Core Data's message, as in Core Data.
    open func newValuesForObject(with objectID: NSManagedObjectID, with context: NSManagedObjectContext) throws -> NSIncrementalStoreNode {
        throw mustOverride("newValuesForObject(with:with:)")
    }

    /// The destination of a relationship of one object: an ``NSManagedObjectID`` (or
    /// `NSNull` for none) for a to-one, an array of object IDs for a to-many.
    open func newValue(forRelationship relationship: NSRelationshipDescription, forObjectWith objectID: NSManagedObjectID,
                       with context: NSManagedObjectContext?) throws -> Any {
        throw mustOverride("newValue(forRelationship:forObjectWith:with:)")
    }

    /// Permanent IDs for newly inserted objects, one per object in the same order, made
    /// with ``newObjectID(for:referenceObject:)``. Called before a save and by
    /// ``NSManagedObjectContext/obtainPermanentIDs(for:)``.
    open func obtainPermanentIDs(for array: [NSManagedObject]) throws -> [NSManagedObjectID] {
        throw mustOverride("obtainPermanentIDs(for:)")
    }

    /// The metadata of this store type's file at `url`, without adding the store: what
    /// ``NSPersistentStoreCoordinator/metadataForPersistentStore(ofType:at:options:)``
    /// answers for a registered type. Override it to read your format; Core Data's
    /// documentation says subclasses must.
    open override class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        throw mustOverride("metadataForPersistentStore(with:)", in: self)
    }

    /// Writes `metadata` into this store type's file at `url`: what
    /// ``NSPersistentStoreCoordinator/setMetadata(_:forPersistentStoreOfType:at:options:)``
    /// does for a registered type. Override it to write your format.
    open override class func setMetadata(_ metadata: [String: Any]?, forPersistentStoreAt url: URL) throws {
        throw mustOverride("setMetadata(_:forPersistentStoreAt:)", in: self)
    }

    /// A new store's identifier: a fresh UUID string unless a subclass says otherwise.
    open class func identifierForNewStore(at storeURL: URL) -> Any {
        UUID().uuidString
    }

    /// Called when a context starts using objects of this store (fetched, faulted or
    /// inserted and saved). Does nothing unless overridden.
    open func managedObjectContextDidRegisterObjects(with objectIDs: [NSManagedObjectID]) {}

    /// Called when a context stops using objects of this store (reset, or the object was
    /// freed). Does nothing unless overridden.
    open func managedObjectContextDidUnregisterObjects(with objectIDs: [NSManagedObjectID]) {}

    /// Tells the store, one call at a time, that a context registered `objectIDs`.
    func noteRegistered(_ objectIDs: [NSManagedObjectID]) {
        incrementalEngine.serialized { managedObjectContextDidRegisterObjects(with: objectIDs) }
    }

    /// Tells the store, one call at a time, that a context let go of `objectIDs`.
    func noteUnregistered(_ objectIDs: [NSManagedObjectID]) {
        incrementalEngine.serialized { managedObjectContextDidUnregisterObjects(with: objectIDs) }
    }

    // MARK: Object IDs

    /// The object ID of the object of `entity` your store knows as `data` (a number, a
    /// string, a UUID: any hashable value). The same entity and value always give equal IDs.
    ///
    /// Do not override.
    public func newObjectID(for entity: NSEntityDescription, referenceObject data: Any) -> NSManagedObjectID {
        let key = incrementalEngine.key(for: entity, referenceObject: data)
        return NSManagedObjectID(store: self, key: key, entity: entity)
    }

    /// The value `objectID` was made from with ``newObjectID(for:referenceObject:)``.
    ///
    /// Do not override. An ID of another store, or a temporary ID, stops the program as it
    /// raises an exception in Core Data.
    public func referenceObject(for objectID: NSManagedObjectID) -> Any {
        guard objectID.persistentStore === self, let key = objectID.storeKey else {
            raiseCoreDataException(.invalidArgument, "referenceObjectForObjectID: \(objectID) does not belong to this store")
        }
        return incrementalEngine.referenceObject(for: key)
    }

    private func mustOverride(_ method: String) -> NSError {
        Self.mustOverride(method, in: Swift.type(of: self))
    }

    private static func mustOverride(_ method: String, in storeClass: NSIncrementalStore.Type) -> NSError {
        coreDataError(NSPersistentStoreOperationError, userInfo: [
            NSLocalizedDescriptionKey: "\(storeClass) does not override \(method), which every NSIncrementalStore subclass must."
        ])
    }
}

/// One object's values as an ``NSIncrementalStore`` hands them to Core Data.
///
/// ```swift
/// NSIncrementalStoreNode(objectID: id, withValues: ["name": "Kungsleden", "lengthKm": 440.0], version: 1)
/// ```
open class NSIncrementalStoreNode {
    /// The object the values belong to.
    public let objectID: NSManagedObjectID
    /// The version of the values: 1 once the object is first saved, one more at each
    /// later save. Optimistic locking compares it with the version the saving context
    /// read the object at.
    public private(set) var version: UInt64
    private var values: [String: Any]

    /// A node holding `values`: attributes by name (a missing key or `NSNull` is nil), and
    /// to-one relationships by name as ``NSManagedObjectID`` (or `NSNull`) when the store
    /// has them at hand.
    public init(objectID: NSManagedObjectID, withValues values: [String: Any], version: UInt64) {
        self.objectID = objectID
        self.values = values
        self.version = version
    }

    /// Replaces the values and the version, after a save or a fresh read.
    open func update(withValues values: [String: Any], version: UInt64) {
        self.values = values
        self.version = version
    }

    /// The value of `prop`, `nil` when the node has none (`NSNull` stays `NSNull`).
    open func value(for prop: NSPropertyDescription) -> Any? {
        values[prop.name]
    }

    /// Every value by property name.
    var allValues: [String: Any] { values }
}

/// The changes of one save, as an ``NSIncrementalStore`` receives them in
/// ``NSIncrementalStore/execute(_:with:)``: write them all, or throw and write none.
open class NSSaveChangesRequest: NSPersistentStoreRequest {
    /// The objects inserted since the last save; they already have permanent IDs.
    public let insertedObjects: Set<NSManagedObject>?
    /// The objects whose stored values changed.
    public let updatedObjects: Set<NSManagedObject>?
    /// The objects deleted.
    public let deletedObjects: Set<NSManagedObject>?
    /// Objects the store should check were not changed by someone else (Core Data's
    /// optimistic locking); none unless set.
    public let lockedObjects: Set<NSManagedObject>?

    /// A save request for these changes.
    public init(inserted insertedObjects: Set<NSManagedObject>?, updated updatedObjects: Set<NSManagedObject>?,
                deleted deletedObjects: Set<NSManagedObject>?, locked lockedObjects: Set<NSManagedObject>?) {
        self.insertedObjects = insertedObjects
        self.updatedObjects = updatedObjects
        self.deletedObjects = deletedObjects
        self.lockedObjects = lockedObjects
        super.init()
    }

    /// ``NSPersistentStoreRequestType/saveRequestType``.
    open override var requestType: NSPersistentStoreRequestType { .saveRequestType }
}
