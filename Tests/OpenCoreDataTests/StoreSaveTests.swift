import CSQLite
import Foundation
import XCTest

@testable import OpenCoreData

final class StoreSaveTests: StoreTestCase {
    func testPrimaryKeysAreReservedInSequenceAndSurviveReopening() throws {
        let fixture = SchemaFixture()
        var engine = try openEngine(fixture.model)
        XCTAssertEqual(try engine.allocatePrimaryKeys(for: fixture.note, count: 1), 1...1)
        XCTAssertEqual(try engine.allocatePrimaryKeys(for: fixture.note, count: 10), 2...11)
        XCTAssertEqual(try engine.allocatePrimaryKeys(for: fixture.tag, count: 3), 1...3)
        // Sub-entities draw on their root's row: they share its table and its keys.
        XCTAssertEqual(try engine.allocatePrimaryKeys(for: fixture.photo, count: 2), 1...2)
        XCTAssertEqual(try engine.allocatePrimaryKeys(for: fixture.document, count: 1), 3...3)
        XCTAssertThrowsError(try engine.allocatePrimaryKeys(for: fixture.note, count: 0))
        engine.close()

        engine = try openEngine(SchemaFixture().model)
        defer { engine.close() }
        XCTAssertEqual(try engine.allocatePrimaryKeys(for: engine.entity(forNumber: 5)!, count: 1), 12...12)
        let maxima = try query(storeURL(), "SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_MAX > 0 ORDER BY Z_ENT")
        XCTAssertEqual(maxima.map { "\($0[0]!)=\($0[1]!)" }, ["Item=3", "Note=12", "Tag=3"])
        // Inside a save, keys come from the same counter, in the save's transaction.
        try engine.performSave { transaction in
            XCTAssertEqual(try transaction.allocatePrimaryKeys(for: engine.entity(forNumber: 9)!, count: 2), 4...5)
        }
    }

    func testInsertFetchAndSubentities() throws {
        let fixture = SchemaFixture()
        let engine = try openEngine(fixture.model)
        defer { engine.close() }
        let photo = try newRow(engine, fixture.photo, ["title": "Sunset", "size": Int64(2048)])
        let document = try newRow(engine, fixture.document, ["title": "Report", "pages": Int16(12)])
        let folder = try newRow(engine, fixture.folder, ["name": "Inbox"])
        let note = try newRow(engine, fixture.note, ["title": "Hello"], toOne: ["attachment": photo.key, "folder": folder.key])
        try engine.performSave { transaction in
            for row in [photo, document, folder, note] { try transaction.insert(row) }
        }
        XCTAssertEqual(try engine.fetchRows(of: fixture.item, includesSubentities: true).map(\.key), [photo.key, document.key])
        XCTAssertEqual(try engine.fetchRows(of: fixture.item, includesSubentities: false).count, 0)
        XCTAssertEqual(try engine.fetchRows(of: fixture.document, includesSubentities: true).map { $0.attributes["title"] as? String }, ["Report"])
        XCTAssertEqual(try engine.countRows(of: fixture.item, includesSubentities: true), 2)
        XCTAssertEqual(try engine.countRows(of: fixture.photo, includesSubentities: false), 1)

        let fetched = try XCTUnwrap(engine.fetchRows(of: fixture.note, includesSubentities: true).first)
        XCTAssertTrue(fetched.entity === fixture.note)
        XCTAssertEqual(fetched.toOne["attachment"], photo.key, "the key names the photo entity, not Item")
        XCTAssertEqual(fetched.toOne["folder"], folder.key)
        XCTAssertEqual(try engine.destinationKeys(of: fixture.note.relationshipsByName["attachment"]!, from: note.key), [photo.key])
        let stored = try query(storeURL(), "SELECT ZATTACHMENT, Z2_ATTACHMENT FROM ZNOTE")
        XCTAssertEqual(stored[0][0] as? Int64, photo.key.primaryKey)
        XCTAssertEqual(stored[0][1] as? Int64, 4)
    }

