import Foundation
import XCTest

@testable import OpenCoreData

final class ModelLoadingTests: XCTestCase {
    func testEntitiesAndTheirAttributes() throws {
        let model = try ModelFixtures.load("Trails.xcdatamodel")
        XCTAssertEqual(model.entities.compactMap(\.name), ["Trail", "Region", "Place", "Stop"])
        XCTAssertEqual(model.versionIdentifiers, ["v1"])
        let trail = try XCTUnwrap(model.entitiesByName["Trail"])
        XCTAssertEqual(trail.managedObjectClassName, "Trail")
        XCTAssertEqual(trail.versionHashModifier, "trail-v1")
        XCTAssertEqual(trail.renamingIdentifier, "Path")
        XCTAssertEqual(trail.userInfo?["owner"] as? String, "parks")
        XCTAssertEqual(trail.userInfo?["tier"] as? String, "2")
        XCTAssertTrue(trail.managedObjectModel === model)
        XCTAssertEqual(model.entitiesByName["Place"]?.isAbstract, true)
        XCTAssertEqual(model.entitiesByName["Region"]?.managedObjectClassName, "Region")
        XCTAssertEqual(model.entitiesByName["Place"]?.managedObjectClassName, "NSManagedObject")

        let attributes = trail.attributesByName
        let expectedTypes: [String: NSAttributeType] = [
            "name": .stringAttributeType, "rating": .doubleAttributeType, "length": .integer32AttributeType,
            "elevation": .integer16AttributeType, "visits": .integer64AttributeType, "price": .decimalAttributeType,
            "grade": .floatAttributeType, "isOpen": .booleanAttributeType, "opened": .dateAttributeType,
            "map": .binaryDataAttributeType, "id": .UUIDAttributeType, "url": .URIAttributeType,
            "tags": .transformableAttributeType, "scratch": .undefinedAttributeType, "oldName": .stringAttributeType,
        ]
        XCTAssertEqual(attributes.mapValues(\.attributeType), expectedTypes)

        let name = try XCTUnwrap(attributes["name"])
        XCTAssertFalse(name.isOptional)
        XCTAssertTrue(name.isIndexedBySpotlight)
        XCTAssertEqual(name.constraints.minimum, 1)
        XCTAssertEqual(name.constraints.maximum, 40)
        XCTAssertEqual(name.constraints.regularExpression, "[A-Za-z ]+")
        XCTAssertEqual(attributes["length"]?.isIndexed, true)
        XCTAssertEqual(attributes["rating"]?.constraints.maximum, 5)
        XCTAssertEqual(attributes["opened"]?.constraints.minimumDate, 0)
        XCTAssertEqual(attributes["opened"]?.constraints.maximumDate, 1_000_000)
        XCTAssertEqual(attributes["map"]?.allowsExternalBinaryDataStorage, true)
        XCTAssertEqual(attributes["tags"]?.valueTransformerName, "TagsTransformer")
        XCTAssertEqual(attributes["tags"]?.attributeValueClassName, "[String]")
        XCTAssertEqual(attributes["scratch"]?.isTransient, true)
        let oldName = try XCTUnwrap(attributes["oldName"])
        XCTAssertEqual(oldName.renamingIdentifier, "formerName")
        XCTAssertEqual(oldName.versionHashModifier, "m2")
        XCTAssertTrue(oldName.preservesValueInHistoryOnDeletion)
        XCTAssertEqual(oldName.userInfo?["note"] as? String, "kept for history")
        XCTAssertNil(trail.propertiesByName["futureElement"])
    }

    func testDefaultValuesTakeTheAttributeTypesSwiftType() throws {
        let attributes = try XCTUnwrap(try ModelFixtures.load("Trails.xcdatamodel").entitiesByName["Trail"]).attributesByName
        XCTAssertEqual(attributes["rating"]?.defaultValue as? Double, 2.5)
        XCTAssertEqual(attributes["length"]?.defaultValue as? Int32, 7)
        XCTAssertEqual(attributes["elevation"]?.defaultValue as? Int16, -3)
        XCTAssertEqual(attributes["visits"]?.defaultValue as? Int64, 9_000_000_000)
        XCTAssertEqual(attributes["price"]?.defaultValue as? Decimal, Decimal(string: "12.5"))
        XCTAssertEqual(attributes["grade"]?.defaultValue as? Float, 0.5)
        XCTAssertEqual(attributes["isOpen"]?.defaultValue as? Bool, true)
        XCTAssertEqual(attributes["opened"]?.defaultValue as? Date, Date(timeIntervalSinceReferenceDate: 500))
        XCTAssertEqual(attributes["id"]?.defaultValue as? UUID, UUID(uuidString: "800C3526-E83A-44AC-B718-D36934708921"))
        XCTAssertEqual(attributes["url"]?.defaultValue as? URL, URL(string: "https://example.org/trail"))
        XCTAssertNil(attributes["map"]?.defaultValue)
        XCTAssertNil(attributes["name"]?.defaultValue)
    }

