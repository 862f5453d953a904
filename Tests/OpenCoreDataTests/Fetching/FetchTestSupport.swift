import Foundation
import XCTest

import class OpenCoreData.NSComparisonPredicate
import class OpenCoreData.NSCompoundPredicate
import class OpenCoreData.NSExpression
import class OpenCoreData.NSPredicate
import class OpenCoreData.NSSortDescriptor
@testable import OpenCoreData

/// The Trailhead model: Country ←→> Trail ←→> Hike <<→> Hiker (hikes and hikers many-to-many).
func makeTrailheadModel() -> NSManagedObjectModel {
    let country = makeEntity("Country")
    let trail = makeEntity("Trail")
    let hike = makeEntity("Hike")
    let hiker = makeEntity("Hiker")
    let countryTrails = makeRelationship("trails", to: trail, toMany: true)
    let trailCountry = makeRelationship("country", to: country)
    let trailHikes = makeRelationship("hikes", to: hike, toMany: true)
    let hikeTrail = makeRelationship("trail", to: trail)
    let hikeHikers = makeRelationship("hikers", to: hiker, toMany: true)
    let hikerHikes = makeRelationship("hikes", to: hike, toMany: true)
    makeInverses(countryTrails, trailCountry)
    makeInverses(trailHikes, hikeTrail)
    makeInverses(hikeHikers, hikerHikes)
    country.properties = [makeAttribute("name", .stringAttributeType, indexed: true), makeAttribute("code", .stringAttributeType), countryTrails]
    trail.properties = [
        makeAttribute("name", .stringAttributeType, indexed: true), makeAttribute("lengthKm", .doubleAttributeType),
        makeAttribute("elevation", .integer32AttributeType), makeAttribute("rating", .integer16AttributeType),
        makeAttribute("isLoop", .booleanAttributeType), makeAttribute("opened", .dateAttributeType),
        makeAttribute("id", .UUIDAttributeType), makeAttribute("url", .URIAttributeType),
        makeAttribute("photo", .binaryDataAttributeType), makeAttribute("fee", .decimalAttributeType),
        trailCountry, trailHikes,
    ]
    hike.properties = [
        makeAttribute("date", .dateAttributeType), makeAttribute("distance", .doubleAttributeType),
        makeAttribute("notes", .stringAttributeType), hikeTrail, hikeHikers,
    ]
    hiker.properties = [makeAttribute("name", .stringAttributeType), makeAttribute("age", .integer64AttributeType), hikerHikes]
    return makeModel([country, trail, hike, hiker])
}

/// A deterministic random generator (SplitMix64), so that a failing seed reproduces.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Strings that make comparison hard: nil, empty, case, accents composed and decomposed,
/// ß, dotted İ, Greek, Japanese, wildcards and regex characters.
let awkwardStrings: [String?] = [
    nil, "", "Ridge", "ridge", "RIDGE", "Ridge Trail", "Café", "café", "CAFÉ", "Cafe\u{301}", "cafe", "é", "É", "e\u{301}", "e",
    "Straße", "STRASSE", "strasse", "İstanbul", "istanbul", "ISTANBUL", "Ελλάδα", "ελλαδα", "ΕΛΛΆΔΑ", "富士山", "富士", "山",
    "Łódź", "lodz", "Zürich", "zurich", "a*b", "a?c", "a.b", "Ærø", "ÅLAND", "Mont Blanc", "mont-blanc", "Ñandú", "nandu",
]

/// A container with the Trailhead model on a store in `directory`, filled from `seed`.
final class TrailheadFixture {
    let container: NSPersistentContainer
    var context: NSManagedObjectContext { container.viewContext }
    private(set) var countries: [NSManagedObject] = []
    private(set) var trails: [NSManagedObject] = []
    private(set) var hikes: [NSManagedObject] = []
    private(set) var hikers: [NSManagedObject] = []

