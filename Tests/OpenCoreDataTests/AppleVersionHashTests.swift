import Foundation
import XCTest

@testable import OpenCoreData

/// Version hashes compared with the hashes Apple's Core Data (framework version 1344)
/// recorded in the metadata of stores it wrote for the same models (see "Store metadata
/// and version hashes" in the project's Core Data facts). Matching them byte for byte is
/// what lets a store copied from an iPhone open here without error 134100.
///
/// Model A is a User, then a User with a Pet, then the User without `petName`; Model B
/// is a Car with two levels of subentities, and a Person who owns cars.
final class AppleVersionHashTests: StoreTestCase {
    /// Apple's entity hashes, base64, per model version.
    static let modelA1 = ["User": "azH06XtpHRbEyCC65V+JQI1HATvUIVHs/eHqx/5L55g="]
    static let modelA2 = [
        "Pet": "dnNCJipkWHMMeKrnPFMo0PyqTjWW0vh/IuNm60ap9G8=",
        "User": "akfL7w4/hMJEkkn9yD8APX5RQ3j47pp2qNTA7IuxuCI=",
    ]
    static let modelA3 = [
        "Pet": "dnNCJipkWHMMeKrnPFMo0PyqTjWW0vh/IuNm60ap9G8=",
        "User": "txWJ9kRmNW79MTIerWwpOt6O2t32z9cJMUTAc8OsPDs=",
    ]
    static let modelB = [
        "Car": "nlVVKQchWCING6zS+Ao9rUkZ90oyqovp7iKmp7QSbI8=",
        "SportCar": "UU7BkHpWgpn5+2hREGUWE28HVfRfpTqCOg5NRAE9UxM=",
        "ExpensiveSportCar": "PcfjKxvkW1pMeVrJrz4dEKpyItPGmugFu+tECL3rpIA=",
        "Person": "FkJoVRtFEIrnY6orph/zLTLTIyOFCYfD4hYHyNpEtys=",
    ]

    // MARK: Models built in code

