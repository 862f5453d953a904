import Foundation

/// One event's changes to a fetched results controller's results, with index paths as a
/// table view applies them in one batch: deletions and section deletions at the old
/// indexes, insertions and section insertions at the new ones, moves from old to new, and
/// updates at the old index path.
struct FetchedResultsChangeSet {
    struct ObjectChange {
        let object: NSManagedObject
        let type: NSFetchedResultsChangeType
        let indexPath: IndexPath?
        let newIndexPath: IndexPath?
    }
    struct SectionChange {
        let section: FetchedResultsSection
        let index: Int
        let type: NSFetchedResultsChangeType
    }

    var sectionChanges: [SectionChange] = []
    var objectChanges: [ObjectChange] = []
    /// For the difference callback: positions in the flat results, old and new.
    var removals: [(offset: Int, object: NSManagedObject, movedTo: Int?)] = []
    var insertions: [(offset: Int, object: NSManagedObject, movedFrom: Int?)] = []

    var isEmpty: Bool { sectionChanges.isEmpty && objectChanges.isEmpty }

    /// The change as a `CollectionDifference` of object IDs over the flat results.
    var difference: CollectionDifference<NSManagedObjectID> {
        var changes: [CollectionDifference<NSManagedObjectID>.Change] = []
        for removal in removals {
            changes.append(.remove(offset: removal.offset, element: removal.object.objectID, associatedWith: removal.movedTo))
        }
        for insertion in insertions {
            changes.append(.insert(offset: insertion.offset, element: insertion.object.objectID, associatedWith: insertion.movedFrom))
        }
        return CollectionDifference(changes) ?? CollectionDifference([])!
    }
}

extension FetchedResultsCore {
    /// Where an object was before the change.
    private struct Position {
        let section: FetchedResultsSection
        let indexPath: IndexPath
        let offset: Int
    }

