import Foundation

/// Core Data's concurrency debug check, switched on by launching a process with the
/// arguments `-com.apple.CoreData.ConcurrencyDebug 1`, or by setting the user default of
/// that name (`UserDefaults.standard.set(1, forKey: "com.apple.CoreData.ConcurrencyDebug")`).
///
/// While it is on, a context (or one of its objects) used off the context's queue stops
/// the program in `+[NSManagedObjectContext __Multithreading_Violation_AllThatIsLeftToUsIsHonor__]`,
/// the method Core Data stops in, before its state can be corrupted. The first time the
/// switch is found on, Core Data's annotation `CoreData: annotation: Core Data
/// multi-threading assertions enabled.` goes to standard error.
///
/// Core Data reads the switch once, at launch. Here each context reads it when it is made
/// (contexts made before the user default is set do not check), so a program can turn the
/// check on for the contexts it makes from then on.
enum ConcurrencyDebug {
    /// The user default (and launch argument, without its dash) Core Data reads.
    static let userDefaultsKey = "com.apple.CoreData.ConcurrencyDebug"

    /// The level the launch arguments ask for, read once.
    private static let launchLevel = launchLevel(in: ProcessInfo.processInfo.arguments)

    /// The level `-com.apple.CoreData.ConcurrencyDebug N` among `arguments` asks for.
    static func launchLevel(in arguments: [String]) -> Int {
        guard let flag = arguments.lastIndex(of: "-" + userDefaultsKey), flag + 1 < arguments.count else { return 0 }
        return Int(arguments[flag + 1]) ?? 0
    }
    private static let lock = NSLock()
    private static var announced = false

    /// Whether the check is on now: the user default when set, else the launch argument.
    static var isEnabled: Bool {
        let defaults = UserDefaults.standard
        let level = defaults.object(forKey: userDefaultsKey) != nil ? defaults.integer(forKey: userDefaultsKey) : launchLevel
        guard level > 0 else { return false }
        lock.lock()
        defer { lock.unlock() }
        if !announced {
            announced = true
            FileHandle.standardError.write(Data("CoreData: annotation: Core Data multi-threading assertions enabled.\n".utf8))
        }
        return true
    }

    /// Stops the program as Core Data does for a context used off its queue: Core Data
    /// executes a trap instruction inside the method whose name is its message (a
    /// debugger shows the stop there). On Linux the name goes to standard error first,
    /// with what was used where, and the process is stopped with a signal.
    static func violation(_ context: NSManagedObjectContext) -> Never {
        let what = context.concurrencyType == .mainQueueConcurrencyType
            ? "A main-queue context was used off the main thread."
            : "A private-queue context was used outside perform and performAndWait."
        FileHandle.standardError.write(Data("+[NSManagedObjectContext __Multithreading_Violation_AllThatIsLeftToUsIsHonor__]\n\(what)\n".utf8))
        kill(getpid(), SIGILL)
        abort()
    }
}
