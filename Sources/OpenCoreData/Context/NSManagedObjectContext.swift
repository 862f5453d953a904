import Foundation

/// A scratchpad of managed objects: you insert, change and delete objects here, and
/// ``save()`` writes all of it to the persistent stores in one transaction.
///
/// A context is not thread-safe: use a main-queue context on the main thread, and a
/// private-queue context inside ``perform(_:)->()`` or ``performAndWait(_:)->()``.
open class NSManagedObjectContext {
    /// How a context confines its work. Raw values match Core Data's.
    public enum ConcurrencyType: UInt, Sendable {
        /// Deprecated: the context belongs to the thread that uses it.
        case confinementConcurrencyType = 0
        /// The context owns a private serial queue; use it through `perform`.
        case privateQueueConcurrencyType = 1
        /// The context belongs to the main queue.
        case mainQueueConcurrencyType = 2
    }

    /// The queue the context was created for; fixed for the context's life.
    public let concurrencyType: ConcurrencyType
    /// The coordinator the context fetches from and saves to.
    /// Not checked for overlapping access at run time, as ``parent`` (see there).
    @exclusivity(unchecked) public var persistentStoreCoordinator: NSPersistentStoreCoordinator? {
        didSet {
            persistentStoreCoordinator.map { ManagedObjectClasses.noteModel($0.managedObjectModel) }
            if persistentStoreCoordinator !== oldValue { observeCoordinator() }
        }
    }
    /// A name for debugging.
    public var name: String?
    /// The query generation the context reads through (see `setQueryGenerationFrom(_:)`).
    var pinnedGeneration: NSQueryGenerationToken?
    /// The author recorded in persistent history for this context's saves.
    public var transactionAuthor: String?
    /// The context this one saves into, or `nil` when it saves to the coordinator's stores.
    ///
    /// A child context fetches through its parent, so it sees the parent's unsaved
    /// inserts, changes and deletions; its ``save()`` hands its changes to the parent
    /// (which must save in turn to write them to disk). The child takes its parent's
    /// coordinator. The parent is held strongly, as Core Data holds it.
    ///
    /// Not checked for overlapping access at run time: every look-up and fetch reads it
    /// (and the coordinator), a check each, and only its setter writes it.
    @exclusivity(unchecked) public var parent: NSManagedObjectContext? {
        didSet {
            guard parent !== oldValue else { return }
            if let parent {
                var ancestor: NSManagedObjectContext? = parent
                while let context = ancestor {
                    if context === self { raiseCoreDataException(.invalidArgument, "A context cannot be its own ancestor.") }
                    ancestor = context.parent
                }
                persistentStoreCoordinator = parent.persistentStoreCoordinator
            }
        }
    }
    /// Temporary IDs of objects that children saved into this context, by the ID's
    /// identity, with the ID the object has now (permanent once this context saved it):
    /// a child still names those objects by their temporary IDs.
    var idsFromChildren: [ObjectIdentifier: (temporary: NSManagedObjectID, current: NSManagedObjectID)] = [:]
    /// How a save settles conflicts: an ``NSMergePolicy`` (or one of the Objective-C style
    /// globals such as ``NSMergeByPropertyObjectTrumpMergePolicy``). The default,
    /// ``NSMergePolicy/error``, makes a save with conflicts fail with
    /// ``NSManagedObjectMergeError`` or ``NSManagedObjectConstraintMergeError``. Setting
    /// anything that is not an `NSMergePolicy` raises `NSInvalidArgumentException`.
    public var mergePolicy: Any = NSMergePolicy.error {
        didSet {
            if !(mergePolicy is NSMergePolicy) {
                mergePolicy = oldValue
                raiseCoreDataException(.invalidArgument, "mergePolicy must be an NSMergePolicy.")
            }
        }
    }
    /// Whether a fault whose row another context deleted reads as a deleted object
    /// (`true`, the default) or stops the program.
    public var shouldDeleteInaccessibleFaults: Bool = true

