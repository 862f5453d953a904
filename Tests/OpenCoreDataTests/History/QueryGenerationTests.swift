import Foundation
import XCTest
@testable import OpenCoreData

/// Query generations: a pinned context reads one snapshot of the store while other
/// contexts, coordinators and processes save, until it moves forward. Behaviour from
/// Apple's "Accessing data when the store changes": pinning happens lazily at the next
/// read; save, reset and merges move a pinned context to the newest generation; stores
/// that are not SQLite in WAL mode read unpinned; nested contexts read through their parent.
final class QueryGenerationTests: StoreTestCase {
    private func trailModel() -> NSManagedObjectModel {
        let trail = NSEntityDescription()
        trail.name = "Trail"
        let name = NSAttributeDescription()
        name.name = "name"
        name.attributeType = .stringAttributeType
        let length = NSAttributeDescription()
        length.name = "length"
        length.attributeType = .doubleAttributeType
        length.isOptional = true
        trail.properties = [name, length]
        let model = NSManagedObjectModel()
        model.entities = [trail]
        return model
    }

    private func coordinator(_ model: NSManagedObjectModel, type: String = NSSQLiteStoreType, url: URL? = nil, options: [AnyHashable: Any]? = nil) throws -> NSPersistentStoreCoordinator {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url ?? storeURL(), options: options)
        return coordinator
    }

    private func context(_ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    @discardableResult
    private func insertTrail(_ name: String, length: Double = 1, in context: NSManagedObjectContext) throws -> NSManagedObject {
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        trail.setValue(name, forKey: "name")
        trail.setValue(length, forKey: "length")
        try context.save()
        return trail
    }

    private func names(_ context: NSManagedObjectContext) throws -> [String] {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        return try context.fetch(request).map { $0.value(forKey: "name") as! String }
    }

    func testAPinnedContextKeepsItsSnapshotWhileAnotherContextSaves() throws {
        let coordinator = try coordinator(trailModel())
        let writer = context(coordinator)
        let reader = context(coordinator)
        try insertTrail("Alpine", in: writer)
        XCTAssertNil(reader.queryGenerationToken, "contexts start unpinned")
        try reader.setQueryGenerationFrom(.current)
        XCTAssertNotNil(reader.queryGenerationToken)
        XCTAssertNotEqual(reader.queryGenerationToken, NSQueryGenerationToken.current)
        XCTAssertEqual(try names(reader), ["Alpine"])
        try insertTrail("Brook", in: writer)
        XCTAssertEqual(try names(reader), ["Alpine"], "the pinned fetch does not see the new save")
        XCTAssertEqual(try reader.count(for: NSFetchRequest<NSManagedObject>(entityName: "Trail")), 1)
        XCTAssertEqual(try names(writer), ["Alpine", "Brook"], "unpinned contexts see it")
        try reader.setQueryGenerationFrom(.current)
        XCTAssertEqual(try names(reader), ["Alpine", "Brook"], "moving to the current generation shows it")
    }

    func testPinningIsLazyTheSnapshotIsTakenAtTheNextRead() throws {
        let coordinator = try coordinator(trailModel())
        let writer = context(coordinator)
        let reader = context(coordinator)
        try reader.setQueryGenerationFrom(.current)
        try insertTrail("Alpine", in: writer)   // before the reader's first read
        XCTAssertEqual(try names(reader), ["Alpine"])
        try insertTrail("Brook", in: writer)
        XCTAssertEqual(try names(reader), ["Alpine"])
    }

    func testFaultsFireWithTheSnapshotsValues() throws {
        let coordinator = try coordinator(trailModel())
        let writer = context(coordinator)
        let reader = context(coordinator)
        let trail = try insertTrail("Alpine", length: 3, in: writer)
        try reader.setQueryGenerationFrom(.current)
        _ = try names(reader)   // pins
        trail.setValue(9.5, forKey: "length")
        try writer.save()
        let fault = reader.object(with: trail.objectID)
        XCTAssertTrue(fault.isFault)
        XCTAssertEqual(fault.value(forKey: "length") as? Double, 3, "the fault fired in the snapshot")
        XCTAssertEqual(try reader.existingObject(with: trail.objectID).value(forKey: "length") as? Double, 3)
        try reader.setQueryGenerationFrom(.current)
        reader.refreshAllObjects()
        XCTAssertEqual(fault.value(forKey: "length") as? Double, 9.5)
    }

    func testTwoContextsShareAGenerationThroughItsToken() throws {
        let coordinator = try coordinator(trailModel())
        let writer = context(coordinator)
        let first = context(coordinator), second = context(coordinator)
        try insertTrail("Alpine", in: writer)
        try first.setQueryGenerationFrom(.current)
        _ = try names(first)
        try insertTrail("Brook", in: writer)
        try second.setQueryGenerationFrom(first.queryGenerationToken)
        XCTAssertEqual(second.queryGenerationToken, first.queryGenerationToken)
        XCTAssertEqual(try names(second), ["Alpine"])
    }

    func testSaveResetAndMergeMoveAPinnedContextForward() throws {
        let coordinator = try coordinator(trailModel())
        let writer = context(coordinator)
        let reader = context(coordinator)
        try reader.setQueryGenerationFrom(.current)
        XCTAssertEqual(try names(reader), [])
        try insertTrail("Alpine", in: writer)
        XCTAssertEqual(try names(reader), [])
        // Save.
        let before = reader.queryGenerationToken
        try insertTrail("Own", in: reader)
        XCTAssertNotEqual(reader.queryGenerationToken, before)
        XCTAssertNotNil(reader.queryGenerationToken, "still pinned, to a newer generation")
        XCTAssertEqual(try names(reader), ["Alpine", "Own"])
        // Reset.
        try insertTrail("Brook", in: writer)
        XCTAssertEqual(try names(reader), ["Alpine", "Own"])
        reader.reset()
        XCTAssertEqual(try names(reader), ["Alpine", "Brook", "Own"])
        // Merge.
        var saved: Notification?
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: writer, queue: nil) { saved = $0 }
        defer { NotificationCenter.default.removeObserver(observer) }
        try insertTrail("Cedar", in: writer)
        XCTAssertEqual(try names(reader), ["Alpine", "Brook", "Own"])
        reader.mergeChanges(fromContextDidSave: try XCTUnwrap(saved))
        XCTAssertEqual(try names(reader), ["Alpine", "Brook", "Cedar", "Own"])
    }

    func testUnpinningReadsTheNewestState() throws {
        let coordinator = try coordinator(trailModel())
        let writer = context(coordinator)
        let reader = context(coordinator)
        try reader.setQueryGenerationFrom(.current)
        XCTAssertEqual(try names(reader), [])
        try insertTrail("Alpine", in: writer)
        try reader.setQueryGenerationFrom(nil)
        XCTAssertNil(reader.queryGenerationToken)
        XCTAssertEqual(try names(reader), ["Alpine"])
    }

    func testAnotherCoordinatorsSavesStayInvisible() throws {
        let model = trailModel()
        let readerCoordinator = try coordinator(model)
        let writer = context(try coordinator(model))
        let reader = context(readerCoordinator)
        try insertTrail("Alpine", in: writer)
        try reader.setQueryGenerationFrom(.current)
        XCTAssertEqual(try names(reader), ["Alpine"])
        for index in 0..<20 { try insertTrail("Other \(index)", in: writer) }
        XCTAssertEqual(try names(reader), ["Alpine"])
    }

    func testAnInMemoryStoreReadsUnpinnedWithoutAnError() throws {
        let coordinator = try coordinator(trailModel(), type: NSInMemoryStoreType, url: nil)
        let writer = context(coordinator)
        let reader = context(coordinator)
        try reader.setQueryGenerationFrom(.current)
        XCTAssertNil(reader.queryGenerationToken, "Core Data reverts to unpinned reads")
        XCTAssertEqual(try names(reader), [])
        try insertTrail("Alpine", in: writer)
        XCTAssertEqual(try names(reader), ["Alpine"])
    }

    func testAStoreInRollbackJournalModeReadsUnpinned() throws {
        let coordinator = try coordinator(trailModel(), options: [NSSQLitePragmasOption: ["journal_mode": "DELETE"]])
        let reader = context(coordinator)
        try reader.setQueryGenerationFrom(.current)
        XCTAssertNil(reader.queryGenerationToken)
    }

    func testATokenOfAnotherCoordinatorIsRefused() throws {
        let model = trailModel()
        let first = context(try coordinator(model, url: storeURL("A.sqlite")))
        let second = context(try coordinator(model, url: storeURL("B.sqlite")))
        try first.setQueryGenerationFrom(.current)
        XCTAssertThrowsError(try second.setQueryGenerationFrom(first.queryGenerationToken)) { error in
            let error = error as NSError
            XCTAssertEqual(error.domain, NSCocoaErrorDomain)
            XCTAssertEqual(error.code, NSCoreDataError)
            XCTAssertEqual(error.userInfo["Reason"] as? String,
                           "Invalid generation token: this persistent store coordinator does not have any of the referenced stores")
        }
        XCTAssertNil(second.queryGenerationToken)
    }

    func testAChildContextReadsThroughItsParentsGeneration() throws {
        let coordinator = try coordinator(trailModel())
        let writer = context(coordinator)
        let parent = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        parent.persistentStoreCoordinator = coordinator
        try insertTrail("Alpine", in: writer)
        try parent.setQueryGenerationFrom(.current)
        XCTAssertEqual(try names(parent), ["Alpine"])
        try insertTrail("Brook", in: writer)
        let child = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        child.parent = parent
        XCTAssertNil(child.queryGenerationToken, "nested contexts are implicitly unpinned")
        XCTAssertEqual(try names(child), ["Alpine"], "but read through the parent's generation")
    }

    func testASnapshotSurvivesCheckpointsAndReleasesWhenUnpinned() throws {
        let url = storeURL()
        let coordinator = try coordinator(trailModel(), url: url)
        let writer = context(coordinator)
        let reader = context(coordinator)
        try insertTrail("Alpine", in: writer)
        try reader.setQueryGenerationFrom(.current)
        XCTAssertEqual(try names(reader), ["Alpine"])
        for index in 0..<50 { try insertTrail("T\(index)", in: writer) }
        _ = try query(url, "PRAGMA wal_checkpoint(PASSIVE)")
        XCTAssertEqual(try names(reader), ["Alpine"], "a checkpoint does not overwrite what the snapshot reads")
        try reader.setQueryGenerationFrom(nil)
        XCTAssertEqual(try names(reader).count, 51)
    }
}
