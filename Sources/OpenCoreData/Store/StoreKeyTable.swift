/// A hash table from store keys to values: a store's cached rows (``RowCache``) and, per
/// store, a context's registered objects (``ObjectRegistry``).
///
/// Why not `[StoreKey: Value]`: a dictionary hashes every key with the standard library's
/// seeded SipHash, and these two tables are looked up for every row fetched, every fault
/// made or fired and every object saved or deleted; in a cascade delete of 100,000 objects,
/// a fetch of 10,000 by ID and an upsert through a save, that hashing and the cache misses
/// of entries scattered across the table showed as several per cent of the work. A store
/// key needs no such hash: the primary keys of one entity are dense and mostly handled in
/// increasing order. Each run of ``runLength`` consecutive primary keys of an entity starts
/// at an entry picked by one multiplication (Fibonacci hashing of the entity number and the
/// run's number), and its keys take the entries after it, so that rows handled one after
/// another have their entries next to each other, in the cache together. Short runs, placed
/// apart, keep two dense ranges of keys (two entities, or one entity's rows far apart) from
/// landing on one stretch of the table, where every key of the one would probe past every
/// key of the other. Open addressing with linear probing, at most half full, removal by
/// backward shift (no tombstones: rows and objects come and go all the time).
///
/// A value type with copy-on-write storage, like the dictionary it replaces. Not
/// thread-safe: each owner guards its table with its own lock.
struct StoreKeyTable<Value> {
    private struct Entry {
        var key: StoreKey
        /// nil marks an empty entry.
        var value: Value?
    }

    private var entries: [Entry] = []
    /// The capacity's power of two.
    private var shift: UInt = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// How many consecutive primary keys of one entity share a starting entry: 8 entries
    /// of 24 bytes are three cache lines.
    static var runLength: Int { 1 << runBits }
    private static var runBits: UInt { 3 }

    /// The entry where the search for `key` starts, before masking (see the type's comment).
    @inline(__always)
    private static func home(_ key: StoreKey, _ shift: UInt) -> Int {
        let primaryKey = UInt(truncatingIfNeeded: key.primaryKey)
        let run = (primaryKey &>> runBits) &+ (UInt(truncatingIfNeeded: key.entityNumber) &<< 32)
        let start = (run &* 0x9E37_79B9_7F4A_7C15) &>> (64 &- shift)
        return Int(truncatingIfNeeded: start &+ (primaryKey & (1 &<< runBits &- 1)))
    }

    /// The position of `key`'s entry, or nil.
    @inline(__always)
    private func index(of key: StoreKey) -> Int? {
        guard count > 0 else { return nil }
        let mask = entries.count - 1
        let start = Self.home(key, shift) & mask
        return entries.withUnsafeBufferPointer { entries in
            var index = start
            while true {
                if entries[index].value == nil { return nil }
                if entries[index].key == key { return index }
                index = (index + 1) & mask
            }
        }
    }

    /// The value stored for `key`, if any.
    subscript(key: StoreKey) -> Value? {
        guard let index = index(of: key) else { return nil }
        return entries[index].value
    }

    /// Stores `value` for `key`, replacing any value it had.
    mutating func setValue(_ value: Value, for key: StoreKey) {
        withValue(for: key, default: value) { $0 = value }
    }

    /// Calls `body` with the value stored for `key`, after storing `defaultValue` there if
    /// there was none: one search whether the key is there or not, as a dictionary's
    /// `subscript(_:default:)` does.
    mutating func withValue<Result>(for key: StoreKey, default defaultValue: @autoclosure () -> Value,
                                    _ body: (inout Value) -> Result) -> Result {
        if (count + 1) * 2 > entries.count { grow(toHold: count + 1) }
        let mask = entries.count - 1
        let start = Self.home(key, shift) & mask
        var added = false
        let result: Result = entries.withUnsafeMutableBufferPointer { entries in
            var index = start
            while true {
                if entries[index].value == nil {
                    entries[index] = Entry(key: key, value: defaultValue())
                    added = true
                    break
                }
                if entries[index].key == key { break }
                index = (index + 1) & mask
            }
            return body(&entries[index].value!)
        }
        if added { count += 1 }
        return result
    }

    /// Removes the value for `key`, if `shouldRemove` says so of it, and returns it.
    @discardableResult
    mutating func removeValue(for key: StoreKey, if shouldRemove: (Value) -> Bool = { _ in true }) -> Value? {
        guard let index = index(of: key), shouldRemove(entries[index].value!) else { return nil }
        let shift = self.shift
        let removed = entries.withUnsafeMutableBufferPointer { entries in
            Self.remove(at: index, from: entries, shift: shift)
        }
        count -= 1
        return removed
    }

