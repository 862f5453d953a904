import Foundation
import XCTest
@testable import OpenCoreData

/// perform, performAndWait, async perform, background tasks, and knowing one's queue.
final class ContextQueueTests: CoreTestCase {
    func testPerformAndWaitIsReentrantAndRunsOnTheQueue() throws {
        let container = try openContainer()
        let background = container.newBackgroundContext()
        XCTAssertFalse(background.isOnOwnQueue)
        var depth = 0
        background.performAndWait {
            XCTAssertTrue(background.isOnOwnQueue)
            depth += 1
            background.performAndWait {
                XCTAssertTrue(background.isOnOwnQueue)
                depth += 1
            }
        }
        XCTAssertEqual(depth, 2)
        XCTAssertTrue(container.viewContext.isOnOwnQueue, "the test runs on the main thread")
    }

    func testPerformRunsLaterOnTheQueueAndProcessesPendingChanges() throws {
        let container = try openContainer()
        let background = container.newBackgroundContext()
        let done = expectation(description: "performed")
        var sawChange = false
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: background, queue: nil) { _ in
            sawChange = true
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        background.perform {
            XCTAssertTrue(background.isOnOwnQueue)
            NSEntityDescription.insertNewObject(forEntityName: "Trail", into: background).setValue("Queued", forKey: "name")
        }
        background.perform { done.fulfill() }
        wait(for: [done], timeout: 10)
        XCTAssertTrue(sawChange, "perform ends the block's event")
    }

    func testAsyncPerformReturnsTheResultAndRethrows() async throws {
        let container = try openContainer()
        let background = container.newBackgroundContext()
        let count = try await background.perform {
            NSEntityDescription.insertNewObject(forEntityName: "Trail", into: background).setValue("Async", forKey: "name")
            try background.save()
            return try background.count(for: NSFetchRequest<NSManagedObject>(entityName: "Trail"))
        }
        XCTAssertEqual(count, 1)
        let enqueued = await background.perform(schedule: .enqueued) { background.isOnOwnQueue }
        XCTAssertTrue(enqueued)
        do {
            _ = try await background.perform { () throws -> Int in
                _ = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: background)  // no name
                try background.save()
                return 0
            }
            XCTFail("the save error should be rethrown")
        } catch let error as NSError {
            XCTAssertEqual(error.code, NSValidationMissingMandatoryPropertyError)
        }
    }

    func testAsyncPerformFromATaskRunsOnTheContextsQueue() throws {
        let container = try openContainer()
        let background = container.newBackgroundContext()
        let done = expectation(description: "ran")
        var order: [String] = []
        background.perform {
            Task {
                // The task runs elsewhere, off the queue: the block is queued and runs there.
                let onQueue = await background.perform(schedule: .immediate) { background.isOnOwnQueue }
                order.append("task \(onQueue)")
                done.fulfill()
            }
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(order, ["task true"])
    }

    func testPerformBackgroundTaskUsesANewPrivateContext() throws {
        let container = try openContainer()
        let done = expectation(description: "task")
        var seen: NSManagedObjectContext?
        container.performBackgroundTask { context in
            XCTAssertEqual(context.concurrencyType, .privateQueueConcurrencyType)
            XCTAssertTrue(context.isOnOwnQueue)
            XCTAssertTrue(context.persistentStoreCoordinator === container.persistentStoreCoordinator)
            seen = context
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        XCTAssertFalse(seen === container.viewContext)
        XCTAssertFalse(container.newBackgroundContext() === container.newBackgroundContext())
    }

    func testAMainQueueContextWorksFromABackgroundThreadThroughPerform() throws {
        let container = try openContainer()
        let view = container.viewContext
        let done = expectation(description: "background thread finished")
        DispatchQueue.global().async {
            // From another thread, performAndWait hops to the main queue (which the test's
            // run loop drains while it waits).
            view.performAndWait {
                XCTAssertTrue(Thread.isMainThread)
                NSEntityDescription.insertNewObject(forEntityName: "Trail", into: view).setValue("Hopped", forKey: "name")
            }
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(view.insertedObjects.count, 1)
    }
}
