import Foundation

/// The operations every subject performs, in this order, on its own database file.
/// Each phase gets a fresh connection (or container) so no phase profits from another's
/// in-memory caches.
enum Phase: String, CaseIterable {
    case insert = "insert 100,000 objects (8 attributes) and save"
    case fetchAll = "fetch all, read two attributes of each"
    case fetchByID = "fetch 10,000 by object ID"
    case updateAll = "change one attribute on all and save"
    case deleteAll = "delete all and save"
}

/// One library under measurement.
protocol Subject {
    static var name: String { get }
    init(databaseURL: URL) throws
    /// Untimed: prepares what `phase` needs (for example the IDs to fetch).
    mutating func prepare(_ phase: Phase) throws
    /// Timed. Returns a checksum so the work cannot be optimised away and results can be
    /// compared across subjects.
    mutating func run(_ phase: Phase) throws -> Int
}

/// The rows every subject inserts: 8 attributes of the common types.
struct ItemValues {
    static let count = 100_000
    static let lookups = 10_000
    static let epoch = Date(timeIntervalSinceReferenceDate: 700_000_000)

    let index: Int
    var name: String { "Item \(index)" }
    var category: String { ["trail", "hike", "hiker", "waypoint"][index % 4] }
    var price: Double { Double(index % 1000) / 10 }
    var quantity: Int32 { Int32(index % 500) }
    var createdAt: Date { ItemValues.epoch.addingTimeInterval(Double(index)) }
    var isActive: Bool { index % 3 == 0 }
    var notes: String { "Notes for item number \(index), long enough to be realistic." }
    var code: Int64 { Int64(index) * 7919 }

    /// Positions of the rows fetched by ID: spread over the whole table.
    static func lookupPositions() -> [Int] {
        (0..<lookups).map { ($0 * 7_919) % count }
    }
}