    /// Removes every entry `shouldRemove` picks, in one pass over the table. It sees each
    /// entry once, and may keep or change the value it is handed.
    mutating func removeAll(where shouldRemove: (StoreKey, inout Value) -> Bool) {
        guard count > 0 else { return }
        let shift = self.shift
        let removed: Int = entries.withUnsafeMutableBufferPointer { entries in
            let mask = entries.count - 1
            // The pass starts after an empty entry (there is one: the table is at most half
            // full), so that no probe run crosses its start: a removal shifts back only
            // entries of the run it is in, which the pass has not reached yet.
            var index = 0
            while entries[index].value != nil { index += 1 }
            var removed = 0
            var remaining = entries.count - 1
            index = (index + 1) & mask
            while remaining > 0 {
                if entries[index].value != nil, shouldRemove(entries[index].key, &entries[index].value!) {
                    _ = Self.remove(at: index, from: entries, shift: shift)
                    removed += 1
                    // The entry shifted into this place, if any, has not been seen yet.
                    continue
                }
                index = (index + 1) & mask
                remaining -= 1
            }
            return removed
        }
        count -= removed
    }

    /// Calls `body` with every key and value, in the table's order.
    func forEach(_ body: (StoreKey, Value) throws -> Void) rethrows {
        guard count > 0 else { return }
        for entry in entries {
            if let value = entry.value { try body(entry.key, value) }
        }
    }

    /// How many entries past its home the farthest entry lies: 0 when no two keys collided.
    /// For tests, which need collisions to prove that probing and removal handle them.
    var longestDisplacement: Int {
        let mask = entries.count - 1
        var longest = 0
        for (index, entry) in entries.enumerated() where entry.value != nil {
            longest = Swift.max(longest, (index - Self.home(entry.key, shift)) & mask)
        }
        return longest
    }

    /// The number of entries the storage has room for (at most half of them are used).
    var capacity: Int { entries.count }

    /// Removes every entry and frees the storage.
    mutating func removeAll() {
        entries = []
        shift = 0
        count = 0
    }

    /// Makes room for `capacity` entries in all, so that storing that many grows the
    /// storage once at most.
    mutating func reserveCapacity(_ capacity: Int) {
        if capacity * 2 > entries.count { grow(toHold: capacity) }
    }

    /// Gives the storage the least capacity that holds `capacity` entries, or the entries
    /// there are, if that is less than it has: after a sweep has dropped most of them.
    mutating func shrink(toHold capacity: Int) {
        let smaller = Self.capacity(holding: Swift.max(capacity, count))
        if smaller < entries.count { rebuild(capacity: smaller) }
    }

    /// The storage for `count` entries: a power of two at least twice that, at least 16.
    private static func capacity(holding count: Int) -> Int {
        var capacity = 16
        while capacity < count * 2 { capacity *= 2 }
        return capacity
    }

    private mutating func grow(toHold count: Int) {
        rebuild(capacity: Swift.max(Self.capacity(holding: count), entries.count * 2))
    }

    /// Places every entry again in new storage of `capacity` entries (a power of two).
    private mutating func rebuild(capacity: Int) {
        let old = entries
        // Each entry made empty in place: `Array(repeating:count:)` copies its one value
        // into every entry, a retain per entry (of nothing, for an empty entry, but still
        // a call into the runtime: 32,768 of them to grow a table to 16,384 rows).
        entries = Array(unsafeUninitializedCapacity: capacity) { storage, initialized in
            for index in 0..<capacity {
                (storage.baseAddress! + index).initialize(to: Entry(key: StoreKey(entityNumber: 0, primaryKey: 0), value: nil))
            }
            initialized = capacity
        }
        shift = UInt(capacity.trailingZeroBitCount)
        let mask = capacity - 1, shift = self.shift
        entries.withUnsafeMutableBufferPointer { entries in
            for entry in old where entry.value != nil {
                var index = Self.home(entry.key, shift) & mask
                while entries[index].value != nil { index = (index + 1) & mask }
                entries[index] = entry
            }
        }
    }

    /// Empties the entry at `index` and returns its value. Backward-shift deletion: later
    /// entries of the probe run move into the hole unless their search starts after it, so
    /// no tombstones are left behind. Entries are swapped, not copied: no retains.
    private static func remove(at index: Int, from entries: UnsafeMutableBufferPointer<Entry>, shift: UInt) -> Value? {
        let mask = entries.count - 1
        var hole = index, next = index
        while true {
            next = (next + 1) & mask
            if entries[next].value == nil { break }
            let start = home(entries[next].key, shift) & mask
            let staysPut = hole <= next ? (hole < start && start <= next) : (hole < start || start <= next)
            if !staysPut {
                entries.swapAt(hole, next)
                hole = next
            }
        }
        var value: Value? = nil
        swap(&value, &entries[hole].value)
        return value
    }
}
