import Foundation
import XCTest

@testable import OpenCoreData

/// Trails in countries, with hikes: the model the fetching-request tests share.
///
/// Country.trails (cascade) ↔ Trail.country (nullify); Trail.hikes (cascade) ↔ Hike.trail
/// (nullify); Trail.tags (nullify) ↔ Tag.trails, many-to-many.
func makeRequestModel() -> NSManagedObjectModel {
    func attribute(_ name: String, _ type: NSAttributeType, optional: Bool = true, default value: Any? = nil) -> NSAttributeDescription {
        let attribute = makeAttribute(name, type)
        attribute.isOptional = optional
        attribute.defaultValue = value
        return attribute
    }
    let country = makeEntity("Country")
    let trail = makeEntity("Trail")
    let hike = makeEntity("Hike")
    let tag = makeEntity("Tag")
    let countryTrails = makeRelationship("trails", to: trail, toMany: true)
    countryTrails.deleteRule = .cascadeDeleteRule
    let trailCountry = makeRelationship("country", to: country)
    trailCountry.deleteRule = .nullifyDeleteRule
    makeInverses(countryTrails, trailCountry)
    let trailHikes = makeRelationship("hikes", to: hike, toMany: true)
    trailHikes.deleteRule = .cascadeDeleteRule
    let hikeTrail = makeRelationship("trail", to: trail)
    hikeTrail.deleteRule = .nullifyDeleteRule
    makeInverses(trailHikes, hikeTrail)
    let trailTags = makeRelationship("tags", to: tag, toMany: true)
    trailTags.deleteRule = .nullifyDeleteRule
    let tagTrails = makeRelationship("trails", to: trail, toMany: true)
    tagTrails.deleteRule = .nullifyDeleteRule
    makeInverses(trailTags, tagTrails)

    country.properties = [attribute("name", .stringAttributeType), countryTrails]
    trail.properties = [
        attribute("name", .stringAttributeType), attribute("lengthKm", .doubleAttributeType, optional: false, default: 0.0),
        attribute("elevationGain", .integer32AttributeType, optional: false, default: Int32(0)),
        attribute("difficulty", .integer16AttributeType, optional: false, default: Int16(1)),
        attribute("rating", .doubleAttributeType), attribute("isFavorite", .booleanAttributeType, optional: false, default: false),
        attribute("lastHiked", .dateAttributeType), trailCountry, trailHikes, trailTags,
    ]
    trail.properties.compactMap { $0 as? NSAttributeDescription }.first { $0.name == "rating" }!.constraints.maximum = 5
    hike.properties = [attribute("minutes", .integer32AttributeType), hikeTrail]
    tag.properties = [attribute("label", .stringAttributeType), tagTrails]
    return makeModel([country, hike, tag, trail])
}

/// One row of the catalogue the tests load.
struct TrailSeed {
    var name: String
    var country: String
    var lengthKm: Double
    var elevationGain: Int32
    var difficulty: Int16
    var rating: Double?
}

let requestSeeds: [TrailSeed] = [
    TrailSeed(name: "Laugavegur", country: "Iceland", lengthKm: 55, elevationGain: 1100, difficulty: 2, rating: 4.8),
    TrailSeed(name: "Öræfajökull", country: "Iceland", lengthKm: 22, elevationGain: 2000, difficulty: 3, rating: 4.4),
    TrailSeed(name: "Kungsleden", country: "Sweden", lengthKm: 440, elevationGain: 7000, difficulty: 3, rating: 4.5),
    TrailSeed(name: "熊野古道 中辺路", country: "Japan", lengthKm: 38, elevationGain: 2100, difficulty: 2, rating: 4.6),
    TrailSeed(name: "富士山 吉田ルート", country: "Japan", lengthKm: 14, elevationGain: 1450, difficulty: 2, rating: 4.0),
    TrailSeed(name: "Nakasendō", country: "Japan", lengthKm: 70, elevationGain: 1800, difficulty: 1, rating: nil),
]

/// A temporary store per test with the catalogue saved in it.
class RequestTestCase: StoreTestCase {
    var model: NSManagedObjectModel!

    override func setUpWithError() throws {
        try super.setUpWithError()
        model = makeRequestModel()
    }

    /// A container on this test's store file.
    func openContainer() throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Requests", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: storeURL())]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    /// Saves the catalogue (countries, trails, two hikes on Laugavegur, tags) and returns
    /// the container.
    @discardableResult
    func seededContainer() throws -> NSPersistentContainer {
        let container = try openContainer()
        let context = container.viewContext
        var countries: [String: NSManagedObject] = [:]
        let scenic = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
        scenic.setValue("scenic", forKey: "label")
        for seed in requestSeeds {
            let country = countries[seed.country] ?? {
                let country = NSEntityDescription.insertNewObject(forEntityName: "Country", into: context)
                country.setValue(seed.country, forKey: "name")
                countries[seed.country] = country
                return country
            }()
            let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
            trail.setValue(seed.name, forKey: "name")
            trail.setValue(seed.lengthKm, forKey: "lengthKm")
            trail.setValue(seed.elevationGain, forKey: "elevationGain")
            trail.setValue(seed.difficulty, forKey: "difficulty")
            trail.setValue(seed.rating, forKey: "rating")
            trail.setValue(country, forKey: "country")
            if seed.country != "Sweden" { trail.setValue(Set([scenic]), forKey: "tags") }
            if seed.name == "Laugavegur" {
                for minutes in [Int32(300), Int32(420)] {
                    let hike = NSEntityDescription.insertNewObject(forEntityName: "Hike", into: context)
                    hike.setValue(minutes, forKey: "minutes")
                    hike.setValue(trail, forKey: "trail")
                }
            }
        }
        try context.save()
        return container
    }

    /// The trail named `name` in `context`.
    func trail(_ name: String, in context: NSManagedObjectContext) throws -> NSManagedObject {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        request.predicate = NSPredicate(format: "name == %@", name)
        return try XCTUnwrap(try context.fetch(request).first)
    }

    /// Names of the stored trails, sorted, read through a fresh container.
    func storedTrailNames() throws -> [String] {
        try query(storeURL(), "SELECT ZNAME FROM ZTRAIL ORDER BY ZNAME").map { $0[0] as! String }
    }
}