    func testRelationshipsResolveDestinationsAndInverses() throws {
        let model = try ModelFixtures.load("Trails.xcdatamodel")
        let trail = try XCTUnwrap(model.entitiesByName["Trail"])
        let region = try XCTUnwrap(model.entitiesByName["Region"])
        let stop = try XCTUnwrap(model.entitiesByName["Stop"])

        let toRegion = try XCTUnwrap(trail.relationshipsByName["region"])
        XCTAssertTrue(toRegion.destinationEntity === region)
        XCTAssertTrue(toRegion.inverseRelationship === region.relationshipsByName["trails"])
        XCTAssertFalse(toRegion.isToMany)
        XCTAssertEqual(toRegion.deleteRule, .nullifyDeleteRule)

        let stops = try XCTUnwrap(trail.relationshipsByName["stops"])
        XCTAssertTrue(stops.isToMany)
        XCTAssertTrue(stops.isOrdered)
        XCTAssertEqual(stops.minCount, 1)
        XCTAssertEqual(stops.maxCount, 10)
        XCTAssertEqual(stops.deleteRule, .cascadeDeleteRule)
        XCTAssertTrue(stops.destinationEntity === stop)

        let trails = try XCTUnwrap(region.relationshipsByName["trails"])
        XCTAssertEqual(trails.maxCount, 0, "a to-many without maxCount is unbounded")
        XCTAssertEqual(trails.deleteRule, .denyDeleteRule)
        XCTAssertEqual(stop.relationshipsByName["trail"]?.deleteRule, .noActionDeleteRule)
        XCTAssertEqual(stop.relationshipsByName["trail"]?.minCount, 1, "a mandatory to-one needs one object")
        let derived = try XCTUnwrap(region.attributesByName["trailCount"] as? NSDerivedAttributeDescription)
        XCTAssertEqual(derived.derivationExpressionFormat, "trails.@count")
        XCTAssertEqual(derived.attributeType, .integer64AttributeType)
    }

    func testInheritanceConstraintsIndexesConfigurationsAndTemplates() throws {
        let model = try ModelFixtures.load("Trails.xcdatamodel")
        let place = try XCTUnwrap(model.entitiesByName["Place"])
        let stop = try XCTUnwrap(model.entitiesByName["Stop"])
        XCTAssertTrue(stop.superentity === place)
        XCTAssertEqual(place.subentities.compactMap(\.name), ["Stop"])
        XCTAssertEqual(stop.properties.map(\.name), ["label", "order", "trail"])

        let trail = try XCTUnwrap(model.entitiesByName["Trail"])
        XCTAssertEqual(trail.uniquenessConstraints.map { $0.compactMap { $0 as? String } }, [["name", "region"]])
        XCTAssertEqual(trail.indexes.map(\.name), ["Trail_name_rating", "byOpened"])
        let compound = trail.indexes[0]
        XCTAssertEqual(compound.elements.compactMap { $0.property?.name }, ["name", "rating"])
        let byOpened = trail.indexes[1]
        XCTAssertEqual(byOpened.partialIndexPredicateFormat, "isOpen == YES")
        XCTAssertEqual(byOpened.elements.first?.isAscending, false)
        XCTAssertTrue(byOpened.elements.first?.property === trail.propertiesByName["opened"])
        XCTAssertTrue(byOpened.entity === trail)

        XCTAssertEqual(model.configurations, ["Local"])
        XCTAssertEqual(model.entities(forConfigurationName: "Local")?.compactMap(\.name), ["Trail", "Stop"])
        XCTAssertEqual(model.entities(forConfigurationName: nil)?.count, 4)

        XCTAssertEqual(model.fetchRequestTemplateSources["TopRated"]?.entityName, "Trail")
        XCTAssertEqual(model.fetchRequestTemplateSources["TopRated"]?.predicateFormat, "rating > 4")
        XCTAssertEqual(model.fetchRequestTemplateSources["AllRegions"]?.entityName, "Region")
        XCTAssertNil(model.fetchRequestTemplateSources["AllRegions"]?.predicateFormat ?? nil)
    }

