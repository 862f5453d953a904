import Foundation
import XCTest
@testable import OpenCoreData

/// Text is bound from buffers the statement owns (`SQLITE_STATIC`), one per parameter,
/// reused from row to row and grown or let go as needed: whatever the lengths and the
/// order, every row stores exactly the text it was given.
final class StoreBoundTextTests: StoreTestCase {
    /// Strings of every length class, in an order that makes each parameter's buffer grow,
    /// shrink back and grow again: empty, short, multi-byte, over the 16 KB kept capacity.
    private let texts: [String] = [
        "a", "", "Ridge", String(repeating: "long line of text ", count: 1_200),
        "é", "🏔️ Mont Blanc", "", String(repeating: "ü", count: 40), "b",
    ]

    func testRowsRunOneAfterAnotherStoreEachRowsOwnText() throws {
        let database = try SQLiteDatabase(path: storeURL().path)
        defer { database.close() }
        try database.executeUncached("CREATE TABLE t (n INTEGER, a TEXT, b TEXT)")
        // One statement held and rewound row after row, as a save runs its INSERTs.
        let insert = try database.statement("INSERT INTO t VALUES (?, ?, ?)")
        for (n, text) in texts.enumerated() {
            if n > 0 { insert.rewind() }
            insert.bindKey(Int64(n), at: 1)
            insert.bind(text, at: 2)
            insert.bind(texts[texts.count - 1 - n], at: 3)
            try insert.execute()
        }
        insert.endUse()
        let rows = try query(database, "SELECT a, b FROM t ORDER BY n")
        XCTAssertEqual(rows.map { $0[0] as? String }, texts)
        XCTAssertEqual(rows.map { $0[1] as? String }, texts.reversed())
    }

    func testTheTextIsCopiedWhenBound() throws {
        let database = try SQLiteDatabase(path: storeURL().path)
        defer { database.close() }
        try database.executeUncached("CREATE TABLE t (a TEXT)")
        let insert = try database.statement("INSERT INTO t VALUES (?)")
        var text = String(repeating: "before ", count: 10)
        insert.bind(text, at: 1)
        // The caller's string changes (and its old storage is freed) before the step.
        text = String(repeating: "after ", count: 20)
        try insert.execute()
        insert.endUse()
        XCTAssertEqual(try query(database, "SELECT a FROM t").first?.first as? String, String(repeating: "before ", count: 10))
        XCTAssertNotEqual(text, "")
    }

    func testASaveAndFetchesByTextRoundTripEveryString() throws {
        let entity = makeEntity("Note")
        entity.properties = [makeAttribute("order", .integer64AttributeType), makeAttribute("text", .stringAttributeType)]
        let model = makeModel([entity])
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL())
        let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        writer.persistentStoreCoordinator = coordinator
        try writer.performAndWait {
            for (n, text) in texts.enumerated() {
                let note = NSManagedObject(entity: entity, insertInto: writer)
                note.setValue(Int64(n), forKey: "order")
                note.setValue(text, forKey: "text")
            }
            try writer.save()
        }
        let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        reader.persistentStoreCoordinator = coordinator
        try reader.performAndWait {
            let all = NSFetchRequest<NSManagedObject>(entityName: "Note")
            all.sortDescriptors = [NSSortDescriptor(key: "order", ascending: true)]
            XCTAssertEqual(try reader.fetch(all).map { $0.value(forKey: "text") as? String }, texts)
            // The same cached SELECT bound with each text in turn (the long one included):
            // each finds its own rows.
            for text in texts {
                let matching = NSFetchRequest<NSManagedObject>(entityName: "Note")
                matching.predicate = NSPredicate(format: "text == %@", text)
                let expected = texts.indices.filter { texts[$0] == text }.map(Int64.init)
                let found = try reader.fetch(matching).compactMap { $0.value(forKey: "order") as? Int64 }.sorted()
                XCTAssertEqual(found, expected, "text of \(text.count) characters")
            }
        }
    }
}
