import Foundation

/// An optimistic-locking conflict: an object a save was about to write changed (or was
/// deleted) in the store since the context fetched it.
///
/// A save under the default merge policy fails with ``NSManagedObjectMergeError`` (133020)
/// whose `userInfo["conflictList"]` (``NSPersistentStoreSaveConflictsErrorKey``) holds
/// one of these per object. The snapshots hold every attribute and to-one relationship
/// (to-ones as `NSManagedObjectID`s, nil as `NSNull`), never to-many relationships.
///
/// ```swift
/// } catch let error as NSError where error.code == NSManagedObjectMergeError {
///     for case let conflict as NSMergeConflict in error.userInfo["conflictList"] as! [Any] {
///         print(conflict.oldVersionNumber, "->", conflict.newVersionNumber)
///     }
/// }
/// ```
open class NSMergeConflict: NSObject {
    /// The object whose save conflicted.
    public let sourceObject: NSManagedObject
    /// The object's saved values as the context knew them (when it was fetched or last saved).
    public let objectSnapshot: [String: Any]?
    /// The row's values as the coordinator holds them now; `nil` when the row was deleted.
    public let cachedSnapshot: [String: Any]?
    /// The row's values as read from the store file, for a conflict between the
    /// coordinator and the store; `nil` otherwise.
    public let persistedSnapshot: [String: Any]?
    /// The row's version (`Z_OPT`) now; 0 when the row was deleted.
    public let newVersionNumber: Int
    /// The version the context's snapshot of the object had.
    public let oldVersionNumber: Int
    /// The row now in the store (`nil`: deleted), which the merge policies merge from.
    var currentRow: StoreRow?

    /// A conflict for `srcObject` between the version the context knew (`oldvers`) and the
    /// one found (`newvers`, 0 for a deleted row, whose snapshot is then `nil`).
    public init(source srcObject: NSManagedObject, newVersion newvers: Int, oldVersion oldvers: Int, cachedSnapshot cachesnap: [String: Any]?, persistedSnapshot persnap: [String: Any]?) {
        sourceObject = srcObject
        newVersionNumber = newvers
        oldVersionNumber = oldvers
        cachedSnapshot = cachesnap
        persistedSnapshot = persnap
        objectSnapshot = srcObject.state.snapshot.map { snapshotDictionary(of: $0, owner: srcObject) }
        super.init()
    }

    /// Core Data's form: `NSMergeConflict (0x…) for NSManagedObject (0x…) with objectID
    /// '0x… <x-coredata://…/Trail/p1>' with oldVersion = 1 and newVersion = 2 and old
    /// object snapshot = {…} and new cached row = {…}`.
    open override var description: String {
        "NSMergeConflict (\(cocoaAddress(of: self))) for NSManagedObject (\(cocoaAddress(of: sourceObject))) with objectID '\(sourceObject.objectID)' "
            + "with oldVersion = \(oldVersionNumber) and newVersion = \(newVersionNumber) "
            + "and old object snapshot = \(snapshotText(objectSnapshot)) and new cached row = \(snapshotText(cachedSnapshot ?? persistedSnapshot))"
    }
}