    func testUpdateWithStaleVersionWritesNothing() throws {
        let fixture = SchemaFixture()
        let engine = try openEngine(fixture.model)
        defer { engine.close() }
        let tag = try newRow(engine, fixture.tag, ["label": "one"])
        try engine.performSave { try $0.insert(tag) }

        tag.attributes["label"] = "two"
        tag.version = 2
        try engine.performSave { XCTAssertTrue(try $0.update(tag, expectedVersion: 1)) }
        XCTAssertEqual(try engine.fetchRows(for: [tag.key]).first?.version, 2)

        tag.attributes["label"] = "three"
        tag.version = 3
        try engine.performSave { XCTAssertFalse(try $0.update(tag, expectedVersion: 1), "someone else saved version 2") }
        let stored = try XCTUnwrap(engine.fetchRows(for: [tag.key]).first)
        XCTAssertEqual(stored.attributes["label"] as? String, "two")
        XCTAssertEqual(stored.version, 2)

        // Rows are shared objects: the missing row is a new one, not `tag` changed.
        let gone = StoreRow(key: StoreKey(entityNumber: tag.key.entityNumber, primaryKey: 999), entity: tag.entity, version: tag.version, attributes: tag.attributes, toOne: tag.toOne)
        try engine.performSave { XCTAssertFalse(try $0.update(gone, expectedVersion: 2)) }

        // Setting a value to nil clears its column.
        tag.attributes.removeAll()
        try engine.performSave { XCTAssertTrue(try $0.update(tag, expectedVersion: 2)) }
        XCTAssertTrue(try engine.fetchRows(for: [tag.key]).first!.attributes.isEmpty)
    }

    func testFetchRowsForKeysKeepsOrderAndSkipsMissingRows() throws {
        let fixture = SchemaFixture()
        let engine = try openEngine(fixture.model)
        defer { engine.close() }
        var tags: [StoreRow] = []
        let keys = try engine.allocatePrimaryKeys(for: fixture.tag, count: 1500)
        for pk in keys {
            tags.append(StoreRow(key: StoreKey(entityNumber: 9, primaryKey: pk), entity: fixture.tag, version: 1, attributes: ["label": "tag \(pk)"], toOne: [:]))
        }
        let photo = try newRow(engine, fixture.photo, ["title": "p"])
        try engine.performSave { transaction in
            for row in tags { try transaction.insert(row) }
            try transaction.insert(photo)
        }
        try engine.performSave { try $0.delete(tags[10].key) }

        var wanted = tags.map(\.key).reversed().map { $0 }
        wanted.insert(photo.key, at: 700)
        wanted.insert(StoreKey(entityNumber: 9, primaryKey: 99_999), at: 3)
        wanted.insert(StoreKey(entityNumber: 42, primaryKey: 1), at: 0)
        let rows = try engine.fetchRows(for: wanted)
        let expected = wanted.filter { $0 != tags[10].key && $0.primaryKey != 99_999 && $0.entityNumber != 42 }
        XCTAssertEqual(rows.map(\.key), expected)
        XCTAssertEqual(rows.first?.attributes["label"] as? String, "tag 1500")
        XCTAssertEqual(try engine.fetchRows(for: []).count, 0)
    }

