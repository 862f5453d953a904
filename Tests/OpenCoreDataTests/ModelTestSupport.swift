import Foundation
import XCTest

@testable import OpenCoreData

/// Where the model fixtures of these tests live.
enum ModelFixtures {
    static var directory: URL {
        Bundle.module.url(forResource: "Fixtures", withExtension: nil)!.appendingPathComponent("models")
    }

    static func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    /// Loads a fixture, failing the test with the loader's message when it cannot.
    static func load(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> NSManagedObjectModel {
        do {
            return try NSManagedObjectModel.load(contentsOf: url(name))
        } catch {
            XCTFail("\(name): \(error)", file: file, line: line)
            throw error
        }
    }

    /// The description of the error loading `name` throws.
    static func loadError(_ name: String) -> NSError? {
        do {
            _ = try NSManagedObjectModel.load(contentsOf: url(name))
            return nil
        } catch {
            return error as NSError
        }
    }
}
