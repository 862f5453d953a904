import Foundation
import XCTest

@testable import OpenCoreData

/// A model with every kind of mapping: inheritance with colliding attribute names, a to-one
/// into a hierarchy, many-to-many, ordered one-to-many and many-to-many, and
/// self-referential relationships (one its own inverse).
struct SchemaFixture {
    let model: NSManagedObjectModel
    let folder, item, document, photo, note, person, playlist, song, tag: NSEntityDescription

    init() {
        folder = makeEntity("Folder")
        item = makeEntity("Item", abstract: true)
        document = makeEntity("Document")
        photo = makeEntity("Photo")
        note = makeEntity("Note")
        person = makeEntity("Person")
        playlist = makeEntity("Playlist")
        song = makeEntity("Song")
        tag = makeEntity("Tag")

        item.subentities = [photo, document]
        item.properties = [makeAttribute("size", .integer64AttributeType)]
        document.properties = [makeAttribute("title", .stringAttributeType), makeAttribute("pages", .integer16AttributeType)]
        photo.properties = [makeAttribute("title", .stringAttributeType), makeAttribute("taken", .dateAttributeType)]

        let folderNotes = makeRelationship("notes", to: note, toMany: true, ordered: true)
        let noteFolder = makeRelationship("folder", to: folder)
        makeInverses(folderNotes, noteFolder)
        // No inverse: kept as a hidden key (and order) column on the notes.
        let pinned = makeRelationship("pinned", to: note, toMany: true, ordered: true)
        folder.properties = [makeAttribute("name", .stringAttributeType), folderNotes, pinned]

        let noteTags = makeRelationship("tags", to: tag, toMany: true)
        let tagNotes = makeRelationship("notes", to: note, toMany: true)
        makeInverses(noteTags, tagNotes)
        let attachment = makeRelationship("attachment", to: item)
        note.properties = [
            makeAttribute("title", .stringAttributeType, indexed: true), makeAttribute("body", .stringAttributeType),
            makeAttribute("created", .dateAttributeType), makeAttribute("pinned", .booleanAttributeType),
            makeAttribute("price", .decimalAttributeType), makeAttribute("scratch", .stringAttributeType),
            noteFolder, noteTags, attachment,
        ]
        (note.propertiesByName["scratch"] as! NSAttributeDescription).isTransient = true
        tag.properties = [makeAttribute("label", .stringAttributeType), tagNotes]

        let friends = makeRelationship("friends", to: person, toMany: true)
        makeInverses(friends, friends)
        let followers = makeRelationship("followers", to: person, toMany: true)
        let following = makeRelationship("following", to: person, toMany: true)
        makeInverses(followers, following)
        person.properties = [makeAttribute("name", .stringAttributeType), friends, followers, following]

        let songs = makeRelationship("songs", to: song, toMany: true, ordered: true)
        let playlists = makeRelationship("playlists", to: playlist, toMany: true)
        makeInverses(songs, playlists)
        playlist.properties = [makeAttribute("name", .stringAttributeType), songs]
        song.properties = [makeAttribute("name", .stringAttributeType), playlists]

        let byNameAndDate = NSFetchIndexDescription(name: "byTitleAndCreated", elements: [
            NSFetchIndexElementDescription(property: note.propertiesByName["title"]!, collationType: .binary),
            NSFetchIndexElementDescription(property: note.propertiesByName["created"]!, collationType: .binary),
        ])
        byNameAndDate.elements[1].isAscending = false
        note.indexes = [byNameAndDate]

        model = makeModel([tag, song, playlist, person, note, item, photo, document, folder])
    }
}

