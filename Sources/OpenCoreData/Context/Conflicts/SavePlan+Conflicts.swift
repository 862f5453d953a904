import Foundation

extension SavePlan {
    /// Finds the save's optimistic-locking conflicts, then its uniqueness-constraint
    /// conflicts, and lets the context's merge policy settle each kind (Core Data's order:
    /// locking first). Returns the work left to write once the policy changed the objects,
    /// and whether the rows' versions were read (`versionsChecked`).
    ///
    /// Runs inside the store's write transaction, so the rows read here are the rows the
    /// writes will meet.
    ///
    /// Unless `readingVersions`, a save with no constraint to check reads no versions: no
    /// policy would change an object before the writes, so the versioned `UPDATE` and
    /// `DELETE` (`… WHERE Z_PK = ? AND Z_OPT = ?`) find the locking conflicts themselves,
    /// as Core Data's do. A row they miss throws ``StaleRowVersion``, and the save starts
    /// again reading the versions first (see ``SQLiteStoreEngine/save(_:to:)``).
    func resolveConflicts(_ work: StoreWork, in store: NSPersistentStore, readingVersions: Bool) throws -> (work: StoreWork, versionsChecked: Bool) {
        guard readingVersions || hasConstraintCandidates(work) else { return (work, false) }
        return (try resolveConflicts(work, in: store), true)
    }

    /// Conflicts found with the versions read first. Uniqueness constraints are checked in
    /// SQL, so not for an incremental store (`checkingConstraints` false).
    func resolveConflicts(_ work: StoreWork, in store: NSPersistentStore, checkingConstraints: Bool = true) throws -> StoreWork {
        var work = work
        let policy = context.effectiveMergePolicy
        let candidates = work.updated + work.deleted
        let locking = try lockingConflicts(among: candidates, in: store, onlyChanged: true)
        if !locking.isEmpty {
            try policy.resolve(mergeConflicts: locking)
            work = currentWork(replacing: work, in: store)
        }
        let constraints = checkingConstraints ? try constraintConflicts(work, in: store) : []
        if !constraints.isEmpty {
            if type(of: policy) == NSMergePolicy.self {
                // A built-in policy: what its resolve(mergeConflicts:) does with a list of
                // constraint conflicts, without making the list an `[Any]` and casting each
                // element back. A subclass may override either method: it gets the list.
                try policy.resolve(constraintConflicts: constraints)
            } else {
                try policy.resolve(mergeConflicts: constraints)
            }
            work = currentWork(replacing: work, in: store)
            // A policy of the program's own may leave conflicts standing: the save fails.
            // (The built-in policies settle every conflict they are given.)
            if type(of: policy) != NSMergePolicy.self {
                let remaining = try constraintConflicts(work, in: store)
                if !remaining.isEmpty { try NSMergePolicy.error.resolve(constraintConflicts: remaining) }
            }
        }
        return work
    }

    /// An ``NSMergeConflict`` for each of `objects` whose row's version in the store is not
    /// the version the object was fetched with (all of them when `onlyChanged` is false).
    ///
    /// The row read from the store goes into the coordinator's row cache first, so every
    /// conflict is reported as one between the context and the coordinator: the cached
    /// snapshot is the row now in the store, the persisted snapshot `nil` (see
    /// LinuxDifferences.md).
    func lockingConflicts(among objects: [NSManagedObject], in store: NSPersistentStore, onlyChanged: Bool = false) throws -> [NSMergeConflict] {
        var known = objects.filter { $0.state.snapshot != nil && $0.objectID.storeKey != nil && !$0.state.isInaccessible }
        if onlyChanged, !known.isEmpty {
            // Versions first (cheap); whole rows only for the objects that conflict.
            let versions = try coordinator.versions(of: known.map { $0.objectID.storeKey! }, in: store, context: context)
            known = known.filter { versions[$0.objectID.storeKey!] != $0.state.snapshot!.version }
        }
        guard !known.isEmpty else { return [] }
        let rows = try coordinator.rows(for: known.map { $0.objectID.storeKey! }, in: store, context: context)
        var byKey: [StoreKey: StoreRow] = [:]
        for row in rows { byKey[row.key] = row }
        var conflicts: [NSMergeConflict] = []
        for object in known {
            let snapshot = object.state.snapshot!
            let current = byKey[object.objectID.storeKey!]
            if onlyChanged, current?.version == snapshot.version { continue }
            // Deleting a row another save already deleted leaves nothing to disagree about.
            if current == nil, object.state.isDeleted { continue }
            if let current { store.rowCache.store(current) } else { store.rowCache.remove(object.objectID.storeKey!) }
            let conflict = NSMergeConflict(
                source: object, newVersion: Int(current?.version ?? 0), oldVersion: Int(snapshot.version),
                cachedSnapshot: current.map { snapshotDictionary(of: $0, owner: object) }, persistedSnapshot: nil)
            conflict.currentRow = current
            conflicts.append(conflict)
        }
        return conflicts
    }

    /// The save's work for `store` as the context's objects stand now (a merge policy may
    /// have reverted, deleted or merged some), updating ``updatedObjects``.
    private func currentWork(replacing old: StoreWork, in store: NSPersistentStore) -> StoreWork {
        let coordinator = context.persistentStoreCoordinator
        // Runs of one entity, kept by identity (the entity outlives the save): a reference
        // copied out per object cost a retain and a release.
        var last: (entity: ObjectIdentifier, belongs: Bool)?
        func belongs(_ object: NSManagedObject) -> Bool {
            // An ID of this store is told by its handle, without taking a reference to
            // the store (reading `persistentStore` does).
            if object.objectID.isStored(in: store) { return true }
            if let known = object.objectID.persistentStore { return known === store }
            if let last, last.entity == ObjectIdentifier(object.entity) { return last.belongs }
            let belongs = coordinator?.store(for: object.entity) === store
            last = (ObjectIdentifier(object.entity), belongs)
            return belongs
        }
        // The lists walked in place (copies of them, which nothing changes meanwhile), not
        // made into arrays first: a retain and a release per object.
        let inserted = context.inserted, updated = context.updated, deleted = context.deleted
        var work = StoreWork()
        inserted.forEach { if belongs($0) { work.inserted.append($0) } }
        updated.forEach { if belongs($0) && !$0.state.isDeleted && SavePlan.hasPersistentChanges($0) { work.updated.append($0) } }
        deleted.forEach { if belongs($0) { work.deleted.append($0) } }
        let oldUpdated = Set(old.updated.map(ObjectIdentifier.init))
        updatedObjects.removeAll { oldUpdated.contains(ObjectIdentifier($0)) }
        updatedObjects += work.updated
        return work
    }
}

/// Thrown inside a save that did not read versions first when a versioned write meets a
/// row that moved on or is gone; the save rolls back and starts again reading them. Never
/// leaves ``SavePlan/write()``.
struct StaleRowVersion: Error {}

extension NSManagedObjectContext {
    /// ``mergePolicy`` as a policy object (the error policy for anything else).
    var effectiveMergePolicy: NSMergePolicy { (mergePolicy as? NSMergePolicy) ?? .error }
}
