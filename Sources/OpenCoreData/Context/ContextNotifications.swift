import Foundation

// The notifications a context posts and the keys of their `userInfo`, under Core Data's
// names and with Core Data's string values (what `print(notification.name)` shows).

extension Notification.Name {
    /// Posted by a context before it saves; `object` is the context. There is no `userInfo`.
    public static let NSManagedObjectContextWillSave = Notification.Name("NSManagingContextWillSaveChangesNotification")
    /// Posted by a context after it saved; `userInfo` holds the saved objects under
    /// ``NSInsertedObjectsKey``, ``NSUpdatedObjectsKey`` and ``NSDeletedObjectsKey``.
    public static let NSManagedObjectContextDidSave = Notification.Name("NSManagingContextDidSaveChangesNotification")
    /// Posted when a context's registered objects change: at the end of each event (see
    /// ``NSManagedObjectContext/processPendingChanges()``), after a merge, and on `reset()`.
    /// `userInfo` holds a `Set<NSManagedObject>` under each of ``NSInsertedObjectsKey``,
    /// ``NSUpdatedObjectsKey``, ``NSDeletedObjectsKey``, ``NSRefreshedObjectsKey`` and
    /// ``NSInvalidatedObjectsKey`` that has objects, or ``NSInvalidatedAllObjectsKey``.
    public static let NSManagedObjectContextObjectsDidChange = Notification.Name("NSObjectsChangedInManagingContextNotification")
    /// Posted by a context after it saved, with the saved objects' IDs (not the objects)
    /// under ``NSInsertedObjectIDsKey``, ``NSUpdatedObjectIDsKey`` and ``NSDeletedObjectIDsKey``.
    public static let NSManagedObjectContextDidSaveObjectIDs = Notification.Name("NSManagedObjectContextDidSaveObjectIDsNotification")
    /// Posted by a context after it merged changes from another context's save, with the
    /// merged objects' IDs.
    public static let NSManagedObjectContextDidMergeChangesObjectIDs = Notification.Name("NSManagedObjectContextDidMergeChangesObjectIDsNotification")
}

extension NSManagedObjectContext {
    /// The Swift name of `NSManagedObjectContextObjectsDidChange`.
    public static let didChangeObjectsNotification = Notification.Name.NSManagedObjectContextObjectsDidChange
    /// The Swift name of `NSManagedObjectContextWillSave`.
    public static let willSaveObjectsNotification = Notification.Name.NSManagedObjectContextWillSave
    /// The Swift name of `NSManagedObjectContextDidSave`.
    public static let didSaveObjectsNotification = Notification.Name.NSManagedObjectContextDidSave
    /// The Swift name of `NSManagedObjectContextDidSaveObjectIDs`.
    public static let didSaveObjectIDsNotification = Notification.Name.NSManagedObjectContextDidSaveObjectIDs
    /// The Swift name of `NSManagedObjectContextDidMergeChangesObjectIDs`.
    public static let didMergeChangesObjectIDsNotification = Notification.Name.NSManagedObjectContextDidMergeChangesObjectIDs

    /// Keys of the `userInfo` of a context's notifications; each raw value is the string
    /// the matching `NS…Key` constant holds (`userInfo[NotificationKey.insertedObjects.rawValue]`).
    ///
    /// Apple's enumeration also has keys for query generations and store UUIDs, features
    /// this library does not have yet; they are left out rather than guessed.
    public enum NotificationKey: String, Sendable {
        /// ``NSInvalidatedAllObjectsKey``: every object was invalidated (`reset()`).
        case invalidatedAllObjects = "invalidatedAll"
        /// ``NSInsertedObjectsKey``: the inserted objects.
        case insertedObjects = "inserted"
        /// ``NSUpdatedObjectsKey``: the updated objects.
        case updatedObjects = "updated"
        /// ``NSDeletedObjectsKey``: the deleted objects.
        case deletedObjects = "deleted"
        /// ``NSRefreshedObjectsKey``: the refreshed objects.
        case refreshedObjects = "refreshed"
        /// ``NSInvalidatedObjectsKey``: the invalidated objects.
        case invalidatedObjects = "invalidated"
        /// ``NSInsertedObjectIDsKey``: the inserted objects' IDs.
        case insertedObjectIDs = "inserted_objectIDs"
        /// ``NSUpdatedObjectIDsKey``: the updated objects' IDs.
        case updatedObjectIDs = "updated_objectIDs"
        /// ``NSDeletedObjectIDsKey``: the deleted objects' IDs.
        case deletedObjectIDs = "deleted_objectIDs"
        /// ``NSRefreshedObjectIDsKey``: the refreshed objects' IDs.
        case refreshedObjectIDs = "refreshed_objectIDs"
        /// ``NSInvalidatedObjectIDsKey``: the invalidated objects' IDs.
        case invalidatedObjectIDs = "invalidated_objectIDs"
    }
}

/// Notification key: the inserted objects.
public let NSInsertedObjectsKey = "inserted"
/// Notification key: the updated objects.
public let NSUpdatedObjectsKey = "updated"
/// Notification key: the deleted objects.
public let NSDeletedObjectsKey = "deleted"
/// Notification key: the refreshed objects.
public let NSRefreshedObjectsKey = "refreshed"
/// Notification key: the invalidated objects.
public let NSInvalidatedObjectsKey = "invalidated"
/// Notification key: every object of the context was invalidated (`reset()`); its value
/// is an array of the IDs of the objects the context had registered.
public let NSInvalidatedAllObjectsKey = "invalidatedAll"

