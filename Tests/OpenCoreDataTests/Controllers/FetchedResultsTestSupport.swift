import Foundation
import XCTest
@testable import OpenCoreData

/// Trails with a name, a region (the section key) and a length, for the fetched results
/// controller's tests.
func makeRegionTrailModel() -> NSManagedObjectModel {
    let trail = makeEntity("Trail")
    trail.properties = [
        makeAttribute("name", .stringAttributeType), makeAttribute("region", .stringAttributeType),
        makeAttribute("length", .doubleAttributeType), makeAttribute("note", .stringAttributeType),
    ]
    return makeModel([trail])
}

/// Records every delegate callback as a line, and applies them to a mirror of the sections
/// the way a table view applies a batch of updates.
final class RecordingDelegate: NSFetchedResultsControllerDelegate {
    var lines: [String] = []
    private var knownNames: [NSManagedObjectID: String] = [:]
    /// Section names and objects, as a table view would hold them.
    var mirror: [(name: String, items: [NSManagedObject])] = []
    private var pendingObjects: [(NSFetchedResultsChangeType, IndexPath?, IndexPath?, NSManagedObject)] = []
    private var pendingSections: [(NSFetchedResultsChangeType, Int, String)] = []

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        lines.append("will")
        pendingObjects = []; pendingSections = []
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
                    atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType) {
        lines.append("section \(type) \(sectionIndex) \(sectionInfo.name)")
        pendingSections.append((type, sectionIndex, sectionInfo.name))
    }

    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
                    for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
        let object = anObject as! NSManagedObject
        // A deleted object merged from elsewhere may no longer hold its values: use the name seen before.
        let name = object.value(forKey: "name") as? String ?? knownNames[object.objectID] ?? "?"
        knownNames[object.objectID] = name
        lines.append("\(type) \(name) \(indexPath.map(describe) ?? "-") \(newIndexPath.map(describe) ?? "-")")
        pendingObjects.append((type, indexPath, newIndexPath, object))
    }

    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        lines.append("did")
        applyPending()
    }

    private func describe(_ path: IndexPath) -> String { "[\(path.section),\(path.row)]" }

    /// Deletions (rows, then sections) at old indexes, from the bottom up; insertions
    /// (sections, then rows) at new indexes, from the top down; moves as a deletion plus an
    /// insertion; updates must name the row at their old index.
    private func applyPending() {
        var removedRows: [IndexPath] = []
        var insertedRows: [(IndexPath, NSManagedObject)] = []
        for (type, old, new, id) in pendingObjects {
            switch type {
            case .delete: removedRows.append(old!)
            case .insert: insertedRows.append((new!, id))
            case .move: removedRows.append(old!); insertedRows.append((new!, id))
            case .update: XCTAssertTrue(mirror[old!.section].items[old!.row] === id, "update at the wrong old index path")
            }
        }
        for path in removedRows.sorted(by: { ($0.section, $0.row) > ($1.section, $1.row) }) {
            mirror[path.section].items.remove(at: path.row)
        }
        for (_, index, _) in pendingSections.filter({ $0.0 == .delete }).sorted(by: { $0.1 > $1.1 }) {
            XCTAssertTrue(mirror[index].items.isEmpty, "deleted section \(index) still has rows")
            mirror.remove(at: index)
        }
        for (_, index, name) in pendingSections.filter({ $0.0 == .insert }).sorted(by: { $0.1 < $1.1 }) {
            mirror.insert((name, []), at: index)
        }
        for (path, id) in insertedRows.sorted(by: { ($0.0.section, $0.0.row) < ($1.0.section, $1.0.row) }) {
            mirror[path.section].items.insert(id, at: path.row)
        }
    }

    /// Sets the mirror to the controller's current sections.
    func load(_ controller: NSFetchedResultsController<NSManagedObject>) {
        for object in controller.fetchedObjects ?? [] { knownNames[object.objectID] = object.value(forKey: "name") as? String }
        mirror = (controller.sections ?? []).map { section in
            (section.name, (section.objects ?? []).map { $0 as! NSManagedObject })
        }
    }

    /// The mirror's rows as object identities, to compare with a controller's.
    var mirrorIdentities: [[ObjectIdentifier]] { mirror.map { $0.items.map(ObjectIdentifier.init) } }
}

