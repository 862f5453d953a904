import Foundation

/// Core Data's SQL debug output, switched on by launching a process with the arguments
/// `-com.apple.CoreData.SQLDebug N`, or from inside the program by setting the user
/// default of that name (`UserDefaults.standard.set(1, forKey: "com.apple.CoreData.SQLDebug")`;
/// removing it switches the output off again).
///
/// Level 1 prints every statement (`CoreData: sql: …`) and the timing annotations of
/// fetches and counts; level 2 and above also print each bound value
/// (`CoreData: details: SQLite bind[0] = "s"`), and level 2 a summary of each fetch. (Level
/// 2 for bindings, as in Core Data: observed in published level-by-level output and in the
/// framework's own `debugDefault >= 2` test.) Level 3 lists the objects a fetch returned
/// instead (`… returned 20 rows with values: (…)`, see ``FetchLogTail``). Level 4 adds
/// SQLite's plan for each query
/// (`CoreData: details: SQLite: EXPLAIN QUERY PLAN for SELECT …`, then one indented line
/// per step of the plan).
///
/// Lines go to standard error unless a test installs its own sink (``setSink(_:)``). On
/// Apple's platforms Core Data writes them to the unified log, and to standard error as
/// well when `com.apple.CoreData.Logging.stderr` is 1; Linux has no unified log, so
/// standard error is where they always go (see LinuxDifferences.md).
enum SQLDebugLog {
    /// Serializes access to the settings below: stores on different queues log at once.
    private static let lock = NSLock()
    /// A test's override of the level, else ``noLevel``; kept without the lock because
    /// ``level`` reads it at every statement.
    private static let overrideLevel = AtomicWord(noLevel)
    private static var customSink: ((String) -> Void)?
    /// The level given on the command line, read once.
    private static let launchLevel: Int = level(fromArguments: ProcessInfo.processInfo.arguments)

    /// The user default Core Data reads its level from (launch arguments are one source
    /// of user defaults on Darwin).
    static let userDefaultsKey = "com.apple.CoreData.SQLDebug"

    /// The level in force: a test's override, else the user default
    /// `com.apple.CoreData.SQLDebug` (followed at every statement, so a program can switch
    /// the output on and off with `UserDefaults.standard.set(1, forKey:)` and
    /// `removeObject(forKey:)`), else the launch argument, else 0. (Core Data reads the
    /// default once, when its SQLite store class is first used: see LinuxDifferences.md.)
    ///
    /// Reading the user default through `UserDefaults` costs microseconds (its volatile
    /// domains are copied under a lock), a large part of a look-up by ID; so the level is
    /// kept, with the value stored for the key in the preferences `set` and `removeObject`
    /// write, and read again through `UserDefaults` only when that value changed.
    ///
    /// The common case, no override and nothing stored for the key, takes no lock: two
    /// atomic loads around the read of the stored value (an `NSLock` at every statement was
    /// a measurable part of a look-up by ID).
    static var level: Int {
        let override = overrideLevel.load()
        if override != noLevel { return override }
        let stored = storedValue.value()
        if stored == nil {
            let kept = levelWithNothingStored.load()
            if kept != noLevel { return kept }
        }
        return level(withStored: stored)
    }

    /// The level for the stored value `stored`: the kept one if it was read at the same
    /// stored value, else read again through `UserDefaults` and kept.
    private static func level(withStored stored: AnyObject?) -> Int {
        lock.lock()
        defer { lock.unlock() }
        if let known = knownLevel, StoredPreference.isSame(stored, known.stored) { return known.level }
        let level = levelFromUserDefaults()
        knownLevel = (level, stored)
        // Published for the lock-free read only where the check above would find it again
        // (without CoreFoundation no stored value, not even none, is recognized as the same).
        levelWithNothingStored.store(stored == nil && StoredPreference.isSame(nil, nil) ? level : noLevel)
        return level
    }

    /// The value `UserDefaults.set` stores for the key, watched for changes.
    private static let storedValue = StoredPreference(key: userDefaultsKey)
    /// The level last read through `UserDefaults`, with the stored value it was read at;
    /// read and written under `lock`.
    private static var knownLevel: (level: Int, stored: AnyObject?)?
    /// `knownLevel`'s level when it was read with nothing stored, else ``noLevel``: what
    /// ``level`` returns without the lock while nothing is stored.
    private static let levelWithNothingStored = AtomicWord(noLevel)
    /// No level: no override, or no level kept. Levels are never negative.
    private static let noLevel = Int.min

    /// The level `UserDefaults` gives (its argument, stored and registered values), else
    /// the launch argument.
    private static func levelFromUserDefaults() -> Int {
        let defaults = UserDefaults.standard
        if defaults.object(forKey: userDefaultsKey) != nil { return max(0, defaults.integer(forKey: userDefaultsKey)) }
        return launchLevel
    }

    /// Replaces the launch argument's level; `nil` restores it. For tests.
    static func setLevelOverride(_ level: Int?) {
        overrideLevel.store(level ?? noLevel)
    }

