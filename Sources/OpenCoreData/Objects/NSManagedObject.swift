import Foundation

/// A result a fetch request can return: managed objects, object IDs, dictionaries or counts.
public protocol NSFetchRequestResult: AnyObject {}

extension NSNumber: NSFetchRequestResult {}
extension NSDictionary: NSFetchRequestResult {}
extension NSManagedObjectID: NSFetchRequestResult {}

/// The base class of every object Core Data manages: its values are stored in the
/// context's persistent stores, its changes are tracked, and it is loaded lazily.
///
/// Use it directly with `value(forKey:)` and `setValue(_:forKey:)`, or subclass it with
/// `@Managed` properties:
///
/// ```swift
/// final class Trail: NSManagedObject {
///     @Managed var name: String?
///     @Managed var rating: Double
/// }
/// ```
open class NSManagedObject: NSObject, NSFetchRequestResult, KeyValueCoding {
    /// The entity the object is an instance of.
    public let entity: NSEntityDescription
    /// The context the object lives in; `nil` once it is deleted and saved, or before it is
    /// inserted, and once the context is gone.
    ///
    /// Not retained, as in Core Data (an `assign` property there): held through the
    /// context's ``TargetHandle``, not weakly, so the context has no side table.
    public internal(set) var managedObjectContext: NSManagedObjectContext? {
        get { contextHandle?.target }
        set { contextHandle = newValue?.handle }
    }
    /// The handle of the context the object lives in.
    /// (Spelled `Optional`, so that it has no implicit `nil` to start from: the initializer
    /// sets it, a fault's to its context's handle, with no `nil` to release first.)
    var contextHandle: Optional<TargetHandle<NSManagedObjectContext>>
    /// The object's identity: temporary until the object is saved, then permanent.
    /// Not checked for overlapping access at run time (a check at each fault made), as
    /// ``state``: only the owning context's queue sets it.
    @exclusivity(unchecked) public internal(set) var objectID: NSManagedObjectID
    /// Values, snapshot and change flags. Only the owning context's queue touches it.
    ///
    /// Not checked for overlapping access at run time: every value set and read goes through
    /// it, and the checks (a thread-local access set per mutation) were a tenth of the
    /// CPU time of inserting 100,000 objects. Only the owning context's queue touches it.
    @exclusivity(unchecked) var state: ManagedObjectState
    /// The context registry entry that names this object, removed as the object is freed.
    /// (Not checked for overlapping access at run time, as `objectID`.)
    @exclusivity(unchecked) var registration: Registration?

