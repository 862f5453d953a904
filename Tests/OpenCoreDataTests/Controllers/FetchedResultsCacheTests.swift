import Foundation
import XCTest
@testable import OpenCoreData

/// The persistent section cache: written under the XDG cache directory, reused by a later
/// launch with the same request, never used when the request or the rows changed.
final class FetchedResultsCacheTests: FetchedResultsTestCase {
    private final class Quiet: NSFetchedResultsControllerDelegate {}
    private let quiet = Quiet()

    private var cacheFile: URL {
        cacheHome.appendingPathComponent(ProcessInfo.processInfo.processName)
            .appendingPathComponent(".CoreDataCaches/SectionInfoCaches/Trails/sectionInfo")
    }

    private func seed() throws {
        let container = try openContainer()
        insertTrail("Kesch", region: "Alps", into: container.viewContext)
        insertTrail("Eiger", region: "Alps", into: container.viewContext)
        insertTrail("Skye", region: "Highlands", into: container.viewContext)
        try container.viewContext.save()
    }

    /// One "launch": a new container on the store and a controller with the cache.
    private func launch(_ request: NSFetchRequest<NSManagedObject>? = nil, delegate: Bool = true) throws -> (NSPersistentContainer, NSFetchedResultsController<NSManagedObject>) {
        let container = try openContainer()
        let controller = NSFetchedResultsController(fetchRequest: request ?? regionRequest(), managedObjectContext: container.viewContext,
                                                    sectionNameKeyPath: "region", cacheName: "Trails")
        if delegate { controller.delegate = quiet }
        try controller.performFetch()
        return (container, controller)
    }

    /// Rewrites the cached section names, keeping everything the cache is checked against:
    /// a controller showing these names has used the cache.
    private func tamperWithCachedNames() throws {
        var cache = try JSONDecoder().decode(FetchedResultsSectionCache.self, from: Data(contentsOf: cacheFile))
        cache.sections = cache.sections.map { .init(name: "cached " + $0.name, indexTitle: "C", count: $0.count) }
        try JSONEncoder().encode(cache).write(to: cacheFile)
    }

    func testTheCacheIsWrittenOnlyForAControllerWithADelegate() throws {
        try seed()
        _ = try launch(delegate: false)
        XCTAssertFalse(FileManager.default.fileExists(atPath: cacheFile.path))
        _ = try launch()
        XCTAssertTrue(FileManager.default.fileExists(atPath: cacheFile.path))
    }

    func testASecondLaunchWithTheSameRequestReusesTheCache() throws {
        try seed()
        _ = try launch()
        try tamperWithCachedNames()
        let (_, controller) = try launch()
        XCTAssertEqual(names(controller), ["cached Alps: Eiger, Kesch", "cached Highlands: Skye"])
        XCTAssertEqual(controller.sectionIndexTitles, ["C"])
    }

    func testAChangedRequestDoesNotUseTheStaleCache() throws {
        try seed()
        _ = try launch()
        try tamperWithCachedNames()
        let filtered = regionRequest()
        filtered.predicate = NSPredicate(format: "name != %@", "Nobody")
        let (_, controller) = try launch(filtered)
        XCTAssertEqual(names(controller), ["Alps: Eiger, Kesch", "Highlands: Skye"])

        _ = try launch()  // the cache now describes the unfiltered request again
        try tamperWithCachedNames()
        let descending = regionRequest()
        descending.sortDescriptors = [NSSortDescriptor(key: "region", ascending: false), NSSortDescriptor(key: "name", ascending: true)]
        let (_, reversed) = try launch(descending)
        XCTAssertEqual(names(reversed), ["Highlands: Skye", "Alps: Eiger, Kesch"])
    }

    func testChangedRowsInvalidateTheCache() throws {
        try seed()
        _ = try launch()
        try tamperWithCachedNames()
        // Another program renames a trail: same count, same request.
        let other = try openContainer()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        request.predicate = NSPredicate(format: "name == %@", "Skye")
        try other.viewContext.fetch(request)[0].setValue("Alps", forKey: "region")
        try other.viewContext.save()
        let (_, controller) = try launch()
        XCTAssertEqual(names(controller), ["Alps: Eiger, Kesch, Skye"])
    }

    func testDeleteCacheRemovesOneCacheOrAll() throws {
        try seed()
        _ = try launch()
        XCTAssertTrue(FileManager.default.fileExists(atPath: cacheFile.path))
        NSFetchedResultsController<NSManagedObject>.deleteCache(withName: "Other")
        XCTAssertTrue(FileManager.default.fileExists(atPath: cacheFile.path))
        NSFetchedResultsController<NSManagedObject>.deleteCache(withName: "Trails")
        XCTAssertFalse(FileManager.default.fileExists(atPath: cacheFile.path))
        _ = try launch()
        NSFetchedResultsController<NSManagedObject>.deleteCache(withName: nil)
        XCTAssertFalse(FileManager.default.fileExists(atPath: cacheFile.deletingLastPathComponent().deletingLastPathComponent().path))
    }

    func testAnUnreadableCacheIsDiscarded() throws {
        try seed()
        _ = try launch()
        try Data("not a cache".utf8).write(to: cacheFile)
        let (_, controller) = try launch()
        XCTAssertEqual(names(controller), ["Alps: Eiger, Kesch", "Highlands: Skye"])
        XCTAssertNotNil(FetchedResultsSectionCache.read(named: "Trails"))
    }
}
