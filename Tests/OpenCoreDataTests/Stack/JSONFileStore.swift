import Foundation
@testable import OpenCoreData

/// An incremental store that keeps every object in one JSON file, written whole at each
/// save: the proof that contexts reach stores only through the store boundary.
///
/// The file: `{"uuid": …, "nextID": n, "objects": {"Trail": {"1": {"version": 1,
/// "values": {…}}}}}`. Attributes are kept as JSON values (dates as seconds since the
/// reference date, data as Base64, UUIDs, URLs and decimals as strings); a to-one
/// relationship as the destination's number, a to-many as an array of numbers (both
/// sides are written, since a relationship change updates the objects on both sides).
///
/// It applies fetch predicates, sort descriptors, offset and limit itself, as Core Data
/// requires of an incremental store.
final class JSONFileStore: NSIncrementalStore {
    static let type = "JSONFile"
    /// Set by a test to make the next fetch or save fail with this error.
    nonisolated(unsafe) static var nextError: NSError?

    /// The IDs contexts told the store they use now.
    private(set) var registeredIDs: [NSManagedObjectID: Int] = [:]

    override func managedObjectContextDidRegisterObjects(with objectIDs: [NSManagedObjectID]) {
        for id in objectIDs { registeredIDs[id, default: 0] += 1 }
    }

    override func managedObjectContextDidUnregisterObjects(with objectIDs: [NSManagedObjectID]) {
        for id in objectIDs {
            registeredIDs[id, default: 0] -= 1
            if registeredIDs[id] == 0 { registeredIDs[id] = nil }
        }
    }

    private var uuid = ""
    private var nextID = 1
    /// Records by entity name, then by reference number.
    private var objects: [String: [Int: Record]] = [:]

    struct Record {
        var version: Int
        var values: [String: Any]
    }

    // MARK: Opening

    override func loadMetadata() throws {
        guard let url else { throw storeError("The store needs a file URL.") }
        if FileManager.default.fileExists(atPath: url.path) {
            let data = try Data(contentsOf: url)
            guard let document = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                let uuid = document["uuid"] as? String
            else { throw storeError("\(url.lastPathComponent) is not a store file.") }
            self.uuid = uuid
            nextID = document["nextID"] as? Int ?? 1
            for (entityName, records) in document["objects"] as? [String: [String: [String: Any]]] ?? [:] {
                for (reference, record) in records {
                    guard let number = Int(reference) else { continue }
                    objects[entityName, default: [:]][number] = Record(
                        version: record["version"] as? Int ?? 1, values: record["values"] as? [String: Any] ?? [:])
                }
            }
        } else {
            uuid = NSIncrementalStore.identifierForNewStore(at: url) as! String
            try write()
        }
        // The type this store was added under (the coordinator sets it before this call),
        // and the keys an app set, kept in the file.
        var loaded = (try? Self.document(at: url)?["metadata"] as? [String: Any]) ?? [:]
        loaded[NSStoreTypeKey] = type
        loaded[NSStoreUUIDKey] = uuid
        metadata = loaded
    }

    // MARK: The file's metadata, without adding the store

