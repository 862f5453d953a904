import Foundation

/// The whole Core Data stack in one object: model, coordinator, stores and a main-queue
/// context.
///
/// ```swift
/// let container = NSPersistentContainer(name: "Trailhead")
/// container.loadPersistentStores { description, error in
///     if let error { fatalError("\(error)") }
/// }
/// let context = container.viewContext
/// ```
open class NSPersistentContainer {
    /// The container's name: the model's file name and the default store file's base name.
    public let name: String
    /// The model the container's stores and contexts use.
    public let managedObjectModel: NSManagedObjectModel
    /// The coordinator the contexts save through.
    public let persistentStoreCoordinator: NSPersistentStoreCoordinator
    /// The stores `loadPersistentStores` opens: by default one SQLite store,
    /// `<defaultDirectoryURL>/<name>.sqlite`.
    public var persistentStoreDescriptions: [NSPersistentStoreDescription]

    /// The main-queue context for the user interface: use it on the main thread.
    public private(set) lazy var viewContext: NSManagedObjectContext = {
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = persistentStoreCoordinator
        return context
    }()

    /// A container whose model is the `<name>.xcdatamodeld` (or `.momd`) an app would find
    /// in its bundle: here in `Bundle.main`, beside the executable or in the working
    /// directory. A missing or unreadable model stops the program, as on Apple platforms.
    ///
    /// - Parameter name: the model's file name without extension; also the default
    ///   store's file name (`<name>.sqlite`).
    public convenience init(name: String) {
        guard let url = ModelLocator.modelURL(named: name) else {
            fatalError("NSPersistentContainer: cannot find a model named \(name) (looked for \(name).momd, \(name).xcdatamodeld and \(name).xcdatamodel in \(ModelLocator.searchDirectories().map(\.path).joined(separator: ", ")))")
        }
        let model: NSManagedObjectModel
        do {
            model = try NSManagedObjectModel.load(contentsOf: url)
        } catch {
            fatalError("NSPersistentContainer: cannot load the model \(url.lastPathComponent): \((error as NSError).localizedDescription)")
        }
        self.init(name: name, managedObjectModel: model)
    }

    /// A container for a model you built in code (or loaded yourself).
    ///
    /// ```swift
    /// let container = NSPersistentContainer(name: "Scratch", managedObjectModel: model)
    /// ```
    ///
    /// - Parameters:
    ///   - name: the default store's file name (`<name>.sqlite`).
    ///   - model: the model; a coordinator that uses it makes it immutable.
    public init(name: String, managedObjectModel model: NSManagedObjectModel) {
        self.name = name
        self.managedObjectModel = model
        self.persistentStoreCoordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let description = NSPersistentStoreDescription(
            url: Self.defaultDirectoryURL().appendingPathComponent("\(name).sqlite"))
        self.persistentStoreDescriptions = [description]
    }

    /// Where default stores live. On Apple platforms it is the Application Support
    /// directory; here it is its Linux counterpart, `$XDG_DATA_HOME` (by default
    /// `~/.local/share`).
    open class func defaultDirectoryURL() -> URL {
        if let data = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], !data.isEmpty {
            return URL(fileURLWithPath: data, isDirectory: true)
        }
        // The XDG default is $HOME/.local/share. Foundation's home-directory APIs on Linux
        // read the password database and ignore $HOME, so read it here.
        let home = ProcessInfo.processInfo.environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".local/share", isDirectory: true)
    }

    /// Opens every store in ``persistentStoreDescriptions``, calling `block` once per store
    /// with the description and the error, if any.
    ///
    /// ```swift
    /// container.loadPersistentStores { description, error in
    ///     if let error { fatalError("Could not open \(description.url!): \(error)") }
    /// }
    /// ```
    ///
    /// - Parameter block: called once per store, before this method returns unless the
    ///   description's `shouldAddStoreAsynchronously` is set. Its error is an `NSError` in
    ///   `NSCocoaErrorDomain`, the same as
    ///   ``NSPersistentStoreCoordinator/addPersistentStore(ofType:configurationName:at:options:)``
    ///   throws: ``NSPersistentStoreInvalidTypeError``,
    ///   ``NSPersistentStoreIncompatibleVersionHashError`` and others.
    open func loadPersistentStores(completionHandler block: @escaping (NSPersistentStoreDescription, Error?) -> Void) {
        for description in persistentStoreDescriptions {
            persistentStoreCoordinator.addPersistentStore(with: description, completionHandler: block)
        }
    }

    /// A new private-queue context on the coordinator, for work off the main thread.
    open func newBackgroundContext() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = persistentStoreCoordinator
        return context
    }

    /// Runs `block` on a new private-queue context, asynchronously.
    open func performBackgroundTask(_ block: @escaping (NSManagedObjectContext) -> Void) {
        let context = newBackgroundContext()
        context.perform { block(context) }
    }
}
