import Foundation

/// Rows fetched together because of `fetchBatchSize`.
///
/// Core Data returns a batched fetch as a special array that loads a batch of rows when
/// an index in it is first read. A Swift `fetch` returns `[T]`, which cannot be lazy, so
/// here the array holds faults (from one `SELECT t0.Z_ENT, t0.Z_PK …` up front), each
/// knowing its batch: the first fault of a batch to fire loads the rows of the whole
/// batch in one statement, and the rest fire from the row cache without SQL. Reading the
/// results in order therefore costs one statement per batch, as in Core Data.
final class FetchBatch {
    /// The rows of the batch whose values were not cached when it was made.
    let keys: [StoreKey]
    private(set) var isLoaded = false

    init(keys: [StoreKey]) {
        self.keys = keys
    }

    func markLoaded() { isLoaded = true }
}

extension NSManagedObjectContext {
    /// Splits `objects` into batches of `size`; faults whose rows are not cached get theirs,
    /// and those whose rows are hold them (see ``RowCache``).
    func assignFetchBatches(_ objects: [NSManagedObject], size: Int, store: NSPersistentStore) {
        holdCachedRows(of: objects)
        var start = 0
        while start < objects.count {
            let chunk = objects[start..<min(start + size, objects.count)]
            start += chunk.count
            var members: [NSManagedObject] = []
            var keys: [StoreKey] = []
            for object in chunk where object.state.isFault {
                guard let key = object.objectID.storeKey, store.rowCache.row(for: key) == nil else { continue }
                members.append(object)
                keys.append(key)
            }
            guard !keys.isEmpty else { continue }
            let batch = FetchBatch(keys: keys)
            for member in members { member.state.fetchBatch = batch }
        }
    }

    /// Loads the rows of the batch `object` belongs to into the row cache, once, and returns
    /// `object`'s row. Called when a fault of a batched fetch fires.
    func loadFetchBatch(of object: NSManagedObject, key: StoreKey, store: NSPersistentStore) -> StoreRow? {
        guard let batch = object.state.fetchBatch else { return nil }
        object.state.fetchBatch = nil
        guard !batch.isLoaded else { return nil }
        batch.markLoaded()
        let missing = batch.keys.filter { store.rowCache.row(for: $0) == nil }
        guard let rows = try? storedRows(for: missing, in: store) else { return nil }
        store.rowCache.store(rows)
        holdCachedRows(of: batch.keys.compactMap { registeredObject(for: $0, in: store) })
        return store.rowCache.row(for: key)
    }

    // MARK: Prefetching

    /// Loads the destinations of each relationship key path for all of `objects` at once:
    /// a to-one's rows by primary key, a one-to-many's rows by their foreign key (one
    /// statement per relationship, per 512 owners), a many-to-many's pairs from its join
    /// table and then the rows not cached yet. Objects whose relationship is
    /// already loaded or changed are left as they are; ordered to-many relationships load
    /// as usual, when touched.
    func prefetchRelationships(_ keyPaths: [String], of objects: [NSManagedObject]) throws {
        for keyPath in keyPaths {
            var level = objects
            for name in splitKeyPath(keyPath) where !level.isEmpty {
                level = try prefetch(name, of: level)
            }
        }
    }

