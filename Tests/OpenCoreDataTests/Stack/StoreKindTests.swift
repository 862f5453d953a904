import Foundation
import XCTest
@testable import OpenCoreData

/// The core behaviour of a store (saving every attribute type, fetching with predicates,
/// sorts and limits, faults, relationships, deletes, relaunching), run against the SQLite
/// store and against ``JSONFileStore``, an ``NSIncrementalStore`` written in the tests:
/// the same assertions pass for both, so contexts depend on the store boundary only.
///
/// Each test runs its body once per store kind, in a fresh folder (XCTest on Linux does
/// not run test methods a subclass inherits, so the kinds are not subclasses).
final class StoreKindTests: CoreTestCase {
    enum Kind: String, CaseIterable {
        case sqlite = "SQLite"
        case json = "JSONFile"
    }

    override func setUpWithError() throws {
        try super.setUpWithError()
        NSPersistentStoreCoordinator.registerStoreClass(JSONFileStore.self, forStoreType: JSONFileStore.type)
    }

    override func tearDownWithError() throws {
        JSONFileStore.nextError = nil
        try super.tearDownWithError()
    }

    private var kind = Kind.sqlite
    private var kindDirectory: URL!

    /// Runs `body` once per store kind, each in a folder of its own.
    private func forEachKind(_ body: () throws -> Void) rethrows {
        for kind in Kind.allCases {
            self.kind = kind
            kindDirectory = directory.appendingPathComponent(kind.rawValue, isDirectory: true)
            try? FileManager.default.createDirectory(at: kindDirectory, withIntermediateDirectories: true)
            try body()
        }
    }

    /// A container on this kind's store file, as a launch of the app opens it.
    private func open() throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Trails", managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: kindDirectory.appendingPathComponent(kind == .sqlite ? "Trails.sqlite" : "Trails.json"))
        description.type = kind.rawValue
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    private func insertTrail(_ name: String, rating: Double, into context: NSManagedObjectContext) -> NSManagedObject {
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        trail.setValue(name, forKey: "name")
        trail.setValue(rating, forKey: "rating")
        return trail
    }

    private func names(_ objects: [NSManagedObject]) -> [String] {
        objects.map { $0.value(forKey: "name") as? String ?? "?" }
    }

    func testTheStoreIsTheRegisteredKind() throws {
        try forEachKind {
            let store = try XCTUnwrap(open().persistentStoreCoordinator.persistentStores.first)
            XCTAssertEqual(store.type, kind.rawValue)
            XCTAssertEqual(store is JSONFileStore, kind == .json)
            XCTAssertEqual(UUID(uuidString: store.identifier) != nil, true, "\(kind): the identifier is the UUID from the metadata")
        }
    }

    func testEveryAttributeTypeRoundTripsThroughASecondContainer() throws {
        try forEachKind {
            let date = Date(timeIntervalSinceReferenceDate: 123_456_789.125)
            let id = UUID()
            let writer = try open()
            let trail = insertTrail("Laugavegur ✓ 火山", rating: 4.5, into: writer.viewContext)
            trail.setValue(Data([0, 1, 2, 250]), forKey: "photo")
            trail.setValue(["volcano", "river"], forKey: "tags")
            trail.setValue(Int32.max, forKey: "elevation")
            trail.setValue(Int16.min, forKey: "steps")
            trail.setValue(Int64(1) << 40, forKey: "visits")
            trail.setValue(Float(0.25), forKey: "grade")
            trail.setValue(Decimal(string: "19.99"), forKey: "fee")
            trail.setValue(true, forKey: "isFavorite")
            trail.setValue(date, forKey: "lastHiked")
            trail.setValue(id, forKey: "id")
            trail.setValue(URL(string: "https://example.org/laugavegur")!, forKey: "url")
            trail.setValue("not saved", forKey: "scratch")
            try writer.viewContext.save()
            XCTAssertFalse(trail.objectID.isTemporaryID, "\(kind): saved objects have permanent IDs")

            let reader = try open()
            let fetched = try XCTUnwrap(reader.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first)
            XCTAssertEqual(fetched.value(forKey: "name") as? String, "Laugavegur ✓ 火山", "\(kind)")
            XCTAssertEqual(fetched.value(forKey: "rating") as? Double, 4.5, "\(kind)")
            XCTAssertEqual(fetched.value(forKey: "photo") as? Data, Data([0, 1, 2, 250]), "\(kind)")
            XCTAssertEqual(fetched.value(forKey: "tags") as? [String], ["volcano", "river"], "\(kind)")
            XCTAssertEqual(fetched.value(forKey: "elevation") as? Int32, .max, "\(kind)")
            XCTAssertEqual(fetched.value(forKey: "steps") as? Int16, .min, "\(kind)")
            XCTAssertEqual(fetched.value(forKey: "visits") as? Int64, Int64(1) << 40, "\(kind)")
            XCTAssertEqual(fetched.value(forKey: "grade") as? Float, 0.25, "\(kind)")
            XCTAssertEqual(fetched.value(forKey: "fee") as? Decimal, Decimal(string: "19.99"), "\(kind)")
            XCTAssertEqual(fetched.value(forKey: "isFavorite") as? Bool, true, "\(kind)")
            XCTAssertEqual(fetched.value(forKey: "lastHiked") as? Date, date, "\(kind)")
            XCTAssertEqual(fetched.value(forKey: "id") as? UUID, id, "\(kind)")
            XCTAssertEqual(fetched.value(forKey: "url") as? URL, URL(string: "https://example.org/laugavegur"), "\(kind)")
            XCTAssertNil(fetched.value(forKey: "scratch"), "\(kind): transient values are not saved")
        }
    }

