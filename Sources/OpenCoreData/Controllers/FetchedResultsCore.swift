import Foundation

/// The state and work of a fetched results controller, shared by the typed controller the
/// program made and the `NSFetchedResultsController<NSFetchRequestResult>` its delegate
/// receives (Swift generics cannot be cast from one specialization to another, so both are
/// views of this one object).
///
/// The results are kept as sections, each holding its objects in order, with a map from
/// each object to its section: a change to a few objects touches only their sections.
final class FetchedResultsCore {
    let context: NSManagedObjectContext
    let sectionNameKeyPath: String?
    let cacheName: String?

    /// The request as it was at the last fetch, typed for managed objects.
    private(set) var request: NSFetchRequest<NSManagedObject>?
    private(set) var entity: NSEntityDescription?
    /// The sections, in order; nil before a successful fetch.
    private(set) var sections: [FetchedResultsSection]?
    private var sectionByName: [String: FetchedResultsSection] = [:]
    private var sectionOfObject: [ObjectIdentifier: FetchedResultsSection] = [:]
    private var flatObjects: [NSManagedObject]?
    /// Raised at every change of the results, so the typed views know to rebuild.
    private(set) var version = 0

    /// The delegate (held weakly, as Core Data holds it). Setting it starts or stops change
    /// tracking: a controller without a delegate keeps the results of its last fetch.
    weak var delegate: NSFetchedResultsControllerDelegate? {
        didSet { delegateMode = nil; updateObservation() }
    }
    /// How the delegate wants changes, found out at the first change after it was set.
    var delegateMode: DelegateMode?
    private var observers: [NSObjectProtocol] = []

    /// Makes the view the delegate receives.
    var makeDelegateView: (() -> NSFetchedResultsController<NSFetchRequestResult>)?
    private weak var delegateViewStorage: NSFetchedResultsController<NSFetchRequestResult>?
    /// The controller's own `sectionIndexTitle(forSectionName:)`, which subclasses may override.
    var controllerIndexTitle: ((String) -> String?)?

    init(context: NSManagedObjectContext, sectionNameKeyPath: String?, cacheName: String?) {
        self.context = context
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = cacheName
    }

    deinit {
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
    }

    /// The controller the delegate receives: the same object for the whole of its life.
    var delegateView: NSFetchedResultsController<NSFetchRequestResult>? {
        if let view = delegateViewStorage { return view }
        let view = makeDelegateView?()
        delegateViewStorage = view
        return view
    }

    // MARK: Fetching

    /// Fetches, then computes the sections (or takes them from the cache).
    func performFetch(_ request: NSFetchRequest<NSManagedObject>) throws {
        sections = nil; sectionByName = [:]; sectionOfObject = [:]; flatObjects = nil; version += 1
        self.request = request
        if request.resultType != .managedObjectResultType {
            raiseCoreDataException(.invalidArgument, "NSFetchedResultsController on Linux supports fetch requests of NSManagedObjectResultType only")
        }
        // The fetch reports a request without an entity as Core Data does.
        let objects = try context.fetch(request)
        guard let entity = request.resolvedEntity(in: context.persistentStoreCoordinator?.managedObjectModel) else { return }
        self.entity = entity
        let sectioning = FetchedResultsSectioning(sectionNameKeyPath: sectionNameKeyPath, request: request, entity: entity, context: context,
                                                  indexTitle: { [unowned self] in self.indexTitle(forSectionName: $0) })
        var computed: [FetchedResultsSection]?
        var cacheConfiguration: FetchedResultsSectionCache.Configuration?
        if let cacheName {
            let configuration = self.cacheConfiguration(request: request, entity: entity)
            cacheConfiguration = configuration
            let usable = !(request.includesPendingChanges && context.hasChanges)
            if usable, let cache = FetchedResultsSectionCache.read(named: cacheName) {
                if cache.configuration == configuration && cache.objectCount == objects.count {
                    computed = FetchedResultsSectioning.slice(objects, into: cache.sections.map { ($0.name, $0.indexTitle, $0.count) })
                } else {
                    FetchedResultsSectionCache.delete(named: cacheName)
                }
            }
        }
        let fresh = computed == nil
        let result = try computed ?? sectioning.sections(of: objects)
        install(result)
        if fresh, let cacheName, let cacheConfiguration, delegate != nil {
            writeCache(named: cacheName, configuration: cacheConfiguration)
        }
        if delegate != nil { deliverInitialSnapshot() }
    }

