import Foundation

// The delete rules of many deleted objects, loaded together.
//
// Nullify and cascade walk the to-many relationships of every deleted object. Fired one
// object at a time, that is one to-many fault (one statement) per deleted object: a
// cascade through a tree of 100,000 nodes ran 100,000 `SELECT … WHERE t0.ZPARENT = ?`
// statements, most of them for leaves that have no children. Core Data avoids that: before
// propagating deletes it prefetches, per entity, the relationships the rules follow
// (`_prefetchObjectsForDeletePropagation` in its decompiled `_processRecentChanges`; see
// LinuxDifferences.md). Here, when several deleted objects wait for their rules and a
// relationship of theirs is still unloaded, the destinations of all of them are read at
// once, in the statement a to-many prefetch runs:
//
//     SELECT 0, t0.Z_PK, t0.Z_OPT, … FROM ZHIKE t0 WHERE  t0.ZTRAIL IN (?, …) ORDER BY t0.Z_PK
//
// one per 512 owners. Each owner's relationship then holds the same members, each fault
// holding its row, that firing its fault would have given. A single deletion still fires
// its fault as before. A round of more deleted objects than one statement reads goes a
// slice of them at a time, loaded then ruled (see `processPendingChanges()`).

extension NSManagedObjectContext {
    /// The most deleted objects whose relationships load together before their rules run:
    /// the owners one statement reads (the longest key list, see ``SelectPlan/batchSizes``).
    static let deleteRuleSlice = SelectPlan.batchSizes.last!

    /// Loads, in a few statements, the unloaded nullify and cascade to-many relationships
    /// of the saved objects in `owners` (deleted objects waiting for their delete rules):
    /// a slice of a round of `roundCount` objects (see `processPendingChanges()`).
    ///
    /// Only one-to-many relationships kept by a foreign key in a SQLite store are loaded
    /// here, and only for rounds of two owners or more; any other relationship loads as its
    /// fault does when the rule reads it. A relationship only one owner of a whole round
    /// has fires its fault too (a slice's single owner of a larger round does not: its
    /// statement is the one firing would run).
    func loadDeleteRuleRelationships(of owners: [NSManagedObject], roundCount: Int) {
        // A child's relationships load through its parent.
        guard parent == nil, roundCount > 1 else { return }
        let sliced = roundCount > owners.count
        // One group per relationship, in the order first met. Owners of one entity come in
        // runs, and each walks its entity's relationships in the same order: the groups of
        // the last entity's relationships are kept by position, so an owner of the same
        // entity finds its groups without hashing (a cascade through 100,000 objects
        // groups 100,000 owners).
        // Each group keeps its owners' primary keys beside them, read here once: reading an
        // object's ID again later costs a cache miss per owner.
        var groups: [(relationship: NSRelationshipDescription, store: NSPersistentStore, owners: [NSManagedObject], keys: [Int64])] = []
        var groupIndex: [ObjectIdentifier: Int] = [:]
        // The last entity's relationships that load together, each with its slot and its
        // group (-1: none yet), kept by identity and read once per run of the entity: the
        // entity, its table and its relationships taken out of each owner were retained
        // and released, each relationship once more as the loop walked it.
        var lastEntity: ObjectIdentifier?
        var candidates: [(relationship: NSRelationshipDescription, slot: Int?, group: Int)] = []
        // Whether the last owner's store is a SQL one, asked once per store (its engine and
        // schema taken out of it per owner were retained and released).
        var lastStore: (store: ObjectIdentifier, isSQL: Bool)?
        // Borrowed: the caller's array keeps the owners alive.
        owners.forEachBorrowed { owner in
            guard !owner.state.isFault && !owner.state.isInaccessible && !owner.state.isInserted else { return }
            let id = owner.objectID
            guard let store = id.persistentStore, let key = id.storeKey?.primaryKey else { return }
            if lastStore?.store != ObjectIdentifier(store) {
                lastStore = (ObjectIdentifier(store), store.engine.sqlSchema != nil)
            }
            guard lastStore!.isSQL else { return }
            if ObjectIdentifier(owner.entity) != lastEntity {
                let table = owner.entity.propertyTable
                lastEntity = ObjectIdentifier(owner.entity)
                candidates = table.relationships.filter(Self.loadsTogether).map { relationship in
                    (relationship, table.slot(of: relationship), groupIndex[ObjectIdentifier(relationship)] ?? -1)
                }
            }
            for position in candidates.indices {
                // The loaded set read in place: `state.hasLoaded(_:)` on another object's
                // state copies the whole state first (a retain of each reference).
                if let slot = candidates[position].slot, owner.state.loadedRelationships.contains(slot) { continue }
                var group = candidates[position].group
                if group < 0 {
                    let relationship = candidates[position].relationship
                    if let known = groupIndex[ObjectIdentifier(relationship)] {
                        group = known
                    } else {
                        group = groups.count
                        groupIndex[ObjectIdentifier(relationship)] = group
                        groups.append((relationship, store, [], []))
                    }
                    candidates[position].group = group
                }
                // Another store's owners of the same relationship fire their faults instead.
                if groups[group].store === store {
                    groups[group].owners.append(owner)
                    groups[group].keys.append(key)
                }
            }
        }
        for (relationship, store, members, keys) in groups where members.count > 1 || sliced {
            readingQueryGeneration { loadToMany(relationship, of: members, keys: keys, in: store) }
        }
    }

