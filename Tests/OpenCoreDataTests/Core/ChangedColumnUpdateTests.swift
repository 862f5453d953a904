import Foundation
import XCTest
@testable import OpenCoreData

/// A save of a changed object sets only the columns of the properties that changed, as
/// Core Data's `UPDATE` statements do, and every other column keeps its value.
final class ChangedColumnUpdateTests: CoreTestCase {
    private var externalFolder: URL { directory.appendingPathComponent(".Trails_SUPPORT/_EXTERNAL_DATA") }

    private func externalFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: externalFolder.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    private let photo = Data(repeating: 7, count: ExternalBinaryStorage.threshold + 1)

    private func saveOneTrail() throws {
        let context = try openContainer().viewContext
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        trail.setValue("Ridge Loop", forKey: "name")
        trail.setValue(4.0, forKey: "rating")
        trail.setValue(1200, forKey: "elevation")
        trail.setValue(photo, forKey: "photo")
        try context.save()
    }

    private func fetchOnlyTrail(_ context: NSManagedObjectContext) throws -> NSManagedObject {
        let trails = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
        XCTAssertEqual(trails.count, 1)
        return try XCTUnwrap(trails.first)
    }

    func testAnUpdateSetsTheChangedColumnAndTheVersionOnly() throws {
        try saveOneTrail()
        let context = try openContainer().viewContext
        let trail = try fetchOnlyTrail(context)
        trail.setValue(4.5, forKey: "rating")
        let (_, lines) = try capturingSQL { try context.save() }
        let updates = lines.filter { $0.hasPrefix("CoreData: sql: UPDATE ZTRAIL") }
        XCTAssertEqual(updates, ["CoreData: sql: UPDATE ZTRAIL SET ZRATING = ?, Z_OPT = ? WHERE Z_PK = ? AND Z_OPT = ?"], lines.joined(separator: "\n"))

        let container = try openContainer()   // held: its context must outlive the fetch
        let reopened = try fetchOnlyTrail(container.viewContext)
        XCTAssertEqual(reopened.value(forKey: "rating") as? Double, 4.5)
        XCTAssertEqual(reopened.value(forKey: "name") as? String, "Ridge Loop")
        XCTAssertEqual(reopened.value(forKey: "elevation") as? Int32, 1200)
        XCTAssertEqual(reopened.value(forKey: "photo") as? Data, photo)
        XCTAssertEqual(externalFiles().count, 1, "the unchanged external column keeps its file")
        let database = try SQLiteDatabase(path: storeURL.path)
        defer { database.close() }
        let version = try database.statement("SELECT Z_OPT FROM ZTRAIL")
        XCTAssertTrue(try version.step())
        XCTAssertEqual(version.int64(0), 2)
    }

    func testChangedExternalDataReplacesItsFileAndKeepsTheOtherColumns() throws {
        try saveOneTrail()
        let before = externalFiles()
        let context = try openContainer().viewContext
        let trail = try fetchOnlyTrail(context)
        let newPhoto = Data(repeating: 8, count: ExternalBinaryStorage.threshold + 2)
        trail.setValue(newPhoto, forKey: "photo")
        trail.setValue(nil, forKey: "elevation")
        try context.save()

        XCTAssertEqual(externalFiles().count, 1)
        XCTAssertNotEqual(externalFiles(), before, "the old file is gone, a new one holds the new data")
        let container = try openContainer()   // held: its context must outlive the fetch
        let reopened = try fetchOnlyTrail(container.viewContext)
        XCTAssertEqual(reopened.value(forKey: "photo") as? Data, newPhoto)
        XCTAssertNil(reopened.value(forKey: "elevation"))
        XCTAssertEqual(reopened.value(forKey: "rating") as? Double, 4.0)
    }

    func testAChangedToOneWritesItsForeignKey() throws {
        let context = try openContainer().viewContext
        let first = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        first.setValue("First", forKey: "name")
        let second = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        second.setValue("Second", forKey: "name")
        let hike = NSEntityDescription.insertNewObject(forEntityName: "Hike", into: context)
        hike.setValue(first, forKey: "trail")
        try context.save()

        hike.setValue(second, forKey: "trail")
        let (_, lines) = try capturingSQL { try context.save() }
        XCTAssertTrue(lines.contains("CoreData: sql: UPDATE ZHIKE SET ZTRAIL = ?, Z_OPT = ? WHERE Z_PK = ? AND Z_OPT = ?"), lines.joined(separator: "\n"))
        // Both trails' to-many `hikes` changed: no column of theirs, but a new version each.
        XCTAssertEqual(lines.filter { $0 == "CoreData: sql: UPDATE ZTRAIL SET Z_OPT = ? WHERE Z_PK = ? AND Z_OPT = ?" }.count, 2, lines.joined(separator: "\n"))

        let fresh = try openContainer().viewContext
        let hikes = try fresh.fetch(NSFetchRequest<NSManagedObject>(entityName: "Hike"))
        XCTAssertEqual((hikes.first?.value(forKey: "trail") as? NSManagedObject)?.value(forKey: "name") as? String, "Second")
    }
}