final class StoreSchemaTests: StoreTestCase {
    func testEntitiesAreNumberedByNameDepthFirst() throws {
        let fixture = SchemaFixture()
        let engine = try openEngine(fixture.model)
        defer { engine.close() }
        let expected = ["Folder", "Item", "Document", "Photo", "Note", "Person", "Playlist", "Song", "Tag"]
        for (offset, name) in expected.enumerated() {
            XCTAssertEqual(engine.entity(forNumber: offset + 1)?.name, name)
            XCTAssertEqual(engine.entityNumber(for: fixture.model.entitiesByName[name]!), offset + 1)
        }
        XCTAssertNil(engine.entity(forNumber: 0))
        XCTAssertNil(engine.entity(forNumber: 10))

        let rows = try query(storeURL(), "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
        XCTAssertEqual(rows.map { $0[1] as? String }, expected)
        XCTAssertEqual(rows.map { $0[2] as? Int64 }, [0, 0, 2, 2, 0, 0, 0, 0, 0])
        XCTAssertEqual(rows.map { $0[3] as? Int64 }, Array(repeating: 0, count: 9))
    }

    func testTablesAndColumns() throws {
        let fixture = SchemaFixture()
        try openEngine(fixture.model).close()
        let url = storeURL()
        XCTAssertEqual(try tableNames(url), [
            "ZFOLDER", "ZITEM", "ZNOTE", "ZPERSON", "ZPLAYLIST", "ZSONG", "ZTAG",
            "Z_5TAGS", "Z_6FOLLOWING", "Z_6FRIENDS", "Z_7SONGS", "Z_METADATA", "Z_MODELCACHE", "Z_PRIMARYKEY",
        ])
        // Sub-entities share the root's table; the later of two colliding names gets a suffix.
        XCTAssertEqual(try columns(url, "ZITEM"), ["Z_PK", "Z_ENT", "Z_OPT", "ZPAGES", "ZSIZE", "ZTAKEN", "ZTITLE", "ZTITLE1"])
        // A to-one into a hierarchy carries the destination's entity; an ordered one-to-many
        // keeps its order on the to-one side; a to-many without inverse is a hidden key of
        // the source's number and name; transient attributes have no column.
        XCTAssertEqual(try columns(url, "ZNOTE"), [
            "Z_PK", "Z_ENT", "Z_OPT", "ZPINNED", "Z1PINNED", "Z_FOK_1PINNED", "ZATTACHMENT", "Z2_ATTACHMENT", "ZFOLDER", "Z_FOK_FOLDER",
            "ZCREATED", "ZPRICE", "ZBODY", "ZTITLE",
        ])
        XCTAssertEqual(
            try schemaSQL(url, "ZNOTE"),
            "CREATE TABLE ZNOTE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPINNED INTEGER, Z1PINNED INTEGER, Z_FOK_1PINNED INTEGER, ZATTACHMENT INTEGER, Z2_ATTACHMENT INTEGER, ZFOLDER INTEGER, Z_FOK_FOLDER INTEGER, ZCREATED TIMESTAMP, ZPRICE DECIMAL, ZBODY VARCHAR, ZTITLE VARCHAR )")
        XCTAssertEqual(try columns(url, "ZFOLDER"), ["Z_PK", "Z_ENT", "Z_OPT", "ZNAME"])
    }

    func testJoinTables() throws {
        let fixture = SchemaFixture()
        try openEngine(fixture.model).close()
        let url = storeURL()
        // Named after the side whose entity has the smaller number; each column holds one
        // side's keys and is named by that entity's number and the relationship leading to it.
        XCTAssertEqual(try schemaSQL(url, "Z_5TAGS"), "CREATE TABLE Z_5TAGS ( Z_5NOTES INTEGER, Z_9TAGS INTEGER, PRIMARY KEY (Z_5NOTES, Z_9TAGS) )")
        // Ordered many-to-many: the order of songs within a playlist.
        XCTAssertEqual(try columns(url, "Z_7SONGS"), ["Z_7PLAYLISTS", "Z_8SONGS", "Z_FOK_8SONGS"])
        // A relationship that is its own inverse.
        XCTAssertEqual(try columns(url, "Z_6FRIENDS"), ["Z_6FRIENDS", "REFLEXIVE"])
        // Two relationships of one entity, inverses of each other: the larger name names the table.
        XCTAssertEqual(try columns(url, "Z_6FOLLOWING"), ["Z_6FOLLOWERS", "Z_6FOLLOWING"])
    }

    func testIndexes() throws {
        let fixture = SchemaFixture()
        try openEngine(fixture.model).close()
        let url = storeURL()
        XCTAssertEqual(try indexNames(url), [
            "ZNOTE_Z1PINNED_INDEX", "ZNOTE_ZATTACHMENT_INDEX", "ZNOTE_ZFOLDER_INDEX",
            "Z_5TAGS_Z_9TAGS_INDEX", "Z_6FOLLOWING_Z_6FOLLOWING_INDEX", "Z_6FRIENDS_REFLEXIVE_INDEX", "Z_7SONGS_Z_8SONGS_INDEX",
            "Z_Note_byTitleAndCreated", "Z_Note_title",
        ])
        XCTAssertEqual(try schemaSQL(url, "Z_Note_title"), "CREATE INDEX Z_Note_title ON ZNOTE (ZTITLE COLLATE BINARY ASC)")
        XCTAssertEqual(try schemaSQL(url, "Z_Note_byTitleAndCreated"), "CREATE INDEX Z_Note_byTitleAndCreated ON ZNOTE (ZTITLE COLLATE BINARY ASC, ZCREATED COLLATE BINARY DESC)")
        XCTAssertEqual(try schemaSQL(url, "Z_5TAGS_Z_9TAGS_INDEX"), "CREATE INDEX Z_5TAGS_Z_9TAGS_INDEX ON Z_5TAGS (Z_9TAGS, Z_5NOTES)")
        XCTAssertEqual(try schemaSQL(url, "ZNOTE_ZFOLDER_INDEX"), "CREATE INDEX ZNOTE_ZFOLDER_INDEX ON ZNOTE (ZFOLDER)")
    }

    func testMetadataRow() throws {
        let fixture = SchemaFixture()
        fixture.model.versionIdentifiers = ["v2"]
        let engine = try openEngine(fixture.model)
        let uuid = engine.identifier
        engine.close()
        XCTAssertNotNil(UUID(uuidString: uuid))

        let rows = try query(storeURL(), "SELECT Z_VERSION, Z_UUID, Z_PLIST FROM Z_METADATA")
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows[0][0] as? Int64, 1)
        XCTAssertEqual(rows[0][1] as? String, uuid)
        let plist = try PropertyListSerialization.propertyList(from: rows[0][2] as! Data, options: [], format: nil) as! [String: Any]
        XCTAssertEqual(plist[NSStoreTypeKey] as? String, "SQLite")
        XCTAssertEqual(plist[NSStoreUUIDKey] as? String, uuid)
        XCTAssertEqual(plist[NSStoreModelVersionIdentifiersKey] as? [String], ["v2"])
        let hashes = try XCTUnwrap(plist[NSStoreModelVersionHashesKey] as? [String: Data])
        XCTAssertEqual(hashes, fixture.model.entityVersionHashesByName)
    }

