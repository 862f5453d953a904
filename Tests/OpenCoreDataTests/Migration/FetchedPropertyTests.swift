import Foundation
import XCTest

@testable import OpenCoreData

/// Fetched properties read from a model file: evaluated lazily with `$FETCH_SOURCE`, kept
/// until the object is refreshed.
final class FetchedPropertyTests: MigrationTestCase {
    private func model() throws -> NSManagedObjectModel {
        let xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Hike" representedClassName="Hike" syncable="YES" codeGenerationType="class">
                    <attribute name="minutes" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
                    <relationship name="trail" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Trail" inverseName="hikes" inverseEntity="Trail"/>
                </entity>
                <entity name="Trail" representedClassName="Trail" syncable="YES" codeGenerationType="class">
                    <attribute name="name" optional="YES" attributeType="String"/>
                    <relationship name="hikes" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Hike" inverseName="trail" inverseEntity="Hike"/>
                    <fetchedProperty name="longHikes" optional="YES">
                        <fetchRequest name="fetchedPropertyFetchRequest" entity="Hike" predicateString="trail == $FETCH_SOURCE AND minutes &gt; 60"/>
                    </fetchedProperty>
                </entity>
            </model>
            """
        let url = directory.appendingPathComponent("Fetched.xcdatamodel")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try Data(xml.utf8).write(to: url.appendingPathComponent("contents"))
        return try NSManagedObjectModel.load(contentsOf: url)
    }

    func testAFetchedPropertyIsEvaluatedLazilyAndRefreshedWithTheObject() throws {
        let model = try model()
        let fetched = try XCTUnwrap(model.entitiesByName["Trail"]?.propertiesByName["longHikes"] as? NSFetchedPropertyDescription)
        XCTAssertEqual(fetched.fetchRequest?.entityName, "Hike")
        XCTAssertEqual(fetched.fetchRequest?.predicate?.predicateFormat, "trail == $FETCH_SOURCE AND minutes > 60")
        // Not part of the entity's version hash, nor of the store.
        let context = try open(model, options: [:])
        let trail = NSEntityDescription.insertNewObject(forEntityName: "Trail", into: context)
        trail.setValue("Routeburn", forKey: "name")
        for minutes in [30, 90, 240] {
            let hike = NSEntityDescription.insertNewObject(forEntityName: "Hike", into: context)
            hike.setValue(Int32(minutes), forKey: "minutes")
            hike.setValue(trail, forKey: "trail")
        }
        try context.save()
        func longMinutes() -> [Int32] {
            ((trail.value(forKey: "longHikes") as? [Any]) ?? []).compactMap { ($0 as? NSManagedObject)?.value(forKey: "minutes") as? Int32 }.sorted()
        }
        XCTAssertEqual(longMinutes(), [90, 240])
        let another = NSEntityDescription.insertNewObject(forEntityName: "Hike", into: context)
        another.setValue(Int32(120), forKey: "minutes")
        another.setValue(trail, forKey: "trail")
        try context.save()
        XCTAssertEqual(longMinutes(), [90, 240], "kept until the object is refreshed")
        context.refresh(trail, mergeChanges: false)
        XCTAssertEqual(longMinutes(), [90, 120, 240])
        XCTAssertFalse(trail.hasChanges)
        XCTAssertFalse(try columns(storeURL(), "ZTRAIL").contains("ZLONGHIKES"))
    }

    func testAFetchedPropertyWithoutRequestOrWithABadPredicateIsAModelError() throws {
        let url = directory.appendingPathComponent("Bad.xml")
        try Data("""
            <model>
                <entity name="Trail">
                    <fetchedProperty name="broken" optional="YES">
                        <fetchRequest name="fetchedPropertyFetchRequest" entity="Trail" predicateString="name ==="/>
                    </fetchedProperty>
                </entity>
            </model>
            """.utf8).write(to: url)
        XCTAssertThrowsError(try NSManagedObjectModel.load(contentsOf: url)) { error in
            XCTAssertTrue((error as NSError).localizedDescription.contains("fetched property Trail.broken has a predicate that cannot be read"), "\(error)")
        }
    }
}