    /// Prefetches relationship `name` of `sources` and returns the destinations.
    private func prefetch(_ name: String, of sources: [NSManagedObject]) throws -> [NSManagedObject] {
        var destinations: [NSManagedObject] = []
        var seen = Set<ObjectIdentifier>()
        func add(_ object: NSManagedObject) {
            if seen.insert(ObjectIdentifier(object)).inserted { destinations.append(object) }
        }
        // Group by relationship (sources may be of several entities) and store.
        var groups: [ObjectIdentifier: (NSRelationshipDescription, NSPersistentStore, [NSManagedObject])] = [:]
        var order: [ObjectIdentifier] = []
        for source in sources {
            guard let relationship = source.entity.propertyTable.byName[name] as? NSRelationshipDescription else { continue }
            guard let store = source.objectID.persistentStore, source.objectID.storeKey != nil,
                !source.state.hasLoaded(relationshipNamed: name), !source.state.isInserted
            else {
                // Already loaded, or not stored: use what the object has.
                for member in toManyMembers(source.value(forKey: name)) { add(member) }
                if let single = source.value(forKey: name) as? NSManagedObject { add(single) }
                continue
            }
            let groupKey = ObjectIdentifier(relationship)
            if groups[groupKey] == nil { order.append(groupKey) }
            groups[groupKey, default: (relationship, store, [])].2.append(source)
        }
        for groupKey in order {
            let (relationship, store, members) = groups[groupKey]!
            if relationship.isToMany {
                for object in try prefetchToMany(relationship, of: members, store: store) { add(object) }
            } else {
                for object in try prefetchToOne(relationship, of: members, store: store) { add(object) }
            }
        }
        return destinations
    }

    private func prefetchToOne(_ relationship: NSRelationshipDescription, of sources: [NSManagedObject], store: NSPersistentStore) throws -> [NSManagedObject] {
        var keys: [StoreKey] = []
        for source in sources {
            let row = source.state.snapshot ?? source.objectID.storeKey.flatMap { store.rowCache.row(for: $0) }
            if let key = row?.toOne[relationship.name] { keys.append(key) }
        }
        let missing = Array(Set(keys.filter { store.rowCache.row(for: $0) == nil }))
        if !missing.isEmpty { store.rowCache.store(try storedRows(for: missing, in: store)) }
        let destinations = keys.map { object(for: $0, in: store) }
        holdCachedRows(of: destinations)
        return destinations
    }

    private func prefetchToMany(_ relationship: NSRelationshipDescription, of sources: [NSManagedObject], store: NSPersistentStore) throws -> [NSManagedObject] {
        guard !relationship.isOrdered else {
            return sources.flatMap { toManyMembers($0.value(forKey: relationship.name)) }
        }
        let owners = sources.compactMap { $0.objectID.storeKey?.primaryKey }
        var pairs: [(Int64, StoreKey)]
        var fetched: [StoreRow] = []
        if case .foreignKey(let destination, let keyColumn, _)? = store.engine.sqlSchema?.toMany(relationship),
           let inverse = relationship.inverseRelationship?.name
        {
            // One statement: the destination rows, each naming its owner in its foreign key.
            fetched = store.rowCache.store(try store.engine.sqlite(for: "Prefetching a to-many relationship in SQL").fetchRows(of: destination, whereKey: keyColumn, in: owners))
            pairs = fetched.compactMap { row in row.toOne[inverse].map { ($0.primaryKey, row.key) } }
        } else {
            // A join table (or a hidden key): the pairs, then the rows not cached yet.
            pairs = try store.engine.destinationKeys(of: relationship, fromOwners: owners)
            let missing = Array(Set(pairs.map(\.1).filter { store.rowCache.row(for: $0) == nil }))
            if !missing.isEmpty { fetched = store.rowCache.store(try storedRows(for: missing, in: store)) }
        }
        var byOwner: [Int64: [StoreKey]] = [:]
        for (owner, destination) in pairs { byOwner[owner, default: []].append(destination) }
        var destinations: [NSManagedObject] = []
        defer { withExtendedLifetime(fetched) { holdCachedRows(of: destinations) } }
        for source in sources {
            guard let owner = source.objectID.storeKey?.primaryKey else { continue }
            let members = (byOwner[owner] ?? []).map { object(for: $0, in: store) }
            source.fulfillFaultIfNeeded()
            guard !source.state.hasLoaded(relationship) else { continue }
            source.state.values[relationship.name] = Set(members)
            source.state.noteLoaded(relationship)
            destinations.append(contentsOf: members)
        }
        return destinations
    }
}
