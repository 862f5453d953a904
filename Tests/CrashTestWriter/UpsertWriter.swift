// The child process of the multi-process upsert tests: `CrashTestWriter STORE upsert NAME
// ROUNDS [history]`. Each round, in a new context under the object-trump merge policy, it
// upserts five of ten shared keys, changes one shared row it fetched, upserts its ledger row
// and inserts an event row of its own, then prints "saved ROUND KEY,KEY,…" once the save has
// returned. With `history`, the store tracks persistent history, the context's transaction
// author is NAME, and before each "saved" line the writer prints the changes the save made,
// as its did-save notification lists them: "changes I=pk,… U=pk,… D=pk,…".
import Foundation
import OpenCoreData

/// Row { key: String (unique), writer: String, round: Integer 64 }.
func upsertModel() -> NSManagedObjectModel {
    let entity = NSEntityDescription()
    entity.name = "Row"
    func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        return attribute
    }
    entity.properties = [attribute("key", .stringAttributeType), attribute("writer", .stringAttributeType), attribute("round", .integer64AttributeType)]
    entity.uniquenessConstraints = [["key"]]
    let model = NSManagedObjectModel()
    model.entities = [entity]
    return model
}

/// Object trump, counting the conflicts it settles (printed with each save).
final class CountingObjectTrump: NSMergePolicy {
    var locking = 0, constraints = 0
    init() { super.init(merge: .mergeByPropertyObjectTrumpMergePolicyType) }
    override func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
        locking += list.count
        try super.resolve(optimisticLockingConflicts: list)
    }
    override func resolve(constraintConflicts list: [NSConstraintConflict]) throws {
        constraints += list.count
        try super.resolve(constraintConflicts: list)
    }
}

func runUpsertWriter(storeURL: URL, name: String, rounds: Int, history: Bool) -> Never {
    let policy = CountingObjectTrump()
    let container = NSPersistentContainer(name: "Upserts", managedObjectModel: upsertModel())
    let description = NSPersistentStoreDescription(url: storeURL)
    if history { description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey) }
    container.persistentStoreDescriptions = [description]
    container.loadPersistentStores { _, error in
        if let error {
            print("open failed: \(error)")
            exit(2)
        }
    }
    for round in 1...rounds {
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = container.persistentStoreCoordinator
        context.mergePolicy = policy
        context.transactionAuthor = name
        var saved = ""
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: context, queue: nil) { note in
            func keys(_ key: String) -> String {
                ((note.userInfo?[key] as? Set<NSManagedObject>) ?? []).map(primaryKey).sorted().joined(separator: ",")
            }
            saved = "changes I=\(keys(NSInsertedObjectsKey)) U=\(keys(NSUpdatedObjectsKey)) D=\(keys(NSDeletedObjectsKey))"
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        func upsert(_ key: String) {
            let row = NSEntityDescription.insertNewObject(forEntityName: "Row", into: context)
            row.setValue(key, forKey: "key")
            row.setValue(name, forKey: "writer")
            row.setValue(Int64(round), forKey: "round")
        }
        var keys = (0..<10).shuffled().prefix(5).map { "shared-\($0)" }
        keys.forEach(upsert)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Row")
        let changed = "shared-\(Int.random(in: 0..<10))"
        request.predicate = NSPredicate(format: "key == %@", changed)
        do {
            if let existing = try context.fetch(request).first, !keys.contains(changed) {
                existing.setValue(name, forKey: "writer")
                existing.setValue(Int64(round), forKey: "round")
                keys.append(changed)
            }
            // A pause between reading and saving, so the other writer's saves land in it.
            usleep(UInt32.random(in: 0...3_000))
            upsert("ledger-\(name)")
            upsert("\(name)-\(round)")
            try context.save()
        } catch {
            print("failed \(round): \(error)")
            exit(3)
        }
        if history { print(saved) }
        print("saved \(round) \(keys.joined(separator: ",")) \(policy.locking) \(policy.constraints)")
    }
    exit(0)
}
