import Foundation
import XCTest

@testable import OpenCoreData

/// `NSManagedObjectModelReference(name:in:versionChecksum:)` and
/// `(entityVersionHashes:in:versionChecksum:)`, as Apple declares them, finding a version
/// of an `.xcdatamodeld` in a bundle directory.
final class ModelReferenceBundleTests: StoreTestCase {
    private func bundle() throws -> Bundle {
        let resources = directory.appendingPathComponent("App.resources", isDirectory: true)
        try FileManager.default.createDirectory(at: resources, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: ModelFixtures.url("Trailhead.xcdatamodeld"), to: resources.appendingPathComponent("Trailhead.xcdatamodeld"))
        return try XCTUnwrap(Bundle(path: resources.path))
    }

    private func versions() throws -> [NSManagedObjectModel] {
        try ModelVersions.versionURLs(in: ModelFixtures.url("Trailhead.xcdatamodeld")).map { try NSManagedObjectModel.load(contentsOf: $0) }
    }

    func testANameAndAChecksumPickThatVersion() throws {
        let bundle = try bundle()
        let all = try versions()
        XCTAssertGreaterThan(all.count, 1)
        for version in all {
            let reference = NSManagedObjectModelReference(name: "Trailhead", in: bundle, versionChecksum: version.versionChecksum)
            XCTAssertEqual(reference.resolvedModel.entityVersionHashesByName, version.entityVersionHashesByName)
            XCTAssertEqual(reference.versionChecksum, version.versionChecksum)
        }
    }

    func testEntityVersionHashesPickTheVersionWithExactlyThoseHashes() throws {
        let bundle = try bundle()
        let second = try versions()[1]
        let hashes: [AnyHashable: Any] = second.entityVersionHashesByName.reduce(into: [:]) { $0[$1.key] = $1.value }
        let reference = NSManagedObjectModelReference(entityVersionHashes: hashes, in: bundle, versionChecksum: "v2")
        XCTAssertEqual(reference.resolvedModel.versionChecksum, second.versionChecksum)
        XCTAssertEqual(reference.versionChecksum, "v2")
    }
}