    /// Whether the rule of `relationship` walks it and it can be read for many owners at
    /// once (unordered to-many with an inverse).
    private static func loadsTogether(_ relationship: NSRelationshipDescription) -> Bool {
        switch relationship.deleteRule {
        case .nullifyDeleteRule, .cascadeDeleteRule:
            return relationship.isToMany && !relationship.isOrdered && relationship.inverseRelationship != nil
        case .denyDeleteRule, .noActionDeleteRule:
            return false
        }
    }

    /// Reads the destinations of `owners`' `relationship` (`keys`: the owners' primary keys,
    /// in the same order) and gives each owner its set; leaves every owner unloaded when the
    /// store cannot answer in one statement or fails (each then fires its own fault, which
    /// reports the failure as a fault does).
    private func loadToMany(_ relationship: NSRelationshipDescription, of owners: [NSManagedObject], keys: [Int64], in store: NSPersistentStore) {
        guard case .foreignKey(let destination, let keyColumn, _)? = store.engine.sqlSchema?.toMany(relationship),
            let inverse = relationship.inverseRelationship?.name,
            let engine = try? store.engine.sqlite(for: "Loading the relationships of deleted objects"),
            let fetched = try? engine.fetchRows(of: destination, whereKey: keyColumn, in: keys)
        else { return }
        var byOwner: [Int64: [NSManagedObject]] = [:]
        if !fetched.isEmpty {
            reserveRegistryCapacity(additional: fetched.count, in: store)
            // Borrowed: the local array keeps the cached rows alive.
            let rows = store.rowCache.store(fetched)
            rows.forEachBorrowed { row in
                guard let owner = row.toOne[inverse]?.primaryKey else { return }
                // By row: the row names its entity, so a new fault's ID needs no look-up of it.
                let member = object(for: row, in: store)
                if member.state.isFault { member.state.heldRow = row }
                byOwner[owner, default: []].append(member)
            }
        }
        // Most owners of a cascade's last round (its leaves) have no members: no look-up.
        let none = Set<NSManagedObject>()
        var position = 0
        // Borrowed: the caller's array keeps the owners alive.
        owners.forEachBorrowed { owner in
            let key = keys[position]
            position += 1
            let members = byOwner.isEmpty ? nil : byOwner[key]
            // By slot, as the relationship's value is read: the name is not hashed per owner.
            guard let slot = owner.state.values.table.slot(of: relationship) else { return }
            owner.state.values[slot] = members.map { Set($0) } ?? none
            owner.state.loadedRelationships.insert(slot)
        }
    }
}