/// Did-save-with-IDs key: the inserted objects' IDs.
public let NSInsertedObjectIDsKey = "inserted_objectIDs"
/// Did-save-with-IDs key: the updated objects' IDs.
public let NSUpdatedObjectIDsKey = "updated_objectIDs"
/// Did-save-with-IDs key: the deleted objects' IDs.
public let NSDeletedObjectIDsKey = "deleted_objectIDs"
/// Did-save-with-IDs key: the refreshed objects' IDs.
public let NSRefreshedObjectIDsKey = "refreshed_objectIDs"
/// Did-save-with-IDs key: the invalidated objects' IDs.
public let NSInvalidatedObjectIDsKey = "invalidated_objectIDs"

extension NSManagedObjectContext {
    /// Posts `NSManagedObjectContextDidSave` (the objects) and then
    /// `NSManagedObjectContextDidSaveObjectIDs` (their IDs), as a save to the store or to a
    /// parent context ends. `deletedIDs`, when given, are the IDs of `deleted`, collected
    /// by a pass the caller made over them anyway.
    func postDidSaveNotifications(inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [NSManagedObject],
                                  deletedIDs: Set<NSManagedObjectID>? = nil) {
        // Objects changed and saved in one event were just reported in sets by the save's
        // objects-did-change notification: the same objects make the same sets.
        let reported = reportedChangeSets
        reportedChangeSets = ReportedChangeSets()
        NotificationCenter.default.post(name: .NSManagedObjectContextDidSave, object: self, userInfo: [
            NSInsertedObjectsKey: reported.set(of: inserted, as: NSInsertedObjectsKey),
            NSUpdatedObjectsKey: reported.set(of: updated, as: NSUpdatedObjectsKey),
            NSDeletedObjectsKey: reported.set(of: deleted, as: NSDeletedObjectsKey),
        ])
        NotificationCenter.default.post(name: .NSManagedObjectContextDidSaveObjectIDs, object: self, userInfo: [
            NSInsertedObjectIDsKey: Self.objectIDs(of: inserted), NSUpdatedObjectIDsKey: Self.objectIDs(of: updated),
            NSDeletedObjectIDsKey: deletedIDs ?? Self.objectIDs(of: deleted),
        ])
    }

    /// The IDs of `objects`, hashed straight into a roomy set (no array of IDs first; see
    /// ``Swift/Set/init(roomy:)``).
    private static func objectIDs(of objects: [NSManagedObject]) -> Set<NSManagedObjectID> {
        var ids = Set<NSManagedObjectID>(minimumCapacity: Set<NSManagedObjectID>.roomyCapacity(for: objects.count))
        objects.forEachBorrowed { ids.update(with: $0.objectID) }  // see init(roomy:)
        return ids
    }
}

extension Set {
    /// A set of `elements` in a table twice the size `Set(_:)` gives it, for the sets of
    /// objects and IDs the notifications report. Their elements are `NSObject`s, whose
    /// `==` is `isEqual(_:)`, a cast from `Any?`: each occupied slot a new element's probe
    /// meets costs one. At a quarter full or so rather than up to three quarters, few
    /// probes meet one (a 10,000-object save made 1.2 such comparisons per object before).
    init(roomy elements: [Element]) {
        self.init(minimumCapacity: Self.roomyCapacity(for: elements.count))
        // `update(with:)`, not `insert(_:)`: `insert` hands back the member it inserted, a
        // retain and a release per element for a result nobody reads. (The objects are
        // distinct; were two equal, the later one would replace the earlier, its equal.)
        for element in elements { update(with: element) }
    }

    /// The capacity to ask for a roomy set of `count` elements.
    static func roomyCapacity(for count: Int) -> Int { count * 2 }
}

/// The sets of objects the save's objects-did-change notification reported, by key, kept
/// until its did-save notification: when did-save reports the same objects in the same
/// order (compared by identity, so without hashing), it posts the same set instead of
/// hashing every object again. Saving 100,000 inserted, updated or deleted objects then
/// builds one set of them, not two.
struct ReportedChangeSets {
    private var sets: [String: (objects: [NSManagedObject], set: Set<NSManagedObject>)] = [:]

    /// Keeps `set`, made of `objects`, reported under `key`.
    mutating func record(_ objects: [NSManagedObject], in set: Set<NSManagedObject>, as key: String) {
        sets[key] = (objects, set)
    }

    /// The objects reported under `key`, when they are exactly those of `list` in its order:
    /// a save takes this array as its list of saved objects rather than copying the list
    /// (a retain of each object, cold in memory, and a release of each when the copy goes).
    func objects(sameAs list: ObjectList, as key: String) -> [NSManagedObject]? {
        guard let reported = sets[key], list.hasSameObjects(as: reported.objects) else { return nil }
        return reported.objects
    }

    /// The set of `objects`: the one reported under `key` when it was made of exactly
    /// these objects in this order, else a new one.
    func set(of objects: [NSManagedObject], as key: String) -> Set<NSManagedObject> {
        if let reported = sets[key], reported.objects.count == objects.count,
            zip(reported.objects, objects).allSatisfy({ $0 === $1 }) {
            return reported.set
        }
        return Set(roomy: objects)
    }
}