    /// Creates an object of `entity` and, when `context` is given, inserts it there.
    ///
    /// Default values from the model are set, then ``awakeFromInsert()`` runs once the
    /// object is in a context.
    public required init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        // A fault being made gets its permanent ID and its context here, not a temporary ID
        // to replace, and no values: the model's defaults, which it would drop at once, cost
        // a retain and a release. (Faults are made without a context: an object inserted at
        // once asks for none.)
        if context == nil, let fault = FaultIDHandoff.take(for: Self.self, entity: entity) {
            self.objectID = fault.id.takeUnretainedValue()
            self.contextHandle = fault.contextHandle.takeUnretainedValue()
            state = ManagedObjectState(values: PropertyValues(table: entity.propertyTable))
        } else {
            self.objectID = NSManagedObjectID(temporaryFor: entity)
            self.contextHandle = nil
            state = ManagedObjectState(values: entity.propertyTable.defaultValues)
        }
        // Last, so that the entity the initializer was handed moves in rather than being
        // retained here and released on return.
        self.entity = entity
        super.init()
        if let context { context.insert(self) }
    }

    /// Creates an object of the entity whose class is this class and inserts it into `context`.
    ///
    /// Stops the program when the context's model has no entity for the class, as Core Data does.
    ///
    /// ```swift
    /// let trail = Trail(context: context)   // inserted: saved by the next save()
    /// trail.name = "Laugavegur"
    /// try context.save()
    /// ```
    ///
    /// - Parameter context: the context the new object belongs to.
    public convenience init(context: NSManagedObjectContext) {
        guard let model = context.persistentStoreCoordinator?.managedObjectModel,
            let entity = ManagedObjectClasses.entity(for: Self.self, in: model)
        else {
            raiseCoreDataException(.invalidArgument, "An NSManagedObject of class '\(ManagedObjectClasses.className(of: Self.self))' must have a valid NSEntityDescription.")
        }
        self.init(entity: entity, insertInto: context)
    }

    deinit {
        // Unowned entries must go before the memory does (see ObjectRegistry).
        guard registration != nil else { return }
        // Read in place rather than copied out (a retain and a release of the registry per
        // object freed): the object's own field holds the registry until the object's
        // memory goes, after this body, and nothing here sets the field.
        let key = registration.unsafelyUnwrapped.key
        Unmanaged.passUnretained(registration.unsafelyUnwrapped.registry)._withUnsafeGuaranteedRef {
            $0.removeEntry(key, ifItIs: Unmanaged.passUnretained(self))
        }
        // The context no longer uses the object: an incremental store is told so.
        if registration.unsafelyUnwrapped.notifiesStore { objectID.persistentStore?.contextDidUnregister(objectID) }
    }

    /// Makes an empty fault for a stored row, without defaults or insertion.
    static func makeFault(of entity: NSEntityDescription, id: NSManagedObjectID, context: NSManagedObjectContext) -> NSManagedObject {
        let type = ManagedObjectClasses.objectClass(for: entity)
        let object = FaultIDHandoff.initializing(id, context: context, as: type) { type.init(entity: entity, insertInto: nil) }
        // Set here only when the initializer did not take them (see FaultIDHandoff).
        if object.objectID !== id { object.objectID = id }
        if object.contextHandle !== context.handle { object.managedObjectContext = context }
        object.state.values.removeAll()
        object.state.isFault = true
        object.state.checksQueue = context.checksQueue
        return object
    }

    /// The entity of this class in the models loaded so far: what Xcode's generated code
    /// calls in `fetchRequest()`.
    open class func entity() -> NSEntityDescription {
        guard let entity = ManagedObjectClasses.entityInLoadedModels(for: self) else {
            raiseCoreDataException(.internalInconsistency, "+entity: \(ManagedObjectClasses.className(of: self)) is not a subclass of NSManagedObject with an entity in any loaded model.")
        }
        return entity
    }

    /// A fetch request for this class's entity.
    open class func fetchRequest() -> NSFetchRequest<NSFetchRequestResult> {
        NSFetchRequest<NSFetchRequestResult>(entityName: entity().name ?? ManagedObjectClasses.className(of: self))
    }

    // MARK: State

    /// Whether the object was inserted and not yet saved.
    public var isInserted: Bool { state.isInserted }
    /// Whether the object has unsaved changes to its properties.
    public var isUpdated: Bool { state.isUpdated && !state.isInserted && !state.isDeleted }
    /// Whether the object will be deleted at the next save.
    public var isDeleted: Bool { state.isDeleted }
    /// Whether the object's values are not loaded yet; touching a property loads them.
    public var isFault: Bool { state.isFault }
    /// Whether the object is inserted, updated or deleted and not yet saved.
    public var hasChanges: Bool { state.isInserted || state.isDeleted || state.isUpdated }
    /// Whether any persistent property differs from its saved value.
    public var hasPersistentChangedValues: Bool { !changedValues().isEmpty }

    /// The persistent properties whose values changed since the last save, with their new values.
    public func changedValues() -> [String: Any] {
        guard !state.isFault else { return [:] }
        var changes: [String: Any] = [:]
        let table = state.values.table  // the table the change bits refer to
        for slot in state.changedSlots {
            let property = table.all[slot]
            guard !property.isTransient else { continue }
            if state.isInserted || !valueEquals(committedValue(forKey: property.name), state.values[slot]) {
                changes[property.name] = publicValue(state.values[slot], for: property) ?? NSNull()
            }
        }
        return changes
    }

    /// The persistent properties changed since the last objects-did-change notification
    /// (the current event), with the values they had before: unlike ``changedValues()``,
    /// the *old* values. Empty for an object inserted in the current event.
    public func changedValuesForCurrentEvent() -> [String: Any] { currentEventChanges() }

    /// The IDs of the objects the relationship `key` holds, read without firing the
    /// relationship fault (no object is loaded or registered for them).
    public func objectIDs(forRelationshipNamed key: String) -> [NSManagedObjectID] { relationshipObjectIDs(forKey: key) }

    /// The last saved values of `keys` (all persistent properties when `nil`); `NSNull`
    /// stands for nil. Empty for an object that was never saved.
    public func committedValues(forKeys keys: [String]?) -> [String: Any] {
        guard !state.isInserted else { return [:] }
        fulfillFaultIfNeeded()
        let table = entity.propertyTable
        let names = keys ?? table.persistentNames
        var result: [String: Any] = [:]
        for key in names {
            guard let property = table.byName[key], !property.isTransient else { continue }
            result[key] = publicValue(committedValue(forKey: key), for: property) ?? NSNull()
        }
        return result
    }

    // MARK: Key-value coding (open here so subclasses can override; see +Values)

    /// The value of the property `key`, loading the object first when it is a fault.
    ///
    /// Numbers and Booleans come back as `NSNumber` (cast them with `as? Double`, `as? Int`,
    /// …), decimals as `NSDecimalNumber`, to-one relationships as the related object and
    /// to-many ones as a `Set` (or `NSOrderedSet` when ordered). Stops the program for a key
    /// the entity does not have, as Core Data does.
    open func value(forKey key: String) -> Any? { kvcValue(forKey: key) }

    /// Sets the property `key`, recording the change for the next save and keeping the
    /// inverse of a relationship in step.
    ///
    /// Numbers of any type are accepted for numeric attributes; a value of the wrong kind
    /// (a string for a number, say) stops the program with Core Data's message.
    ///
    /// (The value is taken, not borrowed: one of the attribute's own type moves into the
    /// object rather than being copied, a retain for a string, while the caller frees its own.)
    open func setValue(_ value: consuming Any?, forKey key: String) { kvcSetValue(value, forKey: key) }

    /// Follows a dotted key path (`"trail.region"`) through to-one relationships, mapping
    /// over to-many ones.
    open func value(forKeyPath keyPath: String) -> Any? { kvcValue(forKeyPath: keyPath) }

    /// A mutable set that stands for the to-many relationship `key`: adding and removing
    /// objects changes the relationship (and its inverse) at once, and reading it always
    /// shows the relationship's current members.
    ///
    /// ```swift
    /// trail.mutableSetValue(forKey: "hikes").add(hike)   // hike.trail is now trail
    /// ```
    ///
    /// Stops the program, as Core Data does, when `key` is not an unordered to-many
    /// relationship (use ``mutableOrderedSetValue(forKey:)`` for an ordered one).
    open func mutableSetValue(forKey key: String) -> NSMutableSet { relationshipMutableSet(forKey: key) }

    /// A mutable ordered set that stands for the ordered to-many relationship `key`:
    /// inserting, removing, replacing and moving objects changes the relationship (and the
    /// inverses) at once.
    ///
    /// ```swift
    /// trail.mutableOrderedSetValue(forKey: "waypoints").insert(summit, at: 0)
    /// ```
    ///
    /// Stops the program, as Core Data does, when `key` is not an ordered to-many relationship.
    open func mutableOrderedSetValue(forKey key: String) -> NSMutableOrderedSet { relationshipMutableOrderedSet(forKey: key) }

    /// The stored value of `key` without change or access notifications: what custom
    /// accessors read.
    ///
    /// Not overridable: its documentation says subclasses should not override it, and
    /// key-value coding here does not go back through it.
    public func primitiveValue(forKey key: String) -> Any? { storedPrimitiveValue(forKey: key) }

    /// Stores `value` for `key` without notifications: what custom setters write between
    /// `willChangeValue(forKey:)` and `didChangeValue(forKey:)`. The change is still saved.
    ///
    /// Not overridable, as its documentation asks (see ``primitiveValue(forKey:)``).
    public func setPrimitiveValue(_ value: Any?, forKey key: String) { storePrimitiveValue(value, forKey: key) }

    /// Announces a read of `key` (or of any property, with `nil`): loads a fault.
    open func willAccessValue(forKey key: String?) { fulfillFaultIfNeeded() }
    /// Ends a read started with ``willAccessValue(forKey:)``.
    open func didAccessValue(forKey key: String?) {}
    /// Announces a change of `key`: loads a fault so the old value is known.
    open func willChangeValue(forKey key: String) { fulfillFaultIfNeeded() }
    /// Ends a change started with ``willChangeValue(forKey:)``: records it for the next save,
    /// even when nothing was stored (the pair alone marks a modeled property changed).
    open func didChangeValue(forKey key: String) { noteChange(forKey: key) }
    /// Announces a change of the to-many relationship `key` by `mutationKind` with
    /// `objects`: what custom to-many accessors call before changing the primitive set.
    open func willChangeValue(forKey key: String, withSetMutation mutationKind: NSKeyValueSetMutationKind, using objects: Set<AnyHashable>) {
        willChangeSetMutation(forKey: key)
    }
    /// Ends a change announced with ``willChangeValue(forKey:withSetMutation:using:)``: the
    /// change is recorded, and the objects that joined or left the relationship have
    /// their inverse relationship updated.
    open func didChangeValue(forKey key: String, withSetMutation mutationKind: NSKeyValueSetMutationKind, using objects: Set<AnyHashable>) {
        didChangeSetMutation(forKey: key)
    }

    // MARK: Validation (implemented in +Validation)

    /// Checks `value` for the property `key` against the model's rules (mandatory, minimum
    /// and maximum, length, pattern, date range, relationship counts).
    ///
    /// Override it to add your own rules; call `super` to keep the model's, and throw an
    /// `NSError` to reject the value:
    ///
    /// ```swift
    /// override func validateValue(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>, forKey key: String) throws {
    ///     try super.validateValue(value, forKey: key)
    ///     if key == "name", (value.pointee as? String)?.hasPrefix(" ") == true { throw … }
    /// }
    /// ```
    open func validateValue(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>, forKey key: String) throws {
        try modelValidateValue(value, forKey: key)
    }

    /// Validates every property of a newly inserted object; runs at save.
    open func validateForInsert() throws { try validateAllProperties() }

    /// Validates every property of a changed object; runs at save.
    open func validateForUpdate() throws { try validateAllProperties() }

    /// Checks that the object may be deleted: a Deny rule refuses while its relationship
    /// holds objects (``NSValidationRelationshipDeniedDeleteError``).
    open func validateForDelete() throws { try validateDeleteRules() }

    // MARK: Lifecycle hooks

    /// Called once, when the object is first inserted into a context. Set initial values here.
    open func awakeFromInsert() {}
    /// Called when the object's values are loaded from the store.
    open func awakeFromFetch() {}
    /// Called before the object is saved (inserted, updated or deleted). Compute derived values here.
    open func willSave() {}
    /// Called after the object was saved.
    open func didSave() {}
    /// Called when the object is deleted, from inside `delete(_:)` (so before its delete
    /// rules run, while its relationships are intact).
    open func prepareForDeletion() {}
    /// Called before the object turns into a fault.
    open func willTurnIntoFault() {}
    /// Called after the object turned into a fault.
    open func didTurnIntoFault() {}

    // MARK: Description

    /// `<Trail: 0x…> (entity: Trail; id: 0x… <x-coredata://…/Trail/p1>; data: {…})`, with
    /// `data: <fault>` while the object is a fault.
    open override var description: String {
        let head = "<\(ManagedObjectClasses.className(of: type(of: self))): \(cocoaAddress(of: self))> (entity: \(entity.name ?? "(null)"); id: \(objectID); data: "
        guard !state.isFault else { return head + "<fault>)" }
        return head + cocoaPropertyListBody(descriptionPairs()) + ")"
    }

    open override var debugDescription: String { description }

    // MARK: Identity

    /// The object's address, as Apple's `NSObject` hashes an object that is equal only to
    /// itself (and Core Data asks subclasses not to override `hash` or `isEqual(_:)`).
    /// Foundation's `hash` on Linux hashes the identifier first, and every set or
    /// dictionary of objects (a save's notifications build one of 100,000 objects) then
    /// hashes that hash again.
    open override var hash: Int { Int(bitPattern: UInt(bitPattern: ObjectIdentifier(self))) }
}

