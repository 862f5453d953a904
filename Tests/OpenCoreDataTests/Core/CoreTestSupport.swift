import Foundation
import XCTest
@testable import OpenCoreData

/// A Trail with one attribute of every type, a Hike pointing at it, and validation rules.
func makeTrailModel() -> NSManagedObjectModel {
    func attribute(_ name: String, _ type: NSAttributeType, optional: Bool = true) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.isOptional = optional
        return attribute
    }
    let trail = NSEntityDescription()
    trail.name = "Trail"
    trail.managedObjectClassName = NSStringFromClass(TestTrail.self)
    let name = attribute("name", .stringAttributeType, optional: false)
    let rating = attribute("rating", .doubleAttributeType)
    rating.constraints.minimum = 0
    rating.constraints.maximum = 5
    let photo = attribute("photo", .binaryDataAttributeType)
    photo.allowsExternalBinaryDataStorage = true
    let tags = attribute("tags", .transformableAttributeType)
    tags.valueTransformerName = "TestTagsTransformer"
    let note = attribute("scratch", .stringAttributeType)
    note.isTransient = true
    trail.properties = [
        name, rating, photo, tags, note,
        attribute("elevation", .integer32AttributeType), attribute("steps", .integer16AttributeType),
        attribute("visits", .integer64AttributeType), attribute("grade", .floatAttributeType),
        attribute("fee", .decimalAttributeType), attribute("isFavorite", .booleanAttributeType),
        attribute("lastHiked", .dateAttributeType), attribute("id", .UUIDAttributeType),
        attribute("url", .URIAttributeType),
    ]
    let hike = NSEntityDescription()
    hike.name = "Hike"
    let hikeDate = attribute("date", .dateAttributeType)
    let hikeTrail = NSRelationshipDescription()
    hikeTrail.name = "trail"
    hikeTrail.destinationEntity = trail
    hikeTrail.maxCount = 1
    let trailHikes = NSRelationshipDescription()
    trailHikes.name = "hikes"
    trailHikes.destinationEntity = hike
    trailHikes.maxCount = 0
    trailHikes.deleteRule = .cascadeDeleteRule
    hikeTrail.inverseRelationship = trailHikes
    trailHikes.inverseRelationship = hikeTrail
    hike.properties = [hikeDate, hikeTrail]
    trail.properties = trail.properties + [trailHikes]
    let model = NSManagedObjectModel()
    model.entities = [trail, hike]
    ValueTransformer.setValueTransformer(CodableValueTransformer<[String]>(), forName: NSValueTransformerName("TestTagsTransformer"))
    return model
}

/// The typed subclass of the Trail entity.
final class TestTrail: NSManagedObject {
    @Managed var name: String?
    @Managed var rating: Double
    @Managed var elevation: Int32
    @Managed var isFavorite: Bool
    @Managed var fee: Decimal?
    @Managed var lastHiked: Date?
    @Managed var hikes: Set<NSManagedObject>
    var awakeCount = 0
    /// Set as the object starts to be freed, which then pauses for `deinitPause`
    /// microseconds: RegistryLifetimeTests looks objects up during that pause.
    var isBeingFreed = false
    nonisolated(unsafe) static var deinitPause: useconds_t = 0
    deinit {
        isBeingFreed = true
        if Self.deinitPause > 0 { usleep(Self.deinitPause) }
    }
    override func awakeFromInsert() {
        super.awakeFromInsert()
        awakeCount += 1
    }
    /// The keys announced through willAccessValue(forKey:), when `recordsAccess` is set.
    var accessedKeys: [String?] = []
    var recordsAccess = false
    override func willAccessValue(forKey key: String?) {
        if recordsAccess { accessedKeys.append(key) }
        super.willAccessValue(forKey: key)
    }
}

/// A temporary directory per test, and containers opening a store in it.
class CoreTestCase: XCTestCase {
    var directory: URL!
    var model: NSManagedObjectModel!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        model = makeTrailModel()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    var storeURL: URL { directory.appendingPathComponent("Trails.sqlite") }

    /// A container with its store loaded, as an app would open it after a launch.
    func openContainer(file: StaticString = #filePath, line: UInt = #line) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Trails", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: storeURL)]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    /// Saves `count` trails named "Trail 0", "Trail 1", … (each with `hikesEach` hikes)
    /// through a container of their own; returns their object IDs as URIs.
    @discardableResult
    func saveTrails(_ count: Int, hikesEach: Int = 0) throws -> [URL] {
        let writer = try openContainer()
        var trails: [NSManagedObject] = []
        for index in 0..<count {
            let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: writer.viewContext)
            trail.setValue("Trail \(index)", forKey: "name")
            for _ in 0..<hikesEach {
                NSEntityDescription.insertNewObject(forEntityName: "Hike", into: writer.viewContext).setValue(trail, forKey: "trail")
            }
            trails.append(trail)
        }
        try writer.viewContext.save()
        return trails.map { $0.objectID.uriRepresentation() }
    }

    func trailCount(in container: NSPersistentContainer) throws -> Int {
        try container.viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Trail"))
    }
}
