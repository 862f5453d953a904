import Foundation
import XCTest
@testable import OpenCoreData

/// Every delegate callback, with index paths as a table view applies them.
final class FetchedResultsDelegateTests: FetchedResultsTestCase {
    private var container: NSPersistentContainer!
    private var writer: NSManagedObjectContext!
    private var controller: NSFetchedResultsController<NSManagedObject>!
    private var recorder: RecordingDelegate!

    /// Alps: Eiger, Kesch; Highlands: Skye — then a controller on region, with a recorder.
    private func start(sectionNameKeyPath: String? = "region") throws {
        container = try openContainer()
        insertTrail("Kesch", region: "Alps", into: container.viewContext)
        insertTrail("Eiger", region: "Alps", into: container.viewContext)
        insertTrail("Skye", region: "Highlands", into: container.viewContext)
        try container.viewContext.save()
        writer = container.newBackgroundContext()
        controller = NSFetchedResultsController(fetchRequest: regionRequest(), managedObjectContext: container.viewContext,
                                                sectionNameKeyPath: sectionNameKeyPath, cacheName: nil)
        recorder = RecordingDelegate()
        controller.delegate = recorder
        try controller.performFetch()
        recorder.load(controller)
    }

    private func writerTrail(_ name: String) throws -> NSManagedObject {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        request.predicate = NSPredicate(format: "name == %@", name)
        return try writer.fetch(request)[0]
    }

    private func assertMirrorMatches(file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(recorder.mirror.map(\.name), controller.sections?.map(\.name), file: file, line: line)
        XCTAssertEqual(recorder.mirrorIdentities, identities(controller), file: file, line: line)
    }

    func testInsertIntoAnExistingSection() throws {
        try start()
        insertTrail("Jungfrau", region: "Alps", into: writer)
        try saveAndMerge(writer, into: container.viewContext)
        XCTAssertEqual(recorder.lines, ["will", "insert Jungfrau - [0,1]", "did"])
        assertMirrorMatches()
    }

    func testInsertWithANewKeyAddsASection() throws {
        try start()
        insertTrail("Olympus", region: "Balkans", into: writer)
        try saveAndMerge(writer, into: container.viewContext)
        XCTAssertEqual(recorder.lines, ["will", "section insert 1 Balkans", "insert Olympus - [1,0]", "did"])
        assertMirrorMatches()
    }

    /// Core Data's order (decompiled `_core_managedObjectContextDidChange:`): object
    /// deletions, section insertions, section deletions, object insertions, moves and updates;
    /// an update has no new index path.
    func testDeletingTheLastObjectOfASectionDeletesTheSection() throws {
        try start()
        writer.delete(try writerTrail("Skye"))
        try saveAndMerge(writer, into: container.viewContext)
        XCTAssertEqual(recorder.lines, ["will", "delete Skye [1,0] -", "section delete 1 Highlands", "did"])
        assertMirrorMatches()
    }

    func testChangingTheSortKeyMovesTheObject() throws {
        try start()
        try writerTrail("Eiger").setValue("Zinal", forKey: "name")
        try saveAndMerge(writer, into: container.viewContext)
        XCTAssertEqual(recorder.lines, ["will", "move Zinal [0,0] [0,1]", "did"])
        assertMirrorMatches()
    }

    func testChangingTheSectionKeyMovesTheObjectBetweenSections() throws {
        try start()
        try writerTrail("Kesch").setValue("Highlands", forKey: "region")
        try saveAndMerge(writer, into: container.viewContext)
        XCTAssertEqual(recorder.lines, ["will", "move Kesch [0,1] [1,0]", "did"])
        assertMirrorMatches()
    }

    func testAChangeOutsideTheSortIsAnUpdateInPlace() throws {
        try start()
        try writerTrail("Kesch").setValue("windy", forKey: "note")
        try saveAndMerge(writer, into: container.viewContext)
        XCTAssertEqual(recorder.lines, ["will", "update Kesch [0,1] -", "did"])
        assertMirrorMatches()
    }

