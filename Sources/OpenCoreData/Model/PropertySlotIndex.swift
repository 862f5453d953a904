/// An entity's property slots by name: what `value(forKey:)` and `setValue(_:forKey:)` look
/// up at every call.
///
/// A `[String: Int]` hashes the key with `Hasher` (SipHash, after feeding the string's
/// bytes through its normalization check): about 380 instructions per look-up, a fifth of
/// what reading an attribute through `value(forKey:)` cost. Here the key's UTF-8 bytes are
/// hashed with FNV-1a into a small open-addressed table built once per entity, and the
/// bucket's name compared with `==`. Swift compares strings by canonical equivalence, which
/// a hash of bytes does not see (a name written with "K", U+212A KELVIN SIGN, equals one
/// written with "K"), so a key the table does not find is looked up in the dictionary as
/// well: the answer is always the dictionary's.
struct PropertySlotIndex {
    /// Slot by name, the last property of a repeated name winning.
    private let dictionary: [String: Int]
    /// Open addressing, linear probing; an empty bucket has slot -1.
    private let buckets: [(name: String, slot: Int)]
    private let mask: Int

    init(_ names: [String]) {
        dictionary = Dictionary(names.indices.map { (names[$0], $0) }, uniquingKeysWith: { _, last in last })
        var capacity = 8
        while capacity < dictionary.count * 2 { capacity *= 2 }
        var buckets = Array(repeating: (name: "", slot: -1), count: capacity)
        for (name, slot) in dictionary {
            var index = Self.hash(name) & (capacity - 1)
            while buckets[index].slot >= 0 { index = (index + 1) & (capacity - 1) }
            buckets[index] = (name, slot)
        }
        self.buckets = buckets
        mask = capacity - 1
    }

    /// How many distinct names there are.
    var count: Int { dictionary.count }

    /// The slot of the property `name`, or nil when the entity has none of that name.
    subscript(name: String) -> Int? {
        var index = Self.hash(name) & mask
        while true {
            let bucket = buckets[index]
            if bucket.slot < 0 { break }
            if bucket.name == name { return bucket.slot }
            index = (index + 1) & mask
        }
        return dictionary[name]
    }

    /// FNV-1a of the UTF-8 bytes, read in place when the string has them contiguous (every
    /// native string, small ones copied to the stack first).
    @inline(__always)
    private static func hash(_ name: String) -> Int {
        if let hash = name.utf8.withContiguousStorageIfAvailable({ hash(bytes: $0) }) { return hash }
        return hash(bytes: name.utf8)
    }

    @inline(__always)
    private static func hash(bytes: some Sequence<UInt8>) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(truncatingIfNeeded: hash ^ (hash >> 32))
    }
}
