import Foundation
import XCTest
@testable import OpenCoreData

/// `registerStoreClass(_:forStoreType:)`, `registeredStoreTypes`, and what adding a store
/// of an unknown type, or a store whose metadata is wrong, throws.
final class StoreRegistrationTests: CoreTestCase {
    /// A store whose `loadMetadata()` names another type than the one it was added under.
    final class MislabelledStore: NSIncrementalStore {
        override func loadMetadata() throws {
            metadata = [NSStoreTypeKey: "SomethingElse", NSStoreUUIDKey: UUID().uuidString]
        }
    }

    /// A store that cannot open.
    final class BrokenStore: NSIncrementalStore {
        override func loadMetadata() throws {
            throw NSError(domain: "BrokenStore", code: 42, userInfo: [NSLocalizedDescriptionKey: "The disk is gone."])
        }
    }

    private func add(_ type: String) throws -> NSPersistentStore {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        return try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: directory.appendingPathComponent("store.\(type)"))
    }

    func testAnUnregisteredTypeIsRefusedWith134000() throws {
        // Core Data's reason for a type no class is registered for is "Unsupported store
        // type." (reported from apps that forgot to register, e.g. nofelmahmood/Seam#46),
        // with NSPersistentStoreInvalidTypeError.
        XCTAssertThrowsError(try add("NoSuchStore")) { error in
            let error = error as NSError
            XCTAssertEqual(error.domain, NSCocoaErrorDomain)
            XCTAssertEqual(error.code, NSPersistentStoreInvalidTypeError)
            XCTAssertEqual(error.code, 134000)
            XCTAssertEqual(error.localizedDescription, "Unsupported store type.")
        }
    }

    func testARegisteredTypeCreatesItsClassAndIsListed() throws {
        NSPersistentStoreCoordinator.registerStoreClass(JSONFileStore.self, forStoreType: JSONFileStore.type)
        let store = try add(JSONFileStore.type)
        XCTAssertTrue(store is JSONFileStore)
        XCTAssertEqual(store.type, JSONFileStore.type)
        XCTAssertEqual(store.metadata[NSStoreTypeKey] as? String, JSONFileStore.type)
        let types = NSPersistentStoreCoordinator.registeredStoreTypes
        XCTAssertTrue(types[JSONFileStore.type] == JSONFileStore.self)
        XCTAssertNotNil(types[NSSQLiteStoreType])
        XCTAssertNotNil(types[NSInMemoryStoreType])
    }

    func testUnregisteringWithNilMakesTheTypeUnknownAgain() throws {
        NSPersistentStoreCoordinator.registerStoreClass(JSONFileStore.self, type: NSPersistentStore.StoreType(rawValue: "Temporary"))
        XCTAssertNoThrow(try add("Temporary"))
        NSPersistentStoreCoordinator.registerStoreClass(nil, forStoreType: "Temporary")
        XCTAssertNil(NSPersistentStoreCoordinator.registeredStoreTypes["Temporary"])
        XCTAssertThrowsError(try add("Temporary")) { error in
            XCTAssertEqual((error as NSError).code, NSPersistentStoreInvalidTypeError)
        }
    }

    func testMetadataNamingAnotherTypeIsATypeMismatch() throws {
        NSPersistentStoreCoordinator.registerStoreClass(MislabelledStore.self, forStoreType: "Mislabelled")
        XCTAssertThrowsError(try add("Mislabelled")) { error in
            let error = error as NSError
            XCTAssertEqual(error.code, NSPersistentStoreTypeMismatchError)
            XCTAssertEqual(error.userInfo["reason"] as? String, "The store type in the metadata does not match the specified store type.")
        }
    }

    func testAnErrorFromLoadMetadataReachesTheCallerUnchanged() throws {
        NSPersistentStoreCoordinator.registerStoreClass(BrokenStore.self, forStoreType: "Broken")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        XCTAssertThrowsError(try coordinator.addPersistentStore(ofType: "Broken", configurationName: nil, at: directory.appendingPathComponent("x"))) { error in
            XCTAssertEqual((error as NSError).domain, "BrokenStore")
            XCTAssertEqual((error as NSError).code, 42)
        }
        XCTAssertTrue(coordinator.persistentStores.isEmpty, "a store that fails to open is not added")
    }

    func testAStoreThatOverridesNothingSaysWhatIsMissing() throws {
        final class Bare: NSIncrementalStore {}
        NSPersistentStoreCoordinator.registerStoreClass(Bare.self, forStoreType: "Bare")
        XCTAssertThrowsError(try add("Bare")) { error in
            XCTAssertEqual((error as NSError).code, NSPersistentStoreOperationError)
            XCTAssertTrue((error as NSError).localizedDescription.contains("loadMetadata()"), (error as NSError).localizedDescription)
        }
    }
}
