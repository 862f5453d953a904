import Foundation

/// One save's work: which rows to insert, update and delete in which store, built from
/// a context's pending changes and written in one transaction per store.
final class SavePlan {
    struct StoreWork {
        var inserted: [NSManagedObject] = []
        var updated: [NSManagedObject] = []
        var deleted: [NSManagedObject] = []
    }

    private var stores: [NSPersistentStore] = []
    private var work: [ObjectIdentifier: StoreWork] = [:]
    /// Keys given to inserted objects in this save, by object.
    private var assignedKeys: [ObjectIdentifier: StoreKey] = [:]
    /// The rows written, with their objects, by store: the new snapshots once the save commits.
    private(set) var writtenRows: [(store: NSPersistentStore, rows: [(NSManagedObject, StoreRow)])] = []
    /// Rows read again after the save because the store's triggers wrote derived values in them.
    private(set) var derivedRows: [(store: NSPersistentStore, row: StoreRow)] = []
    /// The updated objects that had persistent changes to write.
    var updatedObjects: [NSManagedObject] = []
    /// The context being saved: its merge policy settles conflicts (see SavePlan+Conflicts),
    /// and an incremental store receives it with the save request.
    unowned let context: NSManagedObjectContext
    /// The coordinator the plan is written through.
    let coordinator: NSPersistentStoreCoordinator

    init(context: NSManagedObjectContext, coordinator: NSPersistentStoreCoordinator) throws {
        self.context = context
        self.coordinator = coordinator
        // A value changed through `inout`, not variables captured by a local function:
        // those were checked for overlapping access at run time, several calls per object.
        var grouping = StoreGrouping(coordinator: coordinator)
        // Walked in place (copies of the lists, which nothing changes meanwhile), not as
        // arrays, and borrowed: the copies keep the objects alive.
        let inserted = context.inserted, updated = context.updated, deleted = context.deleted
        // The arrays the save's objects-did-change notification reported, when they hold the
        // same insertions or deletions: the plan's lists are those arrays, not copies, when
        // all of their objects go to one store.
        if let reported = context.reportedChangeSets.objects(sameAs: inserted, as: NSInsertedObjectsKey) {
            try grouping.add(all: reported, .inserted)
        } else {
            try inserted.forEachBorrowed { try grouping.add($0, .inserted) }
        }
        var updatedObjects: [NSManagedObject] = []
        try updated.forEachBorrowed { object in
            guard SavePlan.hasPersistentChanges(object) else { return }
            try grouping.add(object, .updated)
            updatedObjects.append(object)
        }
        self.updatedObjects = updatedObjects
        if let reported = context.reportedChangeSets.objects(sameAs: deleted, as: NSDeletedObjectsKey) {
            try grouping.add(all: reported, .deleted)
        } else {
            try deleted.forEachBorrowed { object in
                if !object.state.isInaccessible { try grouping.add(object, .deleted) }
            }
        }
        for (store, list) in zip(grouping.order, grouping.lists) { work[ObjectIdentifier(store)] = list }
        stores = grouping.order
        for store in stores where store.isReadOnly {
            throw coreDataError(NSPersistentStoreSaveError, userInfo: [
                NSLocalizedDescriptionKey: "The store \(store.url?.lastPathComponent ?? "(memory)") is read-only; it cannot be saved to.",
                NSAffectedStoresErrorKey: [store],
            ])
        }
    }

    /// The objects of a save by store, stores in first-use order.
    private struct StoreGrouping {
        enum Change { case inserted, updated, deleted }
        let coordinator: NSPersistentStoreCoordinator
        var order: [NSPersistentStore] = []
        var lists: [StoreWork] = []  // by position in `order`
        var positions: [ObjectIdentifier: Int] = [:]
        // A save holds long runs of one entity: the position of its store is looked up
        // once per run. Kept by identity (the entity outlives the save): a pair of
        // references copied out per object cost two retains and two releases.
        var last: (entity: ObjectIdentifier, position: Int)?
        /// The same for a run of permanent IDs of one store, kept by the identity of the
        /// store's handle: the store read out of each ID's handle cost a lock, a retain and
        /// a release per object. (The lists hold the objects, the objects their IDs and the
        /// IDs their handles, so an identity kept here names no other handle meanwhile.)
        var lastStore: (handle: ObjectIdentifier, position: Int)?

