import Foundation
import XCTest
@testable import OpenCoreData

/// A uniqueness constraint declared on a parent entity holds across its sub-entities (they
/// share one table), but Core Data's merge policies only merge objects of one entity: a
/// conflict between a Student and a Teacher fails the save with `NSManagedObjectMergeError`
/// (133020). Decompiled `NSMergePolicy` (iOS 26, `resolveConstraintConflicts:error:`):
/// the entities of the conflicting objects and the database object go into a set; more
/// than one, and the method returns an error of code 133020 instead of resolving.
final class ConstraintAcrossEntitiesTests: XCTestCase {
    private var directory: URL!
    private var container: NSPersistentContainer!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-constraint-entities-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        container = try ConflictTestCase.openContainer(at: directory.appendingPathComponent("People.sqlite"), model: Self.peopleModel())
    }

    override func tearDownWithError() throws {
        container = nil
        try? FileManager.default.removeItem(at: directory)
    }

    /// Person (abstract) { email (unique), name } with sub-entities Student { school } and
    /// Teacher { subject }.
    static func peopleModel() -> NSManagedObjectModel {
        let person = makeEntity("Person", abstract: true)
        let student = makeEntity("Student")
        let teacher = makeEntity("Teacher")
        person.properties = [makeAttribute("email", .stringAttributeType), makeAttribute("name", .stringAttributeType)]
        person.uniquenessConstraints = [["email"]]
        student.properties = [makeAttribute("school", .stringAttributeType)]
        teacher.properties = [makeAttribute("subject", .stringAttributeType)]
        person.subentities = [student, teacher]
        return makeModel([person, student, teacher])
    }

    private func insert(_ entityName: String, email: String, name: String, into context: NSManagedObjectContext) {
        let object = NSEntityDescription.insertNewObject(forEntityName: entityName, into: context)
        object.setValue(email, forKey: "email")
        object.setValue(name, forKey: "name")
    }

    private func storedPeople() throws -> [String] {
        let context = container.newBackgroundContext()
        return try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            return try context.fetch(request).map { "\($0.entity.name!) \($0.value(forKey: "name") as! String)" }
        }
    }

    func testObjectsOfTwoSubEntitiesInOneSaveFailEveryMergingPolicy() throws {
        let policies: [NSMergePolicy] = [.mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .overwrite, .rollback]
        for policy in policies {
            let context = container.newBackgroundContext()
            context.mergePolicy = policy
            try context.performAndWait {
                insert("Student", email: "sam@example.com", name: "Sam the student", into: context)
                insert("Teacher", email: "sam@example.com", name: "Sam the teacher", into: context)
                XCTAssertThrowsError(try context.save(), "\(policy.mergeType)") { error in
                    let error = error as NSError
                    XCTAssertEqual(error.domain, NSCocoaErrorDomain)
                    XCTAssertEqual(error.code, NSManagedObjectMergeError)
                    XCTAssertEqual(error.code, 133020)
                }
                // Nothing was merged away: both objects are still there to fix.
                XCTAssertEqual(context.insertedObjects.count, 2)
                XCTAssertTrue(context.insertedObjects.allSatisfy { !$0.isDeleted })
            }
            XCTAssertEqual(try storedPeople(), [])
        }
    }

    func testAnObjectMeetingAStoredRowOfAnotherSubEntityFailsToo() throws {
        let first = container.newBackgroundContext()
        try first.performAndWait {
            insert("Teacher", email: "ada@example.com", name: "Ada", into: first)
            try first.save()
        }
        let second = container.newBackgroundContext()
        second.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
        try second.performAndWait {
            insert("Student", email: "ada@example.com", name: "Ada again", into: second)
            XCTAssertThrowsError(try second.save()) { error in
                XCTAssertEqual((error as NSError).code, NSManagedObjectMergeError)
            }
        }
        XCTAssertEqual(try storedPeople(), ["Teacher Ada"])
    }

    func testObjectsOfOneSubEntityStillMerge() throws {
        let context = container.newBackgroundContext()
        context.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
        try context.performAndWait {
            insert("Student", email: "kim@example.com", name: "Kim", into: context)
            insert("Student", email: "kim@example.com", name: "Kim B.", into: context)
            try context.save()
        }
        XCTAssertEqual(try storedPeople(), ["Student Kim B."])
    }

    func testTheErrorPolicyReportsTheConflictAsBefore() throws {
        let context = container.newBackgroundContext()
        try context.performAndWait {
            insert("Student", email: "lee@example.com", name: "Lee", into: context)
            insert("Teacher", email: "lee@example.com", name: "Lee", into: context)
            XCTAssertThrowsError(try context.save()) { error in
                XCTAssertEqual((error as NSError).code, NSManagedObjectConstraintMergeError)
            }
        }
    }
}