    init(directory: URL, name: String = "Trailhead.sqlite") throws {
        container = NSPersistentContainer(name: "Trailhead", managedObjectModel: makeTrailheadModel())
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: directory.appendingPathComponent(name))]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
    }

    var store: NSPersistentStore { container.persistentStoreCoordinator.persistentStores[0] }

    func insert(_ entity: String, _ values: [String: Any?]) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
        for (key, value) in values { object.setValue(value ?? nil, forKey: key) }
        return object
    }

    /// Resets the context and replaces the remembered objects with the context's new
    /// instances (faults): predicates compare objects by identity in memory.
    func reset() {
        context.reset()
        func reload(_ objects: [NSManagedObject]) -> [NSManagedObject] { objects.map { context.object(with: $0.objectID) } }
        countries = reload(countries)
        trails = reload(trails)
        hikes = reload(hikes)
        hikers = reload(hikers)
    }

    /// Random data: every attribute sometimes nil, strings from ``awkwardStrings``.
    func fill(seed: UInt64, trails trailCount: Int = 40, hikes hikeCount: Int = 90, hikers hikerCount: Int = 14) throws {
        var random = SeededGenerator(seed: seed)
        func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
        func maybe(_ percent: UInt64) -> Bool { random.next() % 100 < percent }
        let names = ["Japan", "Greece", "Türkiye", "Österreich", "España", "Schweiz", "Ísland"]
        for name in names {
            countries.append(insert("Country", ["name": name, "code": maybe(20) ? nil : String(name.prefix(2)).uppercased()]))
        }
        for index in 0..<trailCount {
            let trail = insert("Trail", [
                "name": pick(awkwardStrings),
                "lengthKm": maybe(15) ? nil : Double(random.next() % 80) * 0.25,
                "elevation": maybe(15) ? nil : Int32(random.next() % 3000) - 200,
                "rating": maybe(15) ? nil : Int16(random.next() % 6),
                "isLoop": maybe(15) ? nil : maybe(50),
                "opened": maybe(15) ? nil : Date(timeIntervalSinceReferenceDate: Double(random.next() % 40) * 86_400 * 30),
                "id": maybe(20) ? nil : UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", index % 7)),
                "url": maybe(30) ? nil : URL(string: "https://trails.example/\(index % 5)"),
            ])
            trail.setValue(maybe(20) ? nil : pick(countries), forKey: "country")
            trails.append(trail)
        }
        for _ in 0..<hikerCount {
            hikers.append(insert("Hiker", ["name": pick(awkwardStrings), "age": maybe(15) ? nil : Int64(random.next() % 70) + 10]))
        }
        for _ in 0..<hikeCount {
            let hike = insert("Hike", [
                "date": maybe(10) ? nil : Date(timeIntervalSinceReferenceDate: Double(random.next() % 500) * 86_400),
                "distance": maybe(15) ? nil : Double(random.next() % 60) * 0.5,
                "notes": pick(awkwardStrings),
            ])
            hike.setValue(maybe(10) ? nil : pick(trails), forKey: "trail")
            var members = Set<NSManagedObject>()
            for _ in 0..<(random.next() % 4) { members.insert(pick(hikers)) }
            hike.setValue(members, forKey: "hikers")
            hikes.append(hike)
        }
        try context.save()
    }
}

/// Captures SQL debug lines at `level` while `body` runs.
func capturingSQL<T>(level: Int = 1, _ body: () throws -> T) rethrows -> (T, [String]) {
    let lock = NSLock()
    var lines: [String] = []
    SQLDebugLog.setLevelOverride(level)
    SQLDebugLog.setSink { line in
        lock.lock()
        lines.append(line)
        lock.unlock()
    }
    defer {
        SQLDebugLog.setLevelOverride(nil)
        SQLDebugLog.setSink(nil)
    }
    let result = try body()
    return (result, lines)
}

/// A folder per test, removed afterwards.
class FetchTestCase: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("fetch-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        SQLDebugLog.setLevelOverride(nil)
        SQLDebugLog.setSink(nil)
        try? FileManager.default.removeItem(at: directory)
    }
}
