import Foundation

extension NSEntityDescription {
    /// The uniqueness constraints that bind this entity's objects: its own and those its
    /// superentities declare (which hold across the whole hierarchy), each with the entity
    /// that declares it and its property names.
    var applicableUniquenessConstraints: [(declaring: NSEntityDescription, names: [String])] {
        var result: [(NSEntityDescription, [String])] = []
        var entity: NSEntityDescription? = self
        while let current = entity {
            for constraint in current.uniquenessConstraints {
                let names = constraint.compactMap { ($0 as? String) ?? ($0 as? NSPropertyDescription)?.name }
                if !names.isEmpty { result.append((current, names)) }
            }
            entity = current.superentity
        }
        return result
    }
}

/// Identifies a constraint: its declaring entity and names.
private struct ConstraintKey: Hashable {
    let entity: ObjectIdentifier
    let names: [String]
}

/// The values of one constraint in an object or a row. A one-property constraint (most of
/// them) keeps its value alone, so no array is made and hashed for every object and row;
/// a string (the commonest constrained value) is kept as itself, hashed and compared
/// without `AnyHashable`'s boxes.
private enum ConstraintValues: Hashable {
    case string(String)
    case one(AnyHashable)
    case many([AnyHashable])

    /// The value of the constraint's property number `index`.
    subscript(index: Int) -> AnyHashable {
        switch self {
        case .string(let value): return AnyHashable(value)
        case .one(let value): return value
        case .many(let values): return values[index]
        }
    }

    /// One value: `.string` for a string (also one that `AnyHashable` turns into a Swift
    /// string, such as an `NSString`), so that equal strings always meet as `.string`.
    init?(one value: Any?) {
        guard let value else { return nil }
        if type(of: value) == String.self {
            self = .string(value as! String)
            return
        }
        guard let hashable = hashableValue(value) else { return nil }
        if type(of: hashable.base) == String.self { self = .string(hashable.base as! String) } else { self = .one(hashable) }
    }
}

/// The objects of one save that share the values of one constraint.
private struct ConstraintGroup {
    /// The constraint's number in this save (one per ``ConstraintKey``).
    let constraint: Int
    let declaring: NSEntityDescription
    let names: [String]
    let values: ConstraintValues
    var objects: [NSManagedObject] = []
    var rows: [StoreRow] = []
}

extension SavePlan {
    /// An ``NSConstraintConflict`` for each constraint and values that two objects of the
    /// save share, or that an object of the save shares with a row already in the store.
    ///
    /// Objects with a nil value in a constraint's properties are not checked against it
    /// (SQLite's UNIQUE index does not compare NULLs either). An updated object is checked
    /// only when it changed a constrained property (its other values are what the store
    /// holds, which the store's rows already agree with); the rows of objects this save
    /// deletes or moves to new constrained values are judged by their new values.
    func constraintConflicts(_ work: StoreWork, in store: NSPersistentStore) throws -> [NSConstraintConflict] {
        let candidates = constraintCandidates(work)
        guard !candidates.isEmpty else { return [] }
        var groups: [ConstraintGroup] = []
        // Each constraint gets a number once; per object only its values are hashed.
        var numbers: [ConstraintKey: Int] = [:]
        var index: [[ConstraintValues: Int]] = []  // by constraint number: values → group
        var rules: [ObjectIdentifier: [(declaring: NSEntityDescription, names: [String], number: Int)]] = [:]
        groups.reserveCapacity(candidates.count)
        func applicable(to entity: NSEntityDescription) -> [(declaring: NSEntityDescription, names: [String], number: Int)] {
            if let known = rules[ObjectIdentifier(entity)] { return known }
            let found = entity.applicableUniquenessConstraints.map { declaring, names in
                let key = ConstraintKey(entity: ObjectIdentifier(declaring), names: names)
                if let number = numbers[key] { return (declaring, names, number) }
                numbers[key] = index.count
                // Sized for every candidate at once rather than grown (each growth rehashes).
                index.append(Dictionary(minimumCapacity: candidates.count))
                return (declaring, names, index.count - 1)
            }
            rules[ObjectIdentifier(entity)] = found
            return found
        }
        // Usually in creation order already (inserted in the order they were made): no sort.
        let inOrder = zip(candidates, candidates.dropFirst()).allSatisfy { $0.objectID.creationSequence < $1.objectID.creationSequence }
        for object in inOrder ? candidates : candidates.sorted(by: { $0.objectID.creationSequence < $1.objectID.creationSequence }) {
            for (declaring, names, number) in applicable(to: object.entity) {
                guard let values = Self.constraintValues(names, of: object.state.values, table: object.entity.propertyTable) else { continue }
                if let position = index[number][values] {
                    groups[position].objects.append(object)
                } else {
                    index[number][values] = groups.count
                    groups.append(ConstraintGroup(constraint: number, declaring: declaring, names: names, values: values, objects: [object]))
                }
            }
        }
        let excluded = Set((candidates + work.deleted).compactMap { $0.objectID.storeKey })
        try findStoredRows(for: &groups, excluding: excluded, in: store)
        var conflicts: [NSConstraintConflict] = []
        let conflicting = groups.filter { $0.objects.count > 1 || !$0.rows.isEmpty }
        // The stored rows met go into the row cache together: one hold of its lock.
        var cachedRows = store.rowCache.store(conflicting.compactMap(\.rows.first)).makeIterator()
        for group in conflicting {
            let row = group.rows.first
            let databaseObject = row.flatMap { _ in cachedRows.next() }.map { context.object(for: $0.key, in: store) }
            // The database snapshot is made from databaseRow when first asked for.
            let conflict = NSConstraintConflict(
                constraint: group.names, database: databaseObject, conflicting: group.objects,
                conflictingSnapshots: group.objects.map { object -> [AnyHashable: Any] in
                    guard !object.state.isInserted, let snapshot = object.state.snapshot else { return [:] }
                    var keyed: [AnyHashable: Any] = [:]
                    for (name, value) in snapshotDictionary(of: snapshot, owner: object) { keyed[name] = value }
                    return keyed
                })
            conflict.databaseRow = row
            conflicts.append(conflict)
        }
        return conflicts
    }