        init(coordinator: NSPersistentStoreCoordinator) { self.coordinator = coordinator }

        mutating func add(_ object: NSManagedObject, _ change: Change) throws {
            let position = try self.position(for: object)
            // A switch rather than a key path: applying a key path costs a call into the runtime.
            switch change {
            case .inserted: lists[position].inserted.append(object)
            case .updated: lists[position].updated.append(object)
            case .deleted: lists[position].deleted.append(object)
            }
        }

        /// Adds `objects`, all inserted or all deleted (the inaccessible deleted ones have no
        /// row and are left out). When all of them go to one store, that store's list is
        /// `objects` itself: a copy retained each object (100,000 of a large cascade, cold
        /// in memory by now) and released each again when the plan went.
        mutating func add(all objects: [NSManagedObject], _ change: Change) throws {
            let skipsInaccessible = change == .deleted
            var shared: Int?
            var isUniform = true
            try objects.forEachBorrowed { object in
                guard !(skipsInaccessible && object.state.isInaccessible) else { isUniform = false; return }
                let position = try self.position(for: object)
                if shared == nil { shared = position } else if shared != position { isUniform = false }
            }
            if isUniform, let shared {
                switch change {
                case .inserted where lists[shared].inserted.isEmpty: lists[shared].inserted = objects; return
                case .deleted where lists[shared].deleted.isEmpty: lists[shared].deleted = objects; return
                default: break
                }
            }
            try objects.forEachBorrowed { object in
                if !(skipsInaccessible && object.state.isInaccessible) { try add(object, change) }
            }
        }

        /// The position in `order` of the store that saves `object`.
        private mutating func position(for object: NSManagedObject) throws -> Int {
            let position: Int
            let handle = object.objectID.storeHandleIdentity
            // A temporary ID names no store: its entity's store is the last one's in a run.
            if object.objectID.isTemporaryID, let last, last.entity == ObjectIdentifier(object.entity) {
                position = last.position
            } else if let handle, let lastStore, lastStore.handle == handle {
                position = lastStore.position
            } else if let known = object.objectID.persistentStore {
                position = self.position(of: known)
                if let handle { lastStore = (handle, position) }
            } else if let found = coordinator.store(for: object.entity) {
                position = self.position(of: found)
                last = (ObjectIdentifier(object.entity), position)
            } else {
                throw coreDataError(NSPersistentStoreSaveError, userInfo: [
                    NSLocalizedDescriptionKey: "No persistent store of the coordinator holds the entity \(object.entity.name ?? "(null)"); it cannot be saved.",
                    NSAffectedObjectsErrorKey: [object],
                ])
            }
            return position
        }

        /// The position of `store` in `order`, appended there when new.
        private mutating func position(of store: NSPersistentStore) -> Int {
            if order.last === store { return order.count - 1 }
            if let known = positions[ObjectIdentifier(store)] { return known }
            positions[ObjectIdentifier(store)] = order.count
            order.append(store)
            lists.append(StoreWork())
            return order.count - 1
        }
    }

    /// Writes every store's rows, each store in one transaction, then updates the row caches.
    func write() throws {
        for store in stores {
            // The store's engine calls back: write(to:in:) for SQL, write(to:) for an incremental store.
            let saved = try coordinator.save(self, to: store)
            let rows = saved.rows, derivedKeys = saved.derivedKeys
            try store.writeAtomicFile()
            store.rowCache.store(writtenRows: rows)
            if !derivedKeys.isEmpty {
                // The cached rows lack the values the triggers wrote. The save has committed:
                // if reading them again fails, the rows stay uncached and are read when next needed.
                for key in derivedKeys { store.rowCache.remove(key) }
                if let fresh = try? coordinator.rows(for: derivedKeys, in: store, context: nil) {
                    derivedRows += store.rowCache.store(fresh).map { (store, $0) }
                }
            }
            writtenRows.append((store, rows))
        }
    }