    /// Applies one event to the results: `removed` objects (deleted or invalidated) leave
    /// them; each of `candidates` (inserted, updated or refreshed) enters, stays (moved to
    /// its sorted place) or leaves, by whether it still matches the request. Returns the
    /// changes, or nil when the results did not change.
    func applyChanges(candidates: [NSManagedObject], removed: [NSManagedObject]) -> FetchedResultsChangeSet? {
        guard let oldSections = sections, let request, let entity else { return nil }
        var leaving: [NSManagedObject] = [], staying: [NSManagedObject] = [], entering: [NSManagedObject] = []
        var seen: Set<ObjectIdentifier> = []
        for object in removed where seen.insert(ObjectIdentifier(object)).inserted && contains(object) {
            leaving.append(object)
        }
        for object in candidates where seen.insert(ObjectIdentifier(object)).inserted {
            switch (contains(object), matches(object, request: request, entity: entity)) {
            case (true, true): staying.append(object)
            case (true, false): leaving.append(object)
            case (false, true): entering.append(object)
            case (false, false): break
            }
        }
        if leaving.isEmpty && staying.isEmpty && entering.isEmpty { return nil }

        // Where everything was.
        var oldOffsets: [ObjectIdentifier: (index: Int, offset: Int)] = [:]
        var running = 0
        for (index, section) in oldSections.enumerated() {
            oldOffsets[ObjectIdentifier(section)] = (index, running)
            running += section.members.count
        }
        var old: [ObjectIdentifier: Position] = [:]
        for object in leaving + staying {
            let section = self.section(of: object)!
            let place = oldOffsets[ObjectIdentifier(section)]!
            let row = section.members.firstIndex { $0 === object }!
            old[ObjectIdentifier(object)] = Position(section: section, indexPath: IndexPath(item: row, section: place.index), offset: place.offset + row)
        }

        // Take out what leaves or may move (by row, from the bottom up, so that one change
        // costs no pass over its section); drop the sections left empty.
        var outgoing: [ObjectIdentifier: [Int]] = [:]
        for object in leaving + staying {
            let from = old[ObjectIdentifier(object)]!
            outgoing[ObjectIdentifier(from.section), default: []].append(from.indexPath.item)
        }
        for section in oldSections {
            guard let rows = outgoing[ObjectIdentifier(section)] else { continue }
            if rows.count <= 32 {
                for row in rows.sorted(by: >) { section.members.remove(at: row) }
            } else {
                let gone = Set(rows)
                section.members = section.members.enumerated().filter { !gone.contains($0.offset) }.map(\.element)
            }
        }
        var newSections = oldSections.filter { !$0.members.isEmpty }

        // Put what stays or enters in its sorted place, creating sections as needed.
        var placed: [(NSManagedObject, FetchedResultsSection?)] = leaving.map { ($0, nil) }
        for object in staying + entering {
            let name = sectionName(of: object)
            let section: FetchedResultsSection
            if let existing = newSections.first(where: { $0.name == name }) {
                section = existing
                let row = insertionIndex(of: object, in: section.members, request: request)
                section.members.insert(object, at: row)
            } else {
                section = FetchedResultsSection(name: name, indexTitle: indexTitle(forSectionName: name), members: [object])
                let index = insertionIndex(of: object, in: newSections.map { $0.members[0] }, request: request)
                newSections.insert(section, at: index)
            }
            placed.append((object, section))
        }

        var newOffsets: [ObjectIdentifier: (index: Int, offset: Int)] = [:]
        running = 0
        for (index, section) in newSections.enumerated() {
            newOffsets[ObjectIdentifier(section)] = (index, running)
            running += section.members.count
        }
        var new: [ObjectIdentifier: Position] = [:]
        for (object, section) in placed {
            guard let section else { continue }
            let place = newOffsets[ObjectIdentifier(section)]!
            let row = section.members.firstIndex { $0 === object }!
            new[ObjectIdentifier(object)] = Position(section: section, indexPath: IndexPath(item: row, section: place.index), offset: place.offset + row)
        }

        var changes = FetchedResultsChangeSet()
        let oldNames = Set(oldSections.map(\.name)), newNames = Set(newSections.map(\.name))
        for (index, section) in oldSections.enumerated() where !newNames.contains(section.name) {
            changes.sectionChanges.append(.init(section: section, index: index, type: .delete))
        }
        for (index, section) in newSections.enumerated() where !oldNames.contains(section.name) {
            changes.sectionChanges.append(.init(section: section, index: index, type: .insert))
        }

        let stable = stableObjects(staying, old: old, new: new,
                                   removedOffsets: (leaving + staying).map { old[ObjectIdentifier($0)]!.offset },
                                   insertedOffsets: (staying + entering).map { new[ObjectIdentifier($0)]!.offset })
        for object in leaving.sorted(by: { old[ObjectIdentifier($0)]!.offset < old[ObjectIdentifier($1)]!.offset }) {
            let from = old[ObjectIdentifier(object)]!
            changes.objectChanges.append(.init(object: object, type: .delete, indexPath: from.indexPath, newIndexPath: nil))
            changes.removals.append((from.offset, object, nil))
        }
        for object in entering.sorted(by: { new[ObjectIdentifier($0)]!.offset < new[ObjectIdentifier($1)]!.offset }) {
            let to = new[ObjectIdentifier(object)]!
            changes.objectChanges.append(.init(object: object, type: .insert, indexPath: nil, newIndexPath: to.indexPath))
            changes.insertions.append((to.offset, object, nil))
        }
        let sortedStaying = staying.sorted { new[ObjectIdentifier($0)]!.offset < new[ObjectIdentifier($1)]!.offset }
        for object in sortedStaying where !stable.contains(ObjectIdentifier(object)) {
            let from = old[ObjectIdentifier(object)]!, to = new[ObjectIdentifier(object)]!
            changes.objectChanges.append(.init(object: object, type: .move, indexPath: from.indexPath, newIndexPath: to.indexPath))
            changes.removals.append((from.offset, object, to.offset))
            changes.insertions.append((to.offset, object, from.offset))
        }
        for object in sortedStaying where stable.contains(ObjectIdentifier(object)) {
            let from = old[ObjectIdentifier(object)]!
            // As Core Data reports an update: at its old index path, with no new one.
            changes.objectChanges.append(.init(object: object, type: .update, indexPath: from.indexPath, newIndexPath: nil))
        }
        replaceSections(newSections, moving: placed)
        return changes
    }

