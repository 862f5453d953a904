import Foundation

/// The kinds of change to an unordered to-many relationship that
/// `willChangeValue(forKey:withSetMutation:using:)` announces. Raw values match Foundation's.
///
/// swift-corelibs-foundation does not declare key-value observing's set mutations, so the
/// library does.
public enum NSKeyValueSetMutationKind: UInt, Sendable {
    /// The objects are added (`NSKeyValueUnionSetMutation`).
    case union = 1
    /// The objects are removed (`NSKeyValueMinusSetMutation`).
    case minus = 2
    /// Only the objects also in the given set are kept (`NSKeyValueIntersectSetMutation`).
    case intersect = 3
    /// The relationship is replaced by the objects (`NSKeyValueSetSetMutation`).
    case set = 4
}

extension NSManagedObject {
    // MARK: The current event

    func currentEventChanges() -> [String: Any] {
        guard let context = managedObjectContext, state.eventNumber == context.eventNumber, !state.isEventInsertion else { return [:] }
        let table = state.values.table
        var changes: [String: Any] = [:]
        for (slot, old) in state.eventOldValues.all {
            let property = table.all[slot]
            guard !property.isTransient, !valueEquals(old, state.values[slot]) else { continue }
            changes[property.name] = publicValue(old, for: property) ?? NSNull()
        }
        return changes
    }

    // MARK: Relationship IDs

    func relationshipObjectIDs(forKey key: String) -> [NSManagedObjectID] {
        guard let relationship = entity.propertyTable.byName[key] as? NSRelationshipDescription else {
            raiseCoreDataException(.invalidArgument, "objectIDsForRelationshipNamed: \(key) is not a relationship of entity \(entity.name ?? "(null)")")
        }
        if state.hasLoaded(relationship) || state.isInserted || objectID.isTemporaryID {
            return members(of: relationship).map(\.objectID)
        }
        guard let context = managedObjectContext else { return [] }
        // A child context's relationships load through its parent, never from the store.
        if context.parent != nil { return members(of: relationship).map(\.objectID) }
        if !relationship.isToMany {
            fulfillFaultIfNeeded()  // a to-one's destination is in the object's own row
            if state.hasLoaded(relationship) { return members(of: relationship).map(\.objectID) }
            guard let destination = state.snapshot?.toOne[key] else { return [] }
            return context.objectID(for: destination, storeOf: self).map { [$0] } ?? []
        }
        guard let source = objectID.storeKey, let store = objectID.persistentStore else { return [] }
        let keys = context.readingQueryGeneration { readingStore(for: objectID) {
            try context.storeCoordinator(of: store).destinationKeys(of: relationship, from: source, in: store, context: context)
        } }
        return keys.compactMap { context.objectID(for: $0, storeOf: self) }
    }

    // MARK: Set mutations

    func willChangeSetMutation(forKey key: String) {
        if let relationship = entity.propertyTable.byName[key] as? NSRelationshipDescription, relationship.isToMany {
            state.pendingSetMutations[key] = members(of: relationship)
        }
        willChangeValue(forKey: key)
    }

    func didChangeSetMutation(forKey key: String) {
        defer { didChangeValue(forKey: key) }
        guard let relationship = entity.propertyTable.byName[key] as? NSRelationshipDescription,
            let before = state.pendingSetMutations.removeValue(forKey: key)
        else { return }
        noteChange(forKey: key)
        let after = members(of: relationship)
        let beforeIDs = Set(before.map(ObjectIdentifier.init)), afterIDs = Set(after.map(ObjectIdentifier.init))
        for removed in before where !afterIDs.contains(ObjectIdentifier(removed)) { removed.inverseDidLose(self, through: relationship) }
        for added in after where !beforeIDs.contains(ObjectIdentifier(added)) { added.inverseDidGain(self, through: relationship) }
    }
}