    /// Whether the save has an object that ``constraintConflicts(_:in:)`` checks.
    func hasConstraintCandidates(_ work: StoreWork) -> Bool {
        !constraintCandidates(work, stoppingAtFirst: true).isEmpty
    }

    /// The inserted and updated objects whose constraints the save must check: those not
    /// deleted, of an entity with constraints, inserted or with a changed constrained
    /// property (only the first such object with `stoppingAtFirst`).
    private func constraintCandidates(_ work: StoreWork, stoppingAtFirst: Bool = false) -> [NSManagedObject] {
        // The slots of each entity's constrained properties; empty for an unconstrained entity.
        var constrainedSlots: [ObjectIdentifier: [Int]] = [:]
        var last: (entity: NSEntityDescription, slots: [Int])?  // a save holds long runs of one entity
        func slots(of entity: NSEntityDescription) -> [Int] {
            if let last, last.entity === entity { return last.slots }
            if let known = constrainedSlots[ObjectIdentifier(entity)] {
                last = (entity, known)
                return known
            }
            let table = entity.propertyTable
            let found = entity.applicableUniquenessConstraints.flatMap(\.names).compactMap { table.slotByName[$0] }
            constrainedSlots[ObjectIdentifier(entity)] = found
            last = (entity, found)
            return found
        }
        var candidates: [NSManagedObject] = []
        for list in [work.inserted, work.updated] {
            for object in list where !object.state.isDeleted {
                let constrained = slots(of: object.entity)
                guard !constrained.isEmpty, object.state.isInserted || constrained.contains(where: { object.state.changedSlots.contains($0) }) else { continue }
                candidates.append(object)
                if stoppingAtFirst { return candidates }
            }
        }
        return candidates
    }

    /// The stored values of `names` in `values`, hashable; `nil` when one is nil.
    private static func constraintValues(_ names: [String], of values: PropertyValues, table: EntityPropertyTable) -> ConstraintValues? {
        if names.count == 1 {
            guard let slot = table.slotByName[names[0]] else { return nil }
            return ConstraintValues(one: values[slot])
        }
        var result: [AnyHashable] = []
        for name in names {
            guard let slot = table.slotByName[name], let value = hashableValue(values[slot]) else { return nil }
            result.append(value)
        }
        return .many(result)
    }

    /// Fills each group's `rows` with the stored rows (other than `excluded`) that have its
    /// values: one `IN` query per few hundred values for a one-property constraint, one
    /// query per group for a compound one.
    private func findStoredRows(for groups: inout [ConstraintGroup], excluding excluded: Set<StoreKey>, in store: NSPersistentStore) throws {
        let engine = store.engine
        var byConstraint: [Int: [Int]] = [:]
        for (position, group) in groups.enumerated() { byConstraint[group.constraint, default: []].append(position) }
        for number in byConstraint.keys.sorted() {
            let positions = byConstraint[number]!
            let first = groups[positions[0]]
            let table = first.declaring.propertyTable
            let attributes = first.names.map { table.byName[$0] as? NSAttributeDescription }
            func publicValue(_ value: AnyHashable, _ i: Int) -> Any {
                attributes[i].map { AttributeValues.public(value.base, for: $0) } ?? value.base
            }
            // One query per 500 values for a one-property constraint (its `IN` list made
            // directly: a predicate of 500 constants costs more to build and parse than
            // the query to run), one per group for a compound one.
            var conditions: [(PredicateSQLTranslator) throws -> SQLFragment] = []
            if first.names.count == 1 {
                var start = 0
                while start < positions.count {
                    let chunk = positions[start..<min(start + 500, positions.count)]
                    start += chunk.count
                    let values = chunk.map { publicValue(groups[$0].values[0], 0) }
                    conditions.append { try $0.inCondition(keyPath: first.names[0], values: values) }
                }
            } else {
                for position in positions {
                    let parts = first.names.enumerated().map { i, name in NSPredicate(format: "%K == %@", name, publicValue(groups[position].values[i], i)) }
                    conditions.append { try $0.condition(NSCompoundPredicate(andPredicateWithSubpredicates: parts)) }
                }
            }
            var lookup: [ConstraintValues: Int] = Dictionary(minimumCapacity: positions.count)
            for position in positions { lookup[groups[position].values] = position }
            for makeCondition in conditions {
                let mapped = try engine.storeEntity(first.declaring)
                var query = SQLFetchQuery(entity: mapped)
                let translator = try engine.translator(for: first.declaring)
                query.joins = translator.rootJoins
                let parts = [SQLFetchQuery.entityCondition(mapped, includesSubentities: true), try makeCondition(translator)].compactMap { $0 }
                query.condition = SQLFragment.compound(parts, and: true)
                for row in try engine.fetchRows(query, includesSubentities: true) where !excluded.contains(row.key) {
                    guard let values = Self.constraintValues(first.names, of: row.attributes, table: row.entity.propertyTable),
                        let position = lookup[values]
                    else { continue }
                    groups[position].rows.append(row)
                }
            }
        }
    }
}
