// The fetched results controller over a large store.
//
//     swift run -c release --package-path Benchmarks frc-benchmarks [repetitions]
//
// Stores of 10,000 and 100,000 items in 50 sections are written once (untimed). Then, for
// the 100,000-item store, each repetition opens a fresh container (a cold row cache and a
// new SQLite connection; the operating system's file cache is shared, as in real use) and
// times one of:
//
// - a plain fetch of the controller's request (`context.fetch`);
// - `performFetch` without a cache (the sections come from the store's grouped count);
// - `performFetch` with a warm persistent cache (written by an earlier controller with
//   the same request and cache name).
//
// And for each size, the turnaround: from calling `save()` on the controller's context,
// after changing the name of one object (which moves it within its section), to the
// delegate's `controllerDidChangeContent`, median over the repetitions, each changing a
// different object. Medians of wall-clock time; the medians' ratios answer the goals:
// turnaround at 100,000 ≤ 2 × at 10,000, cached performFetch ≤ 1.5 × the plain fetch.
import Foundation
import OpenCoreData

let arguments = CommandLine.arguments
let repetitions = arguments.count > 1 ? Int(arguments[1]) ?? 9 : 9
let sectionCount = 50

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("frc-benchmarks-\(getpid())", isDirectory: true)
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
// The section caches go to a scratch directory too.
setenv("XDG_CACHE_HOME", directory.appendingPathComponent("caches").path, 1)

func attribute(_ name: String, _ type: NSAttributeType, indexed: Bool = false) -> NSAttributeDescription {
    let attribute = NSAttributeDescription()
    attribute.name = name
    attribute.attributeType = type
    attribute.isIndexed = indexed
    return attribute
}
let item = NSEntityDescription()
item.name = "Item"
item.properties = [attribute("name", .stringAttributeType), attribute("section", .stringAttributeType, indexed: true),
                   attribute("rank", .integer32AttributeType)]
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

/// Writes `count` items spread evenly over the sections, in a random order.
func writeStore(count: Int) throws -> URL {
    let url = directory.appendingPathComponent("Items-\(count).sqlite")
    let container = openContainer(url)
    let context = container.viewContext
    var order = Array(0..<count)
    order.shuffle()
    for (written, index) in order.enumerated() {
        let object = NSManagedObject(entity: item, insertInto: context)
        object.setValue(String(format: "item %07d", index), forKey: "name")
        object.setValue(String(format: "Section %02d", index % sectionCount), forKey: "section")
        object.setValue(Int32(index), forKey: "rank")
        if written % 10_000 == 9_999 {
            try context.save()
            context.reset()
        }
    }
    try context.save()
    return url
}

func request() -> NSFetchRequest<NSManagedObject> {
    let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
    request.sortDescriptors = [NSSortDescriptor(key: "section", ascending: true), NSSortDescriptor(key: "name", ascending: true)]
    request.fetchBatchSize = 50
    return request
}

/// Counts the callbacks and notes when the last change of an event was delivered.
final class TimingDelegate: NSFetchedResultsControllerDelegate {
    var changes = 0
    var didChangeAt: DispatchTime?
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
                    for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) { changes += 1 }
    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { didChangeAt = .now() }
}

func seconds(_ start: DispatchTime, _ end: DispatchTime) -> Double { Double(end.uptimeNanoseconds - start.uptimeNanoseconds) / 1e9 }
func median(_ values: [Double]) -> Double { let sorted = values.sorted(); return sorted[sorted.count / 2] }
func ms(_ value: Double) -> String { String(format: "%.2f ms", value * 1000) }

/// Times `body` in a fresh container, `repetitions` times; returns the median.
func timed(_ url: URL, _ label: String, _ body: (NSManagedObjectContext) throws -> Int) throws -> Double {
    var times: [Double] = []
    for _ in 0..<repetitions {
        let container = openContainer(url)
        let start = DispatchTime.now()
        let count = try body(container.viewContext)
        times.append(seconds(start, .now()))
        precondition(count > 0, "\(label): nothing fetched")
    }
    FileHandle.standardError.write(Data("\(label): \(times.map(ms).joined(separator: ", "))\n".utf8))
    return median(times)
}

