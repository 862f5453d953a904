import Foundation
import OpenCoreData

/// The writer of the multi-process history test: `saves` saves that each insert 3 objects
/// and (from the second on) update one and delete one of this process's own objects,
/// printing "saved I=pk,pk,pk U=pk D=pk" after each save returns.
func runChurnWriter(context: NSManagedObjectContext, saves: Int) throws {
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
}

/// The primary key of a saved object, from its URI (`…/Entry/p12`).
func primaryKey(_ object: NSManagedObject) -> String { String(object.objectID.uriRepresentation().lastPathComponent.dropFirst()) }
