/// A context's objects with a temporary ID, by that ID (its address).
///
/// Inserting a new object adds it here, and a save of it takes it out again; between
/// the two nothing may ever look it up. So an object that ``addNew(_:for:)`` adds while
/// no entry is hashed is only listed, in order, without hashing; the listed entries are
/// hashed into the table, in the order they were added, as soon as the table is read or
/// changed in any other way. A save that gives every listed object, and only those, a
/// permanent ID (``removeAll(ifExactly:listedInOrder:)``) empties the table without
/// hashing any of them. Inserting and saving 100,000 objects made 100,000 dictionary
/// insertions here before.
///
/// An object leaving before the save (a merge policy deleting an import's duplicates,
/// ``remove(_:)``) is found in the listing by its ID's creation sequence, which grows
/// along the listing when each object's ID was made just before it was inserted (the
/// usual case, checked as entries are added), and its entry is emptied in place: an
/// upsert deleting 5,000 of 10,000 new objects hashed all 10,000 on the first deletion.
struct TemporaryObjectTable {
    private var table: [ObjectIdentifier: NSManagedObject] = [:]
    /// Entries not hashed yet, in the order they were added; only while `table` is empty.
    /// A removed entry keeps its place with no object.
    private var listed: [Listing] = []
    /// Whether the listed entries' creation sequences grow along the listing.
    private var listedBySequence = true
    /// The number of listed entries removed in place.
    private var removedListings = 0

    private struct Listing {
        let key: ObjectIdentifier
        let sequence: UInt64
        var object: NSManagedObject?
    }

    /// The object registered under `id`.
    subscript(id: ObjectIdentifier) -> NSManagedObject? {
        mutating get {
            hashListed()
            return table[id]
        }
        set {
            hashListed()
            table[id] = newValue
        }
    }

    /// Registers `object`, just inserted, under `id`: listed without hashing when no entry
    /// is hashed yet, else hashed at once, which is the same to every later reader.
    mutating func addNew(_ object: NSManagedObject, for id: NSManagedObjectID) {
        if table.isEmpty {
            if let last = listed.last, last.sequence >= id.creationSequence { listedBySequence = false }
            listed.append(Listing(key: ObjectIdentifier(id), sequence: id.creationSequence, object: object))
        } else {
            table[ObjectIdentifier(id)] = object
        }
    }

    /// Removes the entry of `id`: in place when the listing is in sequence order (an ID
    /// it does not find there is not listed: each listed object holds its ID, so no other
    /// ID can have taken its address), else from the hashed table.
    mutating func remove(_ id: NSManagedObjectID) {
        guard table.isEmpty, listedBySequence else {
            self[ObjectIdentifier(id)] = nil
            return
        }
        guard let position = listedPosition(of: id) else { return }
        listed[position].object = nil
        removedListings += 1
        if removedListings == listed.count { removeAll() }
    }

    /// The position of `id`'s live entry in the listing (sorted by sequence), if any.
    private func listedPosition(of id: NSManagedObjectID) -> Int? {
        let sequence = id.creationSequence
        var low = 0, high = listed.count
        while low < high {
            let middle = (low + high) / 2
            if listed[middle].sequence < sequence { low = middle + 1 } else { high = middle }
        }
        guard low < listed.count, listed[low].sequence == sequence, listed[low].key == ObjectIdentifier(id),
              listed[low].object != nil else { return nil }
        return low
    }

    /// Every registered object.
    var objects: [NSManagedObject] {
        mutating get {
            hashListed()
            return Array(table.values)
        }
    }

    /// The number of entries (after hashing the listed ones, as keys may repeat).
    var count: Int {
        mutating get {
            hashListed()
            return table.count
        }
    }

    mutating func removeAll() {
        table.removeAll()
        listed.removeAll()
        listedBySequence = true
        removedListings = 0
    }

    /// Whether `object` is the next listed object after `cursor` (and no entry is hashed),
    /// skipping entries removed in place; moves `cursor` past it. Start `cursor` at 0.
    func lists(_ object: NSManagedObject, after cursor: inout Int) -> Bool {
        guard table.isEmpty else { return false }
        while cursor < listed.count, listed[cursor].object == nil { cursor += 1 }
        guard cursor < listed.count, listed[cursor].object === object else { return false }
        cursor += 1
        return true
    }

    /// Empties the table when it holds exactly the entries that removing each of `count`
    /// registered objects under its ID would remove: when nothing is hashed and they are
    /// the listed objects, in the order listed (`listedInOrder`, each one checked with
    /// ``lists(_:after:)``; an object's ID changes only through the subscript, which
    /// hashes the listed entries first), or when the hashed table has `count` entries (its
    /// keys are distinct). Returns whether it did.
    mutating func removeAll(ifExactly count: Int, listedInOrder: Bool) -> Bool {
        guard count > 0 else { return false }
        if listedInOrder, table.isEmpty, listed.count - removedListings == count {
            removeAll()
            return true
        }
        hashListed()
        guard table.count == count else { return false }
        removeAll()
        return true
    }

    /// Hashes the listed entries into the table, in the order they were added.
    private mutating func hashListed() {
        guard !listed.isEmpty else { return }
        table.reserveCapacity(table.count + listed.count - removedListings)
        for listing in listed { if let object = listing.object { table[listing.key] = object } }
        listed.removeAll()
        listedBySequence = true
        removedListings = 0
    }
}