    func testContentsFileDirectoryAndFailableInitializerAgree() throws {
        let fromDirectory = try ModelFixtures.load("Trails.xcdatamodel")
        let fromFile = try ModelFixtures.load("Trails.xcdatamodel/contents")
        XCTAssertEqual(fromDirectory.entityVersionHashesByName, fromFile.entityVersionHashesByName)
        let initialized = try XCTUnwrap(NSManagedObjectModel(contentsOf: ModelFixtures.url("Trails.xcdatamodel")))
        XCTAssertEqual(initialized.entityVersionHashesByName, fromDirectory.entityVersionHashesByName)
        XCTAssertTrue(initialized.entitiesByName["Trail"]?.managedObjectModel === initialized)
        XCTAssertTrue(initialized.entitiesByName["Stop"]?.superentity === initialized.entitiesByName["Place"])
        XCTAssertNil(NSManagedObjectModel(contentsOf: ModelFixtures.url("broken/Malformed.xml")))
    }

    func testVersionedModelUsesTheCurrentVersion() throws {
        let model = try ModelFixtures.load("Hikes.xcdatamodeld")
        XCTAssertEqual(model.versionIdentifiers, ["Hikes2"])
        XCTAssertTrue(model.sourceURL?.path.hasSuffix("Hikes 2.xcdatamodel/contents") ?? false)
    }

    func testVersionedModelWithoutMarkerUsesTheLastVersionNumerically() throws {
        XCTAssertEqual(try ModelFixtures.load("Unmarked.xcdatamodeld").versionIdentifiers, ["V10"])
    }

    func testVersionedModelWithoutVersionsIsAClearError() throws {
        let error = try XCTUnwrap(ModelFixtures.loadError("Empty.xcdatamodeld"))
        XCTAssertTrue(error.localizedDescription.hasSuffix("Empty.xcdatamodeld: contains no contents file and no .xcdatamodel version"), error.localizedDescription)
        let missing = try XCTUnwrap(ModelFixtures.loadError("Nowhere.xcdatamodeld"))
        XCTAssertEqual(missing.code, NSFileReadNoSuchFileError)
        XCTAssertTrue(missing.localizedDescription.hasSuffix("Nowhere.xcdatamodeld: no model file or directory here"))
    }

    func testErrorsNameTheFileAndLine() throws {
        let cases: [(file: String, line: Int, message: String)] = [
            ("MissingEntity.xml", 5, "relationship Trail.region refers to entity Region, which the model does not declare"),
            ("UnknownType.xml", 5, "attribute rating has unknown attributeType \"Integer 128\""),
            ("MissingParent.xml", 6, "entity Loop refers to entity Route, which the model does not declare"),
            ("BadDefault.xml", 4, "attribute length has a default value \"40000\" that is not a valid Integer 16"),
            ("MissingInverse.xml", 4, "relationship Trail.region names inverse routes, which entity Region does not declare"),
        ]
        for (file, line, message) in cases {
            let url = ModelFixtures.url("broken/\(file)")
            let error = try XCTUnwrap(ModelFixtures.loadError("broken/\(file)"), file)
            XCTAssertEqual(error.domain, NSCocoaErrorDomain)
            XCTAssertEqual(error.localizedDescription, "\(url.path):\(line): \(message)")
            XCTAssertEqual(error.userInfo[NSFilePathErrorKey] as? String, url.path)
        }
    }

    func testMalformedXMLNamesTheFileAndLine() throws {
        let url = ModelFixtures.url("broken/Malformed.xml")
        let error = try XCTUnwrap(ModelFixtures.loadError("broken/Malformed.xml"))
        XCTAssertTrue(error.localizedDescription.hasPrefix("\(url.path):6: malformed XML:"), error.localizedDescription)
        XCTAssertTrue("\(error)".contains("\(url.path):6: malformed XML:"))
    }

