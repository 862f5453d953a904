// A background import while the view context merges every batch.
//
//     swift run -c release --package-path Benchmarks merge-benchmarks [repetitions] [rows]
//
// Imports `rows` objects (default 100,000) in batches of 1,000 on a private-queue
// context, saving and resetting after each batch, two ways:
//
// - **alone**: nothing else listens;
// - **merged**: the view context has `automaticallyMergesChangesFromParent` set, so each
//   save is merged into it on the main queue; after each batch the importer asks the view
//   context to count the objects (`perform`, queued behind the merge), as a screen
//   showing progress would, and goes on importing (an app's importer does not wait for
//   its user interface). The time ends when the view context has counted every object.
//
// Each repetition uses a fresh store file and a fresh container. Medians of wall-clock
// time; the merge overhead is (merged − alone) / alone. Goal: ≤ 25 %.
import Foundation
import OpenCoreData

let arguments = CommandLine.arguments
let repetitions = arguments.count > 1 ? Int(arguments[1]) ?? 5 : 5
let rows = arguments.count > 2 ? Int(arguments[2]) ?? 100_000 : 100_000
let batchSize = 1_000

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("merge-benchmarks-\(getpid())", isDirectory: true)
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
    let attribute = NSAttributeDescription()
    attribute.name = name
    attribute.attributeType = type
    return attribute
}
let item = NSEntityDescription()
item.name = "Item"
item.properties = [attribute("name", .stringAttributeType), attribute("rank", .integer32AttributeType),
                   attribute("score", .doubleAttributeType), attribute("added", .dateAttributeType)]
let model = NSManagedObjectModel()
model.entities = [item]

func openContainer(_ url: URL) -> NSPersistentContainer {
    let container = NSPersistentContainer(name: "Items", managedObjectModel: model)
    container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
    container.loadPersistentStores { _, error in
        if let error { fatalError("\(error)") }
    }
    return container
}

/// Lets the main queue run until `done()` holds.
func runMainQueue(until done: () -> Bool) {
    while !done() { _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.001)) }
}

final class Flag: @unchecked Sendable { var isSet = false }

/// One import; returns seconds. With `merging`, the view context merges each save and
/// counts after each batch.
func runImport(merging: Bool, repetition: Int) -> Double {
    let url = directory.appendingPathComponent("Items-\(merging)-\(repetition).sqlite")
    let container = openContainer(url)
    let view = container.viewContext
    view.automaticallyMergesChangesFromParent = merging
    let importer = container.newBackgroundContext()
    let finished = Flag()
    var lastCount = 0
    var counts = 0
    let start = Date()
    importer.perform {
        var next = 0
        while next < rows {
            for index in next..<min(next + batchSize, rows) {
                let object = NSManagedObject(entity: item, insertInto: importer)
                object.setValue("item \(index)", forKey: "name")
                object.setValue(Int32(index), forKey: "rank")
                object.setValue(Double(index) / 7, forKey: "score")
                object.setValue(Date(timeIntervalSince1970: Double(index)), forKey: "added")
            }
            do { try importer.save() } catch { fatalError("\(error)") }
            importer.reset()
            next += batchSize
            if merging {
                view.perform {
                    lastCount = (try? view.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item"))) ?? -1
                    counts += 1
                }
            }
        }
        view.perform { finished.isSet = true }
    }
    runMainQueue { finished.isSet }
    let seconds = Date().timeIntervalSince(start)
    if merging, lastCount != rows || counts != (rows + batchSize - 1) / batchSize {
        fatalError("the view context counted \(counts) times, last \(lastCount); expected \(rows)")
    }
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    return seconds
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

var alone: [Double] = [], merged: [Double] = []
for repetition in 0..<repetitions {
    alone.append(runImport(merging: false, repetition: repetition))
    merged.append(runImport(merging: true, repetition: repetition))
}
let aloneMedian = median(alone), mergedMedian = median(merged)
print("Import of \(rows) objects in batches of \(batchSize), median of \(repetitions)")
print("")
print("| import | median (s) |")
print("|---|---:|")
print(String(format: "| alone on a private context | %.3f |", aloneMedian))
print(String(format: "| view context merging and counting after each batch | %.3f |", mergedMedian))
print("")
print(String(format: "merge overhead: %.1f %% of the import time (goal ≤ 25 %%)", (mergedMedian - aloneMedian) / aloneMedian * 100))
