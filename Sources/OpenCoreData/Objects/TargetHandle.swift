@_implementationOnly import CSwiftRuntime

/// A reference that does not keep its target alive and reads `nil` once the target is gone,
/// as a `weak` one does, without giving the target a side table.
///
/// Why: a Swift weak reference gives its target a side table, and from then on every retain
/// and release of the target takes the runtime's slow path. The context, the store and the
/// coordinator are retained and released for every object a save or fetch handles (a
/// quarter of the CPU time of updating 100,000 objects went to reference counting).
///
/// The target makes one handle, keeps it, and calls ``clear()`` in its deinit; whoever would
/// have held the target weakly holds the handle strongly instead. Reading takes a strong
/// reference only while the runtime can still take one (``swift_tryRetain``), which fails
/// once the target has begun to be freed.
final class TargetHandle<Target: AnyObject> {
    /// The unretained target, nil once cleared; one allocated slot so that it can be read
    /// and written atomically.
    private let slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>

    /// A handle on `target`, which must call ``clear()`` on it in its deinit.
    init(_ target: Target) {
        slot = .allocate(capacity: 1)
        slot.initialize(to: Unmanaged.passUnretained(target).toOpaque())
    }

    /// A handle on nothing yet, for a target that makes its handle before its own
    /// initialization is done; it calls ``attach(_:)`` once it is.
    init() {
        slot = .allocate(capacity: 1)
        slot.initialize(to: nil)
    }

    /// Points the handle at `target`, which must call ``clear()`` on it in its deinit.
    func attach(_ target: Target) {
        ocd_storePointer(slot, Unmanaged.passUnretained(target).toOpaque())
    }

    deinit { slot.deallocate() }

    /// The target, or nil once it is gone.
    var target: Target? {
        guard let pointer = ocd_loadPointer(slot), swift_tryRetain(pointer) != nil else { return nil }
        return Unmanaged<Target>.fromOpaque(pointer).takeRetainedValue()
    }

    /// Called by the target's deinit: from then on the handle reads nil.
    func clear() { ocd_storePointer(slot, nil) }
}