    /// Sends every line to `sink` instead of standard error; `nil` restores standard error.
    /// For tests.
    static func setSink(_ sink: ((String) -> Void)?) {
        lock.lock()
        customSink = sink
        lock.unlock()
    }

    /// The level that `-com.apple.CoreData.SQLDebug N` among `arguments` asks for.
    static func level(fromArguments arguments: [String]) -> Int {
        guard let flag = arguments.lastIndex(of: "-com.apple.CoreData.SQLDebug"), flag + 1 < arguments.count else { return 0 }
        return max(0, Int(arguments[flag + 1]) ?? 0)
    }

    /// Writes one line, prefixed `CoreData: `.
    static func write(_ line: String) {
        writeContinuation("CoreData: " + line)
    }

    /// Writes one line as it is: the lines that continue a message (the rows of a query
    /// plan) carry no `CoreData: ` prefix.
    static func writeContinuation(_ text: String) {
        lock.lock()
        let sink = customSink
        lock.unlock()
        if let sink {
            sink(text)
        } else {
            FileHandle.standardError.write(Data((text + "\n").utf8))
        }
    }

    /// `CoreData: sql: <statement>`.
    static func statement(_ sql: String) { write("sql: " + sql) }

    /// `CoreData: details: SQLite bind[<index>] = <value>`, the index counting from 0.
    static func binding(_ index: Int32, _ value: String) { write("details: SQLite bind[\(index - 1)] = \(value)") }

    /// `CoreData: annotation: sql connection fetch time: 0.0001s`.
    static func connectionFetchTime(_ seconds: TimeInterval) {
        write("annotation: sql connection fetch time: \(seconds4(seconds))s")
    }

    /// `CoreData: annotation: fetch using NSSQLiteStatement <0x…> on entity 'Person' with sql
    /// text 'SELECT …' returned 20 rows`, which Core Data prints at level 2 only (level 3
    /// prints the fetched objects instead, which the store does not have).
    static func fetchSummary(statement: AnyObject, entity: String, sql: String, rows: Int) {
        let address = "0x" + String(UInt(bitPattern: ObjectIdentifier(statement)), radix: 16)
        write("annotation: fetch using NSSQLiteStatement <\(address)> on entity '\(entity)' with sql text '\(sql)' returned \(rows) rows")
    }

    /// `CoreData: annotation: total fetch execution time: 0.0010s for 20 rows.`
    static func totalFetchTime(_ seconds: TimeInterval, rows: Int) {
        write("annotation: total fetch execution time: \(seconds4(seconds))s for \(rows) rows.")
    }

    /// `CoreData: annotation: total count request execution time: 0.0254s for count of 18988.`
    static func countTime(_ seconds: TimeInterval, count: Int) {
        write("annotation: total count request execution time: \(seconds4(seconds))s for count of \(count).")
    }

    /// `CoreData: annotation: sql execution time: 0.0000s`, printed after pragmas.
    static func executionTime(_ seconds: TimeInterval) {
        write("annotation: sql execution time: \(seconds4(seconds))s")
    }

    /// Seconds with four decimals, as Core Data prints its timings.
    static func seconds4(_ seconds: TimeInterval) -> String {
        String(format: "%.4f", max(0, seconds))
    }
}

/// The end of a fetch's SQL debug log at level 3 and above, which needs the fetched
/// objects: Core Data prints, after the connection time,
/// `CoreData: annotation: fetch using NSSQLiteStatement <0x…> on entity 'Person' with sql
/// text '…' returned 2 rows with values: (` and one quoted object description per line,
/// then `)` and the total fetch time (published level-3 output: blog.raymccrae.scot,
/// "Core Data SQLDebug Log Levels", 2017; Apple bug 12965555 as mirrored on GitHub by
/// lionheart/openradar-mirror #5400).
struct FetchLogTail {
    let statement: AnyObject
    let entity: String
    let sql: String
    let rows: Int
    /// The total time, when the fetch's log ends with it.
    let seconds: TimeInterval?

    /// Prints the objects, as an array's description does, then the total time.
    func write(objects: [NSManagedObject]) {
        let address = "0x" + String(UInt(bitPattern: ObjectIdentifier(statement)), radix: 16)
        let values = objects.map { object -> String in
            let text = object.description.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
            return "    \"" + text + "\""
        }
        let list = values.isEmpty ? "(\n)" : "(\n" + values.joined(separator: ",\n") + "\n)"
        SQLDebugLog.write("annotation: fetch using NSSQLiteStatement <\(address)> on entity '\(entity)' with sql text '\(sql)' returned \(rows) rows with values: " + list)
        if let seconds { SQLDebugLog.totalFetchTime(seconds, rows: rows) }
    }
}

/// A monotonic clock for the timing annotations.
struct SQLDebugClock {
    private let start = DispatchTime.now().uptimeNanoseconds
    /// Seconds since the clock was made.
    var elapsed: TimeInterval { TimeInterval(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
}
