import Foundation

/// Who is writing: the author and context name a save or batch request records in its
/// history transaction. Set around the write on the writing thread (a context saves on
/// its own queue, synchronously), so the store reads it inside its transaction without
/// the context passing it down through every layer.
struct HistoryOrigin {
    var author: String?
    var contextName: String?

    private static let key = "OpenCoreData.HistoryOrigin"

    /// The origin set on this thread, if any.
    static var current: HistoryOrigin? { Thread.current.threadDictionary[key] as? HistoryOrigin }

    /// Runs `body` with `context`'s author and name as the thread's origin.
    static func recording<T>(for context: NSManagedObjectContext, _ body: () throws -> T) rethrows -> T {
        let dictionary = Thread.current.threadDictionary
        let previous = dictionary[key]
        dictionary[key] = HistoryOrigin(author: context.transactionAuthor, contextName: context.name)
        defer { dictionary[key] = previous }
        return try body()
    }

    /// The bundle identifier recorded with each transaction: the main bundle's, or the
    /// process name when it has none (command-line programs on Linux).
    static let bundleID = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
    /// The process identifier recorded with each transaction, as text as in Core Data.
    static var processID: String { String(ProcessInfo.processInfo.processIdentifier) }
}
