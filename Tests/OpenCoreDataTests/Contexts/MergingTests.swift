import Foundation
import XCTest
@testable import OpenCoreData

/// Merging saves between contexts: by hand from a did-save notification, from a remote
/// save's IDs, and automatically.
final class MergingTests: CoreTestCase {
    /// Lets the main queue run until `condition` holds (a main-queue context merges there).
    private func runMainQueue(until condition: () -> Bool, file: StaticString = #filePath, line: UInt = #line) {
        let deadline = Date().addingTimeInterval(10)
        while !condition(), Date() < deadline { RunLoop.main.run(until: Date().addingTimeInterval(0.01)) }
        XCTAssertTrue(condition(), "timed out", file: file, line: line)
    }

    private func name(_ object: NSManagedObject) -> String? { object.value(forKey: "name") as? String }

    func testMergingADidSaveNotificationRefreshesInsertsAndRemoves() throws {
        try saveTrails(3)
        let container = try openContainer()
        let view = container.viewContext
        let trails = try view.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
        // Loaded now: a fault fired after the save would load the newest row (or none).
        XCTAssertEqual(trails.compactMap(name).sorted(), ["Trail 0", "Trail 1", "Trail 2"])
        let background = container.newBackgroundContext()
        var saved: Notification?
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: background, queue: nil) { saved = $0 }
        defer { NotificationCenter.default.removeObserver(observer) }
        try background.performAndWait {
            let copies = try background.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
                        copies.first { self.name($0) == "Trail 0" }!.setValue("Renamed", forKey: "name")
            background.delete(copies.first { self.name($0) == "Trail 1" }!)
            NSEntityDescription.insertNewObject(forEntityName: "Trail", into: background).setValue("Added", forKey: "name")
            try background.save()
        }
        let trail0 = trails.first { name($0) == "Trail 0" }!
        let trail1 = trails.first { name($0) == "Trail 1" }!
        XCTAssertEqual(name(trail0), "Trail 0", "nothing changes before the merge")

