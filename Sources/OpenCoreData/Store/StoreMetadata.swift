import Foundation

/// The store's metadata: the `Z_METADATA` row (`Z_VERSION` 1, `Z_UUID`, `Z_PLIST`, a binary
/// property list), and the comparison of its model version hashes with a model's.
enum StoreMetadata {
    /// `NSStoreType` of SQLite stores.
    static let storeType = "SQLite"
    /// The format of the version hashes, as Core Data records it.
    static let hashesVersionKey = "NSStoreModelVersionHashesVersion"
    /// The keys that describe the model a store was written with; a migration writes them
    /// anew and keeps the others.
    static let modelKeys: Set<String> = [
        NSStoreModelVersionHashesKey, hashesVersionKey, NSStoreModelVersionIdentifiersKey,
        "NSStoreModelVersionChecksumKey", "NSStoreModelVersionHashesDigest", "NSPersistenceFrameworkVersion",
    ]

    /// The metadata of a new store for the configuration's entities.
    static func initial(model: NSManagedObjectModel, configurationName: String?, uuid: String) -> [String: Any] {
        let entities = model.entities(forConfigurationName: configurationName) ?? []
        var hashes: [String: Data] = [:]
        for entity in entities { if let name = entity.name { hashes[name] = entity.versionHash } }
        return [
            NSStoreTypeKey: storeType,
            NSStoreUUIDKey: uuid,
            NSStoreModelVersionHashesKey: hashes,
            hashesVersionKey: 3,
            NSStoreModelVersionIdentifiersKey: identifiers(model.versionIdentifiers),
        ]
    }

    /// Reads the metadata row; `nil` when the table has no row.
    static func read(_ db: SQLiteDatabase) throws -> [String: Any]? {
        let row: (plist: Data?, uuid: String?)? = try db.withStatement("SELECT Z_VERSION, Z_UUID, Z_PLIST FROM Z_METADATA") { statement in
            guard try statement.step() else { return nil }
            return (statement.isNull(2) ? nil : statement.data(2), statement.isNull(1) ? nil : statement.string(1))
        }
        guard let row else { return nil }
        var metadata: [String: Any] = [:]
        if let plist = row.plist {
            let object = try PropertyListSerialization.propertyList(from: plist, options: [], format: nil)
            guard let dictionary = object as? [String: Any] else {
                throw coreDataError(NSPersistentStoreInvalidTypeError, userInfo: [NSLocalizedDescriptionKey: "The store's metadata (Z_METADATA.Z_PLIST) is not a dictionary."])
            }
            metadata = dictionary
        }
        if let uuid = row.uuid { metadata[NSStoreUUIDKey] = uuid }
        metadata[NSStoreTypeKey] = storeType
        if let hashes = metadata[NSStoreModelVersionHashesKey] as? [String: Data] {
            metadata[NSStoreModelVersionHashesKey] = hashes
        }
        return metadata
    }

    /// Writes `metadata` as the metadata row (inside the caller's transaction, if any).
    static func write(_ metadata: [String: Any], to db: SQLiteDatabase) throws {
        let plist: Data
        do {
            plist = try PropertyListSerialization.data(fromPropertyList: propertyList(metadata), format: .binary, options: 0)
        } catch {
            throw coreDataError(NSPersistentStoreOperationError, userInfo: [
                NSLocalizedDescriptionKey: "The store metadata could not be written as a property list: \(error)",
                NSUnderlyingErrorKey: error,
            ])
        }
        try db.withStatement("INSERT OR REPLACE INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (?, ?, ?)") { statement in
            statement.bindKey(1, at: 1)
            statement.bind(metadata[NSStoreUUIDKey] as? String ?? "", at: 2)
            statement.bind(plist, at: 3)
            try statement.execute()
        }
    }

    /// Error 134100 when the store's version hashes differ from the configuration's, naming
    /// the entities that differ; `nil` when they match.
    static func incompatibility(of metadata: [String: Any], with model: NSManagedObjectModel, configurationName: String?) -> NSError? {
        if model.isConfiguration(withName: configurationName, compatibleWithStoreMetadata: metadata) { return nil }
        let stored = metadata[NSStoreModelVersionHashesKey] as? [String: Data] ?? [:]
        var expected: [String: Data] = [:]
        for entity in model.entities(forConfigurationName: configurationName) ?? [] {
            if let name = entity.name { expected[name] = entity.versionHash }
        }
        let changed = expected.keys.filter { stored[$0] != nil && stored[$0] != expected[$0] }.sorted()
        let onlyInModel = expected.keys.filter { stored[$0] == nil }.sorted()
        let onlyInStore = stored.keys.filter { expected[$0] == nil }.sorted()
        var details: [String] = []
        if !changed.isEmpty { details.append("changed: \(changed.joined(separator: ", "))") }
        if !onlyInModel.isEmpty { details.append("only in the model: \(onlyInModel.joined(separator: ", "))") }
        if !onlyInStore.isEmpty { details.append("only in the store: \(onlyInStore.joined(separator: ", "))") }
        let reason = "The model used to open the store is incompatible with the one used to create the store"
        return coreDataError(NSPersistentStoreIncompatibleVersionHashError, userInfo: [
            NSLocalizedDescriptionKey: "The managed object model version used to open the persistent store is incompatible with the one that was used to create the persistent store.",
            "reason": details.isEmpty ? reason : "\(reason) (entities \(details.joined(separator: "; ")))",
            "metadata": metadata,
        ])
    }

    /// Model version identifiers as strings, sorted, for the property list.
    static func identifiers(_ identifiers: Set<AnyHashable>) -> [String] {
        identifiers.map { ($0.base as? String) ?? "\($0.base)" }.sorted()
    }

    /// `value` with sets as arrays and keys as strings, so that it can be a property list.
    private static func propertyList(_ value: Any) -> Any {
        switch value {
        case let dictionary as [String: Any]: return dictionary.mapValues(propertyList)
        case let dictionary as [AnyHashable: Any]:
            return Dictionary(dictionary.map { ("\($0.key.base)", propertyList($0.value)) }, uniquingKeysWith: { a, _ in a })
        case let set as Set<AnyHashable>: return set.map { propertyList($0.base) }
        case let array as [Any]: return array.map(propertyList)
        case let uuid as UUID: return uuid.uuidString
        case let url as URL: return url.absoluteString
        case let decimal as Decimal: return NSDecimalNumber(decimal: decimal).stringValue
        default: return value
        }
    }
}
