import Foundation

/// The contexts whose queues the current thread is running blocks for, innermost last.
///
/// `DispatchQueue.getSpecific` only sees the innermost queue: a child context's
/// `performAndWait` inside its private parent's block runs on the child's queue, yet the
/// thread still owns the parent's queue, and a `sync` onto it would deadlock (libdispatch
/// stops the program). Each block a context runs records the context here, so that
/// `performAndWait` recognises every queue the thread already owns and runs at once.
/// One per thread (a pthread key), touched only by its own thread.
final class QueueOwnership {
    private var contexts: [ObjectIdentifier] = []

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            if let pointer = pointer as UnsafeMutableRawPointer? { Unmanaged<QueueOwnership>.fromOpaque(pointer).release() }
        }
        return key
    }()

    /// The current thread's record.
    static var current: QueueOwnership {
        if let pointer = pthread_getspecific(key) { return Unmanaged<QueueOwnership>.fromOpaque(pointer).takeUnretainedValue() }
        let ownership = QueueOwnership()
        pthread_setspecific(key, Unmanaged.passRetained(ownership).toOpaque())
        return ownership
    }

    /// Whether the thread is running a block of `context` (possibly with other contexts'
    /// blocks nested inside it).
    func owns(_ context: NSManagedObjectContext) -> Bool {
        contexts.contains(ObjectIdentifier(context))
    }

    /// Runs `body` recorded as a block of `context`.
    func running<T>(_ context: NSManagedObjectContext, _ body: () throws -> T) rethrows -> T {
        contexts.append(ObjectIdentifier(context))
        defer { contexts.removeLast() }
        return try body()
    }
}