    func testDestinationKeysForEveryKindOfToMany() throws {
        let fixture = SchemaFixture()
        let engine = try openEngine(fixture.model)
        defer { engine.close() }
        let folder = try newRow(engine, fixture.folder)
        var notes: [StoreRow] = []
        for index in 0..<3 { notes.append(try newRow(engine, fixture.note, ["title": "n\(index)"], toOne: ["folder": folder.key])) }
        let tags = try (0..<3).map { _ in try newRow(engine, fixture.tag) }
        let people = try (0..<3).map { _ in try newRow(engine, fixture.person) }
        let playlist = try newRow(engine, fixture.playlist)
        let songs = try (0..<3).map { _ in try newRow(engine, fixture.song) }

        let folderNotes = fixture.folder.relationshipsByName["notes"]!
        let noteTags = fixture.note.relationshipsByName["tags"]!
        let tagNotes = fixture.tag.relationshipsByName["notes"]!
        let friends = fixture.person.relationshipsByName["friends"]!
        let followers = fixture.person.relationshipsByName["followers"]!
        let following = fixture.person.relationshipsByName["following"]!
        let pinned = fixture.folder.relationshipsByName["pinned"]!
        let playlistSongs = fixture.playlist.relationshipsByName["songs"]!
        let songPlaylists = fixture.song.relationshipsByName["playlists"]!

        try engine.performSave { transaction in
            for row in [folder] + notes + tags + people + [playlist] + songs { try transaction.insert(row) }
            try transaction.writeToMany(folderNotes, source: folder.key, destinations: [notes[2].key, notes[0].key, notes[1].key])
            try transaction.writeToMany(noteTags, source: notes[0].key, destinations: [tags[2].key, tags[0].key])
            try transaction.writeToMany(tagNotes, source: tags[1].key, destinations: [notes[1].key])
            try transaction.writeToMany(friends, source: people[0].key, destinations: [people[1].key])
            try transaction.writeToMany(friends, source: people[1].key, destinations: [people[0].key])
            try transaction.writeToMany(following, source: people[0].key, destinations: [people[2].key])
            try transaction.writeToMany(playlistSongs, source: playlist.key, destinations: [songs[1].key, songs[2].key, songs[0].key])
            try transaction.writeToMany(pinned, source: folder.key, destinations: [notes[1].key, notes[0].key])
        }
        // Ordered one-to-many: stored order; the unordered inverse side is read through the foreign key.
        XCTAssertEqual(try engine.destinationKeys(of: folderNotes, from: folder.key), [notes[2].key, notes[0].key, notes[1].key])
        XCTAssertEqual(try query(storeURL(), "SELECT Z_FOK_FOLDER FROM ZNOTE ORDER BY Z_PK").map { $0[0] as? Int64 }, [2048, 3072, 1024])
        // Many-to-many, from both sides, unordered: Z_PK order.
        XCTAssertEqual(try engine.destinationKeys(of: noteTags, from: notes[0].key), [tags[0].key, tags[2].key])
        XCTAssertEqual(try engine.destinationKeys(of: tagNotes, from: tags[2].key), [notes[0].key])
        XCTAssertEqual(try engine.destinationKeys(of: noteTags, from: notes[1].key), [tags[1].key])
        XCTAssertEqual(try engine.destinationKeys(of: noteTags, from: notes[2].key), [])
        // Reflexive and self-referential.
        XCTAssertEqual(try engine.destinationKeys(of: friends, from: people[0].key), [people[1].key])
        XCTAssertEqual(try engine.destinationKeys(of: friends, from: people[1].key), [people[0].key])
        XCTAssertEqual(try engine.destinationKeys(of: following, from: people[0].key), [people[2].key])
        XCTAssertEqual(try engine.destinationKeys(of: followers, from: people[2].key), [people[0].key])
        XCTAssertEqual(try engine.destinationKeys(of: followers, from: people[0].key), [])
        // Ordered many-to-many.
        XCTAssertEqual(try engine.destinationKeys(of: playlistSongs, from: playlist.key), [songs[1].key, songs[2].key, songs[0].key])
        // Ordered to-many without inverse: hidden key and order columns on the notes.
        XCTAssertEqual(try engine.destinationKeys(of: pinned, from: folder.key), [notes[1].key, notes[0].key])
        XCTAssertEqual(try query(storeURL(), "SELECT Z1PINNED, Z_FOK_1PINNED FROM ZNOTE ORDER BY Z_PK").map { "\($0[0] ?? "-")/\($0[1] ?? "-")" }, ["1/2048", "1/1024", "-/-"])
        XCTAssertEqual(try engine.destinationKeys(of: songPlaylists, from: songs[0].key), [playlist.key])

        // Rewriting a membership replaces it, keeping the other side's rows.
        try engine.performSave { transaction in
            try transaction.writeToMany(pinned, source: folder.key, destinations: [notes[2].key])
            // Updating a destination row leaves the hidden key alone.
            let note = notes[2]
            note.version = 2
            XCTAssertTrue(try transaction.update(note, expectedVersion: 1))
            try transaction.writeToMany(playlistSongs, source: playlist.key, destinations: [songs[0].key, songs[1].key])
            try transaction.writeToMany(noteTags, source: notes[0].key, destinations: [tags[1].key])
        }
        XCTAssertEqual(try engine.destinationKeys(of: playlistSongs, from: playlist.key), [songs[0].key, songs[1].key])
        XCTAssertEqual(try engine.destinationKeys(of: tagNotes, from: tags[1].key), [notes[0].key, notes[1].key])
        XCTAssertEqual(try engine.destinationKeys(of: tagNotes, from: tags[2].key), [])
        XCTAssertEqual(try engine.destinationKeys(of: pinned, from: folder.key), [notes[2].key])

        // Deleting a row removes its join-table rows on every side.
        try engine.performSave { transaction in
            try transaction.delete(tags[1].key)
            try transaction.delete(people[0].key)
            try transaction.delete(folder.key)
        }
        XCTAssertEqual(try query(storeURL(), "SELECT count(*) FROM ZNOTE WHERE Z1PINNED IS NOT NULL")[0][0] as? Int64, 0)
        XCTAssertEqual(try engine.destinationKeys(of: noteTags, from: notes[0].key), [])
        XCTAssertEqual(try engine.destinationKeys(of: friends, from: people[1].key), [])
        XCTAssertEqual(try query(storeURL(), "SELECT count(*) FROM Z_6FRIENDS")[0][0] as? Int64, 0)
        XCTAssertEqual(try query(storeURL(), "SELECT count(*) FROM Z_6FOLLOWING")[0][0] as? Int64, 0)
    }

