import Foundation
import XCTest
@testable import OpenCoreData

/// Records the notifications of one name a context posts, in order.
final class NotificationRecorder {
    private(set) var notifications: [Notification] = []
    private var token: NSObjectProtocol?

    init(_ name: Notification.Name, from context: NSManagedObjectContext) {
        token = NotificationCenter.default.addObserver(forName: name, object: context, queue: nil) { [weak self] note in
            self?.notifications.append(note)
        }
    }

    deinit { token.map(NotificationCenter.default.removeObserver) }

    var count: Int { notifications.count }
    var last: Notification? { notifications.last }

    /// The keys of the last notification's `userInfo`, sorted.
    var lastKeys: [String] { (last?.userInfo?.keys.compactMap { $0.base as? String } ?? []).sorted() }

    /// The objects under `key` in the last notification (empty when the key is absent).
    func objects(_ key: String) -> Set<NSManagedObject> {
        last?.userInfo?[key] as? Set<NSManagedObject> ?? []
    }

    func removeAll() { notifications.removeAll() }
}

/// Change-tracking tests: a saved container per test, with helpers to make trails and hikes.
class TrackingTestCase: CoreTestCase {
    var container: NSPersistentContainer!
    var context: NSManagedObjectContext { container.viewContext }

    override func setUpWithError() throws {
        try super.setUpWithError()
        container = try openContainer()
    }

    override func tearDownWithError() throws {
        container = nil
        try super.tearDownWithError()
    }

    /// A new trail named `name` in the view context.
    func newTrail(_ name: String) -> NSManagedObject {
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        trail.setValue(name, forKey: "name")
        return trail
    }

    /// A new hike on `trail` in the view context.
    func newHike(on trail: NSManagedObject?) -> NSManagedObject {
        let hike = NSEntityDescription.insertNewObject(forEntityName: "Hike", into: context)
        hike.setValue(trail, forKey: "trail")
        return hike
    }

    /// A trail saved in the view context, with `hikes` hikes, its event processed.
    func savedTrail(_ name: String, hikes: Int = 0) throws -> NSManagedObject {
        let trail = newTrail(name)
        for _ in 0..<hikes { _ = newHike(on: trail) }
        try context.save()
        return trail
    }
}
