import Foundation
import XCTest

@testable import OpenCoreData

/// A class that a parent entity names, so a child entity naming a missing class could
/// (wrongly) fall back to it.
final class MissingClassParent: NSManagedObject {}

/// An entity whose `representedClassName` names no class gets `NSManagedObject`, not its
/// parent's class, and Core Data's warning once.
final class MissingClassTests: MigrationTestCase {
    /// What `body` writes to standard error.
    private func standardError(_ body: () throws -> Void) rethrows -> String {
        let pipe = Pipe()
        let saved = dup(STDERR_FILENO)
        dup2(pipe.fileHandleForWriting.fileDescriptor, STDERR_FILENO)
        defer {
            dup2(saved, STDERR_FILENO)
            close(saved)
        }
        try body()
        pipe.fileHandleForWriting.closeFile()
        dup2(saved, STDERR_FILENO)
        return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    func testAMissingClassIsNSManagedObjectWithCoreDatasWarningOnce() throws {
        let parent = makeEntity("Place")
        parent.managedObjectClassName = String(reflecting: MissingClassParent.self)
        let child = makeEntity("Hut")
        child.managedObjectClassName = "NoSuchHutClass"
        // Xcode would generate this one's class ("Class Definition"): no warning.
        let generated = makeEntity("Cabin")
        generated.managedObjectClassName = "Cabin"
        generated.codeGenerationType = "class"
        parent.subentities = [child, generated]
        parent.properties = [makeAttribute("name", .stringAttributeType)]
        let context = try open(makeModel([parent, child, generated]), options: [:])
        var objects: [NSManagedObject] = []
        let log = standardError {
            objects.append(NSEntityDescription.insertNewObject(forEntityName: "Hut", into: context))
            objects.append(NSEntityDescription.insertNewObject(forEntityName: "Hut", into: context))
            objects.append(NSEntityDescription.insertNewObject(forEntityName: "Place", into: context))
            objects.append(NSEntityDescription.insertNewObject(forEntityName: "Cabin", into: context))
        }
        XCTAssertTrue(type(of: objects[3]) == NSManagedObject.self)
        XCTAssertTrue(type(of: objects[0]) == NSManagedObject.self)
        XCTAssertTrue(objects[2] is MissingClassParent)
        XCTAssertEqual(log, "CoreData: warning: Unable to load class named 'NoSuchHutClass' for entity 'Hut'.  Class not found, using default NSManagedObject instead.\n")
    }

    /// A class once found is kept on the entity and read without a lock from then on; a new
    /// `managedObjectClassName` is looked up again.
    func testTheClassKeptForAnEntityFollowsItsClassName() {
        let entity = makeEntity("Place")
        XCTAssertTrue(ManagedObjectClasses.objectClass(for: entity) == NSManagedObject.self)
        entity.managedObjectClassName = String(reflecting: MissingClassParent.self)
        XCTAssertTrue(ManagedObjectClasses.objectClass(for: entity) == MissingClassParent.self)
        XCTAssertTrue(ManagedObjectClasses.objectClass(for: entity) == MissingClassParent.self)
        entity.managedObjectClassName = "NSManagedObject"
        XCTAssertTrue(ManagedObjectClasses.objectClass(for: entity) == NSManagedObject.self)
        entity.managedObjectClassName = String(reflecting: MissingClassParent.self)
        XCTAssertTrue(ManagedObjectClasses.objectClass(for: entity) == MissingClassParent.self)
    }
}
