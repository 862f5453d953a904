import XCTest
@testable import OpenCoreData

/// Follows a store's persistent history as an app's reader does: fetches the transactions
/// after its last token, checks each change against the rows it knows to be alive (an
/// insert is new, an update or delete names a living row), merges the transaction into
/// `reader` and keeps it. Shared by the multi-process history tests.
final class HistoryFollower {
    let reader: NSManagedObjectContext
    /// The primary keys history says exist.
    private(set) var live = Set<Int64>()
    /// Every transaction followed, oldest first.
    private(set) var seen: [NSPersistentHistoryTransaction] = []
    private var lastToken: NSPersistentHistoryToken?

    init(reader: NSManagedObjectContext) { self.reader = reader }

    /// Applies the transactions saved since the last call.
    func follow(file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try reader.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: lastToken)) as! NSPersistentHistoryResult
        for transaction in result.result as! [NSPersistentHistoryTransaction] {
            for change in transaction.changes ?? [] {
                let key = change.changedObjectID.storeKey!.primaryKey
                switch change.changeType {
                case .insert: XCTAssertTrue(live.insert(key).inserted, "p\(key) inserted twice", file: file, line: line)
                case .update: XCTAssertTrue(live.contains(key), "p\(key) updated before its insert", file: file, line: line)
                case .delete: XCTAssertNotNil(live.remove(key), "p\(key) deleted before its insert", file: file, line: line)
                }
            }
            reader.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
            lastToken = transaction.token
            seen.append(transaction)
        }
    }
}
