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
}