    func testFetchAppliesPredicateSortOffsetLimitAndCounts() throws {
        try forEachKind {
            let writer = try open()
            for (name, rating) in [("Bright Angel", 4.0), ("Kungsleden", 5.0), ("Abel Tasman", 3.5), ("Zion Narrows", 4.5), ("Camino", 2.0)] {
                _ = insertTrail(name, rating: rating, into: writer.viewContext)
            }
            try writer.viewContext.save()
            let context = try open().viewContext
            let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
            request.predicate = NSPredicate(format: "rating >= %@", NSNumber(value: 3.5))
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            XCTAssertEqual(names(try context.fetch(request)), ["Abel Tasman", "Bright Angel", "Kungsleden", "Zion Narrows"], "\(kind)")
            request.fetchOffset = 1
            request.fetchLimit = 2
            XCTAssertEqual(names(try context.fetch(request)), ["Bright Angel", "Kungsleden"], "\(kind)")
            request.fetchOffset = 0
            request.fetchLimit = 0
            XCTAssertEqual(try context.count(for: request), 4, "\(kind)")
            request.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: false)]
            XCTAssertEqual(names(try context.fetch(request)).first, "Kungsleden", "\(kind)")

            let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Trail")
            ids.resultType = .managedObjectIDResultType
            ids.predicate = NSPredicate(format: "name BEGINSWITH %@", "Z")
            let found = try context.fetch(ids)
            XCTAssertEqual(found.count, 1, "\(kind)")
            XCTAssertEqual(try context.existingObject(with: found[0]).value(forKey: "name") as? String, "Zion Narrows", "\(kind)")
            let counted = NSFetchRequest<NSNumber>(entityName: "Trail")
            counted.resultType = .countResultType
            XCTAssertEqual(try context.fetch(counted).first?.intValue, 5, "\(kind)")
        }
    }

    func testFetchMergesTheContextsUnsavedChanges() throws {
        try forEachKind {
            let context = try open().viewContext
            let keep = insertTrail("Keep", rating: 4, into: context)
            let drop = insertTrail("Drop", rating: 4, into: context)
            _ = insertTrail("Low", rating: 1, into: context)
            try context.save()
            _ = keep
            context.delete(drop)
            _ = insertTrail("New", rating: 5, into: context)
            let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
            request.predicate = NSPredicate(format: "rating > 3")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            XCTAssertEqual(names(try context.fetch(request)), ["Keep", "New"], "\(kind): the unsaved insert is in, the deletion out")
            XCTAssertEqual(try context.count(for: request), 2, "\(kind)")
            request.includesPendingChanges = false
            XCTAssertEqual(try context.count(for: request), 2, "\(kind): Keep and Drop as saved")
        }
    }

    func testFetchedObjectsAreFaultsUntilTouched() throws {
        try forEachKind {
            let writer = try open()
            _ = insertTrail("Faulty", rating: 3, into: writer.viewContext)
            try writer.viewContext.save()
            let context = try open().viewContext
            let trail = try XCTUnwrap(context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first)
            XCTAssertTrue(trail.isFault, "\(kind): a plain fetch returns faults")
            XCTAssertEqual(trail.value(forKey: "rating") as? Double, 3, "\(kind)")
            XCTAssertFalse(trail.isFault, "\(kind): touching a value fulfils the fault")
            let byID = context.object(with: trail.objectID)
            XCTAssertTrue(byID === trail, "\(kind): one object per ID in a context")
            let other = try open().viewContext
            let fault = other.object(with: trail.objectID)
            XCTAssertTrue(fault.isFault, "\(kind): object(with:) makes a fault")
            XCTAssertEqual(fault.value(forKey: "name") as? String, "Faulty", "\(kind): the fault fires from the store")
        }
    }

    func testUpdatesAndDeletesSurviveARelaunch() throws {
        try forEachKind {
            let context = try open().viewContext
            let first = insertTrail("First", rating: 1, into: context)
            let second = insertTrail("Second", rating: 2, into: context)
            try context.save()
            first.setValue(4.5, forKey: "rating")
            context.delete(second)
            try context.save()
            let reader = try open().viewContext
            let trails = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
            XCTAssertEqual(names(trails), ["First"], "\(kind)")
            XCTAssertEqual(trails.first?.value(forKey: "rating") as? Double, 4.5, "\(kind)")
        }
    }

    func testOneToManyRelationshipRoundTripsAndCascades() throws {
        try forEachKind {
            let context = try open().viewContext
            let trail = insertTrail("Tongariro", rating: 5, into: context)
            for offset in 0..<3 {
                let hike = NSEntityDescription.insertNewObject(forEntityName: "Hike", into: context)
                hike.setValue(Date(timeIntervalSinceReferenceDate: Double(offset) * 86_400), forKey: "date")
                hike.setValue(trail, forKey: "trail")
            }
            try context.save()

            let reader = try open().viewContext
            let reread = try XCTUnwrap(reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first)
            let hikes = try XCTUnwrap(reread.value(forKey: "hikes") as? Set<NSManagedObject>)
            XCTAssertEqual(hikes.count, 3, "\(kind): the to-many comes back from the store")
            for hike in hikes {
                XCTAssertTrue(hike.value(forKey: "trail") as? NSManagedObject === reread, "\(kind): each to-one leads back")
            }
            let byTrail = NSFetchRequest<NSManagedObject>(entityName: "Hike")
            byTrail.predicate = NSPredicate(format: "trail.name == %@", "Tongariro")
            XCTAssertEqual(try reader.count(for: byTrail), 3, "\(kind): a predicate through a relationship")

            reader.delete(reread)
            try reader.save()
            let after = try open().viewContext
            XCTAssertEqual(try after.count(for: NSFetchRequest<NSManagedObject>(entityName: "Hike")), 0, "\(kind): the cascade deleted the hikes")
        }
    }

    func testObtainPermanentIDsBeforeSaving() throws {
        try forEachKind {
            let context = try open().viewContext
            let trail = insertTrail("Early", rating: 2, into: context)
            XCTAssertTrue(trail.objectID.isTemporaryID)
            try context.obtainPermanentIDs(for: [trail])
            XCTAssertFalse(trail.objectID.isTemporaryID, "\(kind)")
            let id = trail.objectID
            try context.save()
            XCTAssertEqual(trail.objectID, id, "\(kind): the save keeps the ID obtained early")
            let uri = id.uriRepresentation()
            XCTAssertEqual(uri.scheme, "x-coredata", "\(kind)")
            XCTAssertEqual(context.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: uri), id, "\(kind)")
        }
    }

    func testAChildContextSavesThroughItsParentIntoTheStore() throws {
        try forEachKind {
            let container = try open()
            let parent = container.viewContext
            _ = insertTrail("Saved first", rating: 2, into: parent)
            try parent.save()
            let child = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            child.parent = parent
            _ = insertTrail("From the child", rating: 4, into: child)
            let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            XCTAssertEqual(names(try child.fetch(request)), ["From the child", "Saved first"], "\(kind): the child sees the store's rows and its own insert")
            try child.save()
            XCTAssertEqual(try open().viewContext.count(for: request), 1, "\(kind): a child's save reaches the parent, not the store")
            try parent.save()
            let relaunched = try open()
            XCTAssertEqual(names(try relaunched.viewContext.fetch(request)), ["From the child", "Saved first"], "\(kind)")
        }
    }

    func testAFetchedResultsControllerFetchesFromEitherStore() throws {
        try forEachKind {
            let container = try open()
            let context = container.viewContext
            _ = insertTrail("Bravo", rating: 2, into: context)
            _ = insertTrail("Alpha", rating: 4, into: context)
            _ = insertTrail("Zero", rating: 0, into: context)
            try context.save()
            let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            request.predicate = NSPredicate(format: "rating > 1")
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                        sectionNameKeyPath: nil, cacheName: nil)
            try controller.performFetch()
            XCTAssertEqual(names(controller.fetchedObjects ?? []), ["Alpha", "Bravo"], "\(kind)")
            XCTAssertEqual(controller.sections?.first?.numberOfObjects, 2, "\(kind)")
            _ = insertTrail("Charlie", rating: 3, into: context)
            try context.save()
            try controller.performFetch()
            XCTAssertEqual(names(controller.fetchedObjects ?? []), ["Alpha", "Bravo", "Charlie"], "\(kind)")
        }
    }

    func testStringPredicatesListsRangesCompoundSortsAndPendingCounts() throws {
        try forEachKind {
            let writer = try open()
            for (name, rating) in [("Kungsleden", 5.0), ("kalalau", 4.0), ("Camino", 4.0), ("Überweg", 2.5), ("Abel Tasman", 4.0)] {
                _ = insertTrail(name, rating: rating, into: writer.viewContext)
            }
            try writer.viewContext.save()
            let context = try open().viewContext
            let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
            request.predicate = NSPredicate(format: "name CONTAINS[cd] %@", "uber")
            XCTAssertEqual(names(try context.fetch(request)), ["Überweg"], "\(kind): case and diacritics ignored")
            request.predicate = NSPredicate(format: "name BEGINSWITH[c] %@", "K")
            XCTAssertEqual(Set(names(try context.fetch(request))), ["Kungsleden", "kalalau"], "\(kind)")
            request.predicate = NSPredicate(format: "rating IN %@", [4.0, 5.0])
            XCTAssertEqual(try context.count(for: request), 4, "\(kind)")
            request.predicate = NSPredicate(format: "rating BETWEEN {3, 4.5}")
            XCTAssertEqual(try context.count(for: request), 3, "\(kind)")
            request.predicate = NSPredicate(format: "NOT (rating >= 4) OR name == %@", "Camino")
            XCTAssertEqual(Set(names(try context.fetch(request))), ["Überweg", "Camino"], "\(kind)")
            request.predicate = nil
            request.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: false), NSSortDescriptor(key: "name", ascending: true)]
            XCTAssertEqual(names(try context.fetch(request)), ["Kungsleden", "Abel Tasman", "Camino", "kalalau", "Überweg"], "\(kind)")

            // Unsaved changes count unless the request leaves them out.
            _ = insertTrail("Zermatt", rating: 4, into: context)
            let camino = try XCTUnwrap(try context.fetch(request).first { $0.value(forKey: "name") as? String == "Camino" })
            camino.setValue(1.0, forKey: "rating")
            let fours = NSFetchRequest<NSManagedObject>(entityName: "Trail")
            fours.predicate = NSPredicate(format: "rating == 4")
            XCTAssertEqual(try context.count(for: fours), 3, "\(kind): Abel Tasman, kalalau and the unsaved Zermatt")
            fours.includesPendingChanges = false
            XCTAssertEqual(try context.count(for: fours), 3, "\(kind): Abel Tasman, Camino and kalalau as saved")
            fours.includesPendingChanges = true
            fours.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            XCTAssertEqual(names(try context.fetch(fours)), ["Abel Tasman", "Zermatt", "kalalau"], "\(kind)")
        }
    }

    func testMovingAndRemovingToManyMembersSurvivesARelaunch() throws {
        try forEachKind {
            let context = try open().viewContext
            let tongariro = insertTrail("Tongariro", rating: 5, into: context)
            let routeburn = insertTrail("Routeburn", rating: 4, into: context)
            var hikes: [NSManagedObject] = []
            for offset in 0..<3 {
                let hike = NSEntityDescription.insertNewObject(forEntityName: "Hike", into: context)
                hike.setValue(Date(timeIntervalSinceReferenceDate: Double(offset) * 86_400), forKey: "date")
                hike.setValue(tongariro, forKey: "trail")
                hikes.append(hike)
            }
            try context.save()
            hikes[0].setValue(routeburn, forKey: "trail")
            tongariro.mutableSetValue(forKey: "hikes").remove(hikes[1])
            try context.save()

            let reader = try open().viewContext
            let trails = NSFetchRequest<NSManagedObject>(entityName: "Trail")
            trails.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let fetched = try reader.fetch(trails)
            XCTAssertEqual(names(fetched), ["Routeburn", "Tongariro"], "\(kind)")
            XCTAssertEqual((fetched[0].value(forKey: "hikes") as? Set<NSManagedObject>)?.count, 1, "\(kind): the moved hike")
            XCTAssertEqual((fetched[1].value(forKey: "hikes") as? Set<NSManagedObject>)?.count, 1, "\(kind): one left of three")
            let orphans = NSFetchRequest<NSManagedObject>(entityName: "Hike")
            orphans.predicate = NSPredicate(format: "trail == nil")
            XCTAssertEqual(try reader.count(for: orphans), 1, "\(kind): the removed hike is kept, without a trail")
        }
    }

    func testAConflictingSaveFailsAndAMergePolicySettlesIt() throws {
        try forEachKind {
            let container = try open()
            let mine = container.viewContext
            let trail = insertTrail("Original", rating: 1, into: mine)
            try mine.save()
            let other = container.newBackgroundContext()
            try other.performAndWait {
                let theirs = try other.existingObject(with: trail.objectID)
                theirs.setValue(5.0, forKey: "rating")
                try other.save()
            }
            trail.setValue("Mine", forKey: "name")
            XCTAssertThrowsError(try mine.save(), "\(kind): the stored version moved on since the object was read") { error in
                let error = error as NSError
                XCTAssertEqual(error.code, NSManagedObjectMergeError, "\(kind)")
                let conflicts = error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict]
                XCTAssertEqual(conflicts?.count, 1, "\(kind)")
                XCTAssertTrue(conflicts?.first?.sourceObject === trail, "\(kind)")
                XCTAssertEqual(conflicts?.first?.oldVersionNumber, 1, "\(kind): the version the object was read at")
                XCTAssertEqual(conflicts?.first?.newVersionNumber, 2, "\(kind): the version in the store now")
                XCTAssertEqual(conflicts?.first?.cachedSnapshot?["rating"] as? Double, 5, "\(kind)")
            }
            XCTAssertTrue(mine.hasChanges, "\(kind): a failed save keeps the changes")
            mine.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
            try mine.save()
            let relaunched = try open()
            let reread = try XCTUnwrap(try relaunched.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).first)
            XCTAssertEqual(reread.value(forKey: "name") as? String, "Mine", "\(kind): my change")
            XCTAssertEqual(reread.value(forKey: "rating") as? Double, 5, "\(kind): their change, which mine did not touch")
        }
    }

    func testRefreshTurnsAnObjectBackIntoAFaultThatReadsTheNewestSave() throws {
        try forEachKind {
            let container = try open()
            let mine = container.viewContext
            let trail = insertTrail("Refreshing", rating: 1, into: mine)
            try mine.save()
            let other = container.newBackgroundContext()
            try other.performAndWait {
                try other.existingObject(with: trail.objectID).setValue(2.5, forKey: "rating")
                try other.save()
            }
            XCTAssertEqual(trail.value(forKey: "rating") as? Double, 1, "\(kind): an object keeps the values it read")
            mine.refresh(trail, mergeChanges: false)
            XCTAssertTrue(trail.isFault, "\(kind)")
            XCTAssertEqual(trail.value(forKey: "rating") as? Double, 2.5, "\(kind): the fault reads the other context's save")
            trail.setValue("Refreshed", forKey: "name")
            try mine.save()
            XCTAssertFalse(mine.hasChanges, "\(kind): no conflict, the object was read again at the newest version")
        }
    }

    func testADeleteOfAnObjectChangedElsewhereConflicts() throws {
        try forEachKind {
            let container = try open()
            let mine = container.viewContext
            let trail = insertTrail("Contested", rating: 3, into: mine)
            try mine.save()
            let other = container.newBackgroundContext()
            try other.performAndWait {
                try other.existingObject(with: trail.objectID).setValue(4.0, forKey: "rating")
                try other.save()
            }
            mine.delete(trail)
            XCTAssertThrowsError(try mine.save(), "\(kind)") { error in
                XCTAssertEqual((error as NSError).code, NSManagedObjectMergeError, "\(kind)")
            }
            mine.mergePolicy = NSMergePolicy.rollback
            try mine.save()
            XCTAssertEqual(try open().viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Trail")), 1,
                           "\(kind): the store's change wins, so the trail stays")
        }
    }

    // MARK: The incremental store only

    func testReferenceObjectsMakeEqualIDsAndURIsShowIntegerReferences() throws {
        kind = .json
        kindDirectory = directory
        let container = try open()
        let store = try XCTUnwrap(container.persistentStoreCoordinator.persistentStores.first as? JSONFileStore)
        let entity = try XCTUnwrap(model.entitiesByName["Trail"])
        let seven = store.newObjectID(for: entity, referenceObject: 7)
        XCTAssertEqual(seven, store.newObjectID(for: entity, referenceObject: 7))
        XCTAssertEqual(store.referenceObject(for: seven) as? Int, 7)
        XCTAssertEqual(seven.uriRepresentation().absoluteString, "x-coredata://\(store.identifier!)/Trail/p7")
        let named = store.newObjectID(for: entity, referenceObject: "kungsleden")
        XCTAssertEqual(named, store.newObjectID(for: entity, referenceObject: "kungsleden"))
        XCTAssertNotEqual(named, store.newObjectID(for: entity, referenceObject: "camino"))
        XCTAssertEqual(store.referenceObject(for: named) as? String, "kungsleden")
    }

    func testContextsTellTheStoreWhichObjectsTheyRegisterAndLetGo() throws {
        kind = .json
        kindDirectory = directory
        let container = try open()
        let store = try XCTUnwrap(container.persistentStoreCoordinator.persistentStores.first as? JSONFileStore)
        let context = container.viewContext
        let trail = insertTrail("Registered", rating: 3, into: context)
        try context.save()
        XCTAssertEqual(store.registeredIDs[trail.objectID], 1, "the saved object is registered under its permanent ID")
        let other = container.newBackgroundContext()
        var fetched: [NSManagedObject]? = try other.performAndWait { try other.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")) }
        XCTAssertEqual(fetched?.map(\.objectID), [trail.objectID])
        XCTAssertEqual(store.registeredIDs[trail.objectID], 2, "a second context registered the same object")
        other.performAndWait { other.reset() }
        XCTAssertEqual(store.registeredIDs[trail.objectID], 1, "reset let go of it")
        other.performAndWait { fetched = nil }
        XCTAssertEqual(store.registeredIDs[trail.objectID], 1, "freeing an object the context let go of says nothing more")
        XCTAssertNotNil(fetched == nil ? trail : nil)
        let onlyID = trail.objectID
        context.reset()
        XCTAssertNil(store.registeredIDs[onlyID], "the last context let go")
        _ = try other.performAndWait { try other.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")).count }
        XCTAssertNil(store.registeredIDs[onlyID], "an object a fetch made and nobody kept is let go when it is freed")
    }

    /// A save's deletions leave the registry together; an incremental store still hears of
    /// each object its context let go, and of no other.
    func testSavedDeletionsTellTheStoreWhichObjectsTheContextLetGo() throws {
        kind = .json
        kindDirectory = directory
        let container = try open()
        let store = try XCTUnwrap(container.persistentStoreCoordinator.persistentStores.first as? JSONFileStore)
        let context = container.viewContext
        let trails = (0..<3).map { insertTrail("Trail \($0)", rating: 1, into: context) }
        try context.save()
        let ids = trails.map(\.objectID)
        XCTAssertEqual(ids.map { store.registeredIDs[$0] }, [1, 1, 1])
        context.delete(trails[0])
        context.delete(trails[2])
        try context.save()
        XCTAssertNil(store.registeredIDs[ids[0]])
        XCTAssertNil(store.registeredIDs[ids[2]])
        XCTAssertEqual(store.registeredIDs[ids[1]], 1, "the kept object stays registered")
        XCTAssertTrue(context.registeredObject(for: ids[1]) === trails[1])
        XCTAssertNil(context.registeredObject(for: ids[0]))
        let relaunched = try open()
        XCTAssertEqual(names(try relaunched.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))), ["Trail 1"])
    }

    func testContextsOnSeveralQueuesUseTheStoreOneCallAtATime() throws {
        kind = .json
        kindDirectory = directory
        let container = try open()
        let group = DispatchGroup()
        let failures = NSLock()
        var errors: [Error] = []
        for worker in 0..<4 {
            let context = container.newBackgroundContext()
            group.enter()
            context.perform {
                defer { group.leave() }
                do {
                    for batch in 0..<5 {
                        for index in 0..<5 {
                            _ = self.insertTrail("w\(worker)-\(batch)-\(index)", rating: Double(index), into: context)
                        }
                        try context.save()
                        let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
                        request.predicate = NSPredicate(format: "name BEGINSWITH %@", "w\(worker)-")
                        let mine = try context.fetch(request)
                        if mine.count != (batch + 1) * 5 { throw NSError(domain: "count", code: mine.count) }
                        context.reset()
                    }
                } catch {
                    failures.lock(); errors.append(error); failures.unlock()
                }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success)
        XCTAssertTrue(errors.isEmpty, "\(errors)")
        XCTAssertEqual(try open().viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Trail")), 100, "every save reached the file")
    }

    func testErrorsThrownByTheStoreReachTheCallerUnchanged() throws {
        kind = .json
        kindDirectory = directory
        let context = try open().viewContext
        _ = insertTrail("Saved", rating: 3, into: context)
        try context.save()
        let failure = NSError(domain: "TrailServer", code: 503, userInfo: [NSLocalizedDescriptionKey: "The trail server is down."])
        JSONFileStore.nextError = failure
        XCTAssertThrowsError(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))) { error in
            XCTAssertEqual((error as NSError).domain, "TrailServer")
            XCTAssertEqual((error as NSError).code, 503)
            XCTAssertEqual((error as NSError).localizedDescription, "The trail server is down.")
        }
        _ = insertTrail("Unsaved", rating: 3, into: context)
        JSONFileStore.nextError = failure
        XCTAssertThrowsError(try context.save()) { error in
            XCTAssertEqual((error as NSError).domain, "TrailServer")
            XCTAssertEqual((error as NSError).code, 503)
        }
        XCTAssertTrue(context.hasChanges, "a failed save keeps the context's changes")
        try context.save()
        XCTAssertEqual(try open().viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Trail")), 2)
    }

    func testTheStoreFileHoldsWhatWasSaved() throws {
        kind = .json
        kindDirectory = directory
        let context = try open().viewContext
        _ = insertTrail("Routeburn", rating: 4.5, into: context)
        try context.save()
        let data = try Data(contentsOf: directory.appendingPathComponent("Trails.json"))
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let trails = try XCTUnwrap((document["objects"] as? [String: Any])?["Trail"] as? [String: Any])
        let record = try XCTUnwrap(trails["1"] as? [String: Any])
        XCTAssertEqual((record["values"] as? [String: Any])?["name"] as? String, "Routeburn")
        XCTAssertEqual(record["version"] as? Int, 1)
    }

    /// Core Data hands a batch request for an incremental store's entity to the store's
    /// `execute(_:with:)`; a store that does not run it throws, and the caller gets that
    /// error (as apps backed by incremental stores report: the store's own error domain).
    func testBatchRequestsReachTheIncrementalStore() throws {
        kind = .json
        kindDirectory = directory
        let context = try open().viewContext
        for (name, rating) in [("Low", 1.0), ("High", 5.0), ("Lower", 0.5)] { _ = insertTrail(name, rating: rating, into: context) }
        try context.save()
        let update = NSBatchUpdateRequest(entityName: "Trail")
        update.propertiesToUpdate = ["rating": 3.0]
        XCTAssertThrowsError(try context.execute(update)) { error in
            XCTAssertEqual((error as NSError).domain, "JSONFileStore")
            XCTAssertEqual((error as NSError).localizedDescription, "Unsupported request NSBatchUpdateRequest.")
        }
        let lowOnes = NSFetchRequest<NSFetchRequestResult>(entityName: "Trail")
        lowOnes.predicate = NSPredicate(format: "rating < 2")
        let delete = NSBatchDeleteRequest(fetchRequest: lowOnes)
        delete.resultType = .resultTypeCount
        let result = try XCTUnwrap(try context.execute(delete) as? NSBatchDeleteResult)
        XCTAssertEqual(result.result as? Int, 2, "the store's own batch delete ran and counted")
        XCTAssertEqual(try open().viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Trail")), 1)
    }
}
