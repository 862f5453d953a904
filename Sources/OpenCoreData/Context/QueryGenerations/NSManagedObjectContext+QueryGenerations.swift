import Foundation

extension NSManagedObjectContext {
    /// The query generation the context is pinned to, or `nil` when it reads the stores'
    /// newest state (the default).
    ///
    /// Right after ``setQueryGenerationFrom(_:)`` with ``NSQueryGenerationToken/current``
    /// this is already a token of its own; the snapshot it names is taken at the context's
    /// next read. It is `nil` when the coordinator has no SQLite store in WAL journal mode
    /// (in-memory stores, for example), where Core Data reads unpinned, and in a child
    /// context, which reads through its parent's generation.
    public var queryGenerationToken: NSQueryGenerationToken? {
        checkQueue()
        return pinnedGeneration
    }

    /// Pins the context to a query generation, moves it to a newer one, or unpins it.
    ///
    /// - ``NSQueryGenerationToken/current``: pins the context to the stores' state at its
    ///   next read (fetch, count or fault). Calling it again later moves it forward.
    /// - another context's ``queryGenerationToken``: both read the same snapshot.
    /// - `nil`: unpins; every read sees the stores' newest state.
    ///
    /// A pinned context also moves to the newest generation when it saves, is reset, or
    /// merges changes (``mergeChanges(fromContextDidSave:)``,
    /// ``mergeChanges(fromRemoteContextSave:into:)``), as in Core Data. Objects the context
    /// already holds are not refreshed: call ``refreshAllObjects()`` or fetch again.
    ///
    /// ```swift
    /// try viewContext.setQueryGenerationFrom(.current)
    /// // … other contexts and processes save; viewContext keeps its snapshot …
    /// try viewContext.setQueryGenerationFrom(.current)   // move forward
    /// viewContext.refreshAllObjects()
    /// ```
    ///
    /// - Throws: ``NSCoreDataError`` (134060) with the reason "Invalid generation token:
    ///   this persistent store coordinator does not have any of the referenced stores"
    ///   for a token of another coordinator, or of stores that were removed.
    public func setQueryGenerationFrom(_ generation: NSQueryGenerationToken?) throws {
        checkQueue()
        guard let generation else {
            pinnedGeneration = nil
            return
        }
        // A child context reads through its parent, and so through the parent's generation.
        guard parent == nil, let coordinator = persistentStoreCoordinator else { return }
        if generation === NSQueryGenerationToken.current {
            pinnedGeneration = Self.newGeneration(for: coordinator)
            return
        }
        guard let pinned = generation.generation, pinned.coordinator === coordinator,
            coordinator.persistentStores.contains(where: { pinned.storeIdentifiers.contains($0.identifier) })
        else {
            throw coreDataError(NSCoreDataError, userInfo: [
                NSLocalizedDescriptionKey: "A Core Data error occurred.",
                "Reason": "Invalid generation token: this persistent store coordinator does not have any of the referenced stores",
            ])
        }
        pinnedGeneration = generation
    }

    /// A new lazily taken generation of `coordinator`'s WAL stores; `nil` when it has none.
    private static func newGeneration(for coordinator: NSPersistentStoreCoordinator) -> NSQueryGenerationToken? {
        let stores = coordinator.persistentStores.filter { $0.type == NSSQLiteStoreType && $0.sqliteEngine?.usesWriteAheadLog == true }
        guard !stores.isEmpty else { return nil }
        return NSQueryGenerationToken(generation: QueryGeneration(coordinator: coordinator, stores: stores))
    }

    /// Moves a pinned context to the newest generation (taken at its next read): what
    /// save, reset and merges do.
    func advanceQueryGenerationIfPinned() {
        guard pinnedGeneration != nil, let coordinator = persistentStoreCoordinator else { return }
        pinnedGeneration = Self.newGeneration(for: coordinator)
    }

    /// Runs `body`, a read of the stores, through the context's query generation if it is
    /// pinned; at no cost when it is not.
    func readingQueryGeneration<T>(_ body: () throws -> T) rethrows -> T {
        guard let generation = pinnedGeneration?.generation else {
            // An unpinned context reading inside a pinned one's read sees the newest state.
            return GenerationScope.current == nil ? try body() : try GenerationScope.with(nil, body)
        }
        return try GenerationScope.with(generation, body)
    }
}
