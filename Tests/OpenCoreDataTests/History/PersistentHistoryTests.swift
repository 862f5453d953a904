import Foundation
import XCTest
@testable import OpenCoreData

/// Persistent history: what saves and batch requests record, in Core Data's tables, and
/// how history is fetched, merged, bookmarked with tokens and purged.
final class PersistentHistoryTests: StoreTestCase {
    private func model() -> NSManagedObjectModel {
        let trail = NSEntityDescription()
        trail.name = "Trail"
        let name = NSAttributeDescription()
        name.name = "name"
        name.attributeType = .stringAttributeType
        name.preservesValueInHistoryOnDeletion = true
        let length = NSAttributeDescription()
        length.name = "length"
        length.attributeType = .doubleAttributeType
        length.isOptional = true
        let retired = NSAttributeDescription()
        retired.name = "retired"
        retired.attributeType = .booleanAttributeType
        retired.isOptional = true
        trail.properties = [name, length, retired]
        let model = NSManagedObjectModel()
        model.entities = [trail]
        return model
    }

    private var options: [AnyHashable: Any] { [NSPersistentHistoryTrackingKey: true as NSNumber] }

    private func coordinator(_ model: NSManagedObjectModel, options: [AnyHashable: Any]? = nil) throws -> NSPersistentStoreCoordinator {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL(), options: options ?? self.options)
        return coordinator
    }

    private func context(_ coordinator: NSPersistentStoreCoordinator, author: String? = nil, name: String? = nil) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.transactionAuthor = author
        context.name = name
        return context
    }

    private func insert(_ name: String, into context: NSManagedObjectContext) -> NSManagedObject {
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        trail.setValue(name, forKey: "name")
        return trail
    }

    private func history(_ context: NSManagedObjectContext, after token: NSPersistentHistoryToken? = nil) throws -> [NSPersistentHistoryTransaction] {
        let result = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: token)) as! NSPersistentHistoryResult
        return result.result as! [NSPersistentHistoryTransaction]
    }

    func testASaveRecordsOneTransactionWithAuthorContextNameAndChanges() throws {
        let coordinator = try coordinator(model())
        let importer = context(coordinator, author: "importer", name: "import queue")
        let alpine = insert("Alpine", into: importer)
        _ = insert("Brook", into: importer)
        try importer.save()
        let transactions = try history(importer)
        XCTAssertEqual(transactions.count, 1)
        let transaction = transactions[0]
        XCTAssertEqual(transaction.author, "importer")
        XCTAssertEqual(transaction.contextName, "import queue")
        XCTAssertEqual(transaction.storeID, coordinator.persistentStores[0].identifier)
        XCTAssertEqual(transaction.processID, String(ProcessInfo.processInfo.processIdentifier))
        XCTAssertFalse(transaction.bundleID.isEmpty)
        XCTAssertLessThan(abs(transaction.timestamp.timeIntervalSinceNow), 60)
        XCTAssertEqual(transaction.changes?.map(\.changeType), [.insert, .insert])
        XCTAssertEqual(transaction.changes?.first?.changedObjectID, alpine.objectID)
        XCTAssertNil(transaction.changes?.first?.updatedProperties)
        XCTAssertNil(transaction.changes?.first?.tombstone)
    }

    func testUpdatesNameTheirPropertiesAndDeletionsKeepTombstones() throws {
        let coordinator = try coordinator(model())
        let app = context(coordinator)
        let trail = insert("Alpine", into: app)
        try app.save()
        let afterInsert = coordinator.currentPersistentHistoryToken(fromStores: nil)
        trail.setValue(12.5, forKey: "length")
        trail.setValue(true, forKey: "retired")
        try app.save()
        app.delete(trail)
        try app.save()
        let transactions = try history(app, after: afterInsert)
        XCTAssertEqual(transactions.count, 2)
        let update = try XCTUnwrap(transactions[0].changes?.first)
        XCTAssertEqual(update.changeType, .update)
        XCTAssertEqual(Set(update.updatedProperties?.map(\.name) ?? []), ["length", "retired"])
        let deletion = try XCTUnwrap(transactions[1].changes?.first)
        XCTAssertEqual(deletion.changeType, .delete)
        XCTAssertEqual(deletion.changedObjectID, trail.objectID)
        XCTAssertEqual(deletion.tombstone?["name"] as? String, "Alpine", "name is preserved on deletion")
        XCTAssertNil(deletion.tombstone?["length"], "length is not")
    }

    func testHistoryLivesInCoreDatasTables() throws {
        let coordinator = try coordinator(model())
        let app = context(coordinator, author: "app")
        _ = insert("Alpine", into: app)
        try app.save()
        let url = storeURL()
        XCTAssertTrue(try tableNames(url).contains("ATRANSACTION"))
        XCTAssertEqual(try columns(url, "ACHANGE"), ["Z_PK", "Z_ENT", "Z_OPT", "ZCHANGETYPE", "ZENTITY", "ZENTITYPK", "ZTRANSACTIONID", "ZCOLUMNS", "ZTOMBSTONE0"])
        let transaction = try query(url, "SELECT Z_ENT, Z_OPT, ZAUTHOR, (SELECT ZNAME FROM ATRANSACTIONSTRING WHERE Z_PK = ZAUTHORTS) FROM ATRANSACTION")
        XCTAssertEqual(transaction.count, 1)
        XCTAssertEqual(transaction[0][0] as? Int64, 16002)
        XCTAssertNil(transaction[0][1] ?? nil)
        XCTAssertNil(transaction[0][2] ?? nil, "the text columns stay empty; the strings are interned")
        XCTAssertEqual(transaction[0][3] as? String, "app")
        let change = try query(url, "SELECT Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS FROM ACHANGE")
        XCTAssertEqual(change[0][0] as? Int64, 16001)
        XCTAssertEqual(change[0][1] as? Int64, 0)
        XCTAssertEqual(change[0][2] as? Int64, 1)
        XCTAssertEqual(change[0][3] as? Int64, 1)
        XCTAssertNil(change[0][4] ?? nil, "inserts record no columns")
        XCTAssertEqual(try query(url, "SELECT Z_ENT, ZNAME FROM ATRANSACTIONSTRING WHERE ZNAME = 'app'").first?.first as? Int64, 16003)
    }

    func testTokensBookmarkHistoryAndSurviveArchiving() throws {
        let coordinator = try coordinator(model())
        let app = context(coordinator)
        XCTAssertNil(coordinator.currentPersistentHistoryToken(fromStores: nil), "no history yet")
        _ = insert("Alpine", into: app)
        try app.save()
        let token = try XCTUnwrap(coordinator.currentPersistentHistoryToken(fromStores: nil))
        XCTAssertEqual(try history(app).last?.token, token)
        _ = insert("Brook", into: app)
        try app.save()
        let data = try NSKeyedArchiver.archivedData(withRootObject: token, requiringSecureCoding: true)
        let restored = try XCTUnwrap(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPersistentHistoryToken.self, from: data))
        XCTAssertEqual(restored, token)
        let json = try JSONEncoder().encode(token)
        XCTAssertEqual(try JSONDecoder().decode(NSPersistentHistoryToken.self, from: json), token)
        let later = try history(app, after: restored)
        XCTAssertEqual(later.count, 1)
        XCTAssertEqual(later[0].changes?.count, 1)
        XCTAssertTrue(try history(app, after: later[0].token).isEmpty)
    }

    func testFetchingByDateAndTransactionAndWithFetchRequests() throws {
        let coordinator = try coordinator(model())
        let importer = context(coordinator, author: "importer")
        let app = context(coordinator, author: "app")
        _ = insert("A", into: importer)
        try importer.save()
        let first = try history(app)[0]
        Thread.sleep(forTimeInterval: 0.01)
        let between = Date()
        _ = insert("B", into: app)
        try app.save()
        _ = insert("C", into: importer)
        try importer.save()
        let afterTransaction = try app.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: first)) as! NSPersistentHistoryResult
        XCTAssertEqual((afterTransaction.result as! [NSPersistentHistoryTransaction]).count, 2)
        let afterDate = try app.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: between)) as! NSPersistentHistoryResult
        XCTAssertEqual((afterDate.result as! [NSPersistentHistoryTransaction]).map(\.author), ["app", "importer"])
        let byAuthor = try XCTUnwrap(NSPersistentHistoryTransaction.fetchRequest)
        byAuthor.predicate = NSPredicate(format: "author == %@", "importer")
        let fetched = try app.execute(NSPersistentHistoryChangeRequest.fetchHistory(withFetch: byAuthor)) as! NSPersistentHistoryResult
        XCTAssertEqual((fetched.result as! [NSPersistentHistoryTransaction]).count, 2)
        let request = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
        request.resultType = .count
        XCTAssertEqual((try app.execute(request) as! NSPersistentHistoryResult).result as? NSNumber, 3)
        let changes = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
        changes.resultType = .changesOnly
        XCTAssertEqual(((try app.execute(changes) as! NSPersistentHistoryResult).result as! [NSPersistentHistoryChange]).count, 3)
    }

    func testChangeFetchRequestsAndResultTypes() throws {
        let coordinator = try coordinator(model())
        let app = context(coordinator, author: "app")
        let alpine = insert("Alpine", into: app)
        let brook = insert("Brook", into: app)
        try app.save()
        alpine.setValue(3.0, forKey: "length")
        app.delete(brook)
        try app.save()
        let deletions = try XCTUnwrap(NSPersistentHistoryChange.fetchRequest)
        deletions.predicate = NSPredicate(format: "changeType == %d", NSPersistentHistoryChangeType.delete.rawValue)
        let byChange = NSPersistentHistoryChangeRequest.fetchHistory(withFetch: deletions)
        let matched = (try app.execute(byChange) as! NSPersistentHistoryResult).result as! [NSPersistentHistoryTransaction]
        XCTAssertEqual(matched.count, 1, "only the transaction with a deletion")
        XCTAssertEqual(matched.first?.changes?.map(\.changedObjectID), [brook.objectID], "with only the matching change")
        byChange.resultType = .changesOnly
        XCTAssertEqual(((try app.execute(byChange) as! NSPersistentHistoryResult).result as! [NSPersistentHistoryChange]).count, 1)
        let ids = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
        ids.resultType = .objectIDs
        XCTAssertEqual((try app.execute(ids) as! NSPersistentHistoryResult).result as? [NSManagedObjectID], [alpine.objectID, brook.objectID])
        let bare = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
        bare.resultType = .transactionsOnly
        let transactions = (try app.execute(bare) as! NSPersistentHistoryResult).result as! [NSPersistentHistoryTransaction]
        XCTAssertEqual(transactions.count, 2)
        XCTAssertTrue(transactions.allSatisfy { $0.changes == nil })
        let newest = try XCTUnwrap(NSPersistentHistoryTransaction.fetchRequest)
        newest.sortDescriptors = [NSSortDescriptor(key: "transactionNumber", ascending: false)]
        newest.fetchLimit = 1
        let last = (try app.execute(NSPersistentHistoryChangeRequest.fetchHistory(withFetch: newest)) as! NSPersistentHistoryResult).result as! [NSPersistentHistoryTransaction]
        XCTAssertEqual(last.map(\.transactionNumber), [2])
    }

    func testObjectIDNotificationMergesAnotherContextsSave() throws {
        let coordinator = try coordinator(model())
        let importer = context(coordinator, author: "importer")
        let app = context(coordinator, author: "app")
        let trail = insert("Alpine", into: importer)
        try importer.save()
        let shown = try app.existingObject(with: trail.objectID)
        XCTAssertEqual(shown.value(forKey: "name") as? String, "Alpine")
        let token = coordinator.currentPersistentHistoryToken(fromStores: nil)
        trail.setValue("Alpine Loop", forKey: "name")
        _ = insert("Brook", into: importer)
        try importer.save()
        for transaction in try history(app, after: token) where transaction.author != "app" {
            app.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
        }
        XCTAssertEqual(shown.value(forKey: "name") as? String, "Alpine Loop")
    }

    func testBatchRequestsRecordHistory() throws {
        let coordinator = try coordinator(model())
        let app = context(coordinator, author: "batch")
        let insertRequest = NSBatchInsertRequest(entityName: "Trail", objects: [["name": "A"], ["name": "B"], ["name": "C"]])
        try app.execute(insertRequest)
        let update = NSBatchUpdateRequest(entityName: "Trail")
        update.predicate = NSPredicate(format: "name == %@", "B")
        update.propertiesToUpdate = ["retired": true]
        try app.execute(update)
        let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Trail"))
        try app.execute(delete)
        let transactions = try history(app)
        XCTAssertEqual(transactions.map(\.author), ["batch", "batch", "batch"])
        XCTAssertEqual(transactions[0].changes?.map(\.changeType), [.insert, .insert, .insert])
        XCTAssertEqual(transactions[1].changes?.map(\.changeType), [.update])
        XCTAssertEqual(transactions[1].changes?.first?.updatedProperties?.map(\.name), ["retired"])
        XCTAssertEqual(transactions[2].changes?.map(\.changeType), [.delete, .delete, .delete])
        XCTAssertEqual(Set(transactions[2].changes?.compactMap { $0.tombstone?["name"] as? String } ?? []), ["A", "B", "C"])
    }

    func testPurgingAndExpiredTokens() throws {
        let coordinator = try coordinator(model())
        let app = context(coordinator)
        var tokens: [NSPersistentHistoryToken] = []
        for name in ["A", "B", "C", "D"] {
            _ = insert(name, into: app)
            try app.save()
            tokens.append(coordinator.currentPersistentHistoryToken(fromStores: nil)!)
        }
        let purge = NSPersistentHistoryChangeRequest.deleteHistory(before: tokens[2])
        purge.resultType = .count
        XCTAssertEqual((try app.execute(purge) as! NSPersistentHistoryResult).result as? NSNumber, 2, "the two older transactions go")
        XCTAssertEqual(try history(app).count, 2, "the token's own transaction stays")
        XCTAssertEqual(try history(app, after: tokens[1]).count, 2, "nothing after tokens[1] was purged")
        XCTAssertThrowsError(try history(app, after: tokens[0])) { error in
            XCTAssertEqual((error as NSError).code, NSPersistentHistoryTokenExpiredError)
        }
        try app.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: nil as NSPersistentHistoryToken?))
        XCTAssertTrue(try history(app).isEmpty)
        XCTAssertThrowsError(try history(app, after: tokens[2]), "history after it is gone")
        XCTAssertTrue(try history(app, after: tokens[3]).isEmpty, "the newest token is still good")
        _ = insert("E", into: app)
        try app.save()
        let next = try XCTUnwrap(coordinator.currentPersistentHistoryToken(fromStores: nil))
        XCTAssertEqual(next.storeTokens.values.first, 5, "numbers are never reused after a purge")
    }

    func testRemoteChangeNotificationCarriesStoreAndToken() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model())
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL(), options: [
            NSPersistentHistoryTrackingKey: true, NSPersistentStoreRemoteChangeNotificationPostOptionKey: true,
        ])
        var received: [Notification] = []
        let observer = NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil) { received.append($0) }
        defer { NotificationCenter.default.removeObserver(observer) }
        let app = context(coordinator)
        _ = insert("Alpine", into: app)
        try app.save()
        XCTAssertEqual(received.count, 1)
        XCTAssertEqual(received.first?.userInfo?[NSStoreUUIDKey] as? String, store.identifier)
        XCTAssertEqual(received.first?.userInfo?[NSPersistentStoreURLKey] as? URL, storeURL())
        XCTAssertEqual(received.first?.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken,
                       coordinator.currentPersistentHistoryToken(fromStores: nil))
    }

    func testAStoreWithHistoryOpenedWithoutTrackingIsReadOnly() throws {
        let model = model()
        do {
            let coordinator = try coordinator(model)
            let app = context(coordinator)
            _ = insert("Alpine", into: app)
            try app.save()
        }
        let coordinator = try coordinator(model, options: [:])
        XCTAssertTrue(coordinator.persistentStores[0].isReadOnly)
        let app = context(coordinator)
        XCTAssertEqual(try app.count(for: NSFetchRequest<NSManagedObject>(entityName: "Trail")), 1, "it still reads")
        _ = insert("Brook", into: app)
        XCTAssertThrowsError(try app.save()) { XCTAssertEqual(($0 as NSError).code, NSPersistentStoreSaveError) }
    }

    func testAStoreWithoutTrackingRecordsNothing() throws {
        let coordinator = try coordinator(model(), options: [:])
        let app = context(coordinator)
        _ = insert("Alpine", into: app)
        try app.save()
        XCTAssertFalse(try tableNames(storeURL()).contains("ATRANSACTION"))
        XCTAssertNil(coordinator.currentPersistentHistoryToken(fromStores: nil))
        XCTAssertTrue(try history(app).isEmpty)
    }

    func testAFailedSaveRecordsNoHistory() throws {
        let coordinator = try coordinator(model())
        let first = context(coordinator), second = context(coordinator)
        let trail = insert("Alpine", into: first)
        try first.save()
        let copy = try second.existingObject(with: trail.objectID)
        trail.setValue(1.0, forKey: "length")
        try first.save()
        copy.setValue(2.0, forKey: "length")
        XCTAssertThrowsError(try second.save(), "an optimistic-locking conflict")
        XCTAssertEqual(try history(first).count, 2, "the failed save left no transaction")
    }
}

