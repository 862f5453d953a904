import Foundation
import XCTest
@testable import OpenCoreData

/// A to-one with the cascade rule, replaced by a constraint merge: Core Data deletes the
/// object it pointed at (decompiled NSMergePolicy, iOS 26: `deleteRule == 2` leads to
/// `deleteObject:` of the replaced destination in `_byPropertyObjectTrumpResolveConstraintConflict:`).
final class ConstraintToOneTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ocd-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: directory) }

    /// Card { number (unique), photo -> Photo (cascade) }, Photo { caption, card -> Card }.
    private func openContainer() throws -> NSPersistentContainer {
        func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            return attribute
        }
        let card = NSEntityDescription(), photo = NSEntityDescription()
        card.name = "Card"; photo.name = "Photo"
        let cardPhoto = NSRelationshipDescription(), photoCard = NSRelationshipDescription()
        cardPhoto.name = "photo"; cardPhoto.destinationEntity = photo; cardPhoto.maxCount = 1; cardPhoto.deleteRule = .cascadeDeleteRule
        photoCard.name = "card"; photoCard.destinationEntity = card; photoCard.maxCount = 1; photoCard.deleteRule = .nullifyDeleteRule
        cardPhoto.inverseRelationship = photoCard; photoCard.inverseRelationship = cardPhoto
        card.properties = [attribute("number", .stringAttributeType), cardPhoto]
        card.uniquenessConstraints = [["number"]]
        photo.properties = [attribute("caption", .stringAttributeType), photoCard]
        let model = NSManagedObjectModel()
        model.entities = [card, photo]
        let container = NSPersistentContainer(name: "Cards", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: directory.appendingPathComponent("Cards.sqlite"))]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    private func insertCard(_ number: String, photo caption: String, into context: NSManagedObjectContext) {
        let card = NSEntityDescription.insertNewObject(forEntityName: "Card", into: context)
        card.setValue(number, forKey: "number")
        let photo = NSEntityDescription.insertNewObject(forEntityName: "Photo", into: context)
        photo.setValue(caption, forKey: "caption")
        card.setValue(photo, forKey: "photo")
    }

    func testObjectTrumpDeletesTheReplacedCascadeDestination() throws {
        let container = try openContainer()
        let setup = container.newBackgroundContext()
        try setup.performAndWait {
            insertCard("A-1", photo: "old", into: setup)
            try setup.save()
        }
        let importer = container.newBackgroundContext()
        importer.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
        try importer.performAndWait {
            insertCard("A-1", photo: "new", into: importer)
            try importer.save()
        }
        let reader = container.newBackgroundContext()
        try reader.performAndWait {
            let cards = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Card"))
            XCTAssertEqual(cards.count, 1)
            XCTAssertEqual((cards.first?.value(forKey: "photo") as? NSManagedObject)?.value(forKey: "caption") as? String, "new")
            let photos = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Photo"))
            XCTAssertEqual(photos.compactMap { $0.value(forKey: "caption") as? String }, ["new"], "the replaced photo was deleted")
        }
    }
}
