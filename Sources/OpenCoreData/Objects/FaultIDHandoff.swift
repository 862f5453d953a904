import Foundation

/// Hands a new fault's permanent ID and its context's handle to `init(entity:insertInto:)`.
///
/// ``NSManagedObject/makeFault(of:id:context:)`` makes every fetched or looked-up object
/// through the required initializer (a subclass may override it), which gave each one a
/// temporary ID that the fault's permanent ID replaced at once: an allocation, an atomic
/// increment and a release per object, about 3 % of fetching 100,000 objects. While
/// ``initializing(_:context:as:_:)`` runs, the initializer of exactly that class and the
/// ID's entity takes the permanent ID instead (once); any other object made meanwhile gets
/// a temporary ID as before. Per thread, as objects are made on their context's queue.
///
/// The context's handle comes along so that the fault is made in its context rather than
/// moved there after (setting it again released the `nil` handle first, a call per fault).
enum FaultIDHandoff {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    private struct Pending {
        let id: Unmanaged<NSManagedObjectID>
        let contextHandle: Unmanaged<TargetHandle<NSManagedObjectContext>>
        let type: ObjectIdentifier
        var taken = false
    }

    /// Runs `body`, which makes an object of `type`, offering it `id` and `context`'s handle.
    static func initializing<T>(_ id: NSManagedObjectID, context: NSManagedObjectContext, as type: NSManagedObject.Type, _ body: () -> T) -> T {
        var pending = Pending(id: .passUnretained(id), contextHandle: .passUnretained(context.handle), type: ObjectIdentifier(type))
        // (Each kept alive on its own: a tuple of the two was a copy of each.)
        return withExtendedLifetime(id) {
            withExtendedLifetime(context) {
                withUnsafeMutablePointer(to: &pending) { pointer in
                    let previous = pthread_getspecific(key)
                    pthread_setspecific(key, pointer)
                    defer { pthread_setspecific(key, previous) }
                    return body()
                }
            }
        }
    }

    /// The ID and context handle offered to an object of `type` and `entity` being
    /// initialized, if they are. Unretained: `initializing` holds both while the object is
    /// made, and the initializer takes its own reference to each as it stores it.
    static func take(for type: NSManagedObject.Type, entity: NSEntityDescription) -> (id: Unmanaged<NSManagedObjectID>, contextHandle: Unmanaged<TargetHandle<NSManagedObjectContext>>)? {
        guard let raw = pthread_getspecific(key) else { return nil }
        let pending = raw.assumingMemoryBound(to: Pending.self)
        guard !pending.pointee.taken, pending.pointee.type == ObjectIdentifier(type),
            pending.pointee.id._withUnsafeGuaranteedRef({ $0.entity === entity })
        else { return nil }
        pending.pointee.taken = true
        return (pending.pointee.id, pending.pointee.contextHandle)
    }
}
