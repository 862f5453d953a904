import Foundation
import XCTest
@testable import OpenCoreData

// The classes of the Graph fixture model (Fixtures/models/Graph.xcdatamodel): an abstract
// Region with Country and Continent under it, trails with hikes, ordered waypoints and
// reports, hikers who hike together, mentor one another, are friends and carry one card.

class GRegion: NSManagedObject {
    @Managed var name: String?
    @Managed var highlights: Set<GTrail>
}

final class GContinent: GRegion {
    @Managed var countries: Set<GCountry>
}

final class GCountry: GRegion {
    @Managed var code: String?
    @Managed var continent: GContinent?
    @Managed var trails: NSSet?
}

final class GTrail: NSManagedObject {
    @Managed var name: String?
    @Managed var country: GCountry?
    @Managed var featuredIn: GRegion?
    @Managed var hikes: Set<GHike>
    @Managed var reports: Set<GReport>
    @Managed var waypoints: NSOrderedSet?

    /// How many times `prepareForDeletion` ran, for the tests.
    static var preparedForDeletion = 0

    /// Removes the country together with its last trail.
    override func prepareForDeletion() {
        super.prepareForDeletion()
        GTrail.preparedForDeletion += 1
        if let country, let trails = country.trails, trails.count == 1, trails.contains(self) {
            managedObjectContext?.delete(country)
        }
    }
}

// The accessors Xcode generates for to-many relationships, written by hand as Linux needs.
extension GTrail {
    func addToHikes(_ value: GHike) { mutableSetValue(forKey: "hikes").add(value) }
    func removeFromHikes(_ value: GHike) { mutableSetValue(forKey: "hikes").remove(value) }
    func addToHikes(_ values: NSSet) { mutableSetValue(forKey: "hikes").union(values as! Set<AnyHashable>) }
    func removeFromHikes(_ values: NSSet) { mutableSetValue(forKey: "hikes").minus(values as! Set<AnyHashable>) }

    func insertIntoWaypoints(_ value: GWaypoint, at index: Int) { mutableOrderedSetValue(forKey: "waypoints").insert(value, at: index) }
    func removeFromWaypoints(at index: Int) { mutableOrderedSetValue(forKey: "waypoints").removeObject(at: index) }
    func replaceWaypoints(at index: Int, with value: GWaypoint) { mutableOrderedSetValue(forKey: "waypoints").replaceObject(at: index, with: value) }
    func addToWaypoints(_ value: GWaypoint) { mutableOrderedSetValue(forKey: "waypoints").add(value) }
    func removeFromWaypoints(_ value: GWaypoint) { mutableOrderedSetValue(forKey: "waypoints").remove(value) }
}

final class GWaypoint: NSManagedObject {
    @Managed var name: String?
    @Managed var trail: GTrail?
}

final class GHike: NSManagedObject {
    @Managed var note: String?
    @Managed var trail: GTrail?
    @Managed var hikers: Set<GHiker>
}

final class GHiker: NSManagedObject {
    @Managed var name: String?
    @Managed var card: GMembershipCard?
    @Managed var friends: Set<GHiker>
    @Managed var hikes: Set<GHike>
    @Managed var mentees: Set<GHiker>
    @Managed var mentor: GHiker?
}

final class GMembershipCard: NSManagedObject {
    @Managed var number: Int32
    @Managed var owner: GHiker?
}

final class GReport: NSManagedObject {
    @Managed var text: String?
    @Managed var trail: GTrail?
}

/// Each test opens containers on the Graph model in a directory of its own.
class GraphTestCase: XCTestCase {
    var directory: URL!
    var model: NSManagedObjectModel!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-graph-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        model = try ModelFixtures.load("Graph.xcdatamodel")
        // The model names classes without a module, as Xcode writes them: tell the lookup
        // about this module before anything is fetched.
        ManagedObjectClasses.noteClass(GTrail.self)
        GTrail.preparedForDeletion = 0
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    var storeURL: URL { directory.appendingPathComponent("Graph.sqlite") }

    /// A container with its store loaded: a fresh one is the program after a relaunch.
    func openContainer() throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Graph", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: storeURL)]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    /// The objects of `entityName` in `context`, sorted by `key`.
    func fetch<T: NSManagedObject>(_ entityName: String, in context: NSManagedObjectContext, sortedBy key: String = "name", as type: T.Type = T.self) throws -> [T] {
        let request = NSFetchRequest<T>(entityName: entityName)
        request.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)]
        return try context.fetch(request)
    }

    func count(_ entityName: String, in context: NSManagedObjectContext) throws -> Int {
        try context.count(for: NSFetchRequest<NSManagedObject>(entityName: entityName))
    }

    /// Rows of a SQL query on the store file, each as an array of column values.
    func sql(_ text: String) throws -> [[Any?]] {
        let database = try SQLiteDatabase(path: storeURL.path)
        defer { database.close() }
        let statement = try database.statement(text)
        defer { statement.reset() }
        var rows: [[Any?]] = []
        while try statement.step() {
            rows.append((0..<statement.columnCount).map { column -> Any? in
                switch statement.columnType(column) {
                case 1: return statement.int64(column)
                case 2: return statement.double(column)
                case 3: return statement.string(column)
                case 4: return statement.data(column)
                default: return nil
                }
            })
        }
        return rows
    }

    /// The column names of a table of the store.
    func columns(_ table: String) throws -> [String] {
        try sql("SELECT name FROM pragma_table_info('\(table)') ORDER BY cid").map { $0[0] as! String }
    }

    func names<S: Sequence>(_ objects: S) -> [String] where S.Element: NSManagedObject {
        objects.map { ($0.value(forKey: "name") as? String) ?? "?" }.sorted()
    }
}
