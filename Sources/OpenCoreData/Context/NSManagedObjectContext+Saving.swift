import Foundation

extension NSManagedObjectContext {
    /// Writes every insert, change and deletion to the persistent stores.
    ///
    /// First the delete rules run and each changed object's ``NSManagedObject/willSave()``
    /// is called; then every object is validated. If any rule is broken, nothing is
    /// written and the error is thrown: one validation error as it is, several as
    /// ``NSValidationMultipleErrorsError`` (1560) listing them under `NSDetailedErrors`.
    /// Each store is written in one transaction: all of it or none of it. A context without
    /// changes returns at once.
    ///
    /// ```swift
    /// trail.rating = 6   // the model allows 0...5
    /// do {
    ///     try context.save()
    /// } catch let error as NSError where error.code == NSValidationNumberTooLargeError {
    ///     print(error.localizedDescription)   // rating is too large.
    ///     context.rollback()
    /// }
    /// ```
    ///
    /// - Throws: an `NSError` in `NSCocoaErrorDomain`: a validation code (1550–1690,
    ///   such as ``NSValidationMissingMandatoryPropertyError``) or
    ///   ``NSValidationMultipleErrorsError`` with the object, key and value in `userInfo`;
    ///   ``NSManagedObjectMergeError`` when a changed object was changed in the store since
    ///   it was fetched; ``NSPersistentStoreSaveError`` when the coordinator has no stores;
    ///   ``NSSQLiteError`` when SQLite fails (its code under ``NSSQLiteErrorDomain``). The
    ///   context keeps its changes after a failed save.
    public func save() throws {
        checkQueue()
        if isSaving { throw recursiveSaveError() }
        guard hasChanges else { return }
        isSaving = true
        // Cleared before the did-save notification (where saving again is allowed), or here
        // when the save fails.
        defer {
            isSaving = false
            reportedChangeSets = ReportedChangeSets()
        }
        processPendingChanges()
        NotificationCenter.default.post(name: .NSManagedObjectContextWillSave, object: self)
        callWillSaveUntilClean()
        try validatePendingChanges()
        if let parent {
            try save(into: parent)
            return
        }
        guard let coordinator = persistentStoreCoordinator, !coordinator.persistentStores.isEmpty else {
            throw coreDataError(NSPersistentStoreSaveError, userInfo: [
                NSLocalizedDescriptionKey: "This NSPersistentStoreCoordinator has no persistent stores. It cannot perform a save operation."
            ])
        }
        let plan = try SavePlan(context: self, coordinator: coordinator)
        try HistoryOrigin.recording(for: self) { try plan.write() }
        advanceQueryGenerationIfPinned()
        finishSave(plan)
    }

    /// Calls ``NSManagedObject/willSave()`` on every object the save writes, then again on
    /// the objects a round of calls changed, inserted or deleted, until a round changes
    /// nothing: Apple's documentation of `willSave` says a change made there through the
    /// accessors makes Core Data "invoke willSave again before saving", and that code that
    /// keeps changing a value goes on "until your program crashes". Core Data gives up
    /// after 1,000 rounds with an exception (decompiled `-[NSManagedObjectContext
    /// _prepareForPushChanges:]`, iOS 26), as here.
    private func callWillSaveUntilClean() {
        // The first round walks copies of the lists in place rather than an array of them.
        let firstRound = [inserted, updated, deleted]
        var objects: [NSManagedObject] = []
        var called = Set<ObjectIdentifier>()  // filled only once a round changed something (rare)
        for round in 1... {
            if round == 1 {
                for list in firstRound { list.forEachBorrowed { $0.willSave() } }
            } else {
                for object in objects { object.willSave() }
            }
            guard !event.isEmpty else { return }
            if round == 1 {
                for list in firstRound { list.forEachBorrowed { _ = called.insert(ObjectIdentifier($0)) } }
            }
            // Next: the objects the round changed, inserted or deleted, and any other the
            // save now writes (a deletion's cascade, which processPendingChanges applies).
            var next = (event.inserted.objects + event.updated.objects + event.deleted.objects)
            processPendingChanges()
            next += (inserted.objects + updated.objects + deleted.objects).filter { !called.contains(ObjectIdentifier($0)) }
            var seen = Set<ObjectIdentifier>()
            objects = next.filter { object in
                (object.state.isInserted || object.state.isUpdated || object.state.isDeleted)
                    && seen.insert(ObjectIdentifier(object)).inserted
            }
            for object in objects { called.insert(ObjectIdentifier(object)) }
            if round == 1000 {
                raiseCoreDataException(.internalInconsistency, "Failed to process pending changes before save.  The context is still dirty after 1000 attempts.  Typically this recursive dirtying is caused by a bad validation method, -willSave, or notification handler.")
            }
        }
    }

