import Foundation
import XCTest
@testable import OpenCoreData

/// Finding an entity by name (inserting by entity name, fetching by entity name) answers
/// exactly what `entitiesByName` answers, without building that dictionary.
final class ModelEntityLookupTests: XCTestCase {
    func testTheLookUpAnswersAsEntitiesByName() {
        let trail = makeEntity("Trail"), hike = makeEntity("Hike"), unnamed = NSEntityDescription()
        let second = makeEntity("Trail")  // a second entity of the same name: the first wins
        let model = makeModel([trail, unnamed, hike, second])
        for name in ["Trail", "Hike", "Hut", ""] {
            XCTAssertTrue(model.entity(named: name) === model.entitiesByName[name], name)
        }
        XCTAssertTrue(model.entity(named: "Trail") === trail)
        XCTAssertNil(model.entity(named: "trail"), "names are compared exactly, as dictionary keys are")
    }

    func testInsertingAndFetchingByEntityNameFindTheEntity() throws {
        let trail = makeEntity("Trail")
        trail.properties = [makeAttribute("name", .stringAttributeType)]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: makeModel([makeEntity("Hike"), trail]))
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let inserted = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        XCTAssertTrue(inserted.entity === trail)
        inserted.setValue("Ridge", forKey: "name")
        try context.save()
        let fetched = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
        XCTAssertEqual(fetched.map { $0.value(forKey: "name") as? String }, ["Ridge"])
    }
}
