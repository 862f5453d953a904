import Foundation
import XCTest
@testable import OpenCoreData

/// The store's row cache keeps a row while an object's snapshot or a waiting fault holds
/// it, and drops it once only the cache does, as Core Data's cache does: faults still fire
/// without SQL, and the rows of objects a program let go of do not stay for good.
final class RowCacheTests: CoreTestCase {
    private func rowCache(of container: NSPersistentContainer) -> RowCache {
        container.persistentStoreCoordinator.persistentStores[0].rowCache
    }

    private func selects(_ lines: [String]) -> [String] { lines.filter { $0.contains("SELECT") } }

    func testRowsStayWhileObjectsOrFaultsHoldThemAndGoWhenReleased() throws {
        try saveTrails(50)
        let container = try openContainer()
        let cache = rowCache(of: container)
        var trails: [NSManagedObject]? = try container.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
        XCTAssertTrue(trails!.allSatisfy(\.isFault))
        cache.sweep()
        XCTAssertEqual(cache.count, 50, "faults waiting to fire hold their rows")

        let (names, lines) = capturingSQL { trails!.prefix(25).compactMap { $0.value(forKey: "name") as? String } }
        XCTAssertEqual(names.count, 25)
        XCTAssertEqual(selects(lines), [], "the faults fired from the cache after the sweep")
        cache.sweep()
        XCTAssertEqual(cache.count, 50, "fired objects hold their rows as snapshots")

        trails = nil
        cache.sweep()
        XCTAssertEqual(cache.count, 0, "no one holds the rows of released objects")
        let again = try container.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
        XCTAssertEqual(Set(again.compactMap { $0.value(forKey: "name") as? String }).count, 50)
    }

    func testPrefetchedRelationshipFaultsKeepTheirRowsThroughASweep() throws {
        try saveTrails(1, hikesEach: 20)
        let container = try openContainer()
        let cache = rowCache(of: container)
        let trail = try XCTUnwrap(container.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first)
        let hikes = try XCTUnwrap(trail.value(forKey: "hikes") as? Set<NSManagedObject>)
        XCTAssertEqual(hikes.count, 20)
        XCTAssertTrue(hikes.allSatisfy(\.isFault))
        cache.sweep()
        let (trailsOfHikes, lines) = capturingSQL { hikes.compactMap { $0.value(forKey: "trail") as? NSManagedObject } }
        XCTAssertEqual(trailsOfHikes.count, 20)
        XCTAssertTrue(trailsOfHikes.allSatisfy { $0 === trail })
        XCTAssertEqual(selects(lines), [], "the prefetched rows survived the sweep")
    }

