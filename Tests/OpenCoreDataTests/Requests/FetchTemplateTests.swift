import Foundation
import XCTest

@testable import OpenCoreData

final class FetchTemplateTests: RequestTestCase {
    func testTemplateFromCodeIsACopyAndStaysEditableUntilACoordinatorUsesTheModel() throws {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
        request.predicate = NSPredicate(format: "lengthKm > 50")
        model.setFetchRequestTemplate(request, forName: "LongTrails")
        request.predicate = nil  // the model keeps its own copy

        let stored = try XCTUnwrap(model.fetchRequestTemplate(forName: "LongTrails"))
        XCTAssertEqual(stored.predicate?.predicateFormat, "lengthKm > 50")
        XCTAssertTrue(model.isEditable)
        XCTAssertFalse(stored.isImmutableTemplate)
        XCTAssertTrue(model.fetchRequestTemplate(forName: "LongTrails") === stored, "the same request every time")
        XCTAssertNil(model.fetchRequestTemplate(forName: "Missing"))
        XCTAssertEqual(Array(model.fetchRequestTemplatesByName.keys), ["LongTrails"])

        // Core Data's rule: a model used by a coordinator is no longer editable, and
        // neither are the templates it hands out.
        let container = try seededContainer()
        XCTAssertFalse(model.isEditable)
        XCTAssertTrue(stored.isImmutableTemplate)
        XCTAssertTrue(try XCTUnwrap(model.fetchRequestTemplate(forName: "LongTrails")).isImmutableTemplate)

        let names = try container.viewContext.fetch(stored).map { ($0 as! NSManagedObject).value(forKey: "name") as! String }
        XCTAssertEqual(names.sorted(), ["Kungsleden", "Laugavegur", "Nakasendō"])

        // A copy can be changed.
        let copy = stored.copy() as! NSFetchRequest<NSFetchRequestResult>
        XCTAssertFalse(copy.isImmutableTemplate)
        copy.sortDescriptors = [NSSortDescriptor(key: "lengthKm", ascending: false)]
        XCTAssertEqual(try container.viewContext.fetch(copy).count, 3)
    }

    func testTemplatesFromModelXMLWithSubstitutionVariables() throws {
        let modelURL = directory.appendingPathComponent("Walks.xcdatamodel")
        try FileManager.default.createDirectory(at: modelURL, withIntermediateDirectories: true)
        try """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23A344" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Walk" representedClassName="Walk" syncable="YES">
                <attribute name="country" optional="YES" attributeType="String"/>
                <attribute name="lengthKm" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                <attribute name="name" optional="YES" attributeType="String"/>
            </entity>
            <fetchRequest name="AllWalks" entity="Walk"/>
            <fetchRequest name="WalksInCountry" entity="Walk" predicateString="country == $COUNTRY AND lengthKm &gt;= $MIN"/>
        </model>
        """.write(to: modelURL.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        let loaded = try XCTUnwrap(NSManagedObjectModel(contentsOf: modelURL))
        XCTAssertEqual(loaded.fetchRequestTemplatesByName.keys.sorted(), ["AllWalks", "WalksInCountry"])
        let all = try XCTUnwrap(loaded.fetchRequestTemplate(forName: "AllWalks"))
        XCTAssertEqual(all.entityName, "Walk")
        XCTAssertNil(all.predicate)

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: loaded)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL())
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        for (name, country, length) in [("Laugavegur", "Iceland", 55.0), ("Fimmvörðuháls", "Iceland", 25.0), ("Kungsleden", "Sweden", 440.0)] {
            let walk = NSEntityDescription.insertNewObject(forEntityName: "Walk", into: context)
            walk.setValue(name, forKey: "name")
            walk.setValue(country, forKey: "country")
            walk.setValue(length, forKey: "lengthKm")
        }
        try context.save()

        let template = try XCTUnwrap(loaded.fetchRequestTemplate(forName: "WalksInCountry"))
        XCTAssertTrue(template.isImmutableTemplate)
        XCTAssertEqual(template.predicate?.predicateFormat, "country == $COUNTRY AND lengthKm >= $MIN")

        let filled = try XCTUnwrap(loaded.fetchRequestFromTemplate(withName: "WalksInCountry", substitutionVariables: ["COUNTRY": "Iceland", "MIN": 30]))
        XCTAssertFalse(filled.isImmutableTemplate, "a request made from a template is new and changeable")
        XCTAssertFalse(filled === template)
        XCTAssertEqual(filled.predicate?.predicateFormat, "country == \"Iceland\" AND lengthKm >= 30")
        filled.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        XCTAssertEqual(try context.fetch(filled).map { ($0 as! NSManagedObject).value(forKey: "name") as! String }, ["Laugavegur"])
        XCTAssertEqual(template.predicate?.predicateFormat, "country == $COUNTRY AND lengthKm >= $MIN", "the template itself is untouched")
        XCTAssertEqual(try context.count(for: all), 3)
        XCTAssertNil(loaded.fetchRequestFromTemplate(withName: "Missing", substitutionVariables: [:]))
    }

    func testSettingNilRemovesATemplate() {
        model.setFetchRequestTemplate(NSFetchRequest<NSFetchRequestResult>(entityName: "Trail"), forName: "All")
        XCTAssertNotNil(model.fetchRequestTemplate(forName: "All"))
        model.setFetchRequestTemplate(nil as NSFetchRequest<NSFetchRequestResult>?, forName: "All")
        XCTAssertNil(model.fetchRequestTemplate(forName: "All"))
    }
}