    /// Writes the work for a SQL store in its open transaction; conflicts are found and
    /// settled first, while the transaction holds the store's write lock (by reading the
    /// versions when `readingVersions` or a constraint needs them, else by the versioned
    /// writes themselves).
    func write(to store: NSPersistentStore, in transaction: SQLiteSaveTransaction, readingVersions: Bool) throws -> [(NSManagedObject, StoreRow)] {
        let resolved = try resolveConflicts(work[ObjectIdentifier(store)]!, in: store, readingVersions: readingVersions)
        work[ObjectIdentifier(store)] = resolved.work
        return try write(resolved.work, to: store, in: transaction, versionsChecked: resolved.versionsChecked)
    }

    /// Writes the rows of `storeWork`. Updates and deletions of rows whose version the
    /// objects know are versioned: when `versionsChecked` is false (no version was read
    /// first), a row they miss throws ``StaleRowVersion``; after the check, an update that
    /// still misses fails the save with its conflicts, and a deletion of a row already gone
    /// is nothing to disagree about.
    private func write(_ storeWork: StoreWork, to store: NSPersistentStore, in transaction: SQLiteSaveTransaction, versionsChecked: Bool) throws -> [(NSManagedObject, StoreRow)] {
        let engine = store.engine
        // Keys first, so rows can point at objects inserted in the same save. Each new
        // object's key is kept by its position; the table by object, for rows that point
        // at other objects, is made only when some row can (an entity with relationships,
        // or another store whose rows may point at these).
        let inserted = storeWork.inserted
        var newKeys = [StoreKey?](repeating: nil, count: inserted.count)
        let keepsTable = stores.count > 1 || SavePlan.hasRelationships(inserted) || SavePlan.hasRelationships(storeWork.updated)
        if keepsTable { assignedKeys.reserveCapacity(assignedKeys.count + inserted.count) }
        let temporary = inserted.indices.filter { inserted[$0].objectID.isTemporaryID }
        for (entity, positions) in SavePlan.byEntity(positions: temporary, of: inserted) {
            let keys = try transaction.allocatePrimaryKeys(for: entity, count: positions.count)
            let number = engine.entityNumber(for: entity)
            for (position, primaryKey) in zip(positions, keys) {
                let key = StoreKey(entityNumber: number, primaryKey: primaryKey)
                newKeys[position] = key
                if keepsTable { assignedKeys[ObjectIdentifier(inserted[position])] = key }
            }
        }
        // Deletions first: a row may take over a unique value a deleted row had.
        try SavePlan.forEachRunOfDeletions(in: storeWork.deleted) { run in
            try transaction.delete(run) { _, version in
                if !versionsChecked, version != nil { throw StaleRowVersion() }
            }
        }
        var rows: [(NSManagedObject, StoreRow)] = []
        rows.reserveCapacity(inserted.count + storeWork.updated.count)
        // The rows are written now: one reading of the clock for all of them, as a fetch does.
        let timestamp = ProcessInfo.processInfo.systemUptime
        for (position, object) in inserted.enumerated() {
            let row = makeRow(object, key: object.objectID.storeKey ?? newKeys[position]!, version: 1, timestamp: timestamp)
            try transaction.insert(row)
            rows.append((object, row))
        }
        var conflicts: [NSManagedObject] = []
        for object in storeWork.updated {
            // The snapshot's key and version read where they lie (the snapshot itself
            // taken out of the object was retained and released).
            let key = object.state.snapshot!.key, version = object.state.snapshot!.version
            let row = makeRow(object, key: key, version: version + 1, timestamp: timestamp)
            if try transaction.update(row, expectedVersion: version, changedSlots: object.state.changedSlots) {
                rows.append((object, row))
            } else if versionsChecked {
                conflicts.append(object)
            } else {
                throw StaleRowVersion()
            }
        }
        if !conflicts.isEmpty {
            // Conflicts were settled above under the write lock; a row that still moved is reported.
            throw coreDataError(NSManagedObjectMergeError, userInfo: [
                NSPersistentStoreSaveConflictsErrorKey: try lockingConflicts(among: conflicts, in: store)
            ])
        }
        // Many-to-many join rows: only entities with relationships can have any.
        for objects in [inserted, storeWork.updated] where SavePlan.hasRelationships(objects) {
            for object in objects {
                for relationship in object.entity.propertyTable.relationships
                where relationship.isToMany && !relationship.isTransient && object.state.hasLoaded(relationship)
                    && (object.state.isInserted || object.state.changedSlots.contains(object.entity.propertyTable.slotByName[relationship.name]!))
                {
                    let destinations = toManyMembers(object.state.values[relationship.name]).filter { !$0.state.isDeleted }.compactMap { key(of: $0) }
                    try transaction.writeToMany(relationship, source: key(of: object)!, destinations: destinations)
                }
            }
        }
        return rows
    }

