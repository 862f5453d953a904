// A child process for the crash and multi-process tests.
//
//   CrashTestWriter STORE            saves batches of 10 objects forever, printing
//                                    "saved N" after each save returns; the crash test
//                                    kills it with SIGKILL at random moments.
//   CrashTestWriter STORE history    the same, with persistent history tracking on.
//   CrashTestWriter STORE churn N    with history on, N saves that each insert 3 objects,
//                                    update one and delete one of this process's own,
//                                    printing "saved I=pk,pk,pk U=pk D=pk" after each.
import Foundation
import OpenCoreData

setvbuf(stdout, nil, _IONBF, 0)
let storeURL = URL(fileURLWithPath: CommandLine.arguments[1])
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
let model = NSManagedObjectModel()
model.entities = [entity]

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

/// The primary key of a saved object, from its URI (`…/Entry/p12`).
func primaryKey(_ object: NSManagedObject) -> String { String(object.objectID.uriRepresentation().lastPathComponent.dropFirst()) }

if mode == "churn" {
    let saves = Int(CommandLine.arguments[3]) ?? 20
    var own: [NSManagedObject] = []
    var generator = SystemRandomNumberGenerator()
    for round in 1...saves {
        let inserted = (0..<3).map { index -> NSManagedObject in
            let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
            entry.setValue(Int64(round), forKey: "batch")
            entry.setValue("\(ProcessInfo.processInfo.processIdentifier)-\(round)-\(index)", forKey: "payload")
            return entry
        }
        var updated: NSManagedObject?
        var deleted: NSManagedObject?
        if own.count >= 2 {
            let victim = own.remove(at: Int.random(in: 0..<own.count, using: &generator))
            context.delete(victim)
            deleted = victim
            updated = own[Int.random(in: 0..<own.count, using: &generator)]
            updated?.setValue("updated in \(round)", forKey: "payload")
        }
        try context.save()
        own += inserted
        print("saved I=\(inserted.map(primaryKey).joined(separator: ",")) U=\(updated.map(primaryKey) ?? "") D=\(deleted.map(primaryKey) ?? "")")
        // A pause between saves, so that the writers' saves interleave with each other and
        // with the reader's passes even on a fast disk.
        usleep(2_000)
    }
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
    try context.save()
    print("saved \(next)")
    next += 1
}
