import Foundation

/// Identifies a stored row: the Z_ENT number of its concrete entity and its Z_PK.
struct StoreKey: Hashable, Sendable, CustomStringConvertible {
    var entityNumber: Int
    var primaryKey: Int64

    var description: String { "\(entityNumber)/p\(primaryKey)" }

    /// One word hashed instead of two (every look-up hashes a key two or three times):
    /// the entity number in the top 16 bits, which no two keys of one entity differ in.
    func hash(into hasher: inout Hasher) {
        hasher.combine(UInt64(truncatingIfNeeded: entityNumber) &<< 48 ^ UInt64(bitPattern: primaryKey))
    }
}

/// One object's persistent state as the store holds it.
///
/// A class, shared rather than copied: the row cache, the snapshots of objects and the
/// faults waiting to fire hold the same row, and the cache drops a row once it is the only
/// holder (``RowCache/sweep()``). Rows are not changed once they are cached.
final class StoreRow {
    var key: StoreKey
    /// The concrete entity of `key.entityNumber`.
    var entity: NSEntityDescription
    /// Z_OPT: the optimistic-locking version, 1 for a newly inserted row.
    var version: Int64
    /// Each non-transient attribute whose value is not NULL, in the slot of its property
    /// in `entity`'s property table, as the Swift type of its attribute type: Int16,
    /// Int32, Int64, Decimal, Double, Float, String, Bool, Date, Data, UUID, URL, and for
    /// Transformable whatever `TransformableStorage.value(from:attribute:)` returns. NULL
    /// is nil. The slots of relationships and transient attributes are always nil.
    /// Not checked for overlapping access at run time: read once per fault fired, and
    /// written only by the code that makes or updates the row.
    @exclusivity(unchecked) var attributes: PropertyValues
    /// Each to-one relationship (including the to-one side of one-to-many) whose foreign
    /// key is not NULL. Not checked for overlapping access at run time, as `attributes`:
    /// the delete rules read it once per object they reach.
    @exclusivity(unchecked) var toOne: ToOneKeys
    /// When the row was read from (or written to) the store, in seconds of system uptime:
    /// what a context's `stalenessInterval` is measured against.
    let timestamp: TimeInterval
    /// The ``RowCache/identity`` of the row cache whose current row for `key` this is, or
    /// 0: set and cleared by that cache under its lock, so that a fault holding this row
    /// can fire from it without looking its key up (``RowCache/currentRow(holding:for:)``).
    /// A number rather than a weak reference: each weak store and load is an atomic
    /// operation on the cache's side table, 6 % of a fetch of 100,000 rows; identities are
    /// never reused, so a row outliving its cache can never seem current in another.
    var currentIn: UInt64 = 0

    /// A row read or written now, or at `timestamp` (a fetch reads the clock once for all
    /// its rows).
    init(key: StoreKey, entity: NSEntityDescription, version: Int64, attributes: PropertyValues, toOne: ToOneKeys,
         timestamp: TimeInterval = ProcessInfo.processInfo.systemUptime) {
        self.timestamp = timestamp
        self.key = key
        self.entity = entity
        self.version = version
        self.attributes = attributes
        self.toOne = toOne
    }

    /// A row with its attribute values by name, for batch inserts and tests.
    convenience init(key: StoreKey, entity: NSEntityDescription, version: Int64, attributes: [String: Any], toOne: ToOneKeys) {
        self.init(key: key, entity: entity, version: version, attributes: PropertyValues(table: entity.propertyTable, named: attributes), toOne: toOne)
    }
}
