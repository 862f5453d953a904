import Foundation

extension Notification.Name {
    /// Posted by a coordinator after stores were added or removed; `userInfo` lists them
    /// (as `[NSPersistentStore]`) under ``NSAddedPersistentStoresKey`` or
    /// ``NSRemovedPersistentStoresKey``.
    public static let NSPersistentStoreCoordinatorStoresDidChange = Notification.Name("NSPersistentStoreCoordinatorStoresDidChangeNotification")
}

/// Stores-did-change key: the stores added.
public let NSAddedPersistentStoresKey = "added"
/// Stores-did-change key: the stores removed.
public let NSRemovedPersistentStoresKey = "removed"