/// The median time from `save()` to `controllerDidChangeContent` for one renamed object.
func turnaround(_ url: URL, count: Int) throws -> Double {
    let container = openContainer(url)
    let context = container.viewContext
    let controller = NSFetchedResultsController(fetchRequest: request(), managedObjectContext: context, sectionNameKeyPath: "section", cacheName: nil)
    let delegate = TimingDelegate()
    controller.delegate = delegate
    try controller.performFetch()
    precondition(controller.fetchedObjects?.count == count && controller.sections?.count == sectionCount)
    var times: [Double] = []
    for round in 0..<repetitions {
        let object = controller.object(at: IndexPath(row: (round * 37) % (count / sectionCount), section: (round * 7) % sectionCount))
        object.setValue("item z\(round)", forKey: "name")  // moves it to the end of its section
        delegate.didChangeAt = nil
        let start = DispatchTime.now()
        try context.save()
        guard let end = delegate.didChangeAt else { fatalError("controllerDidChangeContent was not called") }
        times.append(seconds(start, end))
    }
    precondition(delegate.changes == repetitions, "one change per save")
    FileHandle.standardError.write(Data("turnaround \(count): \(times.map(ms).joined(separator: ", "))\n".utf8))
    return median(times)
}

let setupStart = Date()
let small = try writeStore(count: 10_000)
let large = try writeStore(count: 100_000)
print("Wrote 10,000 and 100,000 items in \(sectionCount) sections in \(String(format: "%.1f", Date().timeIntervalSince(setupStart))) s; \(repetitions) repetitions")

let plain = try timed(large, "plain fetch") { try $0.fetch(request()).count }
let uncached = try timed(large, "performFetch, no cache") { context in
    let controller = NSFetchedResultsController(fetchRequest: request(), managedObjectContext: context, sectionNameKeyPath: "section", cacheName: nil)
    try controller.performFetch()
    return controller.fetchedObjects!.count
}
// Warm the cache: a controller with a delegate writes it at its fetch.
do {
    let container = openContainer(large)
    let controller = NSFetchedResultsController(fetchRequest: request(), managedObjectContext: container.viewContext, sectionNameKeyPath: "section", cacheName: "Items")
    let delegate = TimingDelegate()
    controller.delegate = delegate
    try controller.performFetch()
}
let cached = try timed(large, "performFetch, warm cache") { context in
    let controller = NSFetchedResultsController(fetchRequest: request(), managedObjectContext: context, sectionNameKeyPath: "section", cacheName: "Items")
    let delegate = TimingDelegate()
    controller.delegate = delegate
    try controller.performFetch()
    precondition(controller.sections?.count == sectionCount)
    return controller.fetchedObjects!.count
}
let turnaroundSmall = try turnaround(small, count: 10_000)
let turnaroundLarge = try turnaround(large, count: 100_000)

print("")
print("| measurement (100,000 items, 50 sections) | median | ratio |")
print("|---|---:|---:|")
print("| plain fetch of the request | \(ms(plain)) | 1.00× |")
print("| `performFetch`, no cache | \(ms(uncached)) | \(String(format: "%.2f×", uncached / plain)) of the plain fetch |")
print("| `performFetch`, warm cache | \(ms(cached)) | \(String(format: "%.2f×", cached / plain)) of the plain fetch (goal ≤ 1.5×) |")
print("| save → `controllerDidChangeContent`, 10,000 items | \(ms(turnaroundSmall)) | 1.00× |")
print("| save → `controllerDidChangeContent`, 100,000 items | \(ms(turnaroundLarge)) | \(String(format: "%.2f×", turnaroundLarge / turnaroundSmall)) of 10,000 (goal ≤ 2×) |")
