import Foundation
import XCTest
@testable import OpenCoreData

/// Fetching, sections, lookups and Core Data's checks.
final class FetchedResultsControllerTests: FetchedResultsTestCase {
    private func seed(_ container: NSPersistentContainer) throws {
        let context = container.viewContext
        insertTrail("Kesch", region: "Alps", into: context)
        insertTrail("Eiger", region: "Alps", into: context)
        insertTrail("Skye", region: "Highlands", into: context)
        insertTrail("Ben Nevis", region: "Highlands", into: context)
        insertTrail("Olympus", region: "Balkans", into: context)
        try context.save()
    }

    func testSectionsFollowTheSectionKeyPath() throws {
        let container = try openContainer()
        try seed(container)
        let controller = NSFetchedResultsController(fetchRequest: regionRequest(), managedObjectContext: container.viewContext,
                                                    sectionNameKeyPath: "region", cacheName: nil)
        XCTAssertNil(controller.fetchedObjects)
        XCTAssertNil(controller.sections)
        try controller.performFetch()
        XCTAssertEqual(names(controller), ["Alps: Eiger, Kesch", "Balkans: Olympus", "Highlands: Ben Nevis, Skye"])
        XCTAssertEqual(controller.sections?.map(\.numberOfObjects), [2, 1, 2])
        XCTAssertEqual(controller.sections?.map(\.indexTitle), ["A", "B", "H"])
        XCTAssertEqual(controller.sectionIndexTitles, ["A", "B", "H"])
        XCTAssertEqual(controller.section(forSectionIndexTitle: "H", at: 2), 2)
        XCTAssertEqual(controller.sectionIndexTitle(forSectionName: "alps"), "A")
        XCTAssertEqual(controller.fetchedObjects?.map { $0.value(forKey: "name") as! String }, ["Eiger", "Kesch", "Olympus", "Ben Nevis", "Skye"])
        let skye = controller.object(at: IndexPath(row: 1, section: 2))
        XCTAssertEqual(skye.value(forKey: "name") as? String, "Skye")
        XCTAssertEqual(controller.indexPath(forObject: skye), IndexPath(row: 1, section: 2))
        let stranger = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: container.newBackgroundContext())
        XCTAssertNil(controller.indexPath(forObject: stranger))
    }

    func testWithoutSectionKeyPathThereIsOneUnnamedSectionEvenWhenEmpty() throws {
        let container = try openContainer()
        let controller = NSFetchedResultsController(fetchRequest: regionRequest(), managedObjectContext: container.viewContext,
                                                    sectionNameKeyPath: nil, cacheName: nil)
        try controller.performFetch()
        XCTAssertEqual(controller.sections?.count, 1)
        XCTAssertEqual(controller.sections?.first?.name, "")
        XCTAssertNil(controller.sections?.first?.indexTitle)
        XCTAssertEqual(controller.sections?.first?.numberOfObjects, 0)
        XCTAssertEqual(controller.fetchedObjects?.count, 0)
        let sectioned = NSFetchedResultsController(fetchRequest: regionRequest(), managedObjectContext: container.viewContext,
                                                   sectionNameKeyPath: "region", cacheName: nil)
        try sectioned.performFetch()
        XCTAssertEqual(sectioned.sections?.count, 0)
    }

    func testSectionIndexTitlesComeFromTheDelegateWhenItAnswers() throws {
        final class Titles: NSFetchedResultsControllerDelegate {
            func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, sectionIndexTitleForSectionName sectionName: String) -> String? {
                String(sectionName.suffix(2)).uppercased()
            }
        }
        let container = try openContainer()
        try seed(container)
        let controller = NSFetchedResultsController(fetchRequest: regionRequest(), managedObjectContext: container.viewContext,
                                                    sectionNameKeyPath: "region", cacheName: nil)
        let titles = Titles()
        controller.delegate = titles
        try controller.performFetch()
        XCTAssertEqual(controller.sectionIndexTitles, ["PS", "NS", "DS"])
    }

    func testANilSectionValueGoesInTheUnnamedSection() throws {
        let container = try openContainer()
        insertTrail("Nowhere", region: nil, into: container.viewContext)
        insertTrail("Eiger", region: "Alps", into: container.viewContext)
        try container.viewContext.save()
        let controller = NSFetchedResultsController(fetchRequest: regionRequest(), managedObjectContext: container.viewContext,
                                                    sectionNameKeyPath: "region", cacheName: nil)
        try controller.performFetch()
        XCTAssertEqual(names(controller), [": Nowhere", "Alps: Eiger"])
    }

    /// With unsaved changes the names are read in order, and a name that comes back after
    /// another section started is Core Data's error 134060 (message under "reason").
    func testSectionsOutOfOrderFailWithCoreDataError134060() throws {
        let container = try openContainer()
        try seed(container)
        insertTrail("Zugspitze", region: "Alps", into: container.viewContext)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: container.viewContext,
                                                    sectionNameKeyPath: "region", cacheName: nil)
        XCTAssertThrowsError(try controller.performFetch()) { error in
            let error = error as NSError
            XCTAssertEqual(error.domain, NSCocoaErrorDomain)
            XCTAssertEqual(error.code, 134060)
            // Ben Nevis (Highlands), Eiger (Alps), Kesch (Alps), Olympus (Balkans), Skye (Highlands): index 4
            // brings Highlands back while Balkans is the current section.
            XCTAssertEqual(error.userInfo["reason"] as? String,
                           "The fetched object at index 4 has an out of order section name 'Balkans'. Objects must be sorted by section name")
        }
        XCTAssertNil(controller.fetchedObjects)
        XCTAssertNil(controller.sections)
    }

    /// With no unsaved changes Core Data asks the store for the sections (a grouped count
    /// ordered by the section key) and cuts the fetched objects by those counts: a sort that
    /// disagrees with the section key puts objects in the wrong sections, without an error.
    func testSectionsFromTheStoreSilentlyMisplaceObjectsWhenTheSortDisagrees() throws {
        let container = try openContainer()
        try seed(container)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: container.viewContext,
                                                    sectionNameKeyPath: "region", cacheName: nil)
        try controller.performFetch()
        XCTAssertEqual(names(controller), ["Alps: Ben Nevis, Eiger", "Balkans: Kesch", "Highlands: Olympus, Skye"])
    }

    func testFetchBatchSizeIsKept() throws {
        let container = try openContainer()
        try seed(container)
        let request = regionRequest()
        request.fetchBatchSize = 2
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: container.viewContext,
                                                    sectionNameKeyPath: "region", cacheName: nil)
        try controller.performFetch()
        XCTAssertEqual(controller.fetchRequest.fetchBatchSize, 2)
        XCTAssertEqual(controller.fetchedObjects?.count, 5)
        XCTAssertEqual(names(controller).count, 3)
    }

    func testTypedControllerHandsTheDelegateAControllerOfTheSameResults() throws {
        final class Probe: NSFetchedResultsControllerDelegate {
            var seen: [NSFetchedResultsController<NSFetchRequestResult>] = []
            func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { seen.append(controller) }
        }
        let container = try openContainer()
        try seed(container)
        let controller = NSFetchedResultsController(fetchRequest: regionRequest(), managedObjectContext: container.viewContext,
                                                    sectionNameKeyPath: "region", cacheName: nil)
        let probe = Probe()
        controller.delegate = probe
        try controller.performFetch()
        let writer = container.newBackgroundContext()
        insertTrail("Triglav", region: "Balkans", into: writer)
        try saveAndMerge(writer, into: container.viewContext)
        insertTrail("Rila", region: "Balkans", into: writer)
        try saveAndMerge(writer, into: container.viewContext)
        XCTAssertEqual(probe.seen.count, 2)
        XCTAssertTrue(probe.seen[0] === probe.seen[1])
        XCTAssertEqual(probe.seen[0].sections?.map(\.numberOfObjects), [2, 3, 2])
        XCTAssertEqual((probe.seen[0].object(at: IndexPath(row: 1, section: 1)) as! NSManagedObject).value(forKey: "name") as? String, "Rila")
    }

    /// A subclass may override `sectionIndexTitle(forSectionName:)`, as in Core Data.
    func testASubclassCanOverrideTheIndexTitles() throws {
        final class TwoLetters: NSFetchedResultsController<NSManagedObject> {
            override func sectionIndexTitle(forSectionName sectionName: String) -> String? { String(sectionName.prefix(2)) }
        }
        let container = try openContainer()
        try seed(container)
        let controller = TwoLetters(fetchRequest: regionRequest(), managedObjectContext: container.viewContext,
                                    sectionNameKeyPath: "region", cacheName: nil)
        try controller.performFetch()
        XCTAssertEqual(controller.sectionIndexTitles, ["Al", "Ba", "Hi"])
        XCTAssertEqual(controller.section(forSectionIndexTitle: "Ba", at: 1), 1)
    }
}