/// The remote-change notification for saves made through another coordinator (as another
/// process's are): noticed by polling the store, posted with the newest history token.
final class RemoteChangeNotificationTests: StoreTestCase {
    func testAnotherCoordinatorsSaveIsPostedAsARemoteChange() throws {
        let entity = NSEntityDescription()
        entity.name = "Note"
        let text = NSAttributeDescription()
        text.name = "text"
        text.attributeType = .stringAttributeType
        entity.properties = [text]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let options: [AnyHashable: Any] = [NSPersistentHistoryTrackingKey: true, NSPersistentStoreRemoteChangeNotificationPostOptionKey: true]
        let watching = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try watching.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL(), options: options)
        let other = NSPersistentStoreCoordinator(managedObjectModel: model)
        try other.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL(), options: [NSPersistentHistoryTrackingKey: true])
        let posted = expectation(description: "remote change")
        posted.assertForOverFulfill = false
        var token: NSPersistentHistoryToken?
        let observer = NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: watching, queue: nil) { note in
            token = note.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken
            XCTAssertEqual(note.userInfo?[NSStoreUUIDKey] as? String, store.identifier)
            posted.fulfill()
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let writer = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        writer.persistentStoreCoordinator = other
        NSEntityDescription.insertNewObject(forEntityName: "Note", into: writer).setValue("hello", forKey: "text")
        try writer.save()
        wait(for: [posted], timeout: 10)
        XCTAssertEqual(token, other.currentPersistentHistoryToken(fromStores: nil))
    }
}

