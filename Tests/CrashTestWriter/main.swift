// A child process for the crash test: saves batches of 10 objects to the store named by
// its first argument, forever, printing "saved N" after each save returns. The test
// kills it with SIGKILL at random moments and checks what the store holds.
import Foundation
import OpenCoreData

if CommandLine.arguments.count > 4, CommandLine.arguments[2] == "upsert" {
    setvbuf(stdout, nil, _IONBF, 0)
    runUpsertWriter(storeURL: URL(fileURLWithPath: CommandLine.arguments[1]), name: CommandLine.arguments[3], rounds: Int(CommandLine.arguments[4]) ?? 1,
                    history: CommandLine.arguments.count > 5 && CommandLine.arguments[5] == "history")
}

setvbuf(stdout, nil, _IONBF, 0)
let storeURL = URL(fileURLWithPath: CommandLine.arguments[1])
// A second argument: "history" saves the same way with persistent history tracking on, and
// upserts Tally rows under object trump in each save;
// "churn N" runs the multi-process history test's writer (ChurnWriter.swift);
// "batch-block-predicate" runs a batch update SQL cannot express, which must raise;
// "fetch-invalid-regex" fetches with MATCHES and an invalid pattern, which must raise;
// "restless-will-save" saves an object whose willSave changes it every time, which must raise;
// "delete-foreign-object" deletes an object through a context it does not belong to, which
// must raise; "permanent-ids-without-coordinator" asks a bare context for permanent IDs,
// which must raise.
let mode = CommandLine.arguments.count > 2 ? CommandLine.arguments[2] : "plain"

let entity = NSEntityDescription()
entity.name = "Entry"
let batch = NSAttributeDescription()
batch.name = "batch"
batch.attributeType = .integer64AttributeType
batch.isOptional = false
let payload = NSAttributeDescription()
payload.name = "payload"
payload.attributeType = .stringAttributeType
payload.preservesValueInHistoryOnDeletion = true
entity.properties = [batch, payload]
// Tally { key: String (unique), batch: Integer 64 }: in "history" mode every save also upserts
// three of its five keys, so kills land in saves that settle constraint conflicts.
let tally = NSEntityDescription()
tally.name = "Tally"
let tallyKey = NSAttributeDescription()
tallyKey.name = "key"
tallyKey.attributeType = .stringAttributeType
let tallyBatch = NSAttributeDescription()
tallyBatch.name = "batch"
tallyBatch.attributeType = .integer64AttributeType
tally.properties = [tallyKey, tallyBatch]
tally.uniquenessConstraints = [["key"]]
let model = NSManagedObjectModel()
model.entities = [entity, tally]

let container = NSPersistentContainer(name: "Crash", managedObjectModel: model)
let description = NSPersistentStoreDescription(url: storeURL)
if mode != "plain" { description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey) }
container.persistentStoreDescriptions = [description]
container.loadPersistentStores { _, error in
    if let error {
        print("open failed: \(error)")
        exit(2)
    }
}
let context = container.viewContext
context.transactionAuthor = "writer \(ProcessInfo.processInfo.processIdentifier)"

if mode == "churn" {
    try runChurnWriter(context: context, saves: Int(CommandLine.arguments[3]) ?? 20)
    exit(0)
}

if mode == "batch-block-predicate" {
    // A batch update whose predicate SQL cannot express: Core Data's store raises
    // NSInvalidArgumentException, and so must this (the test reads standard error).
    let request = NSBatchUpdateRequest(entityName: "Entry")
    request.predicate = NSPredicate(block: { _, _ in true })
    request.propertiesToUpdate = ["batch": 0]
    _ = try context.execute(request)
    print("no exception")
    exit(0)
}

if mode == "restless-will-save" {
    // A willSave that changes its object on every call never lets the save settle: Core
    // Data raises after 1,000 rounds, and so must this (the test reads standard error).
    entity.managedObjectClassName = NSStringFromClass(RestlessEntry.self)
    let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
    entry.setValue(Int64(0), forKey: "batch")
    try context.save()
    print("no exception")
    exit(0)
}

if mode == "delete-foreign-object" {
    // Core Data's deleteObject: raises NSInvalidArgumentException for an object of another
    // context (decompiled -[NSManagedObjectContext deleteObject:], iOS 26).
    let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
    entry.setValue(Int64(1), forKey: "batch")
    let other = container.newBackgroundContext()
    other.performAndWait { other.delete(entry) }
    print("no exception")
    exit(0)
}

if mode == "permanent-ids-without-coordinator" {
    // A context with neither coordinator nor parent cannot hand out permanent IDs; Core
    // Data raises (decompiled -[NSManagedObjectContext obtainPermanentIDsForObjects:error:]).
    let bare = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
    try bare.obtainPermanentIDs(for: [])
    print("no exception")
    exit(0)
}

if mode == "fetch-invalid-regex" {
    // Nothing stored, nothing matched: no exception. One row with a value: Foundation's.
    let request = NSFetchRequest<NSManagedObject>(entityName: "Entry")
    request.predicate = NSPredicate(format: "payload MATCHES[c] '('")
    print("empty store: \(try context.fetch(request).count)")
    let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
    entry.setValue(Int64(1), forKey: "batch")
    entry.setValue("abc", forKey: "payload")
    try context.save()
    _ = try context.fetch(request)
    print("no exception")
    exit(0)
}

let maximum = NSFetchRequest<NSManagedObject>(entityName: "Entry")
let existing = try context.fetch(maximum).compactMap { $0.value(forKey: "batch") as? Int64 }.max() ?? 0
var next = existing + 1
while true {
    for index in 0..<10 {
        let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
        entry.setValue(next, forKey: "batch")
        entry.setValue(String(repeating: "x", count: 100 + index), forKey: "payload")
    }
    if mode == "history" {
        // Batch N writes keys k(N%5), k((N+1)%5) and k((N+2)%5); the test knows what each holds.
        context.mergePolicy = NSMergePolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
        for offset in 0..<3 {
            let row = NSEntityDescription.insertNewObject(forEntityName: "Tally", into: context)
            row.setValue("k\((next + Int64(offset)) % 5)", forKey: "key")
            row.setValue(next, forKey: "batch")
        }
    }
    try context.save()
    print("saved \(next)")
    next += 1
}


/// An entry whose willSave changes its batch number every time it is called.
final class RestlessEntry: NSManagedObject {
    override func willSave() {
        super.willSave()
        setValue(((value(forKey: "batch") as? Int64) ?? 0) + 1, forKey: "batch")
    }
}
