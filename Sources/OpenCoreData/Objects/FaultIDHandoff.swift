import Foundation

/// Hands a new fault's permanent ID to `init(entity:insertInto:)`.
///
/// ``NSManagedObject/makeFault(of:id:context:)`` makes every fetched or looked-up object
/// through the required initializer (a subclass may override it), which gave each one a
/// temporary ID that the fault's permanent ID replaced at once: an allocation, an atomic
/// increment and a release per object, about 3 % of fetching 100,000 objects. While
/// ``initializing(_:as:_:)`` runs, the initializer of exactly that class and the ID's
/// entity takes the permanent ID instead (once); any other object made meanwhile gets a
/// temporary ID as before. Per thread, as objects are made on their context's queue.
enum FaultIDHandoff {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    private struct Pending {
        let id: Unmanaged<NSManagedObjectID>
        let type: ObjectIdentifier
        var taken = false
    }

    /// Runs `body`, which makes an object of `type`, offering it `id`.
    static func initializing<T>(_ id: NSManagedObjectID, as type: NSManagedObject.Type, _ body: () -> T) -> T {
        var pending = Pending(id: .passUnretained(id), type: ObjectIdentifier(type))
        return withExtendedLifetime(id) {
            withUnsafeMutablePointer(to: &pending) { pointer in
                let previous = pthread_getspecific(key)
                pthread_setspecific(key, pointer)
                defer { pthread_setspecific(key, previous) }
                return body()
            }
        }
    }

    /// The ID offered to an object of `type` and `entity` being initialized, if one is.
    static func take(for type: NSManagedObject.Type, entity: NSEntityDescription) -> NSManagedObjectID? {
        guard let raw = pthread_getspecific(key) else { return nil }
        let pending = raw.assumingMemoryBound(to: Pending.self)
        guard !pending.pointee.taken, pending.pointee.type == ObjectIdentifier(type) else { return nil }
        let id = pending.pointee.id.takeUnretainedValue()
        guard id.entity === entity else { return nil }
        pending.pointee.taken = true
        return id
    }
}
