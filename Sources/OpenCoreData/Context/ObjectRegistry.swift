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
    /// Not checked for overlapping access at run time: every access holds `lock` and calls
    /// out to nothing, and the checks were three per object looked up, registered and freed.
    @exclusivity(unchecked) private var entries: [PermanentKey: Unmanaged<NSManagedObject>] = [:]

    /// The live object registered for `key`.
    func object(for key: PermanentKey) -> NSManagedObject? {
        lock.lock()
        defer { lock.unlock() }
        guard let entry = entries[key], Self.tryRetain(entry) else { return nil }
        return entry.takeRetainedValue()
    }

    /// Registers `object` for `key`, replacing any other object there; an entry the object
    /// had under another key (here or in another registry) goes. `notifiesStore`: whether
    /// the object's store is told when the object is freed (an incremental store is).
    func insert(_ object: NSManagedObject, for key: PermanentKey, notifiesStore: Bool) {
        if let previous = object.registration, previous.registry !== self || previous.key != key {
            previous.registry.remove(object)
        }
        object.registration = Registration(registry: self, key: key, notifiesStore: notifiesStore)
        lock.lock()
        defer { lock.unlock() }
        entries[key] = Unmanaged.passUnretained(object)
    }

    /// Registers each object for its key, as ``insert(_:for:notifiesStore:)`` does one, in
    /// one hold of the lock: a save's new objects of a store that is not told when they go
    /// (an incremental store registers them one by one). The keys are distinct.
    func insert(_ batch: [(object: NSManagedObject, key: PermanentKey)]) {
        for (object, key) in batch {
            if let previous = object.registration, previous.registry !== self || previous.key != key {
                previous.registry.remove(object)
            }
            object.registration = Registration(registry: self, key: key, notifiesStore: false)
        }
        lock.lock()
        defer { lock.unlock() }
        for (object, key) in batch { entries[key] = Unmanaged.passUnretained(object) }
    }

    /// Takes `object` out of the registry.
    func remove(_ object: NSManagedObject) {
        guard let registration = object.registration, registration.registry === self else { return }
        object.registration = nil
        removeEntry(registration.key, ifItIs: Unmanaged.passUnretained(object))
    }

    /// Takes `objects` out of the registry in one hold of the lock (a save's deletions);
    /// objects registered elsewhere, or nowhere, are left alone.
    func remove(_ objects: [NSManagedObject]) {
        var leaving: [(key: PermanentKey, object: Unmanaged<NSManagedObject>)] = []
        leaving.reserveCapacity(objects.count)
        for object in objects {
            guard let registration = object.registration, registration.registry === self else { continue }
            object.registration = nil
            leaving.append((registration.key, Unmanaged.passUnretained(object)))
        }
        lock.lock()
        defer { lock.unlock() }
        for (key, object) in leaving where entries[key]?.toOpaque() == object.toOpaque() { entries[key] = nil }
    }

    /// Removes the entry for `key` if it is still `object`'s; a newer object for the same
    /// row may have replaced it. Called from the object's deinit, so it must not retain it.
    func removeEntry(_ key: PermanentKey, ifItIs object: Unmanaged<NSManagedObject>) {
        lock.lock()
        defer { lock.unlock() }
        // One hash: the entry found is the entry removed.
        if let index = entries.index(forKey: key), entries.values[index].toOpaque() == object.toOpaque() { entries.remove(at: index) }
    }

    /// Every live registered object.
    var objects: [NSManagedObject] {
        lock.lock()
        defer { lock.unlock() }
        return entries.values.compactMap { Self.tryRetain($0) ? $0.takeRetainedValue() : nil }
    }

    /// Empties the registry; the objects it held no longer refer to it.
    func removeAll() {
        // Taken and emptied in one hold of the lock, so that no entry can outlive its
        // object in between; the live objects are held until their registration is cleared.
        lock.lock()
        let live = entries.values.compactMap { Self.tryRetain($0) ? $0.takeRetainedValue() : nil }
        entries.removeAll()
        lock.unlock()
        for object in live where object.registration?.registry === self { object.registration = nil }
    }

    /// Makes room for `count` entries in all, before a fetch or save registers many objects.
    func reserveCapacity(_ count: Int) {
        lock.lock()
        defer { lock.unlock() }
        // Not the sum: many of a fetch's rows may already be registered.
        entries.reserveCapacity(Swift.max(entries.count, count))
    }

    /// Makes room for `count` more entries, before registering the members of a to-many
    /// relationship: grown once, not doubled (and rehashed) again and again as they come.
    func reserveCapacity(additional count: Int) {
        lock.lock()
        defer { lock.unlock() }
        entries.reserveCapacity(entries.count + count)
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
