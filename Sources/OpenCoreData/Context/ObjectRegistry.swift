import Foundation
@_implementationOnly import CSwiftRuntime

/// The objects with a permanent ID that one context has registered, held without owning
/// them, as Core Data holds them: an unchanged object the program no longer references is
/// freed at once, and its deinit takes it out of the registry.
///
/// Why not weak references: a Swift weak reference gives its object a side table, and
/// from then on every retain and release of the object takes the runtime's slow path
/// (a quarter of the CPU time of deleting 100,000 objects). Here each entry is an
/// unretained pointer; the object removes its own entry while it is being freed, and a
/// lookup keeps an object only if the runtime can still take a strong reference to it
/// (``tryRetain(_:)``), which fails once the object has begun to be freed. A lock guards the
/// entries because the last reference to an object may be dropped on any thread.
final class ObjectRegistry {
    private let lock = NSLock()
    /// The entries of each store the context has registered objects of, by row: a table
    /// per store rather than one keyed by store and row, because a context has one store or
    /// a few (found with a comparison or two, before the row's one search), and so each
    /// entry stays three words and the rows of one store's entity lie together in one table
    /// (see StoreKeyTable.swift). Only stores with entries keep a table, and the one being
    /// filled: a store's empty table goes when another store's is made.
    /// Not checked for overlapping access at run time: every access holds `lock` and calls
    /// out to nothing, and the checks were three per object looked up, registered and freed.
    @exclusivity(unchecked) private var tables: [(store: ObjectIdentifier, entries: StoreKeyTable<Unmanaged<NSManagedObject>>)] = []

    /// The position of `store`'s table in `tables`, if it has one. Called with the lock held.
    @inline(__always)
    private func tablePosition(of store: ObjectIdentifier) -> Int? {
        var position = 0
        while position < tables.count {
            if tables[position].store == store { return position }
            position += 1
        }
        return nil
    }

    /// The position of `store`'s table in `tables`, made if it has none. Called with the
    /// lock held.
    private func tablePosition(making store: ObjectIdentifier) -> Int {
        if let position = tablePosition(of: store) { return position }
        tables.removeAll { $0.entries.isEmpty }
        tables.append((store, StoreKeyTable()))
        return tables.count - 1
    }

    /// The live object registered for `key`.
    func object(for key: PermanentKey) -> NSManagedObject? {
        lock.lock()
        defer { lock.unlock() }
        guard let position = tablePosition(of: key.store), let entry = tables[position].entries[key.key], Self.tryRetain(entry) else { return nil }
        return entry.takeRetainedValue()
    }

    /// Registers `object` for `key`, replacing any other object there; an entry the object
    /// had under another key (here or in another registry) goes. `notifiesStore`: whether
    /// the object's store is told when the object is freed (an incremental store is).
    func insert(_ object: NSManagedObject, for key: PermanentKey, notifiesStore: Bool) {
        if let previous = object.registration, previous.registry !== self || previous.key != key {
            previous.registry.remove(object)
        }
        Self.setRegistration(of: object, to: Registration(registry: self, key: key, notifiesStore: notifiesStore))
        lock.lock()
        defer { lock.unlock() }
        tables[tablePosition(making: key.store)].entries.setValue(Unmanaged.passUnretained(object), for: key.key)
    }

    /// Registers each object for its key, as ``insert(_:for:notifiesStore:)`` does one, in
    /// one hold of the lock: a save's new objects of a store that is not told when they go
    /// (an incremental store registers them one by one). The keys are distinct.
    func insert(_ batch: [(object: NSManagedObject, key: PermanentKey)]) {
        // Walked in place: the batch holds its objects, so none is retained per entry.
        batch.withUnsafeBufferPointer { entries in
            for index in entries.indices {
                let key = entries[index].key
                Unmanaged.passUnretained(entries[index].object)._withUnsafeGuaranteedRef { object in
                    if let previous = object.registration, previous.registry !== self || previous.key != key {
                        previous.registry.remove(object)
                    }
                    Self.setRegistration(of: object, to: Registration(registry: self, key: key, notifiesStore: false))
                }
            }
            lock.lock()
            defer { lock.unlock() }
            var position = -1
            for index in entries.indices {
                let key = entries[index].key
                if position < 0 || tables[position].store != key.store { position = tablePosition(making: key.store) }
                tables[position].entries.setValue(Unmanaged.passUnretained(entries[index].object), for: key.key)
            }
        }
    }

    /// Sets `object`'s registration. When it has none (an object registered for the first
    /// time: every fault a fetch makes), the new one is stored without an assignment, which
    /// released the `nil` it replaced: a call per object registered. A `nil` registration
    /// holds no reference, so nothing is lost by not destroying it.
    @inline(__always)
    private static func setRegistration(of object: NSManagedObject, to registration: consuming Registration) {
        if object.registration == nil {
            withUnsafeMutablePointer(to: &object.registration) { $0.initialize(to: registration) }
        } else {
            object.registration = registration
        }
    }

    /// Takes `object` out of the registry.
    func remove(_ object: NSManagedObject) {
        guard let registration = object.registration, registration.registry === self else { return }
        object.registration = nil
        removeEntry(registration.key, ifItIs: Unmanaged.passUnretained(object))
    }

