// TEMPORARY: compile-only stand-ins for the store branch's SQLiteStoreEngine and the
// predicates branch's NSPredicate/NSSortDescriptor. Deleted when those branches merge.
import Foundation

struct StoreKey: Hashable, Sendable { var entityNumber: Int; var primaryKey: Int64 }

struct StoreRow {
    var key: StoreKey
    var entity: NSEntityDescription
    var version: Int64
    var attributes: [String: Any]
    var toOne: [String: StoreKey]
}

final class SQLiteStoreEngine {
    init(url: URL?, model: NSManagedObjectModel, configurationName: String?, options: [AnyHashable: Any]?) throws { fatalError() }
    var metadata: [String: Any] { fatalError() }
    func setMetadata(_ metadata: [String: Any]) throws { fatalError() }
    var identifier: String { fatalError() }
    func entityNumber(for entity: NSEntityDescription) -> Int { fatalError() }
    func entity(forNumber number: Int) -> NSEntityDescription? { fatalError() }
    func fetchRows(of entity: NSEntityDescription, includesSubentities: Bool) throws -> [StoreRow] { fatalError() }
    func fetchRows(for keys: [StoreKey]) throws -> [StoreRow] { fatalError() }
    func countRows(of entity: NSEntityDescription, includesSubentities: Bool) throws -> Int { fatalError() }
    func destinationKeys(of relationship: NSRelationshipDescription, from source: StoreKey) throws -> [StoreKey] { fatalError() }
    func allocatePrimaryKeys(for entity: NSEntityDescription, count: Int) throws -> ClosedRange<Int64> { fatalError() }
    func performSave(_ body: (SQLiteSaveTransaction) throws -> Void) throws { fatalError() }
    func close() {}
}

final class SQLiteSaveTransaction {
    func allocatePrimaryKeys(for entity: NSEntityDescription, count: Int) throws -> ClosedRange<Int64> { fatalError() }
    func insert(_ row: StoreRow) throws { fatalError() }
    func update(_ row: StoreRow, expectedVersion: Int64) throws -> Bool { fatalError() }
    func delete(_ key: StoreKey) throws { fatalError() }
    func writeToMany(_ relationship: NSRelationshipDescription, source: StoreKey, destinations: [StoreKey]) throws { fatalError() }
}

public class NSPredicate {
    public func evaluate(with object: Any?) -> Bool { fatalError() }
}
public class NSSortDescriptor {
    public func compare(_ a: Any, to b: Any) -> ComparisonResult { fatalError() }
}
extension SQLiteStoreEngine {
    static func readMetadata(at url: URL) throws -> [String: Any] { fatalError() }
}
