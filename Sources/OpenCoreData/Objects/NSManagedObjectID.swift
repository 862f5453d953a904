import Foundation
@_implementationOnly import CSwiftRuntime

/// A compact, universal identifier for a managed object: the basis of uniquing.
///
/// A new object has a temporary ID (`x-coredata:///Trail/t<UUID>`) until it is saved or
/// ``NSManagedObjectContext/obtainPermanentIDs(for:)`` is called; then it gets a
/// permanent one that names its store and row (`x-coredata://<STORE-UUID>/Trail/p5`).
///
/// ```swift
/// let id = trail.objectID
/// let same = try context.existingObject(with: id)
/// ```
public final class NSManagedObjectID: NSObject {
    /// The entity of the object the ID identifies.
    public let entity: NSEntityDescription
    /// The store that holds the object; `nil` while the ID is temporary, and once the store
    /// is gone.
    public var persistentStore: NSPersistentStore? { storeHandle?.target }
    /// The store's handle, held instead of a weak reference (``TargetHandle``); it carries
    /// the store's UUID too, kept so the URI survives the store being removed.
    private let storeHandle: StoreHandle?
    /// The row the ID names; `nil` while it is temporary.
    let storeKey: StoreKey?
    /// The UUID that tells temporary IDs apart (`t<UUID>` in the URI). Made the first time
    /// the URI is asked for: many temporary IDs (those of faults, about to be replaced)
    /// never are, and making a UUID costs a system call.
    /// A lock, not `lazy`, because a parent and its child contexts share temporary IDs
    /// across queues.
    private var temporaryIdentifier: String? {
        guard storeKey == nil else { return nil }
        Self.temporaryIdentifierLock.lock()
        defer { Self.temporaryIdentifierLock.unlock() }
        if let made = madeTemporaryUUID { return made.uuidString }
        let made = UUID()
        madeTemporaryUUID = made
        return made.uuidString
    }
    /// Kept as the UUID's bytes, not its string: a value with no reference to release as
    /// every ID is freed (a permanent ID's empty string was a release call each).
    private var madeTemporaryUUID: UUID?
    private static let temporaryIdentifierLock = NSLock()
    /// The identity of the store's handle, nil while the ID is temporary: IDs with the same
    /// one name the same store, told apart without reading the store out of the handle
    /// (a lock, a retain and a release each).
    var storeHandleIdentity: ObjectIdentifier? { storeHandle.map(ObjectIdentifier.init) }
    /// The store UUID, read from the handle: an ID holding its own reference to the string
    /// cost a retain as the ID was made and a release as it was freed.
    private var storeIdentifier: String? { storeHandle?.identifier }

    /// The order temporary IDs were made in (0 for a permanent ID). A save gives objects of
    /// one entity their primary keys in this order, so objects that sort alike keep the
    /// order they were inserted in, in the store and in a fetched results controller.
    let creationSequence: UInt64
    /// The last sequence number given, counted up atomically: every fault made takes one
    /// (its temporary ID is replaced at once), so a lock here was two calls per fault.
    private static let creationCounter: UnsafeMutablePointer<UInt64> = {
        let counter = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)
        counter.initialize(to: 0)
        return counter
    }()

    /// A new temporary ID for an object of `entity`.
    init(temporaryFor entity: NSEntityDescription) {
        self.entity = entity
        self.storeKey = nil
        self.storeHandle = nil
        self.creationSequence = ocd_increment(Self.creationCounter)
    }

    /// The permanent ID of row `key` in `store`.
    init(store: NSPersistentStore, key: StoreKey, entity: NSEntityDescription) {
        self.entity = entity
        self.storeKey = key
        self.storeHandle = store.handle
        self.creationSequence = 0
    }

    /// Whether the ID names a row of `store` (a store still there): told by the store's
    /// handle, without taking a reference to the store as reading ``persistentStore``
    /// does (a retain and a release, for every object a save checks).
    func isStored(in store: NSPersistentStore) -> Bool {
        guard let storeHandle else { return false }
        return storeHandle === store.handle
    }

    /// Whether the object has not been given its permanent ID yet.
    public var isTemporaryID: Bool { storeKey == nil }

    /// An archivable URI for the ID: `x-coredata://<STORE-UUID>/<Entity>/p<PK>`, or
    /// `x-coredata:///<Entity>/t<UUID>` for a temporary ID. Hand it back to
    /// ``NSPersistentStoreCoordinator/managedObjectID(forURIRepresentation:)``.
    public func uriRepresentation() -> URL {
        URL(string: uriString)!
    }

    var uriString: String {
        let entityName = entity.name ?? ""
        if let key = storeKey {
            return "x-coredata://\(storeIdentifier ?? "")/\(entityName)/p\(key.primaryKey)"
        }
        return "x-coredata:///\(entityName)/t\(temporaryIdentifier ?? "")"
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSManagedObjectID else { return false }
        if other === self { return true }
        guard let key = storeKey, let otherKey = other.storeKey else { return false }
        return key == otherKey && (storeHandle === other.storeHandle || storeIdentifier == other.storeIdentifier)
    }

    public override var hash: Int {
        guard let key = storeKey else { return Int(bitPattern: UInt(bitPattern: ObjectIdentifier(self))) }
        // The row key alone: equal IDs share it, and IDs of two stores rarely do, so
        // hashing the store's identifier string as well (for every ID put in a set, such
        // as a save notification's) would cost more than the rare collision it avoids.
        // Not hashed here: the set or dictionary the ID goes into hashes this value again
        // with its seeded hasher, so the entity number and primary key are only packed.
        return Int(bitPattern: UInt(truncatingIfNeeded: key.entityNumber) &<< 48 ^ UInt(bitPattern: Int(truncatingIfNeeded: key.primaryKey)))
    }

    /// `0x… <x-coredata://…/Trail/p1>`, as Core Data prints an ID.
    public override var description: String {
        "\(cocoaAddress(of: self)) <\(uriString)>"
    }
}

/// The address of `object` as Cocoa prints one, e.g. `0x600003a8c2a0`.
func cocoaAddress(of object: AnyObject) -> String {
    "0x" + String(UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque()), radix: 16)
}
