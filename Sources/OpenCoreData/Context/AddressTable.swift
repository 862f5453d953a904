/// A hash table from object addresses to integers: the positions in an ``ObjectList``.
///
/// Why not `[ObjectIdentifier: Int]`: a dictionary hashes every key with the standard
/// library's seeded SipHash and scatters neighbouring keys across its storage, and a
/// cascade delete through 100,000 objects makes about half a million list look-ups
/// (deleted, updated, to process, the event's lists), where that hashing and the cache
/// misses of the scattered entries showed as the largest part of each. An address needs
/// no such hash: objects made one after another lie at increasing addresses, and a home
/// entry taken from the address's own bits (folded with its higher bits, so that
/// addresses a table's span apart do not pile up) keeps their entries next to each other,
/// in the cache together, as the lists add and remove them in that order. Open addressing
/// with linear probing, at most half full.
///
/// A value type with copy-on-write storage, like the dictionary it replaces. Keys are
/// addresses of live objects (never 0, which marks an empty entry); the list holding the
/// objects keeps them alive while their addresses are keys here.
struct AddressTable {
    private struct Entry {
        var key: UInt
        var value: Int
    }

    private var entries: [Entry] = []
    /// The capacity's power of two.
    private var shift: UInt = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    private static func address(_ id: ObjectIdentifier) -> UInt { UInt(bitPattern: id) }

    /// The entry where the search for `key` starts.
    @inline(__always)
    private static func home(_ key: UInt, _ shift: UInt) -> Int {
        // Objects are at least 16 bytes apart: the low 4 bits say nothing. Callers mask.
        let unit = key >> 4
        return Int(truncatingIfNeeded: unit ^ (unit >> shift))
    }

    /// The value stored for `id`, if any.
    func value(for id: ObjectIdentifier) -> Int? {
        guard count > 0 else { return nil }
        let key = Self.address(id), mask = entries.count - 1
        let start = Self.home(key, shift) & mask
        return entries.withUnsafeBufferPointer { entries in
            var index = start
            while true {
                let entry = entries[index]
                if entry.key == key { return entry.value }
                if entry.key == 0 { return nil }
                index = (index + 1) & mask
            }
        }
    }

    /// Stores `value` for `id` unless it has a value already; returns the value it had.
    mutating func insertIfAbsent(_ value: Int, for id: ObjectIdentifier) -> Int? {
        if (count + 1) * 2 > entries.count { grow() }
        let key = Self.address(id), mask = entries.count - 1
        let start = Self.home(key, shift) & mask
        let existing: Int? = entries.withUnsafeMutableBufferPointer { entries in
            var index = start
            while true {
                if entries[index].key == key { return entries[index].value }
                if entries[index].key == 0 {
                    entries[index] = Entry(key: key, value: value)
                    return nil
                }
                index = (index + 1) & mask
            }
        }
        if existing == nil { count += 1 }
        return existing
    }

    /// Stores `value` for `id`, replacing any value it had.
    mutating func setValue(_ value: Int, for id: ObjectIdentifier) {
        if (count + 1) * 2 > entries.count { grow() }
        let key = Self.address(id), mask = entries.count - 1
        let start = Self.home(key, shift) & mask
        let added: Bool = entries.withUnsafeMutableBufferPointer { entries in
            var index = start
            while true {
                if entries[index].key == key {
                    entries[index].value = value
                    return false
                }
                if entries[index].key == 0 {
                    entries[index] = Entry(key: key, value: value)
                    return true
                }
                index = (index + 1) & mask
            }
        }
        if added { count += 1 }
    }

    /// Removes `id` and returns the value it had, if any.
    @discardableResult
    mutating func removeValue(for id: ObjectIdentifier) -> Int? {
        guard count > 0 else { return nil }
        let key = Self.address(id), mask = entries.count - 1
        let start = Self.home(key, shift) & mask
        let bits = shift
        let removed: Int? = entries.withUnsafeMutableBufferPointer { entries in
            var index = start
            while entries[index].key != key {
                if entries[index].key == 0 { return nil }
                index = (index + 1) & mask
            }
            let value = entries[index].value
            // Backward-shift deletion: later entries of the probe run move into the hole
            // unless their search starts after it, so no tombstones are left behind.
            var hole = index, next = index
            while true {
                next = (next + 1) & mask
                let candidate = entries[next]
                if candidate.key == 0 { break }
                let start = Self.home(candidate.key, bits) & mask
                let staysPut = hole <= next ? (hole < start && start <= next) : (hole < start || start <= next)
                if !staysPut {
                    entries[hole] = candidate
                    hole = next
                }
            }
            entries[hole] = Entry(key: 0, value: 0)
            return value
        }
        if removed != nil { count -= 1 }
        return removed
    }

    /// Removes every entry, keeping the storage for reuse.
    mutating func removeAll() {
        guard count > 0 else { return }
        entries.withUnsafeMutableBufferPointer { entries in
            for index in entries.indices { entries[index] = Entry(key: 0, value: 0) }
        }
        count = 0
    }

    /// Doubles the storage (at least 16 entries) and places every entry again.
    private mutating func grow() {
        let capacity = Swift.max(16, entries.count * 2)
        let old = entries
        entries = Array(repeating: Entry(key: 0, value: 0), count: capacity)
        shift = UInt(capacity.trailingZeroBitCount)
        let mask = capacity - 1, shift = self.shift
        entries.withUnsafeMutableBufferPointer { entries in
            for entry in old where entry.key != 0 {
                var index = Self.home(entry.key, shift) & mask
                while entries[index].key != 0 { index = (index + 1) & mask }
                entries[index] = entry
            }
        }
    }
}