    override class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        guard let document = try document(at: url), let uuid = document["uuid"] as? String else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSFileReadNoSuchFileError, userInfo: [NSFilePathErrorKey: url.path])
        }
        var metadata = document["metadata"] as? [String: Any] ?? [:]
        metadata[NSStoreTypeKey] = Self.type
        metadata[NSStoreUUIDKey] = uuid
        return metadata
    }

    override class func setMetadata(_ metadata: [String: Any]?, forPersistentStoreAt url: URL) throws {
        guard var document = try document(at: url) else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSFileReadNoSuchFileError, userInfo: [NSFilePathErrorKey: url.path])
        }
        document["metadata"] = appMetadata(metadata ?? [:])
        try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys]).write(to: url, options: .atomic)
    }

    /// The file's JSON document, `nil` when there is no file.
    private static func document(at url: URL) throws -> [String: Any]? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        guard let document = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] else {
            throw NSError(domain: "JSONFileStore", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(url.lastPathComponent) is not a store file."])
        }
        return document
    }

    /// The metadata keys an app set that JSON can keep (type and UUID live elsewhere).
    private static func appMetadata(_ metadata: [String: Any]) -> [String: Any] {
        metadata.filter { key, value in
            key != NSStoreTypeKey && key != NSStoreUUIDKey && JSONSerialization.isValidJSONObject([value])
        }
    }

    // MARK: Requests

    override func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
        if let error = Self.nextError {
            Self.nextError = nil
            throw error
        }
        guard let context else { throw storeError("A request needs a context.") }
        switch request {
        case let fetch as NSFetchRequest<NSFetchRequestResult>:
            return try self.fetch(fetch, in: context)
        case let save as NSSaveChangesRequest:
            try self.save(save)
            return [Any]()
        case let delete as NSBatchDeleteRequest:
            return try batchDelete(delete, in: context)
        default:
            throw storeError("Unsupported request \(Swift.type(of: request)).")
        }
    }

    private func fetch(_ request: NSFetchRequest<NSFetchRequestResult>, in context: NSManagedObjectContext) throws -> [Any] {
        guard let entity = request.entity else { throw storeError("The fetch request has no entity.") }
        var entities = [entity]
        if request.includesSubentities { entities += allSubentities(of: entity) }
        var ids: [NSManagedObjectID] = []
        for member in entities where !member.isAbstract {
            let name = member.name ?? ""
            for number in (objects[name] ?? [:]).keys.sorted() {
                ids.append(newObjectID(for: member, referenceObject: number))
            }
        }
        // Predicates and sorts see the values in the file, not a context's unsaved changes:
        // they are evaluated on each record's values, to-one destinations as nested values.
        var matches = try ids.enumerated().map { position, id in
            var values = try storedValues(of: id, depth: 2)
            values[Self.positionKey] = position
            return values
        }
        if let predicate = request.predicate { matches = matches.filtered(using: predicate) }
        if let sort = request.sortDescriptors, !sort.isEmpty { matches = matches.sortedArray(using: sort) }
        if request.fetchOffset > 0 { matches = Array(matches.dropFirst(request.fetchOffset)) }
        if request.fetchLimit > 0 { matches = Array(matches.prefix(request.fetchLimit)) }
        let found = matches.map { ids[$0[Self.positionKey] as! Int] }
        switch request.resultType {
        case .managedObjectIDResultType: return found
        case .countResultType: return [NSNumber(value: found.count)]
        case .managedObjectResultType: return found.map { context.object(with: $0) }
        default: throw storeError("Dictionary results are not supported.")
        }
    }

    /// Where a record's values carry its place in the fetch (no property has this name).
    private static let positionKey = "$position"

    /// A record's attribute values as stored, with each to-one destination's values
    /// nested under the relationship's name and each to-many's as an array, `depth`
    /// levels deep; a missing to-one is left out (nil).
    private func storedValues(of id: NSManagedObjectID, depth: Int) throws -> [String: Any] {
        let entity = id.entity
        guard let record = objects[entity.name ?? ""]?[try reference(of: id)] else { return [:] }
        var values: [String: Any] = [:]
        for (key, attribute) in entity.attributesByName where !attribute.isTransient {
            if let stored = record.values[key] { values[key] = try decode(stored, attribute) }
        }
        guard depth > 0 else { return values }
        for (key, relationship) in entity.relationshipsByName {
            guard let destination = relationship.destinationEntity else { continue }
            if relationship.isToMany {
                let numbers = record.values[key] as? [Int] ?? []
                values[key] = try numbers.map { try storedValues(of: newObjectID(for: entityOf($0, in: destination), referenceObject: $0), depth: depth - 1) }
            } else if let number = record.values[key] as? Int {
                values[key] = try storedValues(of: newObjectID(for: entityOf(number, in: destination), referenceObject: number), depth: depth - 1)
            }
        }
        return values
    }

    /// Deletes the records the request's fetch matches, straight from the file (objects
    /// in contexts are not told, as with Core Data's batch deletes).
    private func batchDelete(_ request: NSBatchDeleteRequest, in context: NSManagedObjectContext) throws -> NSBatchDeleteResult {
        let query = request.fetchRequest.copy(as: NSFetchRequestResult.self)
        query.entity = query.entity ?? persistentStoreCoordinator?.managedObjectModel.entitiesByName[query.entityName ?? ""]
        query.resultType = .managedObjectResultType
        let matches = try fetch(query, in: context)
        let ids = matches.compactMap { ($0 as? NSManagedObject)?.objectID }
        for id in ids { objects[id.entity.name ?? ""]?[try reference(of: id)] = nil }
        try write()
        switch request.resultType {
        case .resultTypeCount: return NSBatchDeleteResult(result: ids.count, resultType: .resultTypeCount)
        case .resultTypeObjectIDs: return NSBatchDeleteResult(result: ids, resultType: .resultTypeObjectIDs)
        default: return NSBatchDeleteResult(result: true, resultType: .resultTypeStatusOnly)
        }
    }

    private func allSubentities(of entity: NSEntityDescription) -> [NSEntityDescription] {
        entity.subentities.flatMap { [$0] + allSubentities(of: $0) }
    }

    private func save(_ request: NSSaveChangesRequest) throws {
        for object in (request.insertedObjects ?? []).union(request.updatedObjects ?? []) {
            let number = try reference(of: object.objectID)
            let name = object.entity.name ?? ""
            var values: [String: Any] = [:]
            for (key, attribute) in object.entity.attributesByName where !attribute.isTransient {
                if let value = object.value(forKey: key) { values[key] = try encode(value, attribute) }
            }
            for (key, relationship) in object.entity.relationshipsByName where !relationship.isTransient {
                if relationship.isToMany {
                    let members = (object.value(forKey: key) as? Set<NSManagedObject>).map(Array.init)
                        ?? (object.value(forKey: key) as? NSOrderedSet)?.array as? [NSManagedObject] ?? []
                    values[key] = try members.map { try reference(of: $0.objectID) }
                } else if let destination = object.value(forKey: key) as? NSManagedObject {
                    values[key] = try reference(of: destination.objectID)
                }
            }
            let version = (objects[name]?[number]?.version ?? 0) + 1
            objects[name, default: [:]][number] = Record(version: version, values: values)
        }
        for object in request.deletedObjects ?? [] {
            objects[object.entity.name ?? ""]?[try reference(of: object.objectID)] = nil
        }
        try write()
    }

    // MARK: Values

    override func newValuesForObject(with objectID: NSManagedObjectID, with context: NSManagedObjectContext) throws -> NSIncrementalStoreNode {
        let entity = objectID.entity
        guard let record = objects[entity.name ?? ""]?[try reference(of: objectID)] else {
            throw storeError("No \(entity.name ?? "object") \(referenceObject(for: objectID)) in the file.")
        }
        var values: [String: Any] = [:]
        for (key, attribute) in entity.attributesByName where !attribute.isTransient {
            if let stored = record.values[key] { values[key] = try decode(stored, attribute) }
        }
        for (key, relationship) in entity.relationshipsByName where !relationship.isToMany {
            if let number = record.values[key] as? Int, let destination = relationship.destinationEntity {
                values[key] = newObjectID(for: entityOf(number, in: destination), referenceObject: number)
            } else {
                values[key] = NSNull()
            }
        }
        return NSIncrementalStoreNode(objectID: objectID, withValues: values, version: UInt64(record.version))
    }

    override func newValue(forRelationship relationship: NSRelationshipDescription, forObjectWith objectID: NSManagedObjectID,
                           with context: NSManagedObjectContext?) throws -> Any {
        let record = objects[objectID.entity.name ?? ""]?[try reference(of: objectID)]
        guard let destination = relationship.destinationEntity else { return NSNull() }
        if relationship.isToMany {
            let numbers = record?.values[relationship.name] as? [Int] ?? []
            return numbers.map { newObjectID(for: entityOf($0, in: destination), referenceObject: $0) }
        }
        guard let number = record?.values[relationship.name] as? Int else { return NSNull() }
        return newObjectID(for: entityOf(number, in: destination), referenceObject: number)
    }

    override func obtainPermanentIDs(for array: [NSManagedObject]) throws -> [NSManagedObjectID] {
        array.map { object in
            defer { nextID += 1 }
            return newObjectID(for: object.entity, referenceObject: nextID)
        }
    }

    /// The concrete entity (among `entity` and its sub-entities) holding record `number`.
    private func entityOf(_ number: Int, in entity: NSEntityDescription) -> NSEntityDescription {
        for candidate in [entity] + allSubentities(of: entity) where objects[candidate.name ?? ""]?[number] != nil {
            return candidate
        }
        return entity
    }

    private func reference(of objectID: NSManagedObjectID) throws -> Int {
        guard let number = referenceObject(for: objectID) as? Int else { throw storeError("\(objectID) has no number.") }
        return number
    }

    private func encode(_ value: Any, _ attribute: NSAttributeDescription) throws -> Any {
        switch value {
        case let date as Date: return date.timeIntervalSinceReferenceDate
        case let data as Data: return data.base64EncodedString()
        case let uuid as UUID: return uuid.uuidString
        case let url as URL: return url.absoluteString
        case let decimal as Decimal: return "\(decimal)"
        case let number as NSNumber where attribute.attributeType == .decimalAttributeType: return number.stringValue
        default:
            guard JSONSerialization.isValidJSONObject([value]) else { throw storeError("\(attribute.name) cannot be kept in JSON.") }
            return value
        }
    }

    private func decode(_ stored: Any, _ attribute: NSAttributeDescription) throws -> Any {
        switch attribute.attributeType {
        case .dateAttributeType: return Date(timeIntervalSinceReferenceDate: (stored as? Double) ?? Double(stored as? Int ?? 0))
        case .binaryDataAttributeType: return Data(base64Encoded: stored as? String ?? "") ?? Data()
        case .UUIDAttributeType: return UUID(uuidString: stored as? String ?? "") as Any
        case .URIAttributeType: return URL(string: stored as? String ?? "") as Any
        case .decimalAttributeType: return Decimal(string: stored as? String ?? "") as Any
        default: return stored
        }
    }

    // MARK: The file

    private func write() throws {
        guard let url else { return }
        var records: [String: [String: Any]] = [:]
        for (entityName, byNumber) in objects {
            var entries: [String: Any] = [:]
            for (number, record) in byNumber { entries[String(number)] = ["version": record.version, "values": record.values] }
            records[entityName] = entries
        }
        let document: [String: Any] = ["uuid": uuid, "nextID": nextID, "objects": records, "metadata": Self.appMetadata(metadata ?? [:])]
        let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: url, options: .atomic)
    }

    private func storeError(_ message: String) -> NSError {
        NSError(domain: "JSONFileStore", code: 1, userInfo: [NSLocalizedDescriptionKey: message])
    }
}