    func testRollbackOnThrowingBodyLeavesTheStoreUnchanged() throws {
        struct Stop: Error {}
        let fixture = SchemaFixture()
        let engine = try openEngine(fixture.model)
        defer { engine.close() }
        let tag = try newRow(engine, fixture.tag, ["label": "kept"])
        try engine.performSave { try $0.insert(tag) }
        let other = try newRow(engine, fixture.tag, ["label": "never"])
        XCTAssertThrowsError(try engine.performSave { transaction in
            try transaction.insert(other)
            try transaction.delete(tag.key)
            throw Stop()
        }) { XCTAssertTrue($0 is Stop) }
        XCTAssertEqual(try engine.fetchRows(of: fixture.tag, includesSubentities: true).map { $0.attributes["label"] as? String }, ["kept"])

        // A failing statement (duplicate primary key) rolls back too, with SQLite's code.
        let duplicate = StoreRow(key: other.key, entity: fixture.tag, version: 1, attributes: [:], toOne: [:])
        XCTAssertThrowsError(try engine.performSave { transaction in
            try transaction.insert(duplicate)
            try transaction.insert(duplicate)
        }) { error in
            let error = error as NSError
            XCTAssertEqual(error.domain, NSCocoaErrorDomain)
            XCTAssertEqual(error.code, NSSQLiteError)
            XCTAssertEqual(error.userInfo["NSSQLiteErrorDomain"] as? Int, 1555, "SQLITE_CONSTRAINT_PRIMARYKEY")
            XCTAssertTrue(error.localizedDescription.contains("INSERT INTO ZTAG(Z_PK, Z_ENT, Z_OPT, ZLABEL) VALUES(?, ?, ?, ?)"), error.localizedDescription)
        }
        XCTAssertEqual(try engine.countRows(of: fixture.tag, includesSubentities: true), 1)
        // The engine is usable after a failed save.
        try engine.performSave { try $0.insert(duplicate) }
        XCTAssertEqual(try engine.countRows(of: fixture.tag, includesSubentities: true), 2)
    }