    /// Core Data's error for `save()` called while the same context is saving (from
    /// `willSave()`, a validation method or the will-save notification): code 132001, with
    /// the message and the call stack in `userInfo` (decompiled `-[NSManagedObjectContext
    /// save:]`, iOS 26). Nothing is saved by the inner call; the outer save goes on.
    private func recursiveSaveError() -> NSError {
        NSError(domain: NSCocoaErrorDomain, code: 132001, userInfo: [
            "message": "attempt to recursively call -save: on the context aborted",
            "stack trace": Thread.callStackSymbols,
        ])
    }

    /// Gives the objects permanent IDs now, before they are saved.
    ///
    /// In a child context an object its parent already saved takes the permanent ID the
    /// parent gave it; the others get new ones, and every ancestor that knows the object
    /// by its temporary ID moves it to the permanent one too. Objects of other contexts and
    /// deleted objects keep their IDs; a context with neither coordinator nor parent raises
    /// `NSInternalInconsistencyException`, as Core Data's does (decompiled, iOS 26).
    public func obtainPermanentIDs(for objects: [NSManagedObject]) throws {
        guard let coordinator = persistentStoreCoordinator else {
            raiseCoreDataException(.internalInconsistency,
                                   "Context does not have a coordinator;  cannot obtain permenant ids without a coordinator.")
        }
        var temporary = objects.filter { $0.objectID.isTemporaryID && $0.managedObjectContext === self && !$0.state.isDeleted }
        if parent != nil {
            temporary = temporary.filter { object in
                guard let known = permanentIDInAncestors(of: object.objectID) else { return true }
                register(object, permanentID: known)
                return false
            }
        }
        for (store, members) in try SavePlan.group(temporary, coordinator: coordinator) {
            try adoptPermanentIDs(for: members, from: store)
        }
    }

    /// The relationship delete rules of `object` (its `prepareForDeletion` ran when it was
    /// deleted).
    ///
    /// Nullify and cascade tear the relationship down on both sides: the deleted object
    /// lets go of its destinations and each destination drops the deleted object from its
    /// inverse. Cascade then deletes the destinations (once each, so cycles end). Deny and
    /// no action leave both sides as they are: deny fails the save while the relationship
    /// holds objects, and no action leaves the destinations pointing at the deleted object.
    func applyDeleteRules(to object: NSManagedObject) {
        // Walked borrowed (a cascade applies the rules of every object it deletes): the
        // local array keeps the relationships, and `members` keeps the members, alive
        // while the rules release them from the relationship.
        let relationships = object.entity.propertyTable.relationships
        relationships.forEachBorrowed { relationship in
            let cascades: Bool
            switch relationship.deleteRule {
            case .nullifyDeleteRule: cascades = false
            case .cascadeDeleteRule: cascades = true
            case .denyDeleteRule, .noActionDeleteRule: return
            }
            if !relationship.isToMany {
                // A to-one: its one destination, without an array for it.
                guard let member = object.relationshipValue(for: relationship) as? NSManagedObject else { return }
                if member.state.isFault, member.state.heldRow == nil { prefetchFaults([member]) }
                object.releaseMembers(of: relationship, in: self)
                if member !== object, let inverse = relationship.inverseRelationship {
                    member.inverseDidLose(object, inverse: inverse, in: self)
                }
                if cascades, !member.state.isDeleted { delete(member) }
                return
            }
            let members = object.members(of: relationship)
            guard !members.isEmpty else { return }
            prefetchFaults(members)
            object.releaseMembers(of: relationship, in: self)
            // The inverse read once for all the members (see inverseDidLose(_:inverse:in:)).
            if let inverse = relationship.inverseRelationship {
                members.forEachBorrowed { member in
                    if member !== object { member.inverseDidLose(object, inverse: inverse, in: self) }
                }
            }
            if cascades {
                members.forEachBorrowed { member in
                    if !member.state.isDeleted { delete(member) }
                }
            }
        }
    }

