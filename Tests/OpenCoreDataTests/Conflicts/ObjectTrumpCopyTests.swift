import Foundation
import XCTest
@testable import OpenCoreData

/// A trail class with nothing of its own. Object trump copies an import's values onto a
/// stored object of this class through key-value coding, but onto a plain
/// `NSManagedObject` from slot to slot: the two must show the same.
final class KeyValueCodedTrail: NSManagedObject {}

/// What object trump leaves on the stored objects it merges an import into, the same
/// whether the stored object's class is `NSManagedObject` itself or a subclass of it.
final class ObjectTrumpCopyTests: ConflictTestCase {
    /// Records what the objects-did-change notifications of the import's save report for
    /// each updated trail: its changed values, its values of the current event and its
    /// committed values, as text.
    private final class Recorder {
        var lines: [String] = []
        var token: NSObjectProtocol?

        func describe(_ values: [String: Any]) -> String {
            values.keys.sorted().map { "\($0)=\(values[$0].map { "\($0)" } ?? "nil")" }.joined(separator: ",")
        }

        func record(_ notification: Notification) {
            let updated = (notification.userInfo?[NSUpdatedObjectsKey] as? Set<NSManagedObject>) ?? []
            let deleted = (notification.userInfo?[NSDeletedObjectsKey] as? Set<NSManagedObject>) ?? []
            lines.append("deleted \(deleted.count)")
            for object in updated.sorted(by: { ($0.value(forKey: "name") as? String ?? "") < ($1.value(forKey: "name") as? String ?? "") }) {
                lines.append("\(object.value(forKey: "name") ?? "nil") changed keys \(object.changedValues().keys.sorted())")
                lines.append("\(object.value(forKey: "name") ?? "nil") updated=\(object.isUpdated) changed[\(describe(object.changedValues()))] "
                    + "event[\(describe(object.changedValuesForCurrentEvent()))] "
                    + "committed[\(describe(object.committedValues(forKeys: ["rating", "lengthKm", "country"])))]")
            }
        }
    }

    /// Stores Ridge and Summit, then imports both again with some values changed (a rating,
    /// a length, an optional cleared), some not, under object trump; returns what the
    /// save's notifications reported and the stored rows.
    private func importAgain(storedAs className: String?) throws -> (notes: [String], stored: String) {
        let model = Self.trailModel()
        if let className { model.entitiesByName["Trail"]!.managedObjectClassName = className }
        let container = try Self.openContainer(at: directory.appendingPathComponent("\(className ?? "plain").sqlite"), model: model)
        func context() -> NSManagedObjectContext {
            let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = container.persistentStoreCoordinator
            return context
        }
        let setup = context()
        insertTrail("Ridge", rating: 3, lengthKm: 10, country: "NO", into: setup)
        insertTrail("Summit", rating: 2, lengthKm: 5, country: "SE", into: setup)
        try setup.save()
        let importer = context()
        importer.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
        let recorder = Recorder()
        recorder.token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: importer, queue: nil) {
            recorder.record($0)
        }
        defer { NotificationCenter.default.removeObserver(recorder.token!) }
        insertTrail("Ridge", rating: 5, lengthKm: 10, country: nil, into: importer)
        insertTrail("Summit", rating: 2, lengthKm: 7, country: "SE", into: importer)
        try importer.save()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let reader = context()  // held while its objects are read
        let stored = try reader.fetch(request).map { trail in
            "\(trail.value(forKey: "name")!) \(trail.value(forKey: "rating") as! Double) \(trail.value(forKey: "lengthKm") as! Double) \(trail.value(forKey: "country") ?? "nil")"
        }
        return (recorder.lines, stored.joined(separator: "; "))
    }

    func testPlainObjectsShowTheMergeAsKeyValueCodingMakesIt() throws {
        let plain = try importAgain(storedAs: nil)
        let subclassed = try importAgain(storedAs: String(reflecting: KeyValueCodedTrail.self))
        XCTAssertEqual(plain.stored, "Ridge 5.0 10.0 nil; Summit 2.0 7.0 SE")
        XCTAssertEqual(plain.stored, subclassed.stored)
        XCTAssertEqual(plain.notes, subclassed.notes)
        // Only the values that differ from the stored ones are changes.
        XCTAssertTrue(plain.notes.contains("Ridge changed keys [\"country\", \"rating\"]"), "\(plain.notes)")
        XCTAssertTrue(plain.notes.contains("Summit changed keys [\"lengthKm\"]"), "\(plain.notes)")
        XCTAssertTrue(plain.notes.contains { $0.hasPrefix("Ridge updated=true") }, "\(plain.notes)")
    }
}