    /// The configuration the cache records, read now.
    func cacheConfiguration(request: NSFetchRequest<NSManagedObject>, entity: NSEntityDescription) -> FetchedResultsSectionCache.Configuration {
        let stores = request.affectedStores ?? context.persistentStoreCoordinator?.persistentStores ?? []
        return FetchedResultsSectionCache.Configuration(
            entityName: entity.name ?? "", entityVersionHash: entity.versionHash, sectionNameKeyPath: sectionNameKeyPath,
            sortDescriptors: (request.sortDescriptors ?? []).map(\.description), predicate: request.predicate?.predicateFormat,
            fetchLimit: request.fetchLimit, fetchOffset: request.fetchOffset, includesSubentities: request.includesSubentities,
            stores: stores.map { FetchedResultsSectionCache.stamp(of: $0, entity: entity) })
    }

    /// Writes the current sections to the cache named `name`.
    func writeCache(named name: String, configuration: FetchedResultsSectionCache.Configuration) {
        guard let sections else { return }
        let cache = FetchedResultsSectionCache(
            configuration: configuration, objectCount: sections.reduce(0) { $0 + $1.numberOfObjects },
            sections: sections.map { .init(name: $0.name, indexTitle: $0.indexTitle, count: $0.numberOfObjects) })
        cache.write(named: name)
    }

    /// Makes `sections` the results.
    func install(_ newSections: [FetchedResultsSection]) {
        sections = newSections
        sectionByName = [:]
        sectionOfObject = [:]
        sectionOfObject.reserveCapacity(newSections.reduce(0) { $0 + $1.members.count })
        for section in newSections {
            sectionByName[section.name] = section
            for object in section.members { sectionOfObject[ObjectIdentifier(object)] = section }
        }
        flatObjects = nil
        version += 1
    }

    // MARK: Reading

    /// Every object, section after section.
    var fetchedObjects: [NSManagedObject]? {
        guard let sections else { return nil }
        if let flatObjects { return flatObjects }
        var all: [NSManagedObject] = []
        all.reserveCapacity(sectionOfObject.count)
        for section in sections { all.append(contentsOf: section.members) }
        flatObjects = all
        return all
    }

    func section(named name: String) -> FetchedResultsSection? { sectionByName[name] }
    func section(of object: NSManagedObject) -> FetchedResultsSection? { sectionOfObject[ObjectIdentifier(object)] }
    func contains(_ object: NSManagedObject) -> Bool { sectionOfObject[ObjectIdentifier(object)] != nil }

    /// Where `object` is, or nil.
    func indexPath(of object: NSManagedObject) -> IndexPath? {
        guard let sections, let section = section(of: object),
              let sectionIndex = sections.firstIndex(where: { $0 === section }),
              let row = section.members.firstIndex(where: { $0 === object }) else { return nil }
        return IndexPath(item: row, section: sectionIndex)
    }

    /// The index title of a section: the delegate's answer when it gives one, else the controller's.
    func indexTitle(forSectionName name: String) -> String? {
        if let delegate, let view = delegateView {
            var title: String?
            if DelegateProbe.implemented({ title = delegate.controller(view, sectionIndexTitleForSectionName: name) }) { return title }
        }
        return controllerIndexTitle?(name) ?? Self.defaultIndexTitle(forSectionName: name)
    }

    /// Core Data's default: the capitalized first letter of the name.
    static func defaultIndexTitle(forSectionName name: String) -> String? {
        guard let first = name.first else { return nil }
        return String(first).capitalized
    }

    // MARK: Tracking

    private func updateObservation() {
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
        observers = []
        guard delegate != nil else { return }
        let center = NotificationCenter.default
        observers.append(center.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil) { [weak self] note in
            self?.contextObjectsDidChange(note)
        })
        observers.append(center.addObserver(forName: .NSManagedObjectContextDidSave, object: context, queue: nil) { [weak self] note in
            self?.contextDidSave(note)
        })
    }

    /// After a save of the context, the cache records the saved state (Core Data rewrites
    /// it at every save of a controller with a delegate and a cache name), and a snapshot
    /// delegate receives the inserted objects under their new permanent IDs.
    private func contextDidSave(_ note: Notification) {
        guard sections != nil else { return }
        if delegateMode?.snapshot == true,
           Self.objects(note.userInfo?[NSInsertedObjectsKey]).contains(where: { contains($0) }),
           let delegate, let view = delegateView {
            delegate.controller(view, didChangeContentWith: makeSnapshot(reloading: []))
        }
        guard let cacheName, let request, let entity else { return }
        writeCache(named: cacheName, configuration: cacheConfiguration(request: request, entity: entity))
    }

    /// Replaces the sections after a change (see ``FetchedResultsChangeSet``).
    func replaceSections(_ newSections: [FetchedResultsSection], moving objects: [(NSManagedObject, FetchedResultsSection?)]) {
        sections = newSections
        sectionByName = Dictionary(newSections.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for (object, section) in objects { sectionOfObject[ObjectIdentifier(object)] = section }
        flatObjects = nil
        version += 1
    }
}
