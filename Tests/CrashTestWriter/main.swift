// A child process for the crash test: saves batches of 10 objects to the store named by
// its first argument, forever, printing "saved N" after each save returns. The test
// kills it with SIGKILL at random moments and checks what the store holds.
import Foundation
import OpenCoreData

if CommandLine.arguments.count > 4, CommandLine.arguments[2] == "upsert" {
    setvbuf(stdout, nil, _IONBF, 0)
    runUpsertWriter(storeURL: URL(fileURLWithPath: CommandLine.arguments[1]), name: CommandLine.arguments[3], rounds: Int(CommandLine.arguments[4]) ?? 1)
}

setvbuf(stdout, nil, _IONBF, 0)
let storeURL = URL(fileURLWithPath: CommandLine.arguments[1])

let entity = NSEntityDescription()
entity.name = "Entry"
let batch = NSAttributeDescription()
batch.name = "batch"
batch.attributeType = .integer64AttributeType
batch.isOptional = false
let payload = NSAttributeDescription()
payload.name = "payload"
payload.attributeType = .stringAttributeType
entity.properties = [batch, payload]
let model = NSManagedObjectModel()
model.entities = [entity]

let container = NSPersistentContainer(name: "Crash", managedObjectModel: model)
container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: storeURL)]
container.loadPersistentStores { _, error in
    if let error {
        print("open failed: \(error)")
        exit(2)
    }
}
let context = container.viewContext
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
