import Foundation

// Which relationships of an object hold their current value in `values`: a set of slots
// (see SlotSet), not of names, so that asking costs no hashing of the name. A cascade
// through 100,000 objects asks several times per object.

extension ManagedObjectState {
    /// Whether `relationship`'s current value is in `values`.
    func hasLoaded(_ relationship: NSPropertyDescription) -> Bool {
        guard let slot = values.table.slot(of: relationship) else { return false }
        return loadedRelationships.contains(slot)
    }

    /// Whether the relationship named `name` has its current value in `values`.
    func hasLoaded(relationshipNamed name: String) -> Bool {
        guard let slot = values.table.slotByName[name] else { return false }
        return loadedRelationships.contains(slot)
    }

    /// Records that `relationship`'s current value is in `values`.
    mutating func noteLoaded(_ relationship: NSPropertyDescription) {
        if let slot = values.table.slot(of: relationship) { loadedRelationships.insert(slot) }
    }

    /// Records that the relationship named `name` has its current value in `values`.
    mutating func noteLoaded(relationshipNamed name: String) {
        if let slot = values.table.slotByName[name] { loadedRelationships.insert(slot) }
    }

    /// Records that `relationship` must be loaded again before it is read.
    mutating func noteUnloaded(_ relationship: NSPropertyDescription) {
        if let slot = values.table.slot(of: relationship) { loadedRelationships.remove(slot) }
    }
}
