import Foundation

/// One section of a fetched results controller's results.
public protocol NSFetchedResultsSectionInfo: AnyObject {
    /// The section's name: the description of its objects' `sectionNameKeyPath` value
    /// (`""` for the one section of a controller without a key path, or for `nil` values).
    var name: String { get }
    /// The section's index title (by default the name's capitalized first letter).
    var indexTitle: String? { get }
    /// How many objects the section holds.
    var numberOfObjects: Int { get }
    /// The section's objects, in order.
    var objects: [Any]? { get }
}

/// The section objects a controller hands out: a name, an index title and a slice of the
/// controller's results. Sections read their objects from the controller's current state,
/// as Core Data's do, so a section kept across a change shows the new objects.
final class FetchedResultsSection: NSFetchedResultsSectionInfo, CustomStringConvertible {
    let name: String
    let indexTitle: String?
    /// The objects; a section the controller dropped keeps those it had.
    var members: [NSManagedObject]

    init(name: String, indexTitle: String?, members: [NSManagedObject]) {
        self.name = name
        self.indexTitle = indexTitle
        self.members = members
    }

    var numberOfObjects: Int { members.count }
    var objects: [Any]? { members }

    var description: String {
        "<_NSDefaultSectionInfo: \(cocoaAddress(of: self))>"
    }
}
