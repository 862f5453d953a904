import Foundation
import XCTest
@testable import OpenCoreData

/// The concurrency debug check: on for contexts made while the user default is set, and
/// silent for code that keeps to the rules (a false alarm would stop the test process).
final class ConcurrencyDebugTests: CoreTestCase {
    override func tearDownWithError() throws {
        UserDefaults.standard.removeObject(forKey: ConcurrencyDebug.userDefaultsKey)
        try super.tearDownWithError()
    }

    func testTheSwitchIsReadWhenAContextIsMade() throws {
        let container = try openContainer()
        let before = container.newBackgroundContext()
        UserDefaults.standard.set(1, forKey: ConcurrencyDebug.userDefaultsKey)
        let after = container.newBackgroundContext()
        XCTAssertFalse(before.checksQueue)
        XCTAssertTrue(after.checksQueue)
        XCTAssertEqual(ConcurrencyDebug.launchLevel(in: ["app", "-com.apple.CoreData.ConcurrencyDebug", "1"]), 1)
        XCTAssertEqual(ConcurrencyDebug.launchLevel(in: ["app"]), 0)
    }

    func testCodeThatKeepsToTheRulesIsNeverStopped() throws {
        try saveTrails(5, hikesEach: 1)
        UserDefaults.standard.set(1, forKey: ConcurrencyDebug.userDefaultsKey)
        let container = try openContainer()
        let view = container.viewContext
        XCTAssertTrue(view.checksQueue)
        view.automaticallyMergesChangesFromParent = true
        let trails = try view.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
        XCTAssertEqual(trails.count, 5)
        let id = trails[0].objectID

        // A background context used inside performAndWait, saving (merged into the view).
        let background = container.newBackgroundContext()
        try background.performAndWait {
            let trail = background.object(with: id)
            trail.setValue("Checked", forKey: "name")
            _ = trail.value(forKey: "hikes")
            try background.save()
        }
        // A child of the view context on its own queue: reads, inserts and saves through the parent.
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = view
        try child.performAndWait {
            let trail = child.object(with: id)
            _ = trail.value(forKey: "name")
            let hike = NSEntityDescription.insertNewObject(forEntityName: "Hike", into: child)
            hike.setValue(trail, forKey: "trail")
            try child.obtainPermanentIDs(for: [hike])
            try child.save()
        }
        try view.save()
        let deadline = Date().addingTimeInterval(10)
        while trails[0].value(forKey: "name") as? String != "Checked", Date() < deadline {
            RunLoop.main.run(until: Date().addingTimeInterval(0.01))
        }
        XCTAssertEqual(trails[0].value(forKey: "name") as? String, "Checked")
        XCTAssertEqual(try view.count(for: NSFetchRequest<NSManagedObject>(entityName: "Hike")), 6)
    }
}