    func testTransactionCannotBeUsedAfterTheSave() throws {
        let fixture = SchemaFixture()
        let engine = try openEngine(fixture.model)
        defer { engine.close() }
        var escaped: SQLiteSaveTransaction?
        try engine.performSave { escaped = $0 }
        XCTAssertThrowsError(try escaped!.insert(try newRow(engine, fixture.tag)))
    }

    func testConcurrentSavesFromSeveralThreads() throws {
        let fixture = SchemaFixture()
        let engine = try openEngine(fixture.model)
        defer { engine.close() }
        let tag = fixture.tag
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for index in 0..<25 {
                do {
                    try engine.performSave { transaction in
                        let pk = try transaction.allocatePrimaryKeys(for: tag, count: 1).lowerBound
                        try transaction.insert(StoreRow(key: StoreKey(entityNumber: 9, primaryKey: pk), entity: tag, version: 1, attributes: ["label": "\(worker)-\(index)"], toOne: [:]))
                    }
                    _ = try engine.countRows(of: tag, includesSubentities: true)
                } catch {
                    XCTFail("\(error)")
                }
            }
        }
        XCTAssertEqual(try engine.countRows(of: tag, includesSubentities: true), 200)
    }

    func testMetadataCanBeExtendedAndPersists() throws {
        let fixture = SchemaFixture()
        var engine = try openEngine(fixture.model)
        let uuid = engine.identifier
        var metadata = engine.metadata
        metadata["ReaderNote"] = "hello"
        metadata[NSStoreUUIDKey] = "ignored"
        try engine.setMetadata(metadata)
        XCTAssertEqual(engine.metadata["ReaderNote"] as? String, "hello")
        XCTAssertEqual(engine.identifier, uuid, "the store keeps its UUID")
        engine.close()
        engine = try openEngine(SchemaFixture().model)
        defer { engine.close() }
        XCTAssertEqual(engine.metadata["ReaderNote"] as? String, "hello")
        XCTAssertEqual(engine.identifier, uuid)
        XCTAssertEqual(engine.metadata[NSStoreTypeKey] as? String, "SQLite")
        XCTAssertEqual(engine.metadata[NSStoreModelVersionHashesKey] as? [String: Data], fixture.model.entityVersionHashesByName)
    }

    func testCloseIsIdempotentAndLaterCallsFail() throws {
        let fixture = SchemaFixture()
        let engine = try openEngine(fixture.model)
        engine.close()
        engine.close()
        XCTAssertThrowsError(try engine.fetchRows(of: fixture.tag, includesSubentities: true))
        XCTAssertThrowsError(try engine.performSave { _ in })
    }
}

final class StoreBindingFailureTests: StoreTestCase {
    func testAValueSQLiteRefusesToBindFailsTheSave() throws {
        let fixture = SchemaFixture()
        let engine = try openEngine(fixture.model)
        defer { engine.close() }
        // Values longer than 100 bytes are too big for this connection.
        sqlite3_limit(engine.database.handle, SQLITE_LIMIT_LENGTH, 100)
        let tag = try newRow(engine, fixture.tag, ["label": String(repeating: "x", count: 1000)])
        XCTAssertThrowsError(try engine.performSave { try $0.insert(tag) }) { error in
            let error = error as NSError
            XCTAssertEqual(error.code, NSSQLiteError)
            XCTAssertEqual(error.userInfo["NSSQLiteErrorDomain"] as? Int, Int(SQLITE_TOOBIG))
        }
        sqlite3_limit(engine.database.handle, SQLITE_LIMIT_LENGTH, 1_000_000_000)
        XCTAssertEqual(try engine.countRows(of: fixture.tag, includesSubentities: true), 0)
        try engine.performSave { try $0.insert(tag) }
        XCTAssertEqual(try engine.countRows(of: fixture.tag, includesSubentities: true), 1)
    }
}
