/// Objects in the order they were added, with constant-time membership and removal.
///
/// The table of positions is brought up to date only when membership is asked (``contains(_:)``,
/// ``remove(_:)`` of any object but the first, ``append(_:)``): an object added with
/// ``appendNew(_:)`` costs no hash until then. A context's inserts add each new object to
/// two lists (the context's inserted objects and the event's), and a save of them never
/// asks either list about one object, so inserting and saving 100,000 objects hashes none
/// of them here.
struct ObjectList {
    /// Slots in insertion order; removed objects leave `nil` until the next compaction.
    private var slots: [NSManagedObject?] = []
    /// The position of each object in `slots[..<indexed]`, by address (see AddressTable.swift),
    /// plus `base`.
    private var positions = AddressTable()
    /// Slots from this one on were added by ``appendNew(_:)`` and are not in `positions` yet.
    private var indexed = 0
    /// Slots before this one are empty (taken by ``popFirst()`` or removed from the front).
    private var head = 0
    /// What `positions` holds beyond a slot's index: a compaction that only drops empty
    /// slots from the front leaves the other objects' positions as they are (see `compact()`).
    private var base = 0
    /// The number of objects in the list.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }
    /// The objects, in the order they were added.
    var objects: [NSManagedObject] { slots.compactMap { $0 } }

    /// Calls `body` with each object, in the order they were added, without building the
    /// array ``objects`` builds (a retain, a release and a slot per object).
    func forEach(_ body: (NSManagedObject) throws -> Void) rethrows {
        for case let object? in slots { try body(object) }
    }

    /// ``forEach(_:)`` without a retain and a release of each object around `body`: for a
    /// copy of a list that nothing changes while `body` runs (the copy's slots keep the
    /// objects alive, whatever `body` does to the list it was copied from).
    func forEachBorrowed(_ body: (NSManagedObject) throws -> Void) rethrows {
        try slots.forEachBorrowed(body)
    }

    /// Whether the list holds exactly `array`'s objects, in its order (compared by
    /// identity: the objects themselves are not read).
    func hasSameObjects(as array: [NSManagedObject]) -> Bool {
        guard count == array.count else { return false }
        var position = 0
        var same = true
        slots.withUnsafeBufferPointer { buffer in
            for slot in buffer[head...] {
                guard let object = slot else { continue }
                if object !== array[position] { same = false; return }
                position += 1
            }
        }
        return same
    }

    mutating func contains(_ object: NSManagedObject) -> Bool {
        indexNewSlots()
        return positions.value(for: ObjectIdentifier(object)) != nil
    }

    /// Removes and returns the object added first, if any.
    mutating func popFirst() -> NSManagedObject? {
        while head < slots.count {
            let position = head
            let slot = slots[position]
            slots[position] = nil
            head += 1
            if let object = slot {
                if position < indexed { positions.removeValue(for: ObjectIdentifier(object)) }
                count -= 1
                if count == 0 { slots.removeAll(keepingCapacity: true); head = 0; indexed = 0; base = 0 }
                return object
            }
        }
        return nil
    }

    /// Adds `object` at the end unless it is in the list already.
    mutating func append(_ object: NSManagedObject) {
        indexNewSlots()
        // One look-up for a new object (the usual case: every object a save or a change
        // event lists is appended once), instead of a test and then an insertion.
        guard positions.insertIfAbsent(slots.count + base, for: ObjectIdentifier(object)) == nil else { return }
        slots.append(object)
        indexed = slots.count
        count += 1
    }

    /// Adds `object`, which the caller knows is not in the list (a context inserting an
    /// object that was in no context), at the end; its position is hashed when membership
    /// is next asked.
    mutating func appendNew(_ object: NSManagedObject) {
        slots.append(object)
        count += 1
    }

    @discardableResult
    mutating func remove(_ object: NSManagedObject) -> Bool {
        // The first object, taken as ``popFirst()`` takes it: a list emptied in the order it
        // was filled (the delete rules' queue, whose objects ``appendNew(_:)`` added) then
        // hashes none of them.
        if head < slots.count, slots[head] === object {
            _ = popFirst()
            guard count > 0 else { return true }
            while slots[head] == nil { head += 1 }  // stops at an object: the list is not empty
            if slots.count > 32, count < slots.count / 2 { compact() }
            return true
        }
        indexNewSlots()
        guard let position = positions.removeValue(for: ObjectIdentifier(object)) else { return false }
        let index = position - base
        slots[index] = nil
        count -= 1
        if count == 0 {
            slots.removeAll(keepingCapacity: true)
            head = 0
            indexed = 0
            base = 0
            return true
        }
        if index == head {
            while slots[head] == nil { head += 1 }  // stops at an object: the list is not empty
        }
        if slots.count > 32, count < slots.count / 2 { compact() }
        return true
    }

    /// Puts the objects added by ``appendNew(_:)`` in the table of positions. An object
    /// found there already (added twice, against ``appendNew(_:)``'s promise) keeps its
    /// first place, as ``append(_:)`` would have kept it.
    private mutating func indexNewSlots() {
        guard indexed < slots.count else { return }
        for position in indexed..<slots.count {
            guard let object = slots[position] else { continue }
            if positions.insertIfAbsent(position + base, for: ObjectIdentifier(object)) != nil {
                slots[position] = nil
                count -= 1
            }
        }
        indexed = slots.count
    }

    /// Drops the empty slots.
    private mutating func compact() {
        if count == slots.count - head {
            // Only slots at the front are empty: a list emptied in the order it was filled
            // (the delete rules' queue, the objects a cascade updates and then deletes).
            // Dropping them moves the others without touching their positions, and the
            // slots not indexed yet stay so.
            slots.removeFirst(head)
            base += head
            indexed = Swift.max(0, indexed - head)
        } else {
            indexNewSlots()
            slots = slots.filter { $0 != nil }
            base = 0
            for (index, object) in slots.enumerated() { positions.setValue(index, for: ObjectIdentifier(object!)) }
            indexed = slots.count
        }
        head = 0
    }
}