    /// Calls `body` with the row key of each of `deleted` that has a row to delete (not
    /// inaccessible, with a permanent ID), in order, and the version its snapshot has (nil
    /// without a snapshot), a run of up to 256 objects at a time.
    ///
    /// The run's keys and versions are read before any is handed on: read just before each
    /// row's DELETE, every object, its ID and its snapshot (cold in memory by the time a
    /// large cascade is written) was a cache miss waiting on the last one, with a
    /// statement's work in between (see ``Swift/Array/forEachBorrowedReadingAhead(runLength:read:act:afterRun:)``).
    /// The run goes through the read-ahead that passes over cold objects share, in short
    /// buffers, reused, not one of 100,000 entries (pages touched for the first time).
    static func forEachRunOfDeletions(in deleted: [NSManagedObject], _ body: ([(key: StoreKey, version: Int64?)]) throws -> Void) rethrows {
        let runLength = 256
        var run: [(key: StoreKey, version: Int64?)] = []
        run.reserveCapacity(Swift.min(runLength, deleted.count))
        try deleted.forEachBorrowedReadingAhead(runLength: runLength, read: { object -> (key: StoreKey, version: Int64?)? in
            guard !object.state.isInaccessible, let key = object.objectID.storeKey else { return nil }
            return (key, object.state.snapshot?.version)
        }, act: { _, deletion in
            if let deletion { run.append(deletion) }
        }, afterRun: {
            if !run.isEmpty { try body(run) }
            run.removeAll(keepingCapacity: true)
        })
    }

    /// Hands the work to an incremental store as one ``NSSaveChangesRequest``: optimistic-
    /// locking conflicts are settled first (the store's node versions compared with the
    /// objects' snapshots), then the new objects get permanent IDs from the store, as
    /// Core Data does; whatever the store throws reaches the caller of `save()` unchanged.
    /// Called by the store's engine while it holds the store.
    func write(to store: NSIncrementalStore) throws -> [(NSManagedObject, StoreRow)] {
        let storeWork = try resolveConflicts(work[ObjectIdentifier(store)]!, in: store, checkingConstraints: false)
        work[ObjectIdentifier(store)] = storeWork
        try context.adoptPermanentIDs(for: storeWork.inserted.filter { $0.objectID.isTemporaryID }, from: store)
        let request = NSSaveChangesRequest(
            inserted: Set(storeWork.inserted), updated: Set(storeWork.updated), deleted: Set(storeWork.deleted), locked: nil)
        _ = try store.execute(request, with: context)
        var rows: [(NSManagedObject, StoreRow)] = []
        for object in storeWork.inserted + storeWork.updated {
            guard let key = object.objectID.storeKey else { continue }
            let version = (object.state.snapshot?.version ?? 0) + 1
            rows.append((object, makeRow(object, key: key, version: version)))
        }
        return rows
    }

