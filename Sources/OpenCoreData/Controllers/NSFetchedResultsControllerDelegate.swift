import Foundation

/// The kinds of change a fetched results controller reports to its delegate.
public enum NSFetchedResultsChangeType: UInt, Sendable {
    /// An object (or section) entered the results.
    case insert = 1
    /// An object (or section) left the results.
    case delete = 2
    /// An object moved to another index path.
    case move = 3
    /// An object changed without moving.
    case update = 4
}

/// What a fetched results controller tells its delegate when the objects it manages change.
///
/// Every method is optional, as in Core Data: implement the ones you need. A delegate that
/// implements
/// ``controller(_:didChangeContentWith:)-(_,NSDiffableDataSourceSnapshotReference)``
/// receives only the snapshot; one that implements
/// ``controller(_:didChangeContentWith:)-(_,CollectionDifference<NSManagedObjectID>)``
/// (on a controller without sections) receives only the difference; any other delegate receives
/// ``controllerWillChangeContent(_:)``, one call per changed object and section, then
/// ``controllerDidChangeContent(_:)``.
///
/// ```swift
/// final class TablePrinter: NSFetchedResultsControllerDelegate {
///     func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
///                     at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
///         print(type, indexPath as Any, newIndexPath as Any)
///     }
/// }
/// ```
public protocol NSFetchedResultsControllerDelegate: AnyObject {
    /// An object was inserted, deleted, moved or updated. `indexPath` is where the object
    /// was before the change (nil for an insert), `newIndexPath` where it is after (nil for
    /// a delete or an update): apply deletions and updates at old index paths, insertions
    /// at new ones, moves from old to new.
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
                    for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?)
    /// A section was inserted (at its new index) or deleted (at its old index).
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
                    atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType)
    /// The controller is about to report one event's changes.
    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>)
    /// The controller has reported one event's changes.
    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>)
    /// The index title for a section; when not implemented, the controller's own
    /// ``NSFetchedResultsController/sectionIndexTitle(forSectionName:)`` answers.
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, sectionIndexTitleForSectionName sectionName: String) -> String?
    /// The whole new content as a snapshot: section names and object IDs. When implemented,
    /// no other change method is called. Also called after ``NSFetchedResultsController/performFetch()``.
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChangeContentWith snapshot: NSDiffableDataSourceSnapshotReference)
    /// The change as a difference of object IDs. Called only for a controller without a
    /// `sectionNameKeyPath` whose delegate does not implement the snapshot method; when
    /// implemented, no other change method is called.
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChangeContentWith diff: CollectionDifference<NSManagedObjectID>)
}

/// Core Data's delegate methods are optional Objective-C methods; these defaults stand in
/// for "not implemented". The ones whose absence changes what the controller does note
/// that they ran (``DelegateProbe``).
extension NSFetchedResultsControllerDelegate {
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
                           for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {}
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
                           atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType) {}
    public func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {}
    public func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {}
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, sectionIndexTitleForSectionName sectionName: String) -> String? {
        DelegateProbe.noteDefaultRan()
        return nil
    }
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChangeContentWith snapshot: NSDiffableDataSourceSnapshotReference) {
        DelegateProbe.noteDefaultRan()
    }
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChangeContentWith diff: CollectionDifference<NSManagedObjectID>) {
        DelegateProbe.noteDefaultRan()
    }
}

/// Tells whether a delegate implements an optional method: the method is called, and its
/// default implementation (the protocol extension's) notes that it ran. Swift has no
/// `respondsToSelector:`; this answers the same question for protocol members.
enum DelegateProbe {
    private static let key = "OpenCoreData.DelegateProbe"

    static func noteDefaultRan() {
        Thread.current.threadDictionary[key] = true
    }

    /// Runs `call`; true when the delegate's own implementation ran (no default noted).
    static func implemented(_ call: () -> Void) -> Bool {
        let dictionary = Thread.current.threadDictionary
        dictionary[key] = false
        call()
        let defaultRan = (dictionary[key] as? Bool) ?? false
        dictionary.removeObject(forKey: key)
        return !defaultRan
    }
}