    private func attribute(_ name: String, _ type: NSAttributeType, optional: Bool) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.isOptional = optional
        return attribute
    }

    private func toOne(_ name: String, to destination: NSEntityDescription) -> NSRelationshipDescription {
        let relationship = NSRelationshipDescription()
        relationship.name = name
        relationship.destinationEntity = destination
        relationship.maxCount = 1
        return relationship
    }

    private func entity(_ name: String) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        entity.managedObjectClassName = name
        return entity
    }

    /// Model A: version 1 has only User; version 2 adds Pet and the pet/owner pair;
    /// version 3 drops `petName`.
    private func makeModelA(version: Int) -> NSManagedObjectModel {
        let user = entity("User")
        var userProperties = [attribute("name", .stringAttributeType, optional: false)]
        if version < 3 { userProperties.append(attribute("petName", .stringAttributeType, optional: true)) }
        let model = NSManagedObjectModel()
        guard version >= 2 else {
            user.properties = userProperties
            model.entities = [user]
            return model
        }
        let pet = entity("Pet")
        let owner = toOne("owner", to: user)
        let userPet = toOne("pet", to: pet)
        owner.inverseRelationship = userPet
        userPet.inverseRelationship = owner
        pet.properties = [attribute("name", .stringAttributeType, optional: false), owner]
        user.properties = userProperties + [userPet]
        model.entities = [pet, user]
        return model
    }

    private func makeModelB() -> NSManagedObjectModel {
        let car = entity("Car")
        let sportCar = entity("SportCar")
        let expensive = entity("ExpensiveSportCar")
        let person = entity("Person")

        let color = attribute("color", .transformableAttributeType, optional: true)
        color.valueTransformerName = "ColorTransformer"
        color.attributeValueClassName = "Color"
        let speed = attribute("currentDrivingSpeed", .integer64AttributeType, optional: true)
        speed.isTransient = true
        speed.defaultValue = 0
        let owner = toOne("owner", to: person)
        car.properties = [
            color, speed,
            attribute("maker", .stringAttributeType, optional: true),
            attribute("markedForDeletionAsOf", .dateAttributeType, optional: true),
            attribute("model", .stringAttributeType, optional: true),
            attribute("numberPlate", .stringAttributeType, optional: false),
            owner,
        ]
        car.uniquenessConstraints = [["numberPlate"]]

        let limited = attribute("isLimitedEdition", .booleanAttributeType, optional: true)
        limited.defaultValue = false
        expensive.properties = [limited]
        sportCar.subentities = [expensive]
        car.subentities = [sportCar]

        let id = attribute("id", .UUIDAttributeType, optional: false)
        id.preservesValueInHistoryOnDeletion = true
        let driving = attribute("isDriving", .booleanAttributeType, optional: false)
        driving.isTransient = true
        driving.defaultValue = false
        let cars = NSRelationshipDescription()
        cars.name = "cars"
        cars.destinationEntity = car
        cars.maxCount = 0
        cars.inverseRelationship = owner
        owner.inverseRelationship = cars
        person.properties = [
            attribute("firstName", .stringAttributeType, optional: true), id, driving,
            attribute("lastName", .stringAttributeType, optional: true),
            attribute("updatedAt", .dateAttributeType, optional: false), cars,
        ]
        person.uniquenessConstraints = [["firstName", "lastName"]]

        let model = NSManagedObjectModel()
        model.entities = [car, sportCar, expensive, person]
        return model
    }

    private func assertHashes(_ model: NSManagedObjectModel, _ expected: [String: String], file: StaticString = #filePath, line: UInt = #line) {
        let actual = model.entityVersionHashesByName.mapValues { $0.base64EncodedString() }
        XCTAssertEqual(actual, expected, file: file, line: line)
    }

    func testModelAVersionsBuiltInCodeHashAsApplesCoreData() {
        assertHashes(makeModelA(version: 1), Self.modelA1)
        assertHashes(makeModelA(version: 2), Self.modelA2)
        assertHashes(makeModelA(version: 3), Self.modelA3)
    }

    func testModelBBuiltInCodeHashesAsApplesCoreData() {
        assertHashes(makeModelB(), Self.modelB)
    }

    func testTransientPropertiesAndDeleteRulesLeaveTheHashAlone() throws {
        let model = makeModelB()
        let car = try XCTUnwrap(model.entitiesByName["Car"])
        let speed = try XCTUnwrap(car.attributesByName["currentDrivingSpeed"])
        speed.attributeType = .doubleAttributeType
        let owner = try XCTUnwrap(car.relationshipsByName["owner"])
        owner.deleteRule = .cascadeDeleteRule
        assertHashes(model, Self.modelB)
    }

    func testAParentsChangeReachesItsDescendants() throws {
        let model = makeModelB()
        let car = try XCTUnwrap(model.entitiesByName["Car"])
        car.versionHashModifier = "2"
        let hashes = model.entityVersionHashesByName.mapValues { $0.base64EncodedString() }
        for name in ["Car", "SportCar", "ExpensiveSportCar"] {
            XCTAssertNotEqual(hashes[name], Self.modelB[name], name)
        }
        XCTAssertEqual(hashes["Person"], Self.modelB["Person"])
    }

    // MARK: The same models from model files

    private func load(_ xml: String) throws -> NSManagedObjectModel {
        let url = storeURL("contents-\(UUID().uuidString).xml")
        try Data(xml.utf8).write(to: url)
        return try NSManagedObjectModel.load(contentsOf: url)
    }

    private static let modelFileHeader = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" \
        lastSavedToolsVersion="23231" systemVersion="24A335" minimumToolsVersion="Automatic" \
        sourceLanguage="Swift" userDefinedModelVersionIdentifier="1">
        """

    func testModelAVersion2FromAModelFileHashesAsApplesCoreData() throws {
        let model = try load(
            Self.modelFileHeader + """
                <entity name="Pet" representedClassName="Pet" syncable="YES">
                    <attribute name="name" attributeType="String"/>
                    <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="User" inverseName="pet" inverseEntity="User"/>
                </entity>
                <entity name="User" representedClassName="User" syncable="YES">
                    <attribute name="name" attributeType="String"/>
                    <attribute name="petName" optional="YES" attributeType="String"/>
                    <relationship name="pet" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Pet" inverseName="owner" inverseEntity="Pet"/>
                </entity>
            </model>
            """)
        assertHashes(model, Self.modelA2)
    }

    func testModelBFromAModelFileHashesAsApplesCoreData() throws {
        let model = try load(
            Self.modelFileHeader + """
                <entity name="Car" representedClassName="Car" syncable="YES">
                    <attribute name="color" optional="YES" attributeType="Transformable" valueTransformerName="ColorTransformer" customClassName="Color"/>
                    <attribute name="currentDrivingSpeed" optional="YES" transient="YES" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
                    <attribute name="maker" optional="YES" attributeType="String"/>
                    <attribute name="markedForDeletionAsOf" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
                    <attribute name="model" optional="YES" attributeType="String"/>
                    <attribute name="numberPlate" attributeType="String"/>
                    <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="cars" inverseEntity="Person"/>
                    <uniquenessConstraints>
                        <uniquenessConstraint>
                            <constraint value="numberPlate"/>
                        </uniquenessConstraint>
                    </uniquenessConstraints>
                </entity>
                <entity name="SportCar" representedClassName="SportCar" parentEntity="Car" syncable="YES"/>
                <entity name="ExpensiveSportCar" representedClassName="ExpensiveSportCar" parentEntity="SportCar" syncable="YES">
                    <attribute name="isLimitedEdition" optional="YES" attributeType="Boolean" defaultValueString="NO" usesScalarValueType="YES"/>
                </entity>
                <entity name="Person" representedClassName="Person" syncable="YES">
                    <attribute name="firstName" optional="YES" attributeType="String"/>
                    <attribute name="id" attributeType="UUID" usesScalarValueType="NO" preserveAfterDeletion="YES"/>
                    <attribute name="isDriving" transient="YES" attributeType="Boolean" defaultValueString="NO" usesScalarValueType="YES"/>
                    <attribute name="lastName" optional="YES" attributeType="String"/>
                    <attribute name="updatedAt" attributeType="Date" usesScalarValueType="NO"/>
                    <relationship name="cars" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Car" inverseName="owner" inverseEntity="Car"/>
                    <uniquenessConstraints>
                        <uniquenessConstraint>
                            <constraint value="firstName"/>
                            <constraint value="lastName"/>
                        </uniquenessConstraint>
                    </uniquenessConstraints>
                </entity>
            </model>
            """)
        assertHashes(model, Self.modelB)
    }

    // MARK: Stores

    func testAStoreRecordsApplesHashesAndOpensWithTheModel() throws {
        let model = makeModelA(version: 2)
        _ = try openEngine(model)
        let metadata = try SQLiteStoreEngine.readMetadata(at: storeURL())
        let recorded = try XCTUnwrap(metadata[NSStoreModelVersionHashesKey] as? [String: Data])
        XCTAssertEqual(recorded.mapValues { $0.base64EncodedString() }, Self.modelA2)
        XCTAssertNoThrow(try openEngine(makeModelA(version: 2)))
        XCTAssertThrowsError(try openEngine(makeModelA(version: 3))) { error in
            XCTAssertEqual((error as NSError).code, NSPersistentStoreIncompatibleVersionHashError)
        }
    }

    /// A container on Model A version 2 over this test's store file. The entities use
    /// `NSManagedObject`: class names play no part in the hash.
    private func openModelA2Container() throws -> NSPersistentContainer {
        let model = makeModelA(version: 2)
        for entity in model.entities { entity.managedObjectClassName = "NSManagedObject" }
        let container = NSPersistentContainer(name: "ModelA", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: storeURL())]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    /// After Core Data migrates a store across an entity rename (through the renaming
    /// identifier), `Z_PRIMARYKEY.Z_NAME` keeps the old name, and Core Data still opens
    /// the store: entity numbers, not names, tie rows to entities.
    func testAnOldEntityNameLeftInZNameDoesNotStopTheStore() throws {
        do {
            let writer = try openModelA2Container()
            let pet = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: writer.viewContext)
            pet.setValue("Rex", forKey: "name")
            try writer.viewContext.save()
            for store in writer.persistentStoreCoordinator.persistentStores {
                try writer.persistentStoreCoordinator.remove(store)
            }
        }
        let database = try SQLiteDatabase(path: storeURL().path)
        try database.executeUncached("UPDATE Z_PRIMARYKEY SET Z_NAME = 'Animal' WHERE Z_NAME = 'Pet'")
        database.close()

        let reader = try openModelA2Container()
        let pets = try reader.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Pet"))
        XCTAssertEqual(pets.map { $0.value(forKey: "name") as? String }, ["Rex"])
    }

    func testAMissingEntityNumberStillStopsTheStore() throws {
        try openEngine(makeModelA(version: 2)).close()
        let database = try SQLiteDatabase(path: storeURL().path)
        try database.executeUncached("DELETE FROM Z_PRIMARYKEY WHERE Z_NAME = 'User'")
        database.close()
        XCTAssertThrowsError(try openEngine(makeModelA(version: 2))) { error in
            XCTAssertEqual((error as NSError).code, NSPersistentStoreIncompatibleSchemaError)
        }
    }
}
