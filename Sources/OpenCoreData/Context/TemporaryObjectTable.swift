/// A context's objects with a temporary ID, by that ID (its address).
///
/// Inserting a new object adds it here, and a save of it takes it out again; between
/// the two nothing may ever look it up. So an object that ``addNew(_:for:)`` adds while
/// no entry is hashed is only listed, in order, without hashing; the listed entries are
/// hashed into the table, in the order they were added, as soon as the table is read or
/// changed in any other way. A save that gives every listed object, and only those, a
/// permanent ID (``removeAll(ifListing:)``) empties the table without hashing any of them.
/// Inserting and saving 100,000 objects made 100,000 dictionary insertions here before.
struct TemporaryObjectTable {
    private var table: [ObjectIdentifier: NSManagedObject] = [:]
    /// Entries not hashed yet, in the order they were added; only while `table` is empty.
    private var listed: [(key: ObjectIdentifier, object: NSManagedObject)] = []

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
            listed.append((ObjectIdentifier(id), object))
        } else {
            table[ObjectIdentifier(id)] = object
        }
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
    }

    /// Whether `object` is the listed object at `position` (and no entry is hashed).
    func lists(_ object: NSManagedObject, at position: Int) -> Bool {
        table.isEmpty && position < listed.count && listed[position].object === object
    }

    /// Empties the table when it holds exactly the entries that removing each of `count`
    /// registered objects under its ID would remove: when nothing is hashed and they are
    /// the listed objects, in the order listed (`listedInOrder`, each position checked
    /// with ``lists(_:at:)``; an object's ID changes only through the subscript, which
    /// hashes the listed entries first), or when the hashed table has `count` entries (its
    /// keys are distinct). Returns whether it did.
    mutating func removeAll(ifExactly count: Int, listedInOrder: Bool) -> Bool {
        guard count > 0 else { return false }
        if listedInOrder, table.isEmpty, listed.count == count {
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
        table.reserveCapacity(table.count + listed.count)
        for (key, object) in listed { table[key] = object }
        listed.removeAll()
    }
}
