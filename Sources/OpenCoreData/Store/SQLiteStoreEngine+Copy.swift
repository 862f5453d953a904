import Foundation

extension SQLiteStoreEngine {
    /// Writes a complete, compacted copy of the database to `url` (`VACUUM INTO`), for the
    /// atomic store types, which keep their whole contents in one file.
    func copyDatabase(to url: URL) throws {
        lock.lock()
        defer { lock.unlock() }
        try database.withStatement("VACUUM INTO ?") { statement in
            statement.bind(url.path, at: 1)
            try statement.execute()
        }
    }

    /// Replaces this store's contents (an in-memory store's) with those of `source`,
    /// metadata included, with SQLite's online backup. The store keeps its own UUID, which
    /// its object IDs already name.
    func replaceContents(from source: SQLiteStoreEngine) throws {
        source.lock.lock()
        defer { source.lock.unlock() }
        lock.lock()
        defer { lock.unlock() }
        let ownIdentifier = identifier
        try database.replaceContents(with: source.database)
        try reloadMetadata(keepingIdentifier: ownIdentifier)
    }
}