    /// Loads the rows of the faults among `objects` in a few batched queries, so that
    /// touching each of them afterwards costs no query of its own.
    ///
    /// Each fault then holds its row (see ``RowCache``): the row the cache already had,
    /// found by the one look-up that decides what to read, or the cache's row for what the
    /// query returned, without looking every key up a second time.
    func prefetchFaults(_ objects: [NSManagedObject]) {
        // A child's faults load through its parent, not from the stores.
        guard parent == nil else { return }
        // Faults that already hold their row (read with it, as the delete rules' loading
        // reads a to-many's members) need no look-up: in a cascade, nearly all of them.
        let faults = objects.filter { $0.state.isFault && $0.state.heldRow == nil }
        guard faults.count > 1 else {
            holdCachedRows(of: faults)
            return
        }
        // Stores are few: a short list, not a table keyed by store, groups the faults.
        var groups: [(store: NSPersistentStore, faults: [NSManagedObject], keys: [StoreKey])] = []
        for object in faults {
            guard let key = object.objectID.storeKey, let store = object.objectID.persistentStore else { continue }
            if let index = groups.firstIndex(where: { $0.store === store }) {
                groups[index].faults.append(object)
                groups[index].keys.append(key)
            } else {
                groups.append((store, [object], [key]))
            }
        }
        for (store, faults, keys) in groups {
            var rows = store.rowCache.rows(for: keys)
            let missing = rows.indices.filter { rows[$0] == nil }
            if missing.count > 1, let fetched = try? storedRows(for: missing.map { keys[$0] }, in: store) {
                let cached = store.rowCache.store(fetched)
                let cachedByKey = Dictionary(cached.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
                for index in missing { rows[index] = cachedByKey[keys[index]] }
            }
            for (fault, row) in zip(faults, rows) { fault.state.heldRow = row }
        }
    }

    /// Validates inserted, updated and deleted objects, throwing every error found.
    func validatePendingChanges() throws {
        var errors: [NSError] = []
        func collect(_ check: () throws -> Void) {
            do { try check() } catch let error as NSError { errors.append(error) }
        }
        // Copies of the lists, walked in place: a validation method may change objects.
        let inserted = self.inserted, updated = self.updated, deleted = self.deleted
        inserted.forEachBorrowed { collect($0.validateForInsert) }
        updated.forEachBorrowed { collect($0.validateForUpdate) }
        deleted.forEachBorrowed { collect($0.validateForDelete) }
        if let error = combinedValidationError(errors) { throw error }
    }

    /// Brings objects, registry, row caches and observers up to date after a successful write.
    private func finishSave(_ plan: SavePlan) {
        isSaving = false  // the save is written: its did-save observers may save again
        // The save's objects-did-change notification usually reported the same inserted and
        // deleted objects in the same order: its arrays are taken rather than copies of the
        // lists (a retain of each object, cold in memory by now, and a release of each).
        let insertedNow = reportedChangeSets.objects(sameAs: inserted, as: NSInsertedObjectsKey) ?? inserted.objects
        let updatedNow = plan.updatedObjects
        let deletedNow = reportedChangeSets.objects(sameAs: deleted, as: NSDeletedObjectsKey) ?? deleted.objects
        // Every written object with a temporary ID is in the context's table of temporary
        // objects: when the counts agree, that table holds nothing else and empties at once.
        let temporaryEntriesGone = forgetTemporaryObjects(ifExactlyThoseOf: plan.writtenRows)
        for (store, rows) in plan.writtenRows {
            guard !store.isIncremental else {
                // An incremental store hears of each registration as it happens, so every
                // object is registered before any takes its saved state.
                var newIDs: [(object: NSManagedObject, id: NSManagedObjectID)] = []
                for (object, row) in rows where object.objectID.isTemporaryID {
                    newIDs.append((object, NSManagedObjectID(store: store, key: row.key, entity: object.entity)))
                }
                reserveRegistryCapacity(additional: newIDs.count, in: store)
                for (object, id) in newIDs { register(object, permanentID: id, temporaryEntryGone: temporaryEntriesGone) }
                for (object, row) in rows { object.adoptSavedRow(row) }
                continue
            }
            // One pass over the written objects: each takes its permanent ID (when its ID was
            // temporary) and its saved state, and the registry entries go in together after
            // it. A pass per step touched each of 100,000 objects, cold in memory by now,
            // three times, with an array of the new IDs between.
            var entries: [(object: NSManagedObject, key: PermanentKey)] = []
            entries.reserveCapacity(rows.count)
            rows.forEachBorrowedPair { object, row in
                if object.objectID.isTemporaryID {
                    let id = NSManagedObjectID(store: store, key: row.key, entity: object.entity)
                    adoptPermanentID(id, key: row.key, of: object, in: store, temporaryEntryGone: temporaryEntriesGone, entries: &entries)
                }
                object.adoptSavedRow(row)
            }
            reserveRegistryCapacity(additional: entries.count, in: store)
            registerEntries(entries)
        }
        // Derived values the store computed during the save reach the objects holding them.
        for (store, row) in plan.derivedRows {
            guard let object = registeredObject(for: row.key, in: store), !object.state.isFault, !object.state.isDeleted else { continue }
            object.adoptDerivedValues(from: row)
        }
        // Objects that changed only transient properties: nothing was written, nothing is
        // pending. (Written rows' objects were cleared above, so usually none is left to look up.)
        var unwritten: [NSManagedObject] = []
        updated.forEach { if $0.state.isUpdated || !$0.state.changedSlots.isEmpty { unwritten.append($0) } }
        if !unwritten.isEmpty {
            let written = Set(plan.updatedObjects.map(ObjectIdentifier.init))
            for object in unwritten where !written.contains(ObjectIdentifier(object)) {
                object.state.isUpdated = false
                object.state.changedSlots.removeAll()
            }
        }
        // The deleted rows leave each store's row cache, and the objects the registry, in one
        // hold of each lock rather than one per object. Stores are few: a short list.
        var deletedKeys: [(store: NSPersistentStore, keys: [StoreKey])] = []
        // The did-save notification's set of deleted IDs is made in the same pass: the
        // objects and their IDs, cold in memory by now (100,000 of them in a large cascade),
        // were read again by a pass of its own.
        var deletedIDs = Set<NSManagedObjectID>(minimumCapacity: Set<NSManagedObjectID>.roomyCapacity(for: deletedNow.count))
        // The store of the last key, by its handle: the store read out of each ID's handle
        // took a lock, a retain and a release per object.
        var lastStore: (handle: ObjectIdentifier, index: Int)?
        // Borrowed (the local array keeps the objects alive), and each ID read out once, a
        // run of objects ahead of the set's retains (see forEachBorrowedReadingAhead).
        deletedNow.forEachBorrowedReadingAhead(read: { object in
            object.state.isDeleted = false
            let id = object.objectID
            return (id: Unmanaged.passUnretained(id), key: id.storeKey, handle: id.storeHandleIdentity)
        }, act: { _, read in
            // Borrowed: the object holds its ID.
            read.id._withUnsafeGuaranteedRef { _ = deletedIDs.update(with: $0) }  // see Set.init(roomy:)
            guard let key = read.key, let handle = read.handle else { return }
            if let lastStore, lastStore.handle == handle {
                deletedKeys[lastStore.index].keys.append(key)
                return
            }
            guard let store = read.id._withUnsafeGuaranteedRef({ $0.persistentStore }) else { return }
            if let index = deletedKeys.firstIndex(where: { $0.store === store }) {
                deletedKeys[index].keys.append(key)
                lastStore = (handle, index)
            } else {
                deletedKeys.append((store, [key]))
                lastStore = (handle, deletedKeys.count - 1)
            }
        })
        for (store, keys) in deletedKeys { store.rowCache.remove(keys) }
        forget(deletedNow)
        inserted = ObjectList(); updated = ObjectList(); deleted = ObjectList()
        postDidSaveNotifications(inserted: insertedNow, updated: updatedNow, deleted: deletedNow, deletedIDs: deletedIDs)
        for objects in [insertedNow, updatedNow, deletedNow] {
            objects.forEachBorrowed { $0.didSave() }
        }
    }
}

extension NSManagedObject {
    /// Takes `row`, just written, as the saved state: nothing is inserted, updated or
    /// changed any more.
    func adoptSavedRow(_ row: StoreRow) {
        state.snapshot = row
        state.isInserted = false
        state.isUpdated = false
        state.changedSlots.removeAll()
    }