/// A uniqueness-constraint conflict: objects a save was about to write share the values of
/// one of their entity's ``NSEntityDescription/uniquenessConstraints`` with each other or
/// with a row already in the store.
///
/// A save under the default merge policy fails with ``NSManagedObjectConstraintMergeError``
/// (133021) whose `userInfo["conflictList"]` holds one of these per constraint and values.
open class NSConstraintConflict: NSObject {
    /// The property names of the violated constraint.
    public let constraint: [String]
    /// The values the conflicting objects share, by property name (`NSNull` for nil).
    public var constraintValues: [String: Any] { sharedValues }
    /// The object whose row in the store already has these values; `nil` when the
    /// conflict is only among objects being saved.
    public let databaseObject: NSManagedObject?
    /// The values of `databaseObject`'s row in the store.
    public var databaseSnapshot: [String: Any]? { givenDatabaseSnapshot ?? rowSnapshot }
    /// The objects being saved that have these values.
    public let conflictingObjects: [NSManagedObject]
    /// The saved values of each of `conflictingObjects` (empty for an inserted object).
    public let conflictingSnapshots: [[AnyHashable: Any]]
    /// `databaseObject`'s row as read during the save.
    var databaseRow: StoreRow?
    private let givenDatabaseSnapshot: [String: Any]?
    // Made on first use: the built-in policies never read them, and an import of
    // thousands of stored objects would pay for every one.
    private lazy var rowSnapshot: [String: Any]? = databaseRow.flatMap { row in databaseObject.map { snapshotDictionary(of: row, owner: $0) } }
    private lazy var sharedValues: [String: Any] = {
        var values: [String: Any] = [:]
        if let last = conflictingObjects.last {
            for name in constraint where last.entity.propertiesByName[name] != nil { values[name] = last.value(forKey: name) ?? NSNull() }
        }
        return values
    }()

    /// A conflict over `contraint` (Core Data's own spelling of the label).
    public init(constraint contraint: [String], database databaseObject: NSManagedObject?, databaseSnapshot: [String: Any]?, conflicting conflictingObjects: [NSManagedObject], conflictingSnapshots: [Any]) {
        constraint = contraint
        self.databaseObject = databaseObject
        givenDatabaseSnapshot = databaseSnapshot
        self.conflictingObjects = conflictingObjects
        self.conflictingSnapshots = conflictingSnapshots.map { ($0 as? [AnyHashable: Any]) ?? [:] }
        super.init()
    }

    /// A conflict a save found, its snapshots already keyed as the property holds them
    /// (no runtime cast of each one, which a save of thousands of conflicts would pay).
    init(constraint: [String], database databaseObject: NSManagedObject?, conflicting conflictingObjects: [NSManagedObject],
         conflictingSnapshots: [[AnyHashable: Any]]) {
        self.constraint = constraint
        self.databaseObject = databaseObject
        givenDatabaseSnapshot = nil
        self.conflictingObjects = conflictingObjects
        self.conflictingSnapshots = conflictingSnapshots
        super.init()
    }

    /// Core Data's form: `NSConstraintConflict (0x…) for constraint (\n    name\n):
    /// database: 0x… <x-coredata://…>, conflictedObjects: (\n    "0x… <x-coredata:///…>"\n)`.
    open override var description: String {
        let database = databaseObject.map { "\($0.objectID)" } ?? "(null)"
        return "NSConstraintConflict (\(cocoaAddress(of: self))) for constraint \(cocoaPlainDescription(constraint)): database: \(database), "
            + "conflictedObjects: \(cocoaPlainDescription(conflictingObjects.map { "\($0.objectID)" }))"
    }
}

/// A row's values as a conflict's snapshot: attributes and to-one relationships by name,
/// to-ones as object IDs, nil as `NSNull`.
func snapshotDictionary(of row: StoreRow, owner: NSManagedObject) -> [String: Any] {
    let table = row.entity.propertyTable
    var result: [String: Any] = [:]
    for slot in table.persistentSlots {
        let attribute = table.all[slot] as! NSAttributeDescription
        result[attribute.name] = row.attributes[slot].map { AttributeValues.public($0, for: attribute) } ?? NSNull()
    }
    for relationship in table.relationships where !relationship.isToMany && !relationship.isTransient {
        let id = row.toOne[relationship.name].flatMap { owner.managedObjectContext?.objectID(for: $0, storeOf: owner) }
        result[relationship.name] = id ?? NSNull()
    }
    return result
}

/// A snapshot as Core Data prints it inside a conflict: `{ key = value; }`, or `(null)`.
private func snapshotText(_ snapshot: [String: Any]?) -> String {
    guard let snapshot else { return "(null)" }
    return cocoaPropertyListBody(snapshot.map { (key: $0.key, value: $0.value as Any?) })
}