    /// The serial queue of a private-queue context.
    private let queue: DispatchQueue?
    private let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    /// Objects with a permanent ID, not owned, as Core Data holds them: an unchanged object
    /// the program no longer references leaves the context.
    private let permanentObjects = ObjectRegistry()
    /// Inserted objects with a temporary ID, by that ID (not checked for overlapping
    /// access at run time, as ``inserted``).
    @exclusivity(unchecked) private var temporaryObjects = TemporaryObjectTable()
    /// Changed objects, strongly held until saved or rolled back, in the order they changed.
    /// Not checked for overlapping access at run time (each object changed or inserted
    /// appends to one); only the context's queue touches them.
    @exclusivity(unchecked) var inserted = ObjectList()
    @exclusivity(unchecked) var updated = ObjectList()
    @exclusivity(unchecked) var deleted = ObjectList()
    /// Deleted objects whose delete rules have not run yet.
    /// (Not checked for overlapping access at run time either, as the lists above: each
    /// deletion touches one, and only the context's queue does.)
    @exclusivity(unchecked) var deletionsToProcess = ObjectList()
    /// Deleted objects that were never saved, waiting for their delete rules.
    @exclusivity(unchecked) var unsavedDeletions = ObjectList()
    private var isProcessingUnsavedDeletions = false
    /// True from the start of ``save()`` until its did-save notification: a `save()` in
    /// between is refused (see `recursiveSaveError`).
    var isSaving = false
    /// While saving: the objects the last objects-did-change notification reported, with
    /// the sets it reported them in, which the did-save notification reuses when it reports
    /// the same objects (see `postDidSaveNotifications`).
    var reportedChangeSets = ReportedChangeSets()
    /// The changes made since the last ``processPendingChanges()``: what the next
    /// objects-did-change notification reports and the next undo group reverts.
    @exclusivity(unchecked) var event = ChangeEvent()
    /// Counts processed events; an object's per-event record is current when its
    /// `eventNumber` equals this.
    var eventNumber = 0
    /// Whether an end-of-event ``processPendingChanges()`` is already scheduled.
    var isEndOfEventScheduled = false

    /// Records the context's changes for undo and redo; `nil` (the default, as on iOS)
    /// records nothing. Each event's changes become one undo action; with the undo
    /// manager's `groupsByEvent` they are grouped by run loop turn. Set it to `nil` during
    /// large imports: recording costs time and memory.
    public var undoManager: UndoManager? {
        didSet { if undoManager !== oldValue { observeUndoManager() } }
    }
    /// The context's observation of its undo manager's checkpoints.
    var undoCheckpointObservation: NSObjectProtocol?
    /// The context's observation of its coordinator's stores (to invalidate objects of removed ones).
    var coordinatorObservation: NSObjectProtocol?
    /// The context's observation of other contexts' saves, while it merges them automatically.
    var automaticMergeObservation: NSObjectProtocol?

    /// Whether the context merges, on its own queue, the changes its parent saves, or
    /// (for a context with no parent) the changes other contexts of its coordinator save:
    /// a view context with this set sees what background contexts save without code of
    /// yours. `false` by default, as in Core Data.
    public var automaticallyMergesChangesFromParent: Bool = false {
        didSet { if automaticallyMergesChangesFromParent != oldValue { observeSavesToMerge() } }
    }

    /// How old, in seconds, cached data may be when a fault fires before it is read from
    /// the store again. Negative (the default) accepts data of any age; 0 accepts none.
    /// (Not checked for overlapping access at run time: each fault fired reads it.)
    @exclusivity(unchecked) public var stalenessInterval: TimeInterval = -1
    /// The class of the last inserted object, already noted with ``ManagedObjectClasses``.
    /// (Not checked for overlapping access at run time: each insert reads it, on the
    /// context's queue.)
    @exclusivity(unchecked) private var lastNotedClass: ObjectIdentifier?

    /// What the context's objects and observations hold instead of a weak reference to it
    /// (so that retaining and releasing the context stays on the runtime's fast path).
    let handle = TargetHandle<NSManagedObjectContext>()

    deinit {
        handle.clear()
        undoCheckpointObservation.map(NotificationCenter.default.removeObserver)
        coordinatorObservation.map(NotificationCenter.default.removeObserver)
        automaticMergeObservation.map(NotificationCenter.default.removeObserver)
    }

    /// A context of the given kind. Set ``persistentStoreCoordinator`` before using it.
    ///
    /// ```swift
    /// let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    /// context.persistentStoreCoordinator = coordinator
    /// context.perform { /* use the context and its objects here */ }
    /// ```
    ///
    /// - Parameter concurrencyType: the queue the context belongs to: the main queue, or a
    ///   private queue of its own reached through `perform` and `performAndWait`.
    public init(concurrencyType: ConcurrencyType) {
        self.concurrencyType = concurrencyType
        checksQueue = ConcurrencyDebug.isEnabled
        if concurrencyType == .privateQueueConcurrencyType {
            let queue = DispatchQueue(label: "NSManagedObjectContext")
            self.queue = queue
            queue.setSpecific(key: queueKey, value: ObjectIdentifier(queue))
        } else {
            self.queue = nil
        }
        handle.attach(self)
    }

    // MARK: Concurrency

