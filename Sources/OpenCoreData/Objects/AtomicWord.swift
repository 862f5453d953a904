@_implementationOnly import CSwiftRuntime

/// One machine word that any thread may read and write without a lock: a value read on a
/// hot path (at every statement, every object made) and written rarely, where an `NSLock`
/// around each read cost more than the work it guarded.
///
/// A load sees everything the storing thread wrote before its store (acquire and release,
/// `ocd_load` and `ocd_store` in `CSwiftRuntime`), so a word may publish a value made just
/// before it, and ThreadSanitizer sees the synchronization. The word lives in memory of its
/// own: a Swift stored property has no address that stays valid beyond one access.
/// (Swift's `Synchronization.Atomic` would do, but needs macOS 15; the package supports 14.)
final class AtomicWord {
    private let word: UnsafeMutablePointer<Int>

    /// A word holding `value`.
    init(_ value: Int) {
        word = .allocate(capacity: 1)
        word.initialize(to: value)
    }

    deinit { word.deallocate() }

    /// The value last stored (acquire).
    func load() -> Int { ocd_load(word) }

    /// Replaces the value (release).
    func store(_ value: Int) { ocd_store(word, value) }
}