    /// The row an object's current values make.
    private func makeRow(_ object: NSManagedObject, key: StoreKey, version: Int64,
                         timestamp: TimeInterval = ProcessInfo.processInfo.systemUptime) -> StoreRow {
        let table = object.entity.propertyTable
        var attributes = object.state.values
        if table.hasTransientAttributes || !object.state.loadedRelationships.isEmpty {
            // Keep only persistent attributes (values also hold transients and relationships).
            attributes.removeAll()
            for slot in table.persistentSlots {
                if let value = object.state.values[slot] { attributes[slot] = value }
            }
        }
        var toOne = ToOneKeys()
        for relationship in table.relationships where !relationship.isToMany && !relationship.isTransient {
            if object.state.hasLoaded(relationship) {
                if let destination = object.state.values[relationship.name] as? NSManagedObject, let destinationKey = self.key(of: destination) {
                    toOne[relationship.name] = destinationKey
                }
            } else if let stored = object.state.snapshot?.toOne[relationship.name] {
                toOne[relationship.name] = stored
            }
        }
        return StoreRow(key: key, entity: object.entity, version: version, attributes: attributes, toOne: toOne, timestamp: timestamp)
    }

    /// The row key of `object`: permanent, or assigned in this save.
    private func key(of object: NSManagedObject) -> StoreKey? {
        object.objectID.storeKey ?? assignedKeys[ObjectIdentifier(object)]
    }

    /// Whether an updated object changed anything the store keeps.
    static func hasPersistentChanges(_ object: NSManagedObject) -> Bool {
        let table = object.entity.propertyTable
        // Every property persistent (no transient or fetched one, as most entities): any
        // change is one, and the slots need no walk (each walk makes an iterator on the heap).
        if table.persistentNames.count == table.all.count { return !object.state.changedSlots.isEmpty }
        return object.state.changedSlots.contains { !table.all[$0].isTransient }
    }

    /// Objects grouped by the store that holds their entity, stores in first-use order.
    static func group(_ objects: [NSManagedObject], coordinator: NSPersistentStoreCoordinator) throws -> [(NSPersistentStore, [NSManagedObject])] {
        var groups: [(NSPersistentStore, [NSManagedObject])] = []
        for object in objects {
            guard let store = coordinator.store(for: object.entity) else {
                throw coreDataError(NSPersistentStoreSaveError, userInfo: [
                    NSLocalizedDescriptionKey: "No persistent store of the coordinator holds the entity \(object.entity.name ?? "(null)")."
                ])
            }
            if let index = groups.firstIndex(where: { $0.0 === store }) { groups[index].1.append(object) } else { groups.append((store, [object])) }
        }
        return groups
    }

    /// The objects grouped by entity, entities in first-seen order, each group in the order its objects were inserted
    /// (the order primary keys are given in).
    static func byEntity(_ objects: [NSManagedObject]) -> [(NSEntityDescription, [NSManagedObject])] {
        byEntity(positions: Array(objects.indices), of: objects).map { entity, positions in (entity, positions.map { objects[$0] }) }
    }

    /// The `positions` of `objects` grouped as ``byEntity(_:)`` groups the objects.
    static func byEntity(positions: [Int], of objects: [NSManagedObject]) -> [(NSEntityDescription, [Int])] {
        // Already in creation order (the usual case: inserted in the order they were made)
        // needs no sort.
        let ordered = zip(positions, positions.dropFirst()).allSatisfy { objects[$0].objectID.creationSequence < objects[$1].objectID.creationSequence }
        let sorted = ordered ? positions : positions.sorted { objects[$0].objectID.creationSequence < objects[$1].objectID.creationSequence }
        var groups: [(NSEntityDescription, [Int])] = []
        var index: [ObjectIdentifier: Int] = [:]
        // Long runs of one entity, kept by identity (the entities outlive the save): the
        // entity read out of each object for a reference comparison was retained and released.
        var last: (entity: ObjectIdentifier, group: Int)?
        for position in sorted {
            let entity = ObjectIdentifier(objects[position].entity)
            if let last, last.entity == entity {
                groups[last.group].1.append(position)
            } else if let group = index[entity] {
                groups[group].1.append(position)
                last = (entity, group)
            } else {
                index[entity] = groups.count
                last = (entity, groups.count)
                groups.append((objects[position].entity, [position]))
            }
        }
        return groups
    }

    /// Whether an entity of `objects` has relationships, so that their rows may point at other objects.
    private static func hasRelationships(_ objects: [NSManagedObject]) -> Bool {
        var last: NSEntityDescription?
        for object in objects where object.entity !== last {
            if !object.entity.propertyTable.relationships.isEmpty { return true }
            last = object.entity
        }
        return false
    }
}