/// The mutable state of a managed object.
struct ManagedObjectState {
    /// Current values of the properties that are loaded or set (attributes in their stored
    /// Swift type; to-one as the object; to-many as `Set` or `NSOrderedSet`).
    var values: PropertyValues
    /// The row last read or saved: the committed values.
    var snapshot: StoreRow?
    /// For a fault: the row it was fetched or prefetched with, held so that the row cache
    /// keeps it until the fault fires (which reads the cache's current row, then lets go).
    var heldRow: StoreRow?
    var isFault = false
    /// Set while the object turns into a fault or out of one (``NSManagedObject/faultingState``).
    var isChangingFaultState = false
    var isInserted = false
    var isDeleted = false
    var isUpdated = false
    /// The fault could not be fulfilled because the row is gone.
    var isInaccessible = false
    /// The object's store was removed: it is a fault that can never be fulfilled.
    var isInvalidated = false
    /// Whether its context runs the concurrency debug check, so that reading or setting a
    /// value checks the queue (kept here so that the check costs nothing when off).
    var checksQueue = false
    /// The properties set since the last save.
    var changedSlots = SlotSet()
    /// The slot most recently noted as changed, or -1.
    var lastChangedSlot = -1
    /// The slots of the relationships whose current value is in `values` (asked by
    /// relationship or name through `hasLoaded`, see LoadedRelationships.swift).
    var loadedRelationships = SlotSet()
    /// The rows fetched together with this fault's (`fetchBatchSize`): firing any of them
    /// loads the whole batch in one statement.
    var fetchBatch: FetchBatch?
    /// Live proxies from `mutableOrderedSetValue(forKey:)`, kept in step with `values`.
    var orderedProxies: [WeakOrderedProxy] {
        get { rarelyUsed?.orderedProxies ?? [] }
        _modify { yield &uniqueRarelyUsed().orderedProxies }
    }
    /// The context's event number when ``eventOldValues`` was started; older records are stale.
    var eventNumber = -1
    /// Whether the object was inserted in the event `eventNumber` names (its changes are
    /// then part of the insertion, not updates).
    var isEventInsertion = false
    /// Whether the object is in its context's current event's deleted list (kept beside
    /// the list so that the event's report asks no hash table about each updated object).
    var isEventDeletion = false
    /// The value each property had before its first change in the context's current
    /// event (by slot): `changedValuesForCurrentEvent()` and undo read it.
    var eventOldValues = EventOldValues()
    /// The members of a to-many relationship when `willChangeValue(forKey:withSetMutation:using:)`
    /// announced a change, by key, until the matching `didChangeValue`.
    var pendingSetMutations: [String: [NSManagedObject]] {
        get { rarelyUsed?.pendingSetMutations ?? [:] }
        _modify { yield &uniqueRarelyUsed().pendingSetMutations }
    }
    /// Whether any ordered-set proxy is live or not yet cleared (asked at every fault fired:
    /// `orderedProxies.isEmpty` made and freed an empty array when there is none).
    var hasOrderedProxies: Bool {
        guard let rarelyUsed else { return false }
        return !rarelyUsed.orderedProxies.isEmpty
    }
    /// The state few objects ever use, made on first use: `nil`, one release call as the
    /// object is freed, where an empty array and an empty dictionary held in place were two.
    private var rarelyUsed: RarelyUsedObjectState?

    init(values: PropertyValues) { self.values = values }

    /// `rarelyUsed`, made if need be, and copied first if another state shares it (so that
    /// the state stays a value).
    private mutating func uniqueRarelyUsed() -> RarelyUsedObjectState {
        if rarelyUsed == nil {
            rarelyUsed = RarelyUsedObjectState()
        } else if !isKnownUniquelyReferenced(&rarelyUsed) {
            rarelyUsed = rarelyUsed.unsafelyUnwrapped.copy()
        }
        return rarelyUsed.unsafelyUnwrapped
    }
}

/// The part of ``ManagedObjectState`` few objects use (see its properties of the same names).
final class RarelyUsedObjectState {
    var orderedProxies: [WeakOrderedProxy] = []
    /// (`Dictionary()`, not `[:]`: the literal calls `init(dictionaryLiteral:)`.)
    var pendingSetMutations = [String: [NSManagedObject]]()

    func copy() -> RarelyUsedObjectState {
        let copy = RarelyUsedObjectState()
        copy.orderedProxies = orderedProxies
        copy.pendingSetMutations = pendingSetMutations
        return copy
    }
}
