import Foundation

/// The persistent section cache of a fetched results controller: the section names, index
/// titles and counts it computed, stored on disk under the controller's `cacheName` so that
/// a later launch with the same request skips computing them.
///
/// Core Data keeps these files in the app's caches directory
/// (`Library/Caches/<bundle id>/.CoreDataCaches/SectionInfoCaches/<cacheName>/sectionInfo`).
/// The Linux counterpart is the XDG cache directory: `$XDG_CACHE_HOME` (or `~/.cache`) then
/// `<program name>/.CoreDataCaches/SectionInfoCaches/<cacheName>/sectionInfo`.
///
/// A cache is used only when everything it was computed from is unchanged: the entity (name
/// and version hash), the section key path, the sort descriptors (Core Data compares their
/// keys; this cache also compares direction and comparison method), the predicate, fetch
/// limit and offset, each store (its identifier, and a token of the entity's rows that any
/// insert, update or delete changes, where Core Data compares the store file's modification
/// time, which a write-ahead-log checkpoint also changes) and the number of objects fetched. Any difference discards it and the sections
/// are computed again.
struct FetchedResultsSectionCache: Codable, Equatable {
    /// What the cached sections were computed from.
    struct Configuration: Codable, Equatable {
        var entityName: String
        var entityVersionHash: Data
        var sectionNameKeyPath: String?
        var sortDescriptors: [String]
        var predicate: String?
        var fetchLimit: Int
        var fetchOffset: Int
        var includesSubentities: Bool
        var stores: [StoreStamp]
    }

    /// A store as it was when the cache was written: its identifier and the content token
    /// of the entity's table (``SQLiteStoreEngine/contentToken(of:)``).
    struct StoreStamp: Codable, Equatable {
        var identifier: String
        var contentToken: [Int64]
    }

    /// One cached section.
    struct Section: Codable, Equatable {
        var name: String
        var indexTitle: String?
        var count: Int
    }

    /// The first bytes of every cache file this library writes.
    static let format = "OpenCoreData section cache 1"

    var format = Self.format
    var configuration: Configuration
    var objectCount: Int
    var sections: [Section]

    /// The directory holding every section cache of this program.
    static var cachesDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        let base: URL
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            base = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache", isDirectory: true)
        }
        return base.appendingPathComponent(ProcessInfo.processInfo.processName, isDirectory: true)
            .appendingPathComponent(".CoreDataCaches", isDirectory: true)
            .appendingPathComponent("SectionInfoCaches", isDirectory: true)
    }

    /// The directory of the cache named `name`.
    static func directory(named name: String) -> URL {
        cachesDirectory.appendingPathComponent(name, isDirectory: true)
    }

    /// The file of the cache named `name`.
    static func file(named name: String) -> URL {
        directory(named: name).appendingPathComponent("sectionInfo")
    }

    /// The cache named `name`, if a readable one is on disk. An unreadable file is removed,
    /// as Core Data unlinks a cache file it cannot parse.
    static func read(named name: String) -> FetchedResultsSectionCache? {
        let url = file(named: name)
        guard let data = try? Data(contentsOf: url) else { return nil }
        guard let cache = try? JSONDecoder().decode(FetchedResultsSectionCache.self, from: data), cache.format == format else {
            try? FileManager.default.removeItem(at: url)
            return nil
        }
        return cache
    }

    /// Writes the cache under `name`, replacing any earlier one in one step.
    func write(named name: String) {
        let directory = Self.directory(named: name)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try encoder.encode(self).write(to: Self.file(named: name), options: .atomic)
        } catch {
            FileHandle.standardError.write(Data("CoreData: error:  (NSFetchedResultsController): error writing section cached info at \(Self.file(named: name).path) with error \((error as NSError).code)\n".utf8))
        }
    }

    /// Removes the cache named `name`, or every cache when `name` is nil.
    static func delete(named name: String?) {
        let url = name.map { directory(named: $0) } ?? cachesDirectory
        try? FileManager.default.removeItem(at: url)
    }

    /// The stamp of `store` now, for the rows of `entity`.
    static func stamp(of store: NSPersistentStore, entity: NSEntityDescription) -> StoreStamp {
        StoreStamp(identifier: store.identifier ?? "", contentToken: (try? store.engine.contentToken(of: entity)) ?? [])
    }
}