    /// A save's deletions leave the row cache and the registry together (one hold of each
    /// lock): the deleted rows go, the others stay, and the deleted objects leave the context.
    func testSavedDeletionsLeaveTheCacheAndTheRegistryAndNothingElseDoes() throws {
        try saveTrails(6)
        let container = try openContainer()
        let context = container.viewContext
        let cache = rowCache(of: container)
        let trails = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
        XCTAssertEqual(trails.compactMap { $0.value(forKey: "name") as? String }.count, 6)
        let (doomed, kept) = (Array(trails.prefix(4)), Array(trails.dropFirst(4)))
        let doomedIDs = doomed.map(\.objectID)
        for trail in doomed { context.delete(trail) }
        try context.save()
        cache.sweep()
        XCTAssertEqual(cache.count, 2, "only the kept objects' rows")
        for id in doomedIDs {
            XCTAssertNil(id.storeKey.flatMap { cache.row(for: $0) })
            XCTAssertNil(context.registeredObject(for: id), "a deleted object leaves the registry")
        }
        XCTAssertTrue(doomed.allSatisfy { $0.managedObjectContext == nil && !$0.isDeleted })
        for trail in kept {
            XCTAssertTrue(context.registeredObject(for: trail.objectID) === trail)
            XCTAssertNotNil(trail.objectID.storeKey.flatMap { cache.row(for: $0) })
        }
        let (names, lines) = capturingSQL { kept.compactMap { $0.value(forKey: "name") as? String } }
        XCTAssertEqual(names.count, 2)
        XCTAssertEqual(selects(lines), [])
        XCTAssertEqual(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Trail")), 2)
        XCTAssertThrowsError(try context.existingObject(with: doomedIDs[0]), "the row is gone from the store too")
    }

    func testTheCacheSweepsItselfWhenItHasDoubled() throws {
        let count = RowCache.minimumSweepCount + 1
        try saveTrails(count)
        let container = try openContainer()
        let cache = rowCache(of: container)
        // Fetched and read, then released: their rows stay until the cache grows again.
        _ = try container.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).map { $0.value(forKey: "name") }
        XCTAssertEqual(cache.count, count)

        // Saving as many new rows doubles the cache and sweeps it; the new rows are held
        // by the inserted objects' snapshots, the old ones by no one.
        var inserted: [NSManagedObject] = []
        for index in 0..<count {
            let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: container.viewContext)
            trail.setValue("New \(index)", forKey: "name")
            inserted.append(trail)
        }
        try container.viewContext.save()
        XCTAssertEqual(cache.count, count, "only the rows of the objects still held")
        XCTAssertEqual(inserted.count, count)
    }

    /// A sweep that drops a few rows removes them one by one; one that drops most builds a
    /// table of the held rows instead. Either way the held rows stay, current, and their
    /// faults fire without SQL.
    func testSweepsDroppingFewOrMostRowsKeepEveryHeldRow() throws {
        try saveTrails(10)
        for heldCount in [7, 2] {
            let container = try openContainer()
            let cache = rowCache(of: container)
            var trails: [NSManagedObject]? = try container.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
            let held = Array(trails!.prefix(heldCount))
            trails = nil
            cache.sweep()
            XCTAssertEqual(cache.count, heldCount, "only the rows of the faults still held")
            for trail in held {
                let row = try XCTUnwrap(trail.objectID.storeKey.flatMap { cache.row(for: $0) })
                XCTAssertEqual(row.currentIn, cache.identity, "a kept row is still the cache's current row")
            }
            assertFiresFromTheCacheAfterASweep(held, key: "name", in: container)
        }
    }

    /// A store into an empty cache sweeps nothing (every cached row is then one the caller
    /// holds) and sets the next sweep as a sweep does: once the cache has doubled. The
    /// rows nobody holds go at that sweep, not before.
    func testAFirstLargeStoreSetsTheNextSweepWithoutDroppingRows() {
        let entity = makeEntity("Row")
        func rows(_ keys: Range<Int>) -> [StoreRow] {
            keys.map { StoreRow(key: StoreKey(entityNumber: 1, primaryKey: Int64($0)), entity: entity, version: 1, attributes: [:], toOne: [:]) }
        }
        let cache = RowCache()
        cache.store(rows(0..<5_000))
        XCTAssertEqual(cache.count, 5_000)
        cache.store(rows(5_000..<9_999))
        XCTAssertEqual(cache.count, 9_999, "no sweep before the cache doubled: the unheld rows stay")
        cache.store(rows(9_999..<10_000))
        XCTAssertEqual(cache.count, 1, "the sweep at 10,000 rows keeps only the row its caller holds")
    }

    // MARK: Every way a fault comes to be holds its row

    /// Sweeps, then reads `key` of every object: no SELECT may run.
    private func assertFiresFromTheCacheAfterASweep(_ objects: [NSManagedObject], key: String, in container: NSPersistentContainer, file: StaticString = #filePath, line: UInt = #line) {
        rowCache(of: container).sweep()
        let (values, lines) = capturingSQL { objects.map { $0.value(forKey: key) } }
        XCTAssertEqual(values.count, objects.count, file: file, line: line)
        XCTAssertEqual(selects(lines), [], file: file, line: line)
    }

    func testAFetchEvaluatedInMemoryHoldsItsRows() throws {
        try saveTrails(30)
        let container = try openContainer()
        // An unsaved insert makes the fetch run in memory over every stored row.
        NSEntityDescription.insertNewObject(forEntityName: "Trail", into: container.viewContext).setValue("Pending", forKey: "name")
        let trails = try container.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
        XCTAssertEqual(trails.count, 31)
        assertFiresFromTheCacheAfterASweep(trails, key: "name", in: container)
    }

    /// A fault fires from the row it holds only while that is still the cache's row for its
    /// key: once another context's save has put a newer row there, the fault fires with the
    /// newer one, as Core Data fires faults from the row cache's current row.
    /// A row that outlived its cache is current in no other cache, not even one made later
    /// (caches mark their rows with a number no other cache ever gets).
    func testARowOutlivingItsCacheIsCurrentInNoLaterCache() throws {
        try saveTrails(1)
        let container = try openContainer()
        let fetched = try XCTUnwrap(container.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first)
        let held = try XCTUnwrap(fetched.state.heldRow)
        var first: RowCache? = RowCache()
        first!.store(held)
        XCTAssertTrue(first!.currentRow(holding: held, for: held.key) === held)
        let firstIdentity = first!.identity
        first = nil
        let later = RowCache()
        XCTAssertNotEqual(later.identity, firstIdentity)
        XCTAssertNil(later.currentRow(holding: held, for: held.key), "an empty cache has no current row, whatever the row says")
    }

    func testAFaultWhoseHeldRowWasReplacedFiresWithTheCachesNewerRow() throws {
        try saveTrails(3)
        let container = try openContainer()
        let faults = try container.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
        XCTAssertTrue(faults.allSatisfy(\.isFault))
        let held = try XCTUnwrap(faults[0].state.heldRow)
        XCTAssertEqual(held.currentIn, rowCache(of: container).identity, "a fetched fault holds the cache's current row")

        let other = container.newBackgroundContext()
        try other.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
            request.predicate = NSPredicate(format: "name == %@", "Trail 0")
            try XCTUnwrap(other.fetch(request).first).setValue("Renamed", forKey: "name")
            try other.save()
        }
        XCTAssertEqual(held.currentIn, 0, "the save replaced the held row in the cache")
        let (name, lines) = capturingSQL { faults[0].value(forKey: "name") as? String }
        XCTAssertEqual(name, "Renamed", "the fault fired with the cache's newer row, not the one it held")
        XCTAssertEqual(selects(lines), [], "from the cache, without SQL")
        XCTAssertEqual(faults[1].value(forKey: "name") as? String, "Trail 1", "an untouched row fires from the row it holds")
    }

    /// Dropping an entity's rows (what a batch request does) leaves none of them current:
    /// a fault still holding one must not fire from it once a refetch has cached the
    /// store's newer row for the same key.
    func testRowsDroppedForABatchRequestAreNoLongerCurrent() throws {
        try saveTrails(1)
        let container = try openContainer()
        let cache = rowCache(of: container)
        let held = try XCTUnwrap(container.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first?.state.heldRow)
        XCTAssertEqual(held.currentIn, cache.identity)
        cache.removeRows(ofEntities: [held.key.entityNumber])
        XCTAssertEqual(held.currentIn, 0, "a dropped row is current nowhere")
        XCTAssertNil(cache.currentRow(holding: held, for: held.key))
    }

    func testAFaultHeldAcrossABatchUpdateFiresWithTheRefetchedRow() throws {
        try saveTrails(1)
        let container = try openContainer()
        let fault = try XCTUnwrap(container.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first)
        XCTAssertTrue(fault.isFault)
        let other = container.newBackgroundContext()
        try other.performAndWait {
            let update = NSBatchUpdateRequest(entityName: "Trail")
            update.propertiesToUpdate = ["name": "Batch"]
            try other.execute(update)
            // The refetch caches the store's row again, under the same key.
            XCTAssertEqual(try other.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first?.value(forKey: "name") as? String, "Batch")
        }
        XCTAssertEqual(fault.value(forKey: "name") as? String, "Batch", "the fault fired with the cache's current row, not the row it held")
    }

    func testRefetchingRefreshingAndOtherContextsKeepTheRowsHeld() throws {
        try saveTrails(30)
        let container = try openContainer()
        let context = container.viewContext
        let trails = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
        _ = trails.map { $0.value(forKey: "name") }
        // A refetch and another context's fetch cache the same rows again, then let go.
        _ = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
        let other = container.newBackgroundContext()
        try other.performAndWait { _ = try other.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")) }
        for trail in trails { context.refresh(trail, mergeChanges: false) }
        XCTAssertTrue(trails.allSatisfy(\.isFault))
        assertFiresFromTheCacheAfterASweep(trails, key: "name", in: container)
    }

    func testBatchedRelationshipAndPrefetchedFaultsHoldRowsAlreadyCached() throws {
        try saveTrails(20, hikesEach: 1)
        let container = try openContainer()
        let context = container.viewContext
        // Before each case every row is cached, by objects that are then released.
        func cacheEveryRow() throws {
            _ = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).map { $0.value(forKey: "name") }
            _ = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Hike")).map { $0.value(forKey: "date") }
        }

        try cacheEveryRow()
        let batched = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        batched.fetchBatchSize = 5
        assertFiresFromTheCacheAfterASweep(try context.fetch(batched), key: "name", in: container)

        try cacheEveryRow()
        let trail = try XCTUnwrap(context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first)
        let hikes = try XCTUnwrap(trail.value(forKey: "hikes") as? Set<NSManagedObject>)
        XCTAssertTrue(hikes.allSatisfy(\.isFault))
        assertFiresFromTheCacheAfterASweep(Array(hikes), key: "date", in: container)

        try cacheEveryRow()
        let prefetching = NSFetchRequest<NSManagedObject>(entityName: "Hike")
        prefetching.relationshipKeyPathsForPrefetching = ["trail"]
        let trailsOfHikes = try context.fetch(prefetching).compactMap { $0.value(forKey: "trail") as? NSManagedObject }
        XCTAssertEqual(trailsOfHikes.count, 20)
        assertFiresFromTheCacheAfterASweep(trailsOfHikes, key: "name", in: container)
    }

    func testSweepsWhileOtherContextsFetchAndFire() throws {
        try saveTrails(200)
        let container = try openContainer()
        let cache = rowCache(of: container)
        DispatchQueue.concurrentPerform(iterations: 6) { worker in
            let context = container.newBackgroundContext()
            context.performAndWait {
                for _ in 0..<20 {
                    if worker % 2 == 0 {
                        cache.sweep()
                        continue
                    }
                    let trails = (try? context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))) ?? []
                    XCTAssertEqual(trails.compactMap { $0.value(forKey: "name") as? String }.count, 200)
                    context.reset()
                }
            }
        }
    }
}
