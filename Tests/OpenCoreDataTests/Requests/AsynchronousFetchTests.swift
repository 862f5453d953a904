import Foundation
import XCTest

@testable import OpenCoreData

final class AsynchronousFetchTests: RequestTestCase {
    private func sortedTrails() -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        request.sortDescriptors = [NSSortDescriptor(key: "lengthKm", ascending: true)]
        return request
    }

    func testCompletionRunsOnThePrivateQueueWithResultsAndFinishedProgress() throws {
        let container = try seededContainer()
        let context = container.newBackgroundContext()
        let done = expectation(description: "completion")
        var seen: (names: [String], onMain: Bool)?
        let request = NSAsynchronousFetchRequest(fetchRequest: sortedTrails()) { result in
            seen = (result.finalResult?.map { $0.value(forKey: "name") as! String } ?? [], Thread.isMainThread)
            done.fulfill()
        }
        let parent = Progress(totalUnitCount: 1)
        parent.becomeCurrent(withPendingUnitCount: 1)
        let result = try XCTUnwrap(try context.execute(request) as? NSAsynchronousFetchResult<NSManagedObject>)
        parent.resignCurrent()
        XCTAssertTrue(result.managedObjectContext === context)
        XCTAssertTrue(result.fetchRequest === request)
        wait(for: [done], timeout: 10)

        XCTAssertEqual(seen?.names.first, "富士山 吉田ルート")
        XCTAssertEqual(seen?.names.count, 6)
        XCTAssertEqual(seen?.onMain, false, "a private-queue context calls back on its own queue")
        XCTAssertNil(result.operationError)
        XCTAssertEqual(result.finalResult?.count, 6)
        let progress = try XCTUnwrap(result.progress)
        XCTAssertEqual(progress.totalUnitCount, 6)
        XCTAssertEqual(progress.completedUnitCount, 6)
        XCTAssertEqual(parent.fractionCompleted, 1, accuracy: 1e-9, "the fetch's progress is a child of the current progress")
    }

    func testCancelledBeforeItRunsReportsUserCancelled() throws {
        let container = try seededContainer()
        let context = container.newBackgroundContext()
        let gate = DispatchSemaphore(value: 0)
        context.perform { gate.wait() }  // keep the queue busy until the fetch is cancelled
        let done = expectation(description: "completion")
        let request = NSAsynchronousFetchRequest(fetchRequest: sortedTrails()) { _ in done.fulfill() }
        request.estimatedResultCount = 100
        let result = try XCTUnwrap(try context.execute(request) as? NSAsynchronousFetchResult<NSManagedObject>)
        XCTAssertEqual(result.progress?.totalUnitCount, 100, "the estimate stands until the real count is known")
        result.cancel()
        gate.signal()
        wait(for: [done], timeout: 10)
        XCTAssertNil(result.finalResult)
        XCTAssertEqual((result.operationError as NSError?)?.code, CocoaError.userCancelled.rawValue)
        XCTAssertEqual((result.operationError as NSError?)?.domain, NSCocoaErrorDomain)
        XCTAssertEqual(result.progress?.isCancelled, true)
        XCTAssertEqual(result.progress?.completedUnitCount, 0)
    }

    func testMainQueueContextCallsBackOnTheMainQueueLater() throws {
        let container = try seededContainer()
        var names: [String]?
        let request = NSAsynchronousFetchRequest(fetchRequest: sortedTrails()) { result in
            XCTAssertTrue(Thread.isMainThread)
            names = result.finalResult?.map { $0.value(forKey: "name") as! String }
        }
        try container.viewContext.execute(request)
        XCTAssertNil(names, "execute returns before the fetch runs")
        let deadline = Date().addingTimeInterval(10)
        while names == nil, Date() < deadline { RunLoop.main.run(until: Date().addingTimeInterval(0.01)) }
        XCTAssertEqual(names?.count, 6)
    }

    func testAPlainFetchRequestThroughExecute() throws {
        let container = try seededContainer()
        let result = try XCTUnwrap(try container.viewContext.execute(sortedTrails()) as? NSAsynchronousFetchResult<NSManagedObject>)
        XCTAssertEqual(result.finalResult?.count, 6)
        XCTAssertEqual(sortedTrails().requestType, .fetchRequestType)
    }
}
