import Foundation
import XCTest

@testable import OpenCoreData

/// Derived attributes (`NSDerivedAttributeDescription`), computed by the store when a save
/// writes what they depend on, as Core Data's SQLite store does with triggers. Apple
/// documents the supported forms (key path, to-one key path, `canonical:`, `lowercase:`,
/// `uppercase:`, `@count`, `@sum`, `now()`) on `NSDerivedAttributeDescription`; the store
/// computes them with SQLite triggers when data is saved, not before, and a non-optional
/// derived attribute without a value fails validation with 1570 (fatbobman, "How to use
/// Derived and Transient Properties in Core Data", 2021: trigger text, `NSCoreDataNow()`).
final class DerivedAttributeTests: MigrationTestCase {
    private func library() throws -> NSManagedObjectModel { try ModelFixtures.load("Library.xcdatamodel") }

    private func insert(_ entity: String, _ values: [String: Any], into context: NSManagedObjectContext) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }

    private func fetchOne(_ entity: String, _ format: String, in context: NSManagedObjectContext) throws -> NSManagedObject? {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.predicate = NSPredicate(format: format)
        let found = try context.fetch(request)
        XCTAssertLessThanOrEqual(found.count, 1)
        return found.first
    }

    func testTheModelFileKeepsTheDerivationAsAnExpression() throws {
        let model = try library()
        let book = try XCTUnwrap(model.entitiesByName["Book"])
        let search = try XCTUnwrap(book.attributesByName["searchTitle"] as? NSDerivedAttributeDescription)
        XCTAssertEqual(search.derivationExpression?.expressionType, .function)
        XCTAssertEqual(search.derivationExpression?.function, "canonical:")
        let count = try XCTUnwrap(model.entitiesByName["Author"]?.attributesByName["bookCount"] as? NSDerivedAttributeDescription)
        XCTAssertEqual(count.derivationExpression?.keyPath, "books.@count")
        XCTAssertNil((book.attributesByName["title"] as? NSDerivedAttributeDescription))
    }

    func testDerivedValuesAreComputedAtSaveAndReadAfterARefreshAndARelaunch() throws {
        let context = try open(library())
        let author = insert("Author", ["name": "Zoë Brontë"], into: context)
        let book = insert("Book", ["title": "École Ünd Straße", "pages": Int32(320), "author": author], into: context)
        XCTAssertNil(book.value(forKey: "searchTitle"), "nothing is computed before the save")
        author.setValue(Int64(0), forKey: "bookCount")   // not optional: any value passes validation
        try context.save()
        XCTAssertFalse(context.hasChanges)
        XCTAssertEqual(book.value(forKey: "searchTitle") as? String, "ecole und strasse", "the save brings the store's values back")
        context.refresh(book, mergeChanges: false)
        context.refresh(author, mergeChanges: false)
        XCTAssertEqual(book.value(forKey: "searchTitle") as? String, "ecole und strasse")
        XCTAssertEqual(book.value(forKey: "lowerTitle") as? String, "école ünd straße")
        XCTAssertEqual(book.value(forKey: "upperTitle") as? String, "ÉCOLE ÜND STRASSE")
        XCTAssertEqual(book.value(forKey: "titleCopy") as? String, "École Ünd Straße")
        XCTAssertEqual(book.value(forKey: "authorName") as? String, "Zoë Brontë")
        let stamp = try XCTUnwrap(book.value(forKey: "modified") as? Date)
        XCTAssertLessThan(abs(stamp.timeIntervalSinceNow), 60)
        XCTAssertEqual(author.value(forKey: "bookCount") as? Int64, 1)
        XCTAssertEqual(author.value(forKey: "totalPages") as? Int64, 320)

        let relaunched = try open(library())
        let again = try XCTUnwrap(fetchOne("Book", "searchTitle == 'ecole und strasse'", in: relaunched))
        XCTAssertEqual(again.value(forKey: "authorName") as? String, "Zoë Brontë")
        XCTAssertNotNil(try fetchOne("Author", "bookCount == 1 AND totalPages > 300", in: relaunched))
    }

    func testCountsAndSumsFollowInsertsMovesAndDeletes() throws {
        let context = try open(library())
        let first = insert("Author", ["name": "First", "bookCount": Int64(0)], into: context)
        let second = insert("Author", ["name": "Second", "bookCount": Int64(0)], into: context)
        let shelf = insert("Shelf", ["label": "Top", "bookCount": Int32(0)], into: context)
        var books: [NSManagedObject] = []
        for pages in [100, 200, 300] {
            let book = insert("Book", ["title": "B\(pages)", "pages": Int32(pages), "author": first], into: context)
            book.mutableSetValue(forKey: "shelves").add(shelf)
            books.append(book)
        }
        try context.save()
        func counts() throws -> [String] {
            let fresh = try open(library())
            return try all("Author", in: fresh).map { "\($0.value(forKey: "name")!)=\($0.value(forKey: "bookCount")!)/\($0.value(forKey: "totalPages")!)" }
                + all("Shelf", in: fresh, by: "label").map { "\($0.value(forKey: "label")!)=\($0.value(forKey: "bookCount")!)" }
        }
        XCTAssertEqual(try counts(), ["First=3/600", "Second=0/0", "Top=3"])
        XCTAssertEqual(first.value(forKey: "bookCount") as? Int64, 3, "the saving context's objects get the counts")
        XCTAssertEqual(shelf.value(forKey: "bookCount") as? Int32, 3)

        books[0].setValue(second, forKey: "author")
        books[1].setValue(Int32(250), forKey: "pages")
        books[2].mutableSetValue(forKey: "shelves").remove(shelf)
        try context.save()
        XCTAssertEqual(try counts(), ["First=2/550", "Second=1/100", "Top=2"])

        context.delete(books[1])
        try context.save()
        XCTAssertEqual(try counts(), ["First=1/300", "Second=1/100", "Top=1"])
        XCTAssertEqual(first.value(forKey: "totalPages") as? Int64, 300)
        XCTAssertFalse(first.hasChanges)
        XCTAssertEqual(second.value(forKey: "shortestBook") as? Int32, 100)
        books[0].setValue(first, forKey: "author")
        try context.save()
        XCTAssertEqual(first.value(forKey: "shortestBook") as? Int32, 100, "@min follows a member moving in")
        XCTAssertEqual(first.value(forKey: "longestBook") as? Int32, 300)
        XCTAssertNil(second.value(forKey: "longestBook"), "@max of no members is nil")
    }

    func testAChangedSourceUpdatesItsDerivedValuesAndNowMovesOnEachSave() throws {
        let context = try open(library())
        let author = insert("Author", ["name": "Ann", "bookCount": Int64(0)], into: context)
        let book = insert("Book", ["title": "Dune", "author": author], into: context)
        try context.save()
        let firstStamp = try XCTUnwrap(book.value(forKey: "modified") as? Date)

        author.setValue("Anne", forKey: "name")
        try context.save()
        XCTAssertEqual(book.value(forKey: "authorName") as? String, "Anne", "a change across the to-one reaches the book")
        XCTAssertEqual(book.value(forKey: "modified") as? Date, firstStamp, "the book itself was not saved")

        Thread.sleep(forTimeInterval: 0.01)
        book.setValue("Dune Messiah", forKey: "title")
        try context.save()
        XCTAssertEqual(book.value(forKey: "upperTitle") as? String, "DUNE MESSIAH")
        XCTAssertGreaterThan(try XCTUnwrap(book.value(forKey: "modified") as? Date), firstStamp)

        book.setValue(nil, forKey: "author")
        try context.save()
        XCTAssertNil(book.value(forKey: "authorName"))
        context.refresh(book, mergeChanges: false)
        XCTAssertNil(book.value(forKey: "authorName"))
    }

    func testAValueSetOnADerivedAttributeIsReplacedByTheStore() throws {
        let context = try open(library())
        let book = insert("Book", ["title": "Emma", "searchTitle": "something else"], into: context)
        try context.save()
        XCTAssertEqual(book.value(forKey: "searchTitle") as? String, "emma")
        XCTAssertEqual(try query(storeURL(), "SELECT ZSEARCHTITLE FROM ZBOOK").first?.first as? String, "emma")
    }

    func testTheStoreHoldsCoreDataStyleTriggersAndAMandatoryDerivedAttributeNeedsAValue() throws {
        let context = try open(library())
        let shelf = insert("Shelf", ["label": "Empty"], into: context)
        let error = self.error { try context.save() }
        XCTAssertEqual(error?.code, NSValidationMissingMandatoryPropertyError)
        XCTAssertEqual(error?.localizedDescription, "bookCount is a required value.")
        shelf.setValue(Int32(42), forKey: "bookCount")   // any value: the store replaces it
        try context.save()
        XCTAssertEqual(shelf.value(forKey: "bookCount") as? Int32, 0)
        let triggers = try query(storeURL(), "SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name").compactMap { $0.first as? String }
        XCTAssertTrue(triggers.contains("Z_DA_ZBOOK_Book_searchTitle_INSERT"), "\(triggers)")
        XCTAssertTrue(triggers.contains("Z_DA_ZBOOK_Book_modified_UPDATE"), "\(triggers)")
        XCTAssertTrue(triggers.contains("Z_DA_Z_1SHELVES_Shelf_bookCount_INSERT") || triggers.contains { $0.hasSuffix("_Shelf_bookCount_INSERT") && $0 != "Z_DA_ZSHELF_Shelf_bookCount_INSERT" }, "\(triggers)")
        let now = try XCTUnwrap(schemaSQL(storeURL(), "Z_DA_ZBOOK_Book_modified_UPDATE"))
        XCTAssertEqual(now, "CREATE TRIGGER Z_DA_ZBOOK_Book_modified_UPDATE AFTER UPDATE OF Z_OPT ON ZBOOK FOR EACH ROW BEGIN UPDATE ZBOOK SET ZMODIFIED = NSCoreDataNow() WHERE Z_PK = NEW.Z_PK; SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('ZBOOK', Z_ENT, Z_PK, 'modified', ZMODIFIED) FROM ZBOOK WHERE Z_PK = NEW.Z_PK; END")
        XCTAssertEqual(try query(storeURL(), "SELECT ZBOOKCOUNT FROM ZSHELF").first?.first as? Int64, 0)
    }

    func testDerivedAttributesBuiltInCodeWorkInAnInMemoryStore() throws {
        let person = makeEntity("Person")
        let name = makeAttribute("name", .stringAttributeType)
        let key = NSDerivedAttributeDescription()
        key.name = "nameKey"
        key.attributeType = .stringAttributeType
        key.derivationExpression = NSExpression(format: "canonical:(name)")
        XCTAssertEqual(key.derivationExpressionFormat, "canonical:(name)")
        person.properties = [name, key]
        let model = makeModel([person])
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        for value in ["Ærøskøbing", "ÅSA", "åsa"] { _ = insert("Person", ["name": value], into: context) }
        try context.save()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.predicate = NSPredicate(format: "nameKey == %@", "asa")
        XCTAssertEqual(try context.count(for: request), 2)
    }

    func testADerivationTheStoreCannotComputeFailsTheStoreAddNamingIt() throws {
        let trail = makeEntity("Trail")
        let bad = NSDerivedAttributeDescription()
        bad.name = "odd"
        bad.attributeType = .doubleAttributeType
        bad.derivationExpression = NSExpression(format: "sqrt:(length)")
        trail.properties = [makeAttribute("length", .doubleAttributeType), bad]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: makeModel([trail]))
        XCTAssertThrowsError(try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL())) { error in
            let error = error as NSError
            XCTAssertEqual(error.code, NSPersistentStoreIncompatibleSchemaError)
            XCTAssertEqual(error.localizedDescription, "The derivation \"sqrt:(length)\" of Trail.odd is not supported: the function sqrt: is not one of canonical:, lowercase:, uppercase:, count:, sum:, min:, max:, now().")
        }
    }

    func testAMigrationThatAddsADerivedAttributeComputesItForStoredRows() throws {
        try writeStore(trailModelV1(), fillTrails)
        let v2 = trailModelV1 { trail in
            let upper = NSDerivedAttributeDescription()
            upper.name = "upperName"
            upper.attributeType = .stringAttributeType
            upper.derivationExpression = NSExpression(format: "uppercase:(name)")
            trail.properties += [upper]
        }
        let context = try open(v2)
        XCTAssertEqual(values(try all("Trail", in: context), "upperName"), values(try all("Trail", in: context), "name").map { $0.uppercased() })
        let trail = try XCTUnwrap(try all("Trail", in: context).first)
        trail.setValue("alpine", forKey: "name")
        try context.save()
        XCTAssertEqual(trail.value(forKey: "upperName") as? String, "ALPINE")
    }
}