    /// The objects among `staying` that a table view can leave where they are (reported as
    /// updates): those whose place relative to the unchanged objects is the same before and
    /// after, and, among several in the same gap, the longest run already in order. The rest
    /// are reported as moves. Unchanged objects keep their relative order (their sort values
    /// did not change), so applying deletions, insertions and moves around them gives the
    /// new results exactly.
    private func stableObjects(_ staying: [NSManagedObject], old: [ObjectIdentifier: Position], new: [ObjectIdentifier: Position],
                               removedOffsets: [Int], insertedOffsets: [Int]) -> Set<ObjectIdentifier> {
        let removedSorted = removedOffsets.sorted(), insertedSorted = insertedOffsets.sorted()
        func countBelow(_ value: Int, in sorted: [Int]) -> Int {
            var low = 0, high = sorted.count
            while low < high { let mid = (low + high) / 2; if sorted[mid] < value { low = mid + 1 } else { high = mid } }
            return low
        }
        var gaps: [Int: [(oldOffset: Int, newOffset: Int, id: ObjectIdentifier)]] = [:]
        for object in staying {
            let id = ObjectIdentifier(object)
            let from = old[id]!, to = new[id]!
            guard from.section.name == to.section.name else { continue }
            let gapBefore = from.offset - countBelow(from.offset, in: removedSorted)
            let gapAfter = to.offset - countBelow(to.offset, in: insertedSorted)
            guard gapBefore == gapAfter else { continue }
            gaps[gapBefore, default: []].append((from.offset, to.offset, id))
        }
        var stable: Set<ObjectIdentifier> = []
        for members in gaps.values {
            let ordered = members.sorted { $0.oldOffset < $1.oldOffset }
            for index in longestIncreasingRun(ordered.map(\.newOffset)) { stable.insert(ordered[index].id) }
        }
        return stable
    }

    /// The indexes of a longest strictly increasing subsequence of `values`.
    private func longestIncreasingRun(_ values: [Int]) -> [Int] {
        guard values.count > 1 else { return Array(values.indices) }
        var tails: [Int] = [], previous = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high { let mid = (low + high) / 2; if values[tails[mid]] < value { low = mid + 1 } else { high = mid } }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var result: [Int] = [], cursor = tails.last ?? -1
        while cursor >= 0 { result.append(cursor); cursor = previous[cursor] }
        return result.reversed()
    }

    /// Whether `object` belongs in the results: in this context, not deleted, of the
    /// request's entity, matching its predicate.
    func matches(_ object: NSManagedObject, request: NSFetchRequest<NSManagedObject>, entity: NSEntityDescription) -> Bool {
        guard object.managedObjectContext === context, !object.isDeleted else { return false }
        let entityMatches = request.includesSubentities ? object.entity.isKindOf(entity: entity) : object.entity === entity
        guard entityMatches else { return false }
        return request.predicate?.evaluate(with: object) ?? true
    }

    /// The section name of `object` for this controller (`""` for nil; the nil-value
    /// message is logged when sections are computed, not at every change).
    func sectionName(of object: NSManagedObject) -> String {
        guard let keyPath = sectionNameKeyPath else { return "" }
        return FetchedResultsSectioning.sectionName(of: object, keyPath: keyPath) ?? ""
    }

    /// Where `object` goes among `sorted` (objects in the request's order): after every
    /// object that sorts before or equal to it.
    func insertionIndex(of object: NSManagedObject, in sorted: [NSManagedObject], request: NSFetchRequest<NSManagedObject>) -> Int {
        var low = 0, high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if Self.precedes(sorted[mid], object, descriptors: request.sortDescriptors ?? []) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The fetch order: the sort descriptors, then the primary key (as the store's
    /// `ORDER BY … t0.Z_PK`), unsaved objects last, in the order they were inserted.
    static func precedes(_ a: NSManagedObject, _ b: NSManagedObject, descriptors: [NSSortDescriptor]) -> Bool {
        for descriptor in descriptors {
            switch descriptor.compare(a, to: b) {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: continue
            }
        }
        switch (a.objectID.storeKey, b.objectID.storeKey) {
        case let (x?, y?): return x.primaryKey < y.primaryKey
        case (_?, nil): return true
        case (nil, _?): return false
        // Unsaved objects in the order they were inserted, the order a save numbers them in.
        case (nil, nil): return a.objectID.creationSequence < b.objectID.creationSequence
        }
    }
}