/// History recorded before a lightweight migration that renumbers entities still names
/// the right objects afterwards.
final class HistoryMigrationTests: StoreTestCase {
    private func model(withAardvark: Bool) -> NSManagedObjectModel {
        func entity(_ name: String) -> NSEntityDescription {
            let entity = NSEntityDescription()
            entity.name = name
            let title = NSAttributeDescription()
            title.name = "title"
            title.attributeType = .stringAttributeType
            entity.properties = [title]
            return entity
        }
        let model = NSManagedObjectModel()
        model.entities = withAardvark ? [entity("Aardvark"), entity("Entry")] : [entity("Entry")]
        return model
    }

    func testAMigrationThatRenumbersEntitiesKeepsHistoryPointingAtTheSameObjects() throws {
        var options: [AnyHashable: Any] = [NSPersistentHistoryTrackingKey: true]
        let source = model(withAardvark: false)
        // Code-built models have no sibling versions: the source is registered for the test.
        NSPersistentStoreCoordinator.extraSourceModels = [source]
        defer { NSPersistentStoreCoordinator.extraSourceModels = [] }
        do {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: source)
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL(), options: options)
            let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context).setValue("kept", forKey: "title")
            try context.save()
        }
        options[NSMigratePersistentStoresAutomaticallyOption] = true
        options[NSInferMappingModelAutomaticallyOption] = true
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model(withAardvark: true))
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL(), options: options)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let result = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)) as! NSPersistentHistoryResult
        let change = try XCTUnwrap((result.result as! [NSPersistentHistoryTransaction]).first?.changes?.first)
        XCTAssertEqual(change.changedObjectID.entity.name, "Entry", "Entry is entity 2 now, behind Aardvark")
        XCTAssertEqual(try context.existingObject(with: change.changedObjectID).value(forKey: "title") as? String, "kept")
    }
}
