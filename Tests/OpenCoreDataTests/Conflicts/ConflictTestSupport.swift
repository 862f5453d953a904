import Foundation
import XCTest
@testable import OpenCoreData

/// A store of trails (name unique) and hikes, and two contexts on it: what the conflict
/// and constraint tests share.
class ConflictTestCase: XCTestCase {
    var directory: URL!
    var container: NSPersistentContainer!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-conflicts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        container = try Self.openContainer(at: directory.appendingPathComponent("Trails.sqlite"))
    }

    override func tearDownWithError() throws {
        container = nil
        try? FileManager.default.removeItem(at: directory)
    }

    /// Trail { name (unique), rating, lengthKm, country?, hikes ->> Hike (cascade) },
    /// Hike { notes?, trail -> Trail (nullify) }.
    static func trailModel() -> NSManagedObjectModel {
        let trail = makeEntity("Trail")
        let hike = makeEntity("Hike")
        let name = makeAttribute("name", .stringAttributeType)
        let rating = makeAttribute("rating", .doubleAttributeType)
        rating.defaultValue = 0.0
        let length = makeAttribute("lengthKm", .doubleAttributeType)
        length.defaultValue = 0.0
        let country = makeAttribute("country", .stringAttributeType)
        let hikes = makeRelationship("hikes", to: hike, toMany: true)
        hikes.deleteRule = .cascadeDeleteRule
        let toTrail = makeRelationship("trail", to: trail)
        makeInverses(hikes, toTrail)
        trail.properties = [name, rating, length, country, hikes]
        trail.uniquenessConstraints = [["name"]]
        hike.properties = [makeAttribute("notes", .stringAttributeType), toTrail]
        return makeModel([trail, hike])
    }

    static func openContainer(at url: URL, model: NSManagedObjectModel = trailModel()) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Trails", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    /// A main-queue context of its own on the container's coordinator (the tests run on
    /// the main thread).
    func newContext() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = container.persistentStoreCoordinator
        return context
    }

    @discardableResult
    func insertTrail(_ name: String, rating: Double = 3, lengthKm: Double = 10, country: String? = "NO", into context: NSManagedObjectContext) -> NSManagedObject {
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        trail.setValue(name, forKey: "name")
        trail.setValue(rating, forKey: "rating")
        trail.setValue(lengthKm, forKey: "lengthKm")
        trail.setValue(country, forKey: "country")
        return trail
    }

    @discardableResult
    func insertHike(_ notes: String, on trail: NSManagedObject?, into context: NSManagedObjectContext) -> NSManagedObject {
        let hike = NSEntityDescription.insertNewObject(forEntityName: "Hike", into: context)
        hike.setValue(notes, forKey: "notes")
        hike.setValue(trail, forKey: "trail")
        return hike
    }

    func trail(_ name: String, in context: NSManagedObjectContext) throws -> NSManagedObject? {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        request.predicate = NSPredicate(format: "name == %@", name)
        return try context.fetch(request).first
    }

    func hike(_ notes: String, in context: NSManagedObjectContext) throws -> NSManagedObject? {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Hike")
        request.predicate = NSPredicate(format: "notes == %@", notes)
        return try context.fetch(request).first
    }

    /// What the store holds now, read through a new coordinator.
    func storedTrails() throws -> [String: (rating: Double, lengthKm: Double, country: String?, hikes: [String])] {
        let reader = try Self.openContainer(at: directory.appendingPathComponent("Trails.sqlite"))
        var result: [String: (Double, Double, String?, [String])] = [:]
        for trail in try reader.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail")) {
            let hikes = (trail.value(forKey: "hikes") as! Set<NSManagedObject>).compactMap { $0.value(forKey: "notes") as? String }.sorted()
            result[trail.value(forKey: "name") as! String] = (trail.value(forKey: "rating") as! Double, trail.value(forKey: "lengthKm") as! Double, trail.value(forKey: "country") as? String, hikes)
        }
        return result
    }

    func count(_ entity: String) throws -> Int {
        let reader = try Self.openContainer(at: directory.appendingPathComponent("Trails.sqlite"))
        return try reader.viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: entity))
    }
}