    /// Whether the calling code runs on the context's queue: inside `perform` or
    /// `performAndWait` for a private-queue context, on the main thread for a main-queue one.
    var isOnOwnQueue: Bool {
        if let queue {
            return DispatchQueue.getSpecific(key: queueKey) == ObjectIdentifier(queue) || QueueOwnership.current.owns(self)
        }
        return concurrencyType == .confinementConcurrencyType || Thread.isMainThread
    }

    /// Whether the concurrency debug check was on when the context was made.
    let checksQueue: Bool

    /// With the concurrency debug check on, stops the program when the caller is off the
    /// context's queue (see ``ConcurrencyDebug``).
    @inline(__always)
    func checkQueue() {
        if checksQueue, !isOnOwnQueue { ConcurrencyDebug.violation(self) }
    }

    /// Runs `block` on the context's queue, asynchronously, then processes the changes it
    /// made (``processPendingChanges()``), as Core Data's `perform` does.
    open func perform(_ block: @escaping () -> Void) {
        (queue ?? DispatchQueue.main).async { [self] in
            QueueOwnership.current.running(self) {
                block()
                processPendingChanges()
            }
        }
    }

    /// Runs `block` on the context's queue and waits for it. Reentrant. Unlike
    /// ``perform(_:)->()`` it does not process pending changes afterwards.
    open func performAndWait(_ block: () -> Void) {
        if let queue {
            if isOnOwnQueue {
                block()
            } else {
                queue.sync { QueueOwnership.current.running(self, block) }
            }
        } else if Thread.isMainThread || concurrencyType == .confinementConcurrencyType {
            block()
        } else {
            DispatchQueue.main.sync(execute: block)
        }
    }

