import Foundation

/// Store option: record persistent history, every save's inserted, updated and deleted
/// objects, in the store (pass `true`).
///
/// ```swift
/// description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
/// ```
///
/// Once a store has history, open it with this option every time: without it Core Data
/// opens the store read-only (and says so on standard error).
public let NSPersistentHistoryTrackingKey = "NSPersistentHistoryTrackingKey"

/// Store option: post `Notification.Name.NSPersistentStoreRemoteChange`
/// whenever the store changes (pass `true`).
public let NSPersistentStoreRemoteChangeNotificationPostOptionKey = "NSPersistentStoreRemoteChangeNotificationOptionKey"

/// `userInfo` key of a remote-change notification: the store's URL.
public let NSPersistentStoreURLKey = "storeURL"
/// `userInfo` key of a remote-change notification: the ``NSPersistentHistoryToken`` of
/// the change, when the store tracks history.
public let NSPersistentHistoryTokenKey = "historyToken"

extension Notification.Name {
    /// Posted by a coordinator whose store was added with
    /// ``NSPersistentStoreRemoteChangeNotificationPostOptionKey`` after the store changed:
    /// by a save in this process, or (noticed within a fraction of a second) in another
    /// process or coordinator. The notification's object is the coordinator; `userInfo`
    /// holds ``NSStoreUUIDKey`` (the store's identifier), ``NSPersistentStoreURLKey`` and,
    /// when the store tracks history, ``NSPersistentHistoryTokenKey``.
    public static let NSPersistentStoreRemoteChange = Notification.Name("NSPersistentStoreRemoteChangeNotification")
}

/// The kinds of change persistent history records. Raw values match Core Data's.
public enum NSPersistentHistoryChangeType: Int, Sendable {
    /// The object was inserted.
    case insert = 0
    /// Some of the object's properties changed (see ``NSPersistentHistoryChange/updatedProperties``).
    case update = 1
    /// The object was deleted (see ``NSPersistentHistoryChange/tombstone``).
    case delete = 2
}

/// What an ``NSPersistentHistoryChangeRequest`` returns. Raw values match Core Data's.
public enum NSPersistentHistoryResultType: Int, Sendable {
    /// `true` when the request succeeded.
    case statusOnly = 0
    /// The IDs of the objects the changes concern, each once, in order.
    case objectIDs = 1
    /// How many transactions (or, for a purge, how many were deleted).
    case count = 2
    /// ``NSPersistentHistoryTransaction``s without their changes.
    case transactionsOnly = 3
    /// ``NSPersistentHistoryChange``s, in order.
    case changesOnly = 4
    /// ``NSPersistentHistoryTransaction``s with their ``NSPersistentHistoryTransaction/changes``.
    case transactionsAndChanges = 5
}
