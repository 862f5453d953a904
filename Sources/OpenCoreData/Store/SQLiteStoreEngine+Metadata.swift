import Foundation

extension SQLiteStoreEngine {
    /// The metadata of the store file at `url`, read without opening it as a store (no
    /// schema is created, no model is needed): what
    /// `NSPersistentStoreCoordinator.metadataForPersistentStore(ofType:at:options:)` returns.
    ///
    /// Throws `NSFileReadNoSuchFileError` (260) when there is no file, and the errors of
    /// opening a damaged file otherwise.
    static func readMetadata(at url: URL) throws -> [String: Any] {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw coreDataError(NSFileReadNoSuchFileError, userInfo: [
                NSFilePathErrorKey: url.path,
                NSLocalizedDescriptionKey: "The file “\(url.lastPathComponent)” couldn’t be opened because there is no such file.",
            ])
        }
        let database = try SQLiteDatabase(path: url.path)
        defer { database.close() }
        guard let metadata = try? StoreMetadata.read(database) else {
            throw coreDataError(NSPersistentStoreIncompatibleSchemaError, userInfo: [
                NSFilePathErrorKey: url.path,
                NSLocalizedDescriptionKey: "\(url.lastPathComponent) is a SQLite database but not a Core Data store: it has no Z_METADATA.",
            ])
        }
        return metadata
    }
}