    func testFixtureModelFromFile() throws {
        // The Trails fixture: a configuration, an abstract parent, an ordered one-to-many,
        // an indexed attribute, a compound index and a fetch index.
        let model = try ModelFixtures.load("Trails.xcdatamodel")
        let engine = try openEngine(model)
        engine.close()
        let url = storeURL()
        XCTAssertEqual(try tableNames(url).filter { !$0.hasPrefix("Z_") }, ["ZPLACE", "ZREGION", "ZTRAIL"])
        XCTAssertTrue(try columns(url, "ZPLACE").contains("Z_FOK_TRAIL"))
        XCTAssertTrue(try indexNames(url).contains("Z_Trail_length"))
        XCTAssertTrue(try indexNames(url).contains("Z_Trail_name_rating"))
        XCTAssertEqual(try schemaSQL(url, "Z_Trail_byOpened"), "CREATE INDEX Z_Trail_byOpened ON ZTRAIL (ZOPENED COLLATE BINARY DESC)")
    }

    func testConfigurationStoreHoldsItsEntitiesAndTheirTrees() throws {
        let model = try ModelFixtures.load("Trails.xcdatamodel")
        let engine = try SQLiteStoreEngine(url: storeURL(), model: model, configurationName: "Local", options: nil)
        defer { engine.close() }
        // Stop's parent comes along: the tree shares one table.
        XCTAssertEqual((1...3).map { engine.entity(forNumber: $0)?.name }, ["Place", "Stop", "Trail"])
        XCTAssertNil(engine.entity(forNumber: 4))
        XCTAssertEqual(engine.entityNumber(for: model.entitiesByName["Region"]!), 0)
        XCTAssertEqual(try tableNames(storeURL()).filter { !$0.hasPrefix("Z_") }, ["ZPLACE", "ZTRAIL"])
        XCTAssertFalse(try columns(storeURL(), "ZTRAIL").contains("ZREGION"), "no key into another store's entity")
        XCTAssertEqual(Set((engine.metadata[NSStoreModelVersionHashesKey] as? [String: Data] ?? [:]).keys), ["Stop", "Trail"])
        XCTAssertThrowsError(try engine.fetchRows(of: model.entitiesByName["Region"]!, includesSubentities: true))
    }
}