    /// Runs `block` on the context's queue and returns its result.
    public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        var result: Result<T, Error>!
        withoutActuallyEscaping(block) { block in
            performAndWait { result = Result { try block() } }
        }
        switch result! {
        case .success(let value): return value
        case .failure(let error): return try { throw error }()
        }
    }

    /// How ``perform(schedule:_:)`` schedules its block. Same cases as Core Data's.
    public enum ScheduledTaskType: Sendable {
        /// Run at once when the caller is already on the context's queue; otherwise
        /// queued behind the work already there.
        case immediate
        /// Always queued behind the work already on the context's queue.
        case enqueued
    }

    /// Runs `block` on the context's queue and returns its result, suspending the caller
    /// (not blocking a thread) until it has run. Errors `block` throws are rethrown.
    ///
    /// ```swift
    /// let count = try await background.perform {
    ///     try background.count(for: Trail.fetchRequest())
    /// }
    /// ```
    public func perform<T>(schedule: ScheduledTaskType = .immediate, _ block: @escaping () throws -> T) async rethrows -> T {
        let result: Result<T, Error>
        if schedule == .immediate, isOnOwnQueue {
            result = Result { try block() }
            processPendingChanges()
        } else {
            result = await withCheckedContinuation { continuation in
                (queue ?? DispatchQueue.main).async { [self] in
                    let result = QueueOwnership.current.running(self) { () -> Result<T, Error> in
                        let result = Result { try block() }
                        processPendingChanges()
                        return result
                    }
                    // Resumed last: the caller must not run while the context still works.
                    continuation.resume(returning: result)
                }
            }
        }
        switch result {
        case .success(let value): return value
        case .failure(let error): return try { throw error }()
        }
    }

    // MARK: Registered objects

    /// Whether the context has unsaved inserts, changes or deletions.
    public var hasChanges: Bool { !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty }
    /// Objects inserted since the last save.
    public var insertedObjects: Set<NSManagedObject> { Set(inserted.objects) }
    /// Objects changed since the last save (not counting inserted or deleted ones).
    public var updatedObjects: Set<NSManagedObject> { Set(updated.objects) }
    /// Objects deleted since the last save.
    public var deletedObjects: Set<NSManagedObject> { Set(deleted.objects) }
    /// Every object the context currently knows.
    public var registeredObjects: Set<NSManagedObject> {
        Set(permanentObjects.objects).union(temporaryObjects.objects)
    }

    /// Adds `object` to the context; it is written at the next save.
    open func insert(_ object: NSManagedObject) {
        checkQueue()
        if object.managedObjectContext === self {
            if object.state.isDeleted, deleted.remove(object) {
                object.state.isDeleted = false
                deletionsToProcess.remove(object)
                noteEventUndeletion(of: object)
            }
            return
        }
        guard object.managedObjectContext == nil else {
            raiseCoreDataException(.invalidArgument, "An NSManagedObject may only be in (or observed by) a single NSManagedObjectContext.")
        }
        guard !object.entity.isAbstract else {
            raiseCoreDataException(.internalInconsistency, "Cannot create an instance of the abstract entity \(object.entity.name ?? "(null)").")
        }
        object.adoptPropertyTable(object.entity.propertyTable)
        object.managedObjectContext = self
        object.state.checksQueue = checksQueue
        object.state.isInserted = true
        temporaryObjects.addNew(object, for: object.objectID)
        // The object was in no context, so it is in none of this one's lists (an object
        // leaves a context, forget(_:) or a reset, only once out of them): appended
        // without a membership check.
        inserted.appendNew(object)
        noteEventInsertion(of: object, isNew: true)
        // Noting a class takes a global lock; a context usually inserts many of one class.
        let objectClass = ObjectIdentifier(type(of: object))
        if objectClass != lastNotedClass {
            ManagedObjectClasses.noteClass(type(of: object))
            lastNotedClass = objectClass
        }
        object.awakeFromInsert()
    }

    /// Marks `object` for deletion at the next save; its delete rules run then (or at
    /// ``processPendingChanges()``). An object inserted and never saved simply goes away,
    /// its delete rules applied at once.
    ///
    /// The object's ``NSManagedObject/prepareForDeletion()`` runs here, before this method
    /// returns, as Core Data's `deleteObject:` calls it (decompiled, iOS 26), and again
    /// each time an object already deleted is deleted once more. An object of another
    /// context raises `NSInvalidArgumentException`; one in no context is ignored.
    open func delete(_ object: NSManagedObject) {
        checkQueue()
        // One of this context's objects holds its handle: told without taking the context
        // out of the handle (a lock, a retain and a release).
        if object.contextHandle !== handle {
            guard let owner = object.managedObjectContext else { return }
            guard owner === self else {
                raiseCoreDataException(.invalidArgument, "An NSManagedObjectContext cannot delete objects in other contexts.")
            }
        }
        guard !object.state.isDeleted else {
            object.prepareForDeletion()
            return
        }
        if object.state.isInserted {
            object.state.isDeleted = true
            inserted.remove(object)
            updated.remove(object)
            noteEventDeletion(of: object)
            object.prepareForDeletion()
            // Not deleted until now, so not waiting in the queue (it only ever holds
            // deleted objects, until their rules run): no position to hash and remove again.
            unsavedDeletions.appendNew(object)
            processUnsavedDeletions()
            return
        }
        object.fulfillFaultIfNeeded()
        guard !object.state.isDeleted else { return }  // its row was gone: already deleted
        object.state.isDeleted = true
        updated.remove(object)
        // Not deleted until now, so not in `deleted` (every path that clears isDeleted
        // takes the object out of it, or empties it): no membership look-up, and a save
        // never asks the list about one object, so a cascade of 100,000 hashes none.
        deleted.appendNew(object)
        noteEventDeletion(of: object)
        // Not in the queue either (it holds deleted objects only), and the queue is emptied
        // in order (see processPendingChanges): a cascade hashes none of its objects there.
        assert(!deletionsToProcess.contains(object), "an object not deleted waits for its delete rules")
        deletionsToProcess.appendNew(object)
        object.prepareForDeletion()
    }

    /// Applies the delete rules of deleted objects that were never saved, then forgets
    /// them. Iterative, so a long cascade through new objects cannot overflow the stack.
    private func processUnsavedDeletions() {
        guard !isProcessingUnsavedDeletions else { return }
        isProcessingUnsavedDeletions = true
        defer { isProcessingUnsavedDeletions = false }
        while let object = unsavedDeletions.popFirst() {
            applyDeleteRules(to: object)
            forget(object)
        }
    }

    /// The object with `objectID`: the registered one, or a fault that loads when touched.
    open func object(with objectID: NSManagedObjectID) -> NSManagedObject {
        checkQueue()
        if let registered = registeredObject(for: objectID) { return registered }
        if objectID.isTemporaryID, parent != nil, parentKnows(objectID) { return registerFault(temporary: objectID) }
        guard let key = objectID.storeKey, let store = objectID.persistentStore else {
            raiseCoreDataException(.invalidArgument, "Object's persistent store is not reachable from this NSManagedObjectContext's coordinator")
        }
        return object(for: key, in: store)
    }

    /// The object with `objectID`, loaded; throws ``NSManagedObjectReferentialIntegrityError``
    /// (133000) when its row does not exist.
    open func existingObject(with objectID: NSManagedObjectID) throws -> NSManagedObject {
        checkQueue()
        // The ID's store, loaded once for the whole look-up: each load of a weak
        // reference costs atomic operations on the store's side table.
        let store = objectID.isTemporaryID ? nil : objectID.persistentStore
        let registered: NSManagedObject?
        if let key = objectID.storeKey {
            registered = store.flatMap { registeredObject(for: key, in: $0) }
        } else {
            registered = registeredObject(for: objectID)
        }
        if let registered, !registered.state.isFault, !registered.state.isInaccessible {
            return registered
        }
        if parent != nil { return try existingObjectThroughParent(with: objectID) }
        return try readingQueryGeneration {
            guard let key = objectID.storeKey, let store,
                let row = try storedRow(for: key, in: store)
            else {
                throw coreDataError(NSManagedObjectReferentialIntegrityError, userInfo: ["objectID": objectID])
            }
            let cached = store.rowCache.store(row)
            guard let registered else {
                // A new fault carries `objectID` itself, as Core Data's does, rather than a
                // new ID made through the coordinator for the same row; it fires from the row
                // just read and cached, the row a fault firing now would find (unless stale).
                // Nothing registered an object for the row since the look-up above (the
                // store's own code could have, for an incremental store: look again).
                let object = store.isIncremental
                    ? object(forPermanentID: objectID, key: key, store: store)
                    : registerNewFault(for: objectID, key: key, store: store)
                if object.state.isFault, object.state.fetchBatch == nil, !isStale(cached) {
                    fire(object, with: cached)
                } else {
                    if object.state.isFault { object.state.heldRow = cached }
                    object.fulfillFaultIfNeeded()
                }
                return object
            }
            if registered.state.isFault { registered.state.heldRow = cached }
            registered.fulfillFaultIfNeeded()
            return registered
        }
    }

    /// The object with `objectID` if the context has it registered, else `nil`.
    open func registeredObject(for objectID: NSManagedObjectID) -> NSManagedObject? {
        if objectID.isTemporaryID { return temporaryObjects[ObjectIdentifier(objectID)] }
        guard let key = objectID.storeKey, let store = objectID.persistentStore else { return nil }
        return registeredObject(for: key, in: store)
    }


    // MARK: Internals shared with objects, fetching and saving

    /// Makes room in the registry for `count` objects of `store`, before a fetch registers them.
    func reserveRegistryCapacity(_ count: Int, in store: NSPersistentStore) {
        permanentObjects.reserveCapacity(count, in: store)
    }

    /// Makes room in the registry for `count` more objects of `store` (the members of
    /// relationships, a save's new objects).
    func reserveRegistryCapacity(additional count: Int, in store: NSPersistentStore) {
        permanentObjects.reserveCapacity(additional: count, in: store)
    }

    /// The registered object for a stored row, or a new fault for it.
    func object(for key: StoreKey, in store: NSPersistentStore) -> NSManagedObject {
        let registryKey = PermanentKey(store: store, key: key)
        if let registered = permanentObjects.object(for: registryKey) { return registered }
        guard let id = persistentStoreCoordinator?.objectID(for: key, in: store) ?? NSManagedObjectID.orphan(key: key, store: store) else {
            fatalError("No entity numbered \(key.entityNumber) in store \(store.identifier ?? "?")")
        }
        return registerNewFault(for: id, key: key, store: store)
    }

    /// The registered object for a fetched `row` of `store`, or a new fault for it: the
    /// row names its entity, so its ID is made without looking the entity up by number.
    func object(for row: StoreRow, in store: NSPersistentStore) -> NSManagedObject {
        let registryKey = PermanentKey(store: store, key: row.key)
        if let registered = permanentObjects.object(for: registryKey) { return registered }
        return registerNewFault(for: NSManagedObjectID(store: store, key: row.key, entity: row.entity), key: row.key, store: store)
    }

    /// The object for a permanent ID of one of this context's stores: the registered one,
    /// or a new fault carrying `id` itself. What a merge registers for each inserted
    /// object, with one registry look-up and no new ID.
    func object(forPermanentID id: NSManagedObjectID) -> NSManagedObject {
        guard parent == nil, let key = id.storeKey, let store = id.persistentStore else { return object(with: id) }
        return object(forPermanentID: id, key: key, store: store)
    }

    /// ``object(forPermanentID:)`` for a caller that has the ID's key and store already
    /// (and whose context has no parent).
    func object(forPermanentID id: NSManagedObjectID, key: StoreKey, store: NSPersistentStore) -> NSManagedObject {
        if let registered = permanentObjects.object(for: PermanentKey(store: store, key: key)) { return registered }
        return registerNewFault(for: id, key: key, store: store)
    }

    /// A new fault carrying `id`, registered: for a caller that has just found no object
    /// registered for it, on this context's queue (the only place objects are registered).
    private func registerNewFault(for id: NSManagedObjectID, key: StoreKey, store: NSPersistentStore) -> NSManagedObject {
        let object = NSManagedObject.makeFault(of: id.entity, id: id, context: self)
        permanentObjects.insert(object, for: PermanentKey(store: store, key: key), notifiesStore: store.isIncremental)
        store.contextDidRegister(id)
        return object
    }

    /// The object `key` names in the store that holds `owner`.
    func object(for key: StoreKey, storeOf owner: NSManagedObject) -> NSManagedObject? {
        guard let store = owner.objectID.persistentStore else { return nil }
        return object(for: key, in: store)
    }

    /// The ID `key` names in the store that holds `owner`, without registering an object.
    func objectID(for key: StoreKey, storeOf owner: NSManagedObject) -> NSManagedObjectID? {
        guard let store = owner.objectID.persistentStore else { return nil }
        if let registered = permanentObjects.object(for: PermanentKey(store: store, key: key)) { return registered.objectID }
        return persistentStoreCoordinator?.objectID(for: key, in: store)
    }

    /// The registered object of a stored row, if any; registers nothing.
    func registeredObject(for key: StoreKey, in store: NSPersistentStore) -> NSManagedObject? {
        permanentObjects.object(for: PermanentKey(store: store, key: key))
    }

    /// Lets each fault among `objects` hold its row from the row cache, so that the cache
    /// keeps the row until the fault fires (see ``RowCache``).
    func holdCachedRows(of objects: some Sequence<NSManagedObject>) {
        var faultsByStore: [ObjectIdentifier: (store: NSPersistentStore, faults: [NSManagedObject], keys: [StoreKey])] = [:]
        for object in objects where object.state.isFault {
            guard let key = object.objectID.storeKey, let store = object.objectID.persistentStore else { continue }
            faultsByStore[ObjectIdentifier(store), default: (store, [], [])].faults.append(object)
            faultsByStore[ObjectIdentifier(store)]!.keys.append(key)
        }
        for (store, faults, keys) in faultsByStore.values {
            for (fault, row) in zip(faults, store.rowCache.rows(for: keys)) { fault.state.heldRow = row }
        }
    }

    /// Registers `object` under its new permanent ID (`temporaryEntryGone`: its temporary
    /// ID's entry was already removed, by ``forgetTemporaryObjects(ifExactly:)``).
    func register(_ object: NSManagedObject, permanentID id: NSManagedObjectID, temporaryEntryGone: Bool = false) {
        let previous = ObjectIdentifier(object.objectID)
        if !temporaryEntryGone { temporaryObjects[previous] = nil }
        if !idsFromChildren.isEmpty, let entry = idsFromChildren[previous] { idsFromChildren[previous] = (entry.temporary, id) }
        object.objectID = id
        if let key = id.storeKey, let store = id.persistentStore {
            permanentObjects.insert(object, for: PermanentKey(store: store, key: key), notifiesStore: store.isIncremental)
            store.contextDidRegister(id)
        }
    }

    /// Gives `object` its new permanent `id`, row `key` of `store` (not an incremental
    /// store), as ``register(_:permanentID:temporaryEntryGone:)`` does, except that the
    /// registry entry is appended to `entries`: ``registerEntries(_:)`` then registers many
    /// objects in one hold of the registry's lock.
    func adoptPermanentID(_ id: NSManagedObjectID, key: StoreKey, of object: NSManagedObject, in store: NSPersistentStore,
                          temporaryEntryGone: Bool, entries: inout [(object: NSManagedObject, key: PermanentKey)]) {
        let previous = ObjectIdentifier(object.objectID)
        if !temporaryEntryGone { temporaryObjects[previous] = nil }
        if !idsFromChildren.isEmpty, let entry = idsFromChildren[previous] { idsFromChildren[previous] = (entry.temporary, id) }
        object.objectID = id
        entries.append((object, PermanentKey(store: store, key: key)))
    }

    /// Registers the entries ``adoptPermanentID(_:key:of:in:temporaryEntryGone:entries:)`` collected.
    func registerEntries(_ entries: [(object: NSManagedObject, key: PermanentKey)]) {
        permanentObjects.insert(entries)
    }

    /// Empties the table of temporary objects when it holds exactly the objects with a
    /// temporary ID among the written rows' objects, which a save is about to give
    /// permanent IDs (all of them, then): one step instead of one removal per object.
    /// Returns whether it did.
    func forgetTemporaryObjects(ifExactlyThoseOf written: [(store: NSPersistentStore, rows: [(NSManagedObject, StoreRow)])]) -> Bool {
        var count = 0
        var listedInOrder = true
        var cursor = 0
        for (_, rows) in written {
            rows.forEachBorrowedPair { object, _ in
                guard object.objectID.isTemporaryID else { return }
                if listedInOrder { listedInOrder = temporaryObjects.lists(object, after: &cursor) }
                count += 1
            }
        }
        return temporaryObjects.removeAll(ifExactly: count, listedInOrder: listedInOrder)
    }

    /// Registers a fault for an object an ancestor context knows by its temporary ID.
    func registerFault(temporary id: NSManagedObjectID) -> NSManagedObject {
        let object = NSManagedObject.makeFault(of: id.entity, id: id, context: self)
        temporaryObjects[ObjectIdentifier(id)] = object
        return object
    }

    /// Puts back, as an inserted object, one that left the context: an unsaved object that
    /// was deleted, or a saved one whose deletion was saved. For undo and redo, so
    /// `awakeFromInsert()` is not called again.
    func reinsert(_ object: NSManagedObject) {
        object.state.isDeleted = false
        object.state.isInserted = true
        object.managedObjectContext = self
        object.state.checksQueue = checksQueue
        if object.objectID.isTemporaryID {
            temporaryObjects[ObjectIdentifier(object.objectID)] = object
        } else {
            register(object, permanentID: object.objectID)
        }
        inserted.append(object)
        noteEventInsertion(of: object)
    }

    /// Removes `object` from the context's registry and detaches it.
    func forget(_ object: NSManagedObject) {
        if object.registration != nil {
            permanentObjects.remove(object)
            object.objectID.persistentStore?.contextDidUnregister(object.objectID)
        } else {
            temporaryObjects.remove(object.objectID)
        }
        object.managedObjectContext = nil
    }

    /// Removes `objects` from the context's registry and detaches them, as ``forget(_:)``
    /// does one by one, with one hold of the registry's lock for all of them.
    ///
    /// One pass over the objects (a save's deletions, cold in memory by now): a store is told
    /// only when the registration says it listens (an incremental store), after the registry
    /// let go of them all, as before; reading every object's store out of its ID's handle
    /// took a lock, a retain and a release each.
    func forget(_ objects: [NSManagedObject]) {
        var unregistered: [NSManagedObject] = []
        permanentObjects.remove(objects) { object, registered, notifiesStore in
            if registered {
                if notifiesStore { unregistered.append(object) }
            } else {
                temporaryObjects.remove(object.objectID)
            }
            object.managedObjectContext = nil
        }
        for object in unregistered { object.objectID.persistentStore?.contextDidUnregister(object.objectID) }
    }

    /// Forgets every object. Each one drops its values, as Core Data's objects do after a
    /// reset: related objects hold each other (a trail its hikes, each hike its trail), and
    /// without this the cycles would keep every object, and the rows they hold in the row
    /// cache, alive for as long as the program runs.
    func forgetAll() {
        var unregistered: [ObjectIdentifier: (store: NSPersistentStore, ids: [NSManagedObjectID])] = [:]
        for object in registeredObjects {
            object.managedObjectContext = nil
            if let store = object.objectID.persistentStore, store.isIncremental, !object.objectID.isTemporaryID {
                unregistered[ObjectIdentifier(store), default: (store, [])].ids.append(object.objectID)
            }
            object.state.values.removeAll()
            object.state.loadedRelationships = SlotSet()
            object.state.snapshot = nil
            object.state.heldRow = nil
            object.state.fetchBatch = nil
            object.state.isFault = true
        }
        for (store, ids) in unregistered.values { store.contextDidUnregister(ids) }
        permanentObjects.removeAll()
        temporaryObjects.removeAll()
        inserted = ObjectList(); updated = ObjectList(); deleted = ObjectList(); deletionsToProcess = ObjectList(); unsavedDeletions = ObjectList()
        event.deleted.forEachBorrowed { $0.state.isEventDeletion = false }
        event = ChangeEvent()
        eventNumber += 1
    }

    /// Called when a property of `object` first changes after a save or fetch (as its
    /// `isUpdated` turns true).
    func objectDidChange(_ object: NSManagedObject) {
        guard !object.state.isInserted, !object.state.isDeleted else { return }
        // Not in the list: every path that clears `isUpdated` takes the object out of it (or
        // empties it). No look-up: a cascade updates every object it deletes, and deleting
        // them in the order they changed takes each from the front (see ObjectList.remove).
        assert(!updated.contains(object), "an object not updated is in the updated list")
        updated.appendNew(object)
    }

    /// Loads a fault's values: from the row cache when it has them, else from the store.
    func fulfillFault(_ object: NSManagedObject) {
        checkQueue()
        if parent != nil {
            fulfillFaultFromParent(object)
            return
        }
        readingQueryGeneration { fulfillFaultFromStore(object) }
    }

    private func fulfillFaultFromStore(_ object: NSManagedObject) {
        guard let key = object.objectID.storeKey, let store = object.objectID.persistentStore else {
            object.state.isFault = false
            return
        }
        var row = store.rowCache.currentRow(holding: object.state.heldRow, for: key)
        if let cached = row, isStale(cached) { row = nil }
        if row == nil, object.state.fetchBatch != nil { row = loadFetchBatch(of: object, key: key, store: store) }
        if row == nil, let fetched = readingStore(for: object.objectID, { try storedRow(for: key, in: store) }) {
            row = store.rowCache.store(fetched)
        }
        guard let row else {
            markInaccessible(object)
            return
        }
        fire(object, with: row)
    }

    /// Turns the fault `object` into an object with the values of `row`, the cache's
    /// current row for it.
    private func fire(_ object: NSManagedObject, with row: StoreRow) {
        object.state.snapshot = row
        object.state.heldRow = nil
        object.state.values = row.attributes
        object.state.loadedRelationships = SlotSet()
        object.relationshipsWereReset()
        object.state.isFault = false
        object.state.isChangingFaultState = true
        object.awakeFromFetch()
        object.state.isChangingFaultState = false
    }

    /// A fault whose data is gone: stops the program, or (by default) makes the object
    /// read as deleted.
    func markInaccessible(_ object: NSManagedObject) {
        guard shouldDeleteInaccessibleFaults else {
            raiseCoreDataException(.objectInaccessible, "CoreData could not fulfill a fault for '\(object.objectID)'")
        }
        // As Core Data does: every value reads as nil or 0, and the object joins the
        // deleted objects, exempt from validation, discarded at the next save.
        object.state.isFault = false
        object.state.isInaccessible = true
        object.state.isDeleted = true
        object.state.values.removeAll()
        for relationship in object.entity.propertyTable.relationships { object.state.noteLoaded(relationship) }
        object.relationshipsWereReset()
        updated.remove(object)
        deleted.append(object)
    }

    /// The stored value of a relationship of `object`: the related object for a to-one,
    /// a `Set` or `NSOrderedSet` for a to-many.
    func loadRelationship(_ relationship: NSRelationshipDescription, of object: NSManagedObject) -> Any? {
        if parent != nil { return loadRelationshipFromParent(relationship, of: object) }
        return readingQueryGeneration { loadRelationshipFromStore(relationship, of: object) }
    }

    private func loadRelationshipFromStore(_ relationship: NSRelationshipDescription, of object: NSManagedObject) -> Any? {
        guard let key = object.objectID.storeKey, let store = object.objectID.persistentStore else {
            return object.emptyValue(for: relationship)
        }
        if !relationship.isToMany {
            guard let destinationKey = object.state.snapshot?.toOne[relationship.name] else { return nil }
            let destination = self.object(for: destinationKey, in: store)
            // A fault made here holds the row prefetching may have cached for it.
            holdCachedRows(of: [destination])
            return destination
        }
        if let rows = readingStore(for: object.objectID, {
            try storeCoordinator(of: store).destinationRows(of: relationship, from: key, in: store, context: self)
        }) {
            // One statement, as Core Data fires a to-many fault: the members' rows, cached
            // and held by the members, which stay faults until touched.
            permanentObjects.reserveCapacity(additional: rows.count, in: store)
            let members = store.rowCache.store(rows).map { row in
                let member = self.object(for: row.key, in: store)
                if member.state.isFault { member.state.heldRow = row }
                return member
            }
            return relationship.isOrdered ? NSOrderedSet(array: members) : Set(members)
        }
        let keys = readingStore(for: object.objectID) {
            try storeCoordinator(of: store).destinationKeys(of: relationship, from: key, in: store, context: self)
        }
        let members = keys.map { self.object(for: $0, in: store) }
        // The members stay faults, but their rows are read now, a few hundred per query,
        // so that walking the relationship does not cost one query per object.
        prefetchFaults(members)
        return relationship.isOrdered ? NSOrderedSet(array: members) : Set(members)
    }
}

/// Identifies a permanent object in a context: its store and row.
struct PermanentKey: Hashable {
    let store: ObjectIdentifier
    let key: StoreKey
    init(store: NSPersistentStore, key: StoreKey) {
        self.store = ObjectIdentifier(store)
        self.key = key
    }
}

extension NSManagedObjectID {
    /// An ID for a row whose coordinator is gone (its entity taken from the store).
    static func orphan(key: StoreKey, store: NSPersistentStore) -> NSManagedObjectID? {
        store.engine.entity(forNumber: key.entityNumber).map { NSManagedObjectID(store: store, key: key, entity: $0) }
    }
}