/// A delegate implementing only the snapshot callback (and the per-change ones, which
/// must then stay silent).
final class SnapshotDelegate: NSFetchedResultsControllerDelegate {
    var snapshots: [NSDiffableDataSourceSnapshotReference] = []
    var otherCalls = 0
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChangeContentWith snapshot: NSDiffableDataSourceSnapshotReference) {
        snapshots.append(snapshot)
    }
    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { otherCalls += 1 }
    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { otherCalls += 1 }
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
                    for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) { otherCalls += 1 }
}

/// The rows of a controller as object identities.
func identities(_ controller: NSFetchedResultsController<NSManagedObject>) -> [[ObjectIdentifier]] {
    (controller.sections ?? []).map { ($0.objects ?? []).map { ObjectIdentifier($0 as! NSManagedObject) } }
}

/// The section names and object IDs of a snapshot.
func snapshotContent(_ snapshot: NSDiffableDataSourceSnapshotReference) -> [(String, [NSManagedObjectID])] {
    snapshot.sectionIdentifiers.map { section in
        (section as! String, snapshot.itemIdentifiersInSection(withIdentifier: section).map { $0 as! NSManagedObjectID })
    }
}

/// A temporary store of region trails, with helpers to change it from a second container
/// and merge the change into the first (the path every context change arrives by, saved
/// locally or elsewhere).
class FetchedResultsTestCase: XCTestCase {
    var directory: URL!
    var model: NSManagedObjectModel!
    var cacheHome: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("frc-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        cacheHome = directory.appendingPathComponent("caches", isDirectory: true)
        setenv("XDG_CACHE_HOME", cacheHome.path, 1)
        model = makeRegionTrailModel()
    }

    override func tearDownWithError() throws {
        unsetenv("XDG_CACHE_HOME")
        try? FileManager.default.removeItem(at: directory)
    }

    var storeURL: URL { directory.appendingPathComponent("Trails.sqlite") }

    func openContainer() throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Trails", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: storeURL)]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    @discardableResult
    func insertTrail(_ name: String, region: String?, length: Double = 1, into context: NSManagedObjectContext) -> NSManagedObject {
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        trail.setValue(name, forKey: "name")
        trail.setValue(region, forKey: "region")
        trail.setValue(length, forKey: "length")
        return trail
    }

    /// A request for every trail, sorted by region then name.
    func regionRequest() -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        request.sortDescriptors = [NSSortDescriptor(key: "region", ascending: true), NSSortDescriptor(key: "name", ascending: true)]
        return request
    }

    /// Saves `writer`'s changes and merges them into `reader`, as a did-save merge does.
    func saveAndMerge(_ writer: NSManagedObjectContext, into reader: NSManagedObjectContext) throws {
        let inserted = writer.insertedObjects.map { $0 }, updated = writer.updatedObjects.map { $0 }
        let deletedIDs = writer.deletedObjects.map(\.objectID)
        try writer.save()
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [
            NSInsertedObjectsKey: inserted.map(\.objectID), NSUpdatedObjectsKey: updated.map(\.objectID), NSDeletedObjectsKey: deletedIDs,
        ], into: [reader])
    }

    /// Names per section of a controller.
    func names(_ controller: NSFetchedResultsController<NSManagedObject>) -> [String] {
        (controller.sections ?? []).map { section in
            section.name + ": " + (section.objects ?? []).map { ($0 as! NSManagedObject).value(forKey: "name") as! String }.joined(separator: ", ")
        }
    }
}