    /// Takes `objects` out of the registry in one hold of the lock (a save's deletions);
    /// objects registered elsewhere, or nowhere, are left alone. `visit` is called with each
    /// object first, and with its registration (here, elsewhere or nil) as it was: the
    /// caller's own step for each object rides on this pass, for objects cold in memory
    /// (a save's 100,000 deletions cost a cache miss or more per object and pass).
    ///
    /// Each run of objects is read first (see ``Swift/Array/forEachBorrowedReadingAhead(runLength:read:act:afterRun:)``):
    /// the registration is read where it lies, not copied out (a retain and a release).
    func remove(_ objects: [NSManagedObject], visiting visit: (NSManagedObject, _ registered: Bool, _ notifiesStore: Bool) -> Void) {
        var leaving: [(key: PermanentKey, object: Unmanaged<NSManagedObject>)] = []
        leaving.reserveCapacity(objects.count)
        objects.forEachBorrowedReadingAhead(read: { object -> (key: PermanentKey, here: Bool, notifiesStore: Bool)? in
            guard object.registration != nil else { return nil }
            let here = Unmanaged.passUnretained(object.registration.unsafelyUnwrapped.registry).toOpaque() == Unmanaged.passUnretained(self).toOpaque()
            return (object.registration.unsafelyUnwrapped.key, here, object.registration.unsafelyUnwrapped.notifiesStore)
        }, act: { object, registration in
            visit(object, registration != nil, registration?.notifiesStore ?? false)
            guard let registration, registration.here else { return }
            object.registration = nil
            leaving.append((registration.key, Unmanaged.passUnretained(object)))
        })
        lock.lock()
        defer { lock.unlock() }
        var position: Int?
        for (key, object) in leaving {
            if position.map({ tables[$0].store != key.store }) ?? true { position = tablePosition(of: key.store) }
            guard let position else { continue }
            tables[position].entries.removeValue(for: key.key, if: { $0.toOpaque() == object.toOpaque() })
        }
    }

    /// Removes the entry for `key` if it is still `object`'s; a newer object for the same
    /// row may have replaced it. Called from the object's deinit, so it must not retain it.
    func removeEntry(_ key: PermanentKey, ifItIs object: Unmanaged<NSManagedObject>) {
        lock.lock()
        defer { lock.unlock() }
        guard let position = tablePosition(of: key.store) else { return }
        // One search: the entry found is the entry removed.
        tables[position].entries.removeValue(for: key.key, if: { $0.toOpaque() == object.toOpaque() })
    }

    /// Every live registered object.
    var objects: [NSManagedObject] {
        lock.lock()
        defer { lock.unlock() }
        return liveObjects()
    }

    /// The registered objects not yet being freed, each retained. Called with the lock held.
    private func liveObjects() -> [NSManagedObject] {
        var live: [NSManagedObject] = []
        for (_, entries) in tables {
            live.reserveCapacity(live.count + entries.count)
            entries.forEach { _, entry in if Self.tryRetain(entry) { live.append(entry.takeRetainedValue()) } }
        }
        return live
    }

    /// Empties the registry; the objects it held no longer refer to it.
    func removeAll() {
        // Taken and emptied in one hold of the lock, so that no entry can outlive its
        // object in between; the live objects are held until their registration is cleared.
        lock.lock()
        let live = liveObjects()
        tables.removeAll()
        lock.unlock()
        for object in live where object.registration?.registry === self { object.registration = nil }
    }

    /// Makes room for `count` entries of `store` in all, before a fetch registers many objects.
    func reserveCapacity(_ count: Int, in store: NSPersistentStore) {
        lock.lock()
        defer { lock.unlock() }
        // Not the sum: many of a fetch's rows may already be registered.
        tables[tablePosition(making: ObjectIdentifier(store))].entries.reserveCapacity(count)
    }

    /// Makes room for `count` more entries of `store`, before registering the members of a
    /// to-many relationship or a save's new objects: grown once, not doubled (and placed
    /// again) again and again as they come.
    func reserveCapacity(additional count: Int, in store: NSPersistentStore) {
        lock.lock()
        defer { lock.unlock() }
        let position = tablePosition(making: ObjectIdentifier(store))
        tables[position].entries.reserveCapacity(tables[position].entries.count + count)
    }

    /// Takes a strong reference to `object` unless it is already being freed, in which case
    /// nothing changes and the answer is false (the runtime's `swift_tryRetain`, declared
    /// in the CSwiftRuntime target).
    private static func tryRetain(_ object: Unmanaged<NSManagedObject>) -> Bool {
        swift_tryRetain(object.toOpaque()) != nil
    }
}

/// Where an object is registered: what its deinit needs to leave the registry.
struct Registration {
    let registry: ObjectRegistry
    let key: PermanentKey
    /// Whether the store is told when the object goes (``NSPersistentStore/contextDidUnregister(_:)``):
    /// known when the object is registered, so that freeing an object of any other store
    /// does not load the store's handle only to find it has nothing to hear.
    let notifiesStore: Bool
}
