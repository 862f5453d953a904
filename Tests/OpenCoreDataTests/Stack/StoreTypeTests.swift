import Foundation
import XCTest
@testable import OpenCoreData

/// The atomic binary store (one file, read whole, rewritten whole at each save) and the
/// XML store type that only macOS has.
final class StoreTypeTests: GraphTestCase {
    private func binaryContainer(_ url: URL) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Graph", managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: url)
        description.type = NSBinaryStoreType
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    private func inode(_ url: URL) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? NSNumber)?.intValue ?? -1
    }

    func testABinaryStoreIsOneFileReplacedWholeAtEverySave() throws {
        let url = directory.appendingPathComponent("Trails.binary")
        let container = try binaryContainer(url)
        XCTAssertEqual(container.persistentStoreCoordinator.persistentStores.first?.type, NSBinaryStoreType)
        XCTAssertTrue(FileManager.default.fileExists(atPath: url.path), "adding the store writes its file")
        let context = container.viewContext
        let trail = GTrail(context: context)
        trail.name = "Kepler"
        let before = try inode(url)
        try context.save()
        let after = try inode(url)
        XCTAssertNotEqual(before, after, "the save wrote a new file and moved it into place")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["Trails.binary"], "no journal or lock files beside it")

        let reopened = try binaryContainer(url)
        let trails: [GTrail] = try fetch("Trail", in: reopened.viewContext)
        XCTAssertEqual(trails.map(\.name), ["Kepler"])
        XCTAssertEqual(reopened.persistentStoreCoordinator.persistentStores.first?.identifier,
                       container.persistentStoreCoordinator.persistentStores.first?.identifier, "the same store UUID")
    }

    func testTheXMLStoreTypeIsRefusedAsOniOS() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        XCTAssertThrowsError(try coordinator.addPersistentStore(ofType: NSXMLStoreType, configurationName: nil, at: directory.appendingPathComponent("Trails.xml"))) { error in
            XCTAssertEqual((error as NSError).code, NSPersistentStoreInvalidTypeError)
        }
    }
}
