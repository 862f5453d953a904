import Foundation

/// The permanent ID a fault is being made with, handed to `init(entity:insertInto:)`.
///
/// A fault is made through the class's required initializer (a subclass's override runs,
/// as for any object of the class), which gives a new object a temporary ID; a fault
/// would throw that ID away at once for its permanent one. Making a temporary ID costs an
/// allocation and a lock, a visible share of a look-up by ID, so `makeFault` leaves the
/// permanent ID here, for the initializer on the same thread to take instead.
/// Thread-local (a pthread key): contexts on other queues make faults at the same time.
enum FaultIdentity {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Runs `body` (which makes one object) with `id` waiting for its initializer.
    static func with<T>(_ id: NSManagedObjectID, _ body: () -> T) -> T {
        pthread_setspecific(key, Unmanaged.passUnretained(id).toOpaque())
        defer { pthread_setspecific(key, nil) }
        return withExtendedLifetime(id) { body() }
    }

    /// The ID waiting for the initializer running now, taken (so that objects the
    /// initializer makes in turn get temporary IDs of their own).
    static func take() -> NSManagedObjectID? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        pthread_setspecific(key, nil)
        return Unmanaged<NSManagedObjectID>.fromOpaque(pointer).takeUnretainedValue()
    }
}
