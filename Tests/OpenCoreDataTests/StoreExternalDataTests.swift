import Foundation
import XCTest

@testable import OpenCoreData

final class StoreExternalDataTests: StoreTestCase {
    private var model: NSManagedObjectModel!
    private var photo: NSEntityDescription!

    override func setUpWithError() throws {
        try super.setUpWithError()
        photo = makeEntity("Photo")
        photo.properties = [
            makeAttribute("image", .binaryDataAttributeType, external: true),
            makeAttribute("thumbnail", .binaryDataAttributeType),
        ]
        model = makeModel([photo])
    }

    private var externalFolder: URL { directory.appendingPathComponent(".Photos_SUPPORT/_EXTERNAL_DATA") }

    private func externalFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: externalFolder.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    private func large(_ byte: UInt8, extra: Int = 1) -> Data {
        Data(repeating: byte, count: ExternalBinaryStorage.threshold + extra)
    }

    func testLargeValuesGoToFilesSmallOnesStayInline() throws {
        let url = storeURL("Photos.sqlite")
        let engine = try openEngine(model, url: url)
        let big = try newRow(engine, photo, ["image": large(1), "thumbnail": large(9)])
        let small = try newRow(engine, photo, ["image": Data([1, 2, 3])])
        let edge = try newRow(engine, photo, ["image": Data(repeating: 4, count: ExternalBinaryStorage.threshold)])
        try engine.performSave { transaction in
            for row in [big, small, edge] { try transaction.insert(row) }
        }
        engine.close()

        let files = externalFiles()
        XCTAssertEqual(files.count, 1, "only the value above 128 KiB, of the attribute that allows it")
        let name = try XCTUnwrap(files.first)
        XCTAssertNotNil(UUID(uuidString: name))
        XCTAssertEqual(name, name.uppercased())
        XCTAssertEqual(try Data(contentsOf: externalFolder.appendingPathComponent(name)), large(1))

        let columns = try query(url, "SELECT ZIMAGE, ZTHUMBNAIL FROM ZPHOTO ORDER BY Z_PK")
        XCTAssertEqual(columns[0][0] as? Data, Data([2]) + Data(name.utf8) + Data([0]), "0x02, the file name, NUL")
        XCTAssertEqual(columns[0][1] as? Data, large(9), "plain binary attributes carry no marker")
        XCTAssertEqual(columns[1][0] as? Data, Data([1, 1, 2, 3]), "0x01, then the bytes")
        XCTAssertEqual((columns[2][0] as? Data)?.count, ExternalBinaryStorage.threshold + 1)

        let reopened = try openEngine(model, url: url)
        defer { reopened.close() }
        let rows = try reopened.fetchRows(of: photo, includesSubentities: true)
        XCTAssertEqual(rows.map { $0.attributes["image"] as? Data }, [large(1), Data([1, 2, 3]), Data(repeating: 4, count: ExternalBinaryStorage.threshold)])
    }

    func testFilesAreRemovedAfterDeleteAndReplacement() throws {
        let url = storeURL("Photos.sqlite")
        let engine = try openEngine(model, url: url)
        defer { engine.close() }
        let first = try newRow(engine, photo, ["image": large(1)])
        let second = try newRow(engine, photo, ["image": large(2)])
        try engine.performSave { transaction in
            try transaction.insert(first)
            try transaction.insert(second)
        }
        XCTAssertEqual(externalFiles().count, 2)

        // Rewriting the row with the same data keeps its file.
        let before = externalFiles()
        first.version = 2
        try engine.performSave { XCTAssertTrue(try $0.update(first, expectedVersion: 1)) }
        XCTAssertEqual(externalFiles(), before)

        // New data: a new file, the old one removed after the commit.
        first.attributes["image"] = large(3)
        first.version = 3
        try engine.performSave { XCTAssertTrue(try $0.update(first, expectedVersion: 2)) }
        XCTAssertEqual(externalFiles().count, 2)
        XCTAssertEqual(try engine.fetchRows(for: [first.key]).first?.attributes["image"] as? Data, large(3))

        // Replaced by a small value: the file goes.
        first.attributes["image"] = Data([5])
        first.version = 4
        try engine.performSave { XCTAssertTrue(try $0.update(first, expectedVersion: 3)) }
        XCTAssertEqual(externalFiles().count, 1)

        try engine.performSave { try $0.delete(second.key) }
        XCTAssertEqual(externalFiles(), [])
    }

    func testRollbackKeepsFilesAsTheyWere() throws {
        struct Stop: Error {}
        let url = storeURL("Photos.sqlite")
        let engine = try openEngine(model, url: url)
        defer { engine.close() }
        let kept = try newRow(engine, photo, ["image": large(1)])
        try engine.performSave { try $0.insert(kept) }
        let before = externalFiles()
        XCTAssertEqual(before.count, 1)

        let added = try newRow(engine, photo, ["image": large(2)])
        kept.attributes["image"] = large(3)
        kept.version = 2
        XCTAssertThrowsError(try engine.performSave { transaction in
            try transaction.insert(added)
            XCTAssertTrue(try transaction.update(kept, expectedVersion: 1))
            XCTAssertEqual(self.externalFiles().count, 3, "new files are written during the save")
            try transaction.delete(kept.key)
            throw Stop()
        })
        XCTAssertEqual(externalFiles(), before, "the save's new files are gone, the old one is still there")
        XCTAssertEqual(try engine.fetchRows(of: photo, includesSubentities: true).first?.attributes["image"] as? Data, large(1))
    }

    func testMissingFileIsAnErrorNotACrash() throws {
        let url = storeURL("Photos.sqlite")
        let engine = try openEngine(model, url: url)
        defer { engine.close() }
        let row = try newRow(engine, photo, ["image": large(1)])
        try engine.performSave { try $0.insert(row) }
        for file in externalFiles() { try FileManager.default.removeItem(at: externalFolder.appendingPathComponent(file)) }
        XCTAssertThrowsError(try engine.fetchRows(for: [row.key])) { error in
            XCTAssertEqual((error as NSError).localizedDescription, "External data reference can't find underlying file.")
        }
    }
}