    /// Takes `row` as the saved state and the derived attributes' values from it (the
    /// store computed them); other values are the ones just saved.
    func adoptDerivedValues(from row: StoreRow) {
        let table = entity.propertyTable
        state.snapshot = row
        for (slot, property) in table.all.enumerated() where property is NSDerivedAttributeDescription && !state.changedSlots.contains(slot) {
            state.values[slot] = row.attributes[slot]
        }
    }

    /// The object lets go of the destinations of `relationship` (nil or empty), as the
    /// delete rules tear it down: a deleted object's side, or a to-one inverse's.
    /// `context` is the object's own (the one applying the rules): passed in, it is not
    /// looked up in the object's handle (a lock, a retain and a release) for each step.
    func releaseMembers(of relationship: NSRelationshipDescription, in context: NSManagedObjectContext) {
        let key = relationship.name
        willChangeValue(forKey: key)
        guard let slot = state.values.table.slot(of: relationship) else {
            preconditionFailure("the entity has no property '\(key)'")
        }
        // What willMutate(slot:) does, with the context at hand.
        if !state.isEventInsertion { context.noteEventChange(of: self, slot: slot) }
        state.values[slot] = relationship.isToMany ? emptyValue(for: relationship) : nil
        state.loadedRelationships.insert(slot)
        // What noteChange(forKey:) does (the old value is kept just above).
        if state.lastChangedSlot != slot || !state.changedSlots.contains(slot) { noteChange(slot: slot) }
        relationshipStorageDidChange(key)
        didChangeValue(forKey: key)
    }
}
