import Foundation

/// Manages the results of a fetch request for a list: the objects in order, grouped into
/// sections, kept up to date as the context changes, with every change reported to a
/// delegate as index paths a table view can apply.
///
/// ```swift
/// let request = NSFetchRequest<Trail>(entityName: "Trail")
/// request.sortDescriptors = [NSSortDescriptor(key: "region", ascending: true),
///                            NSSortDescriptor(key: "name", ascending: true)]
/// let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
///                                             sectionNameKeyPath: "region", cacheName: "Trails")
/// try controller.performFetch()
/// for section in controller.sections ?? [] { print(section.name, section.numberOfObjects) }
/// ```
///
/// As in Core Data, the controller works in one of three modes: without a delegate it keeps
/// the results of its last fetch; with a delegate it tracks the changes of its context
/// (saved, unsaved and merged); with a delegate and a `cacheName` it also keeps the section
/// information in a persistent cache (see ``deleteCache(withName:)``).
open class NSFetchedResultsController<ResultType>: NSObject {
    /// The request; it must have sort descriptors.
    public let fetchRequest: NSFetchRequest<ResultType>
    /// The context the request runs in and whose changes the controller tracks.
    public let managedObjectContext: NSManagedObjectContext
    /// The key path of the value that names each object's section, or nil for one section.
    public let sectionNameKeyPath: String?
    /// The name of the persistent section cache, or nil for none.
    public let cacheName: String?

    let core: FetchedResultsCore
    private var typedObjects: [ResultType]?
    private var typedObjectsVersion = -1

    /// A controller for `fetchRequest` in `context`.
    ///
    /// - Parameters:
    ///   - fetchRequest: The request. It must have sort descriptors (an empty array is
    ///     accepted); when the controller makes sections, the first descriptor must order
    ///     the objects as `sectionNameKeyPath` does.
    ///   - context: The context to fetch in.
    ///   - sectionNameKeyPath: A key path on the results whose value names the section;
    ///     nil puts every object in one section.
    ///   - name: The name of the persistent section cache; nil for no cache.
    public init(fetchRequest: NSFetchRequest<ResultType>, managedObjectContext context: NSManagedObjectContext,
                sectionNameKeyPath: String?, cacheName name: String?) {
        guard fetchRequest.sortDescriptors != nil else {
            raiseCoreDataException(.invalidArgument, "An instance of NSFetchedResultsController requires a fetch request with sort descriptors")
        }
        self.fetchRequest = fetchRequest
        self.managedObjectContext = context
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = name
        self.core = FetchedResultsCore(context: context, sectionNameKeyPath: sectionNameKeyPath, cacheName: name)
        super.init()
        let core = self.core
        core.controllerIndexTitle = { [weak self] name in
            self.map { $0.sectionIndexTitle(forSectionName: name) } ?? FetchedResultsCore.defaultIndexTitle(forSectionName: name)
        }
        core.makeDelegateView = { [weak self] in
            if let same = self as? NSFetchedResultsController<NSFetchRequestResult> { return same }
            return NSFetchedResultsController<NSFetchRequestResult>(sharing: core, fetchRequest: fetchRequest.copy(as: NSFetchRequestResult.self))
        }
    }

    /// A second view of `core`, typed for the delegate.
    init(sharing core: FetchedResultsCore, fetchRequest: NSFetchRequest<ResultType>) {
        self.fetchRequest = fetchRequest
        self.managedObjectContext = core.context
        self.sectionNameKeyPath = core.sectionNameKeyPath
        self.cacheName = core.cacheName
        self.core = core
        super.init()
    }

    /// The delegate told about changes; held weakly. Setting one starts change tracking.
    open weak var delegate: NSFetchedResultsControllerDelegate? {
        get { core.delegate }
        set { core.delegate = newValue }
    }

    /// Runs the fetch request and computes the sections, from the persistent cache when it
    /// is still valid.
    ///
    /// Throws the fetch's error, or Core Data's error 134060 when the objects' section
    /// names are out of order (the first sort descriptor does not match the section key
    /// path); the controller then has no results.
    open func performFetch() throws {
        try core.performFetch(fetchRequest.copy(as: NSManagedObject.self))
    }

    /// The fetched objects, in order; nil before a successful ``performFetch()``.
    open var fetchedObjects: [ResultType]? {
        guard let objects = core.fetchedObjects else { return nil }
        if typedObjectsVersion != core.version {
            typedObjects = objects.map { $0 as! ResultType }
            typedObjectsVersion = core.version
        }
        return typedObjects
    }

    /// The sections; nil before a successful ``performFetch()``.
    open var sections: [NSFetchedResultsSectionInfo]? { core.sections }

    /// The object at `indexPath`. An index path outside the results stops the program
    /// with Core Data's exception.
    open func object(at indexPath: IndexPath) -> ResultType {
        guard let sections = core.sections, indexPath.count == 2, sections.indices.contains(indexPath.section),
              sections[indexPath.section].members.indices.contains(indexPath.item) else {
            let item = indexPath.count == 2 ? indexPath.item : 0, section = indexPath.count == 2 ? indexPath.section : 0
            raiseCoreDataException(.invalidArgument, "no object at index \(item) in section at index \(section)")
        }
        return sections[indexPath.section].members[indexPath.item] as! ResultType
    }

    /// The index path of `object`, or nil when it is not in the results.
    open func indexPath(forObject object: ResultType) -> IndexPath? {
        guard let managed = object as? NSManagedObject else { return nil }
        return core.indexPath(of: managed)
    }

    /// The index titles of the sections, in order, each once.
    open var sectionIndexTitles: [String] {
        var seen: Set<String> = []
        return (core.sections ?? []).compactMap(\.indexTitle).filter { seen.insert($0).inserted }
    }

    /// The section a table view's index should jump to for `title`, the title at
    /// `sectionIndex` in ``sectionIndexTitles``: the first section with that index title.
    /// A position outside the titles, or one holding another title, stops the program with
    /// an `NSInternalInconsistencyException`, as Core Data's assertions do.
    open func section(forSectionIndexTitle title: String, at sectionIndex: Int) -> Int {
        let titles = sectionIndexTitles
        guard titles.indices.contains(sectionIndex) else {
            raiseCoreDataException(.internalInconsistency, "invalid Section Index offset \(sectionIndex)")
        }
        guard titles[sectionIndex] == title else {
            raiseCoreDataException(.internalInconsistency, "Index title at \(sectionIndex) is not equal to '\(title)'")
        }
        return core.sections?.firstIndex { $0.indexTitle == title } ?? NSNotFound
    }

    /// The index title of a section: by default the capitalized first letter of its name.
    /// Subclasses may override it; a delegate's `controller(_:sectionIndexTitleForSectionName:)`
    /// takes precedence.
    open func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        FetchedResultsCore.defaultIndexTitle(forSectionName: sectionName)
    }

    /// Deletes the persistent section cache named `name`, or every cache when `name` is nil.
    /// Call it before changing the request of a controller that uses a cache.
    open class func deleteCache(withName name: String?) {
        FetchedResultsSectionCache.delete(named: name)
    }
}