    func testAnObjectThatStopsMatchingThePredicateIsDeleted() throws {
        container = try openContainer()
        insertTrail("Kesch", region: "Alps", length: 12, into: container.viewContext)
        insertTrail("Eiger", region: "Alps", length: 3, into: container.viewContext)
        try container.viewContext.save()
        writer = container.newBackgroundContext()
        let request = regionRequest()
        request.predicate = NSPredicate(format: "length > 5")
        controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: container.viewContext,
                                                sectionNameKeyPath: "region", cacheName: nil)
        recorder = RecordingDelegate()
        controller.delegate = recorder
        try controller.performFetch()
        recorder.load(controller)
        // As in Core Data, a merged update reaches only objects registered in the context:
        // Eiger must be known to the context for its change to bring it into the results.
        let registered = try container.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
        try writerTrail("Kesch").setValue(2.0, forKey: "length")
        try writerTrail("Eiger").setValue(20.0, forKey: "length")
        try saveAndMerge(writer, into: container.viewContext)
        XCTAssertEqual(recorder.lines, ["will", "delete Kesch [0,0] -", "insert Eiger - [0,0]", "did"])
        assertMirrorMatches()
        XCTAssertEqual(registered.count, 2)
    }

    func testSwappedObjectsAreReportedSoATableEndsInTheNewOrder() throws {
        try start()
        // Eiger and Kesch trade places; Skye moves to the Alps first.
        try writerTrail("Eiger").setValue("Lauber", forKey: "name")
        try writerTrail("Kesch").setValue("Bietsch", forKey: "name")
        try writerTrail("Skye").setValue("Alps", forKey: "region")
        try saveAndMerge(writer, into: container.viewContext)
        XCTAssertEqual(recorder.lines.first, "will")
        XCTAssertTrue(recorder.lines.contains("section delete 1 Highlands"))
        assertMirrorMatches()
        XCTAssertEqual(names(controller), ["Alps: Bietsch, Lauber, Skye"])
    }

    func testNoDelegateMeansNoTracking() throws {
        try start()
        controller.delegate = nil
        insertTrail("Jungfrau", region: "Alps", into: writer)
        try saveAndMerge(writer, into: container.viewContext)
        XCTAssertEqual(recorder.lines, [])
        XCTAssertEqual(controller.fetchedObjects?.count, 3)
    }

    /// "If this method is implemented, no other delegate methods are invoked" (Apple's
    /// documentation of controller(_:didChangeContentWith:)); the first snapshot comes
    /// from performFetch.
    func testSnapshotDelegateReceivesOnlySnapshots() throws {
        try start()
        let delegate = SnapshotDelegate()
        controller.delegate = delegate
        try controller.performFetch()
        XCTAssertEqual(delegate.snapshots.count, 1)
        insertTrail("Olympus", region: "Balkans", into: writer)
        try writerTrail("Kesch").setValue("note", forKey: "note")
        try saveAndMerge(writer, into: container.viewContext)
        XCTAssertEqual(delegate.snapshots.count, 2)
        XCTAssertEqual(delegate.otherCalls, 0)
        let last = delegate.snapshots[1]
        XCTAssertEqual(last.sectionIdentifiers as? [String], ["Alps", "Balkans", "Highlands"])
        XCTAssertEqual(last.numberOfSections, 3)
        XCTAssertEqual(last.numberOfItems, 4)
        XCTAssertEqual(last.numberOfItems(inSection: "Alps"), 2)
        let kesch = controller.object(at: IndexPath(row: 1, section: 0)).objectID
        XCTAssertEqual(last.sectionIdentifier(forSectionContainingItemIdentifier: kesch) as? String, "Alps")
        XCTAssertEqual(last.index(ofItemIdentifier: kesch), 1)
        XCTAssertEqual(last.index(ofSectionIdentifier: "Highlands"), 2)
        XCTAssertEqual(last.reloadedItemIdentifiers as? [NSManagedObjectID], [kesch])
        let content = snapshotContent(last)
        XCTAssertEqual(content.map(\.0), controller.sections?.map(\.name))
        XCTAssertEqual(content.map(\.1), controller.sections?.map { ($0.objects ?? []).map { ($0 as! NSManagedObject).objectID } })
    }

    /// The difference callback is for controllers without sections; it too replaces the
    /// per-change callbacks.
    func testDifferenceDelegateOnAControllerWithoutSections() throws {
        final class DifferenceDelegate: NSFetchedResultsControllerDelegate {
            var differences: [CollectionDifference<NSManagedObjectID>] = []
            var otherCalls = 0
            func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChangeContentWith diff: CollectionDifference<NSManagedObjectID>) {
                differences.append(diff)
            }
            func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { otherCalls += 1 }
        }
        try start(sectionNameKeyPath: nil)
        let delegate = DifferenceDelegate()
        controller.delegate = delegate
        let before = controller.fetchedObjects!.map(\.objectID)
        insertTrail("Alp Grüm", region: "Alps", into: writer)
        try writerTrail("Skye").setValue("Aonach", forKey: "name")
        try saveAndMerge(writer, into: container.viewContext)
        XCTAssertEqual(delegate.otherCalls, 0)
        XCTAssertEqual(delegate.differences.count, 1)
        let after = controller.fetchedObjects!.map(\.objectID)
        XCTAssertEqual(before.applying(delegate.differences[0]), after)
    }

    /// With sections, the difference callback is not used: the per-change callbacks are.
    func testDifferenceDelegateOnASectionedControllerGetsPerChangeCallbacks() throws {
        final class Both: NSFetchedResultsControllerDelegate {
            var differences = 0, changes = 0
            func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChangeContentWith diff: CollectionDifference<NSManagedObjectID>) {
                differences += 1
            }
            func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
                            for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) { changes += 1 }
        }
        try start()
        let delegate = Both()
        controller.delegate = delegate
        insertTrail("Jungfrau", region: "Alps", into: writer)
        try saveAndMerge(writer, into: container.viewContext)
        XCTAssertEqual(delegate.differences, 0)
        XCTAssertEqual(delegate.changes, 1)
    }

    /// Changes made in the controller's own context arrive when the context ends its event
    /// (at the latest in `save()`), before anything is written.
    func testChangesSavedInTheControllersOwnContext() throws {
        try start()
        let context = container.viewContext
        insertTrail("Jungfrau", region: "Alps", into: context)
        controller.object(at: IndexPath(row: 0, section: 1)).setValue("Alps", forKey: "region")
        try context.save()
        XCTAssertEqual(recorder.lines, ["will", "section delete 1 Highlands", "insert Jungfrau - [0,1]", "move Skye [1,0] [0,3]", "did"])
        assertMirrorMatches()
        recorder.lines = []
        context.delete(controller.object(at: IndexPath(row: 0, section: 0)))
        context.processPendingChanges()
        XCTAssertEqual(recorder.lines, ["will", "delete Eiger [0,0] -", "did"], "unsaved changes are reported when the event ends")
        assertMirrorMatches()
    }

    /// A snapshot delegate first sees an inserted object under its temporary ID, and gets
    /// a new snapshot with the permanent ID once the save has written it.
    func testSnapshotsCarryPermanentIDsAfterASave() throws {
        try start()
        let delegate = SnapshotDelegate()
        controller.delegate = delegate
        try controller.performFetch()
        let jungfrau = insertTrail("Jungfrau", region: "Alps", into: container.viewContext)
        try container.viewContext.save()
        XCTAssertFalse(jungfrau.objectID.isTemporaryID)
        let items = delegate.snapshots.last!.itemIdentifiers.map { $0 as! NSManagedObjectID }
        XCTAssertTrue(items.contains(jungfrau.objectID))
        XCTAssertTrue(items.allSatisfy { !$0.isTemporaryID })
    }

    /// `reset()` invalidates every object (NSInvalidatedAllObjectsKey): the controller
    /// fetches again, and the changes it reports still bring a table to its new rows.
    func testResetRefetchesAndKeepsTheTableConsistent() throws {
        try start()
        insertTrail("Jungfrau", region: "Alps", into: writer)
        try writer.save()  // saved elsewhere and not merged: only the refetch sees it
        container.viewContext.reset()
        XCTAssertEqual(recorder.lines.first, "will")
        XCTAssertEqual(recorder.lines.last, "did")
        XCTAssertEqual(names(controller), ["Alps: Eiger, Jungfrau, Kesch", "Highlands: Skye"])
        assertMirrorMatches()
    }
}
