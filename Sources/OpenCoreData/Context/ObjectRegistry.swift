import Foundation

/// Identifies a permanent object in a context: its store and row.
struct PermanentKey: Hashable {
    let store: ObjectIdentifier
    let key: StoreKey
    init(store: NSPersistentStore, key: StoreKey) {
        self.store = ObjectIdentifier(store)
        self.key = key
    }
}

/// A context's objects with permanent IDs, by store and row: the table behind uniquing.
///
/// Core Data holds registered objects weakly: an unchanged object the program no longer
/// references leaves the context. A Swift `weak` reference would give every managed object
/// a side table, which makes each retain and release of it take the runtime's slow path
/// (a tenth of a fetch's time). So the registry holds its objects strongly and treats one
/// that nobody else holds (`isKnownUniquelyReferenced`) as gone: it is dropped when looked
/// up, and in a sweep over all entries whenever the registry has doubled since the last.
///
/// Only the context's queue uses the registry. Another thread can release its reference to
/// an object concurrently (the count only falls), but cannot gain one except through the
/// registry, so an object found uniquely referenced stays unreferenced until it is dropped.
struct ObjectRegistry {
    /// Objects in slots; a freed slot is `nil` and listed in `freeSlots`.
    private var objects: [NSManagedObject?] = []
    private var keys: [PermanentKey?] = []
    private var freeSlots: [Int] = []
    private var slotOfKey: [PermanentKey: Int] = [:]
    /// Entries after which the next insertion sweeps.
    private var sweepAt = 1024

    /// The object registered for `key`, if anything but the registry still holds it.
    mutating func object(for key: PermanentKey) -> NSManagedObject? {
        guard let slot = slotOfKey[key] else { return nil }
        if isKnownUniquelyReferenced(&objects[slot]) {
            free(slot)
            return nil
        }
        return objects[slot]
    }

    /// Registers `object` under `key`, replacing what was there.
    mutating func insert(_ object: NSManagedObject, for key: PermanentKey) {
        if let slot = slotOfKey[key] {
            objects[slot] = object
            return
        }
        if slotOfKey.count >= sweepAt { sweep() }
        let slot: Int
        if let reused = freeSlots.popLast() {
            slot = reused
            objects[slot] = object
            keys[slot] = key
        } else {
            slot = objects.count
            objects.append(object)
            keys.append(key)
        }
        slotOfKey[key] = slot
    }

    mutating func remove(_ key: PermanentKey) {
        if let slot = slotOfKey[key] { free(slot) }
    }

    mutating func removeAll() {
        self = ObjectRegistry()
    }

    /// Makes room for `count` entries at once (a fetch's or a save's worth). Not for the
    /// current entries plus `count`: many of them may already be registered.
    mutating func reserveCapacity(_ count: Int) {
        let total = Swift.max(slotOfKey.count, count)
        slotOfKey.reserveCapacity(total)
        objects.reserveCapacity(total)
        keys.reserveCapacity(total)
    }

    /// Every registered object something else still holds.
    mutating func liveObjects() -> [NSManagedObject] {
        sweep()
        return objects.compactMap { $0 }
    }

    /// Drops every object nobody else holds, and sets the next sweep at twice what is left.
    private mutating func sweep() {
        for slot in objects.indices where objects[slot] != nil {
            if isKnownUniquelyReferenced(&objects[slot]) { free(slot) }
        }
        sweepAt = max(1024, 2 * slotOfKey.count)
    }

    private mutating func free(_ slot: Int) {
        if let key = keys[slot] { slotOfKey[key] = nil }
        objects[slot] = nil
        keys[slot] = nil
        freeSlots.append(slot)
    }
}