        var changes: [AnyHashable: Any] = [:]
        let didChange = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: view, queue: nil) {
            changes = $0.userInfo ?? [:]
        }
        defer { NotificationCenter.default.removeObserver(didChange) }
        view.mergeChanges(fromContextDidSave: saved!)
        XCTAssertEqual(name(trail0), "Renamed")
        XCTAssertNil(trail1.managedObjectContext, "a deleted object leaves the context")
        XCTAssertEqual((changes[NSUpdatedObjectsKey] as? Set<NSManagedObject>)?.map(name), ["Renamed"])
        XCTAssertEqual((changes[NSDeletedObjectsKey] as? Set<NSManagedObject>)?.count, 1)
        XCTAssertEqual((changes[NSInsertedObjectsKey] as? Set<NSManagedObject>)?.map(name), ["Added"])
        XCTAssertFalse(view.hasChanges, "merged changes are saved changes, not pending ones")
    }

    func testMergingTheIDsNotificationWorksTheSame() throws {
        try saveTrails(1)
        let container = try openContainer()
        let view = container.viewContext
        let trail = try view.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first!
        XCTAssertEqual(name(trail), "Trail 0")
        let background = container.newBackgroundContext()
        var saved: Notification?
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSaveObjectIDs, object: background, queue: nil) { saved = $0 }
        defer { NotificationCenter.default.removeObserver(observer) }
        try background.performAndWait {
            try background.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first!.setValue("By ID", forKey: "name")
            try background.save()
        }
        view.mergeChanges(fromContextDidSave: saved!)
        XCTAssertEqual(name(trail), "By ID")
    }

    func testAMergeKeepsTheContextsOwnUnsavedChanges() throws {
        try saveTrails(1)
        let container = try openContainer()
        let view = container.viewContext
        let trail = try view.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first!
        trail.setValue(3.0, forKey: "rating")  // unsaved here
        let background = container.newBackgroundContext()
        var saved: Notification?
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: background, queue: nil) { saved = $0 }
        defer { NotificationCenter.default.removeObserver(observer) }
        try background.performAndWait {
            let copy = try background.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first!
            copy.setValue("Elsewhere", forKey: "name")
            try background.save()
        }
        view.mergeChanges(fromContextDidSave: saved!)
        XCTAssertEqual(name(trail), "Elsewhere", "the saved change arrives")
        XCTAssertEqual(trail.value(forKey: "rating") as? Double, 3.0, "the pending change stays")
        XCTAssertTrue(trail.hasChanges)
        XCTAssertEqual(Set(trail.changedValues().keys), ["rating"])
    }

    func testRemoteContextSaveMergesIDsAndURIsIntoSeveralContexts() throws {
        try saveTrails(2)
        let container = try openContainer()
        let first = container.viewContext
        let second = container.newBackgroundContext()
        let one = try first.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first { name($0) == "Trail 0" }!
        let two = try second.performAndWait { try second.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first { self.name($0) == "Trail 0" }! }
        // Another coordinator changes the store.
        let other = try openContainer()
        let changed = try other.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first { name($0) == "Trail 0" }!
        changed.setValue("From afar", forKey: "name")
        try other.viewContext.save()
        XCTAssertEqual(name(one), "Trail 0", "a context does not see another coordinator's save on its own")
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: [changed.objectID.uriRepresentation()]], into: [first, second])
        XCTAssertEqual(name(one), "From afar")
        XCTAssertEqual(second.performAndWait { self.name(two) }, "From afar")
    }

    func testViewContextMergesSiblingBackgroundSavesAutomatically() throws {
        try saveTrails(1)
        let container = try openContainer()
        let view = container.viewContext
        view.automaticallyMergesChangesFromParent = true
        let trail = try view.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first!
        XCTAssertEqual(name(trail), "Trail 0")
        var merged: [String] = []
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: view, queue: nil) { note in
            XCTAssertTrue(Thread.isMainThread, "the merge runs on the view context's queue")
            merged += ((note.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let done = expectation(description: "background saved")
        container.performBackgroundTask { background in
            let copy = try! background.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first!
            copy.setValue("Imported", forKey: "name")
            NSEntityDescription.insertNewObject(forEntityName: "Trail", into: background).setValue("New", forKey: "name")
            try! background.save()
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        runMainQueue { name(trail) == "Imported" }
        XCTAssertEqual(merged, ["New"], "the inserted trail arrives as an inserted object")
    }

    func testAContextWithoutTheFlagDoesNotMerge() throws {
        try saveTrails(1)
        let container = try openContainer()
        let view = container.viewContext
        let trail = try view.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first!
        XCTAssertEqual(name(trail), "Trail 0")  // loaded now; a fault would load the newest row later
        let background = container.newBackgroundContext()
        try background.performAndWait {
            try background.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first!.setValue("Unseen", forKey: "name")
            try background.save()
        }
        RunLoop.main.run(until: Date().addingTimeInterval(0.1))
        XCTAssertEqual(name(trail), "Trail 0")
    }

    func testAChildMergesItsParentsSavesAutomatically() throws {
        try saveTrails(1)
        let container = try openContainer()
        let view = container.viewContext
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = view
        child.automaticallyMergesChangesFromParent = true
        let copy = try child.performAndWait { () -> NSManagedObject in
            let copy = try child.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first!
            _ = copy.value(forKey: "name")
            return copy
        }
        let trail = try view.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first!
        trail.setValue("Parent saved", forKey: "name")
        try view.save()
        let deadline = Date().addingTimeInterval(10)
        while child.performAndWait({ self.name(copy) }) != "Parent saved", Date() < deadline { usleep(5_000) }
        XCTAssertEqual(child.performAndWait { self.name(copy) }, "Parent saved")
    }

    func testStalenessIntervalZeroRereadsTheStoreWhenAFaultFires() throws {
        try saveTrails(1)
        let container = try openContainer()
        let view = container.viewContext
        let trail = try view.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first!
        XCTAssertEqual(name(trail), "Trail 0")
        // Another coordinator's save does not reach this coordinator's row cache.
        let other = try openContainer()
        try other.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first!.setValue("Changed", forKey: "name")
        try other.viewContext.save()

        XCTAssertLessThan(view.stalenessInterval, 0, "any age is accepted by default")
        view.refresh(trail, mergeChanges: false)
        XCTAssertEqual(name(trail), "Trail 0", "the fault fired from the cached row")
        view.stalenessInterval = 0
        view.refresh(trail, mergeChanges: false)
        XCTAssertEqual(name(trail), "Changed", "with no staleness accepted the store is read again")
    }
}
