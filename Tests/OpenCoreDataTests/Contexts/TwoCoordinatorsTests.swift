import Foundation
import XCTest
@testable import OpenCoreData

/// Two coordinators on one store file: what one saves, the other sees after a merge or a
/// refresh, and a write lock held elsewhere is waited for up to the store's timeout.
final class TwoCoordinatorsTests: CoreTestCase {
    private func openContainer(timeout: TimeInterval) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Trails", managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: storeURL)
        description.timeout = timeout
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    func testTheOtherCoordinatorsSaveIsSeenAfterAMergeAndByANewFetch() throws {
        try saveTrails(1)
        let first = try openContainer(), second = try openContainer()
        let mine = try second.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first!
        XCTAssertEqual(mine.value(forKey: "name") as? String, "Trail 0")
        let theirs = try first.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first!
        theirs.setValue("Renamed elsewhere", forKey: "name")
        NSEntityDescription.insertNewObject(forEntityName: "Trail", into: first.viewContext).setValue("Added elsewhere", forKey: "name")
        var saved: Notification?
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSaveObjectIDs, object: first.viewContext, queue: nil) { saved = $0 }
        defer { NotificationCenter.default.removeObserver(observer) }
        try first.viewContext.save()

        XCTAssertEqual(mine.value(forKey: "name") as? String, "Trail 0", "loaded objects keep their values")
        XCTAssertEqual(try trailCount(in: second), 2, "a fetch reads the store")
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: saved!.userInfo!, into: [second.viewContext])
        XCTAssertEqual(mine.value(forKey: "name") as? String, "Renamed elsewhere")
    }

    func testALockedDatabaseIsWaitedForUpToTheTimeoutThenReported() throws {
        try saveTrails(1)
        let container = try openContainer(timeout: 0.5)
        let context = container.viewContext
        NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context).setValue("Waiting", forKey: "name")

        let locker = try SQLiteDatabase(path: storeURL.path)
        defer { locker.close() }
        try locker.execute("BEGIN IMMEDIATE")  // holds the write lock, as another process's save would
        let started = Date()
        XCTAssertThrowsError(try context.save()) { error in
            let error = error as NSError
            XCTAssertEqual(error.domain, NSCocoaErrorDomain)
            XCTAssertEqual(error.code, NSSQLiteError)
            XCTAssertEqual(error.userInfo[NSSQLiteErrorDomain] as? Int, 5, "SQLITE_BUSY")
            XCTAssertTrue("\(error.userInfo[NSLocalizedDescriptionKey] ?? "")".contains("database is locked"), "\(error)")
        }
        let waited = Date().timeIntervalSince(started)
        XCTAssertGreaterThanOrEqual(waited, 0.4, "the save waited for the lock")
        XCTAssertLessThan(waited, 5, "and gave up after about the timeout")
        XCTAssertTrue(context.hasChanges, "nothing is lost: the changes are still there to save")

        try locker.execute("ROLLBACK")
        try context.save()
        XCTAssertEqual(try trailCount(in: try openContainer()), 2)
    }
}
