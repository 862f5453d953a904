import Foundation

/// The errors of migration, with Core Data's codes, descriptions and userInfo keys
/// (`sourceURL`, `destinationURL`, `reason`, `entity`, `attribute`), as Core Data
/// reports them, e.g. "Cannot migrate store in-place: Validation error missing
/// attribute values on mandatory destination attribute".
enum MigrationErrors {
    static let migrationDescription = "An error occurred during persistent store migration."

    /// 134110 carrying only a reason; wrapped by ``failed(source:destination:_:)``.
    static func reason(_ reason: String) -> NSError {
        coreDataError(NSMigrationError, userInfo: [NSLocalizedDescriptionKey: migrationDescription, "reason": reason])
    }

    /// 134110 for a row lacking a mandatory value in the destination.
    static func validation(entity: String, property: String, isAttribute: Bool, reason: String) -> NSError {
        coreDataError(NSMigrationError, userInfo: [
            NSLocalizedDescriptionKey: migrationDescription,
            "entity": entity, isAttribute ? "attribute" : "relationship": property, "reason": reason,
        ])
    }

    /// The outer 134110 of a failed in-place migration: the store's URLs, "Cannot migrate
    /// store in-place: " and the inner reason, and the inner error.
    static func failed(source: URL, destination: URL, _ error: Error) -> NSError {
        let inner = error as NSError
        let reason = inner.userInfo["reason"] as? String ?? inner.localizedDescription
        return coreDataError(NSMigrationError, userInfo: [
            NSLocalizedDescriptionKey: migrationDescription,
            "sourceURL": source, "destinationURL": destination,
            "reason": "Cannot migrate store in-place: \(reason)",
            NSUnderlyingErrorKey: inner,
        ])
    }

    /// 134130: no model in reach wrote the store.
    static func missingSourceModel(url: URL, metadata: [String: Any]) -> NSError {
        coreDataError(NSMigrationMissingSourceModelError, userInfo: [
            NSLocalizedDescriptionKey: "Persistent store migration failed, missing source managed object model.",
            "URL": url, "metadata": metadata, "reason": "Can't find model for source store",
        ])
    }

    /// 134140: no mapping model found, and none could be inferred (or inference is off).
    static func missingMappingModel(source: NSManagedObjectModel, destination: NSManagedObjectModel, underlying: Error?) -> NSError {
        var info: [String: Any] = [
            NSLocalizedDescriptionKey: "Persistent store migration failed, missing mapping model.",
            "sourceModel": source, "destinationModel": destination,
            "reason": "Can't find or automatically infer mapping model for migration",
        ]
        if let underlying { info[NSUnderlyingErrorKey] = underlying }
        return coreDataError(NSMigrationMissingMappingModelError, userInfo: info)
    }
}