    func testLocatorSearchesTheGivenDirectoriesInOrder() throws {
        let found = ModelLocator.modelURL(named: "Hikes", in: [URL(fileURLWithPath: "/nonexistent"), ModelFixtures.directory])
        XCTAssertEqual(found?.lastPathComponent, "Hikes.xcdatamodeld")
        XCTAssertEqual(ModelLocator.modelURL(named: "Trails", in: [ModelFixtures.directory])?.lastPathComponent, "Trails.xcdatamodel")
        XCTAssertNil(ModelLocator.modelURL(named: "Absent", in: [ModelFixtures.directory]))
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).standardizedFileURL.path
        XCTAssertTrue(ModelLocator.searchDirectories().map(\.standardizedFileURL.path).contains(cwd))
    }
}

final class ModelLoadingRobustnessTests: XCTestCase {
    private func loadError(_ xml: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("model-\(UUID().uuidString).xml")
        try Data(xml.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            _ = try NSManagedObjectModel.load(contentsOf: url)
            XCTFail("loading should fail")
            return ""
        } catch {
            let text = (error as NSError).localizedDescription
            XCTAssertTrue(text.hasPrefix(url.path + ":"), text)
            return String(text.dropFirst(url.path.count + 1))
        }
    }

    func testTruncatedDocumentIsAnErrorNotAnEmptyModel() throws {
        XCTAssertEqual(
            try loadError("<model>\n  <entity name=\"A\">\n"),
            "2: malformed XML: the document ends too early or has content after its end (libxml2 error 5)")
    }

    func testDocumentWithoutModelElementIsRejected() throws {
        XCTAssertEqual(try loadError("<plist version=\"1.0\"><dict/></plist>"), "1: not a Core Data model: there is no <model> element")
    }

    func testDuplicateNamesAreRejected() throws {
        XCTAssertEqual(
            try loadError("<model>\n<entity name=\"A\"/>\n<entity name=\"A\"/>\n</model>"),
            "3: entity A is declared twice")
        XCTAssertEqual(
            try loadError("<model>\n<entity name=\"A\">\n<attribute name=\"x\" attributeType=\"String\"/>\n<attribute name=\"x\" attributeType=\"Date\"/>\n</entity>\n</model>"),
            "4: property x is declared twice in entity A")
    }

    func testBadPatternAndCountsAreRejected() throws {
        XCTAssertEqual(
            try loadError("<model>\n<entity name=\"A\">\n<attribute name=\"x\" attributeType=\"String\" regularExpressionString=\"[a-\"/>\n</entity>\n</model>"),
            "3: attribute x has a regularExpressionString that does not compile: [a-")
        XCTAssertEqual(
            try loadError("<model>\n<entity name=\"A\">\n<relationship name=\"r\" toMany=\"YES\" maxCount=\"-2\" destinationEntity=\"A\"/>\n</entity>\n</model>"),
            "3: relationship r has an invalid maxCount \"-2\"")
    }

    func testParentLoopIsRejected() throws {
        XCTAssertEqual(
            try loadError("<model>\n<entity name=\"A\" parentEntity=\"B\"/>\n<entity name=\"B\" parentEntity=\"A\"/>\n</model>"),
            "2: entity A inherits from itself")
    }
}

final class ModelMergingTests: XCTestCase {
    func testMergingCombinesEntitiesConfigurationsAndTemplates() throws {
        let trails = try ModelFixtures.load("Trails.xcdatamodel")
        let hikes = try ModelFixtures.load("Hikes.xcdatamodeld")
        let merged = try XCTUnwrap(NSManagedObjectModel(byMerging: [trails, hikes]))
        XCTAssertEqual(merged.entities.compactMap(\.name), ["Trail", "Region", "Place", "Stop", "Hike"])
        XCTAssertTrue(merged.entitiesByName["Hike"]?.managedObjectModel === merged)
        XCTAssertEqual(merged.entities(forConfigurationName: "Local")?.compactMap(\.name), ["Trail", "Stop"])
        XCTAssertEqual(merged.fetchRequestTemplateSources["TopRated"]?.entityName, "Trail")
        XCTAssertEqual(merged.versionIdentifiers, ["v1", "Hikes2"])
    }

    func testMergingTwoModelsWithTheSameEntityFails() throws {
        let first = try ModelFixtures.load("Hikes.xcdatamodeld")
        let second = try ModelFixtures.load("Unmarked.xcdatamodeld")
        XCTAssertNil(NSManagedObjectModel(byMerging: [first, second]))
    }
}
