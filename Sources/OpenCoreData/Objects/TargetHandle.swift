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
/// once the target has begun to be freed; a small lock, held by the reader around that and
/// by ``clear()``, keeps the target's memory from being freed in between (a weak
/// reference's side table does that job for `weak`).
///
/// Not final only so that ``StoreHandle`` can carry a store's UUID; its members are.
class TargetHandle<Target: AnyObject> {
    /// The unretained target, nil once cleared; read and written under `lock`.
    private let slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    private let lock: UnsafeMutablePointer<Int32>

    /// A handle on `target`, which must call ``clear()`` on it in its deinit.
    init(_ target: Target) {
        slot = .allocate(capacity: 1)
        slot.initialize(to: Unmanaged.passUnretained(target).toOpaque())
        lock = .allocate(capacity: 1)
        lock.initialize(to: 0)
    }

    /// A handle on nothing yet, for a target that makes its handle before its own
    /// initialization is done; it calls ``attach(_:)`` once it is.
    init() {
        slot = .allocate(capacity: 1)
        slot.initialize(to: nil)
        lock = .allocate(capacity: 1)
        lock.initialize(to: 0)
    }

    /// Points the handle at `target`, which must call ``clear()`` on it in its deinit.
    final func attach(_ target: Target) {
        ocd_lock(lock)
        slot.pointee = Unmanaged.passUnretained(target).toOpaque()
        ocd_unlock(lock)
    }

    deinit {
        slot.deallocate()
        lock.deallocate()
    }

    /// The target, or nil once it is gone.
    final var target: Target? {
        ocd_lock(lock)
        guard let pointer = slot.pointee, swift_tryRetain(pointer) != nil else {
            ocd_unlock(lock)
            return nil
        }
        ocd_unlock(lock)
        return Unmanaged<Target>.fromOpaque(pointer).takeRetainedValue()
    }

    /// Called by the target's deinit: from then on the handle reads nil.
    final func clear() {
        ocd_lock(lock)
        slot.pointee = nil
        ocd_unlock(lock)
    }
}

/// A store's handle, which also carries the store's UUID: what a permanent object ID names
/// its store by, held in one reference (an ID holding its own copy of the UUID string cost
/// a retain as it was made and a release as it was freed, per object fetched).
final class StoreHandle: TargetHandle<NSPersistentStore> {
    /// The store's UUID. Set again only for an incremental store, before the store is
    /// published (see ``NSPersistentStore/storeIdentifier``).
    var identifier: String

    init(identifier: String) {
        self.identifier = identifier
        super.init()
    }
}
