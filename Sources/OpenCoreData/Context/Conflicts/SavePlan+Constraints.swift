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

    /// The value of the constraint's property number `index` as the object stores it,
    /// without boxing a string in an `AnyHashable` first.
    func base(_ index: Int) -> Any {
        switch self {
        case .string(let value): return value
        case .one(let value): return value.base
        case .many(let values): return values[index].base
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

/// Values → the group (a position in ``ConstraintGroups``) of the objects that hold them.
/// A string value (the commonest) is keyed by the `String` itself, hashed and compared
/// without the enum around it; every other value by its ``ConstraintValues``.
private struct ConstraintIndex {
    private var strings: [String: Int]
    private var others: [ConstraintValues: Int] = [:]

    /// Sized for `capacity` string values at once rather than grown (each growth rehashes).
    init(capacity: Int) { strings = Dictionary(minimumCapacity: capacity) }

    /// The group of `values`, if one has them.
    subscript(values: ConstraintValues) -> Int? {
        if case .string(let string) = values { return strings[string] }
        return others[values]
    }

    /// The group of `values`: the one that has them, or `position`, recorded as theirs
    /// when none has (one hash either way).
    mutating func group(of values: ConstraintValues, proposing position: Int) -> Int {
        if case .string(let string) = values { return Self.group(in: &strings[string, default: position]) }
        return Self.group(in: &others[values, default: position])
    }

    /// The entry a `[key, default: position]` access found, or inserted as `position`:
    /// passing it `inout` is what makes the dictionary insert the default, with the one
    /// hash of the access (`updateValue` would hash again to put back a found group).
    private static func group(in entry: inout Int) -> Int { entry }
}

/// One constraint a save checks (its declaring entity and names), with the save's groups
/// of objects that share its values.
private struct CheckedConstraint {
    let declaring: NSEntityDescription
    let names: [String]
    var index: ConstraintIndex
    /// This constraint's groups, in the order they were met.
    var positions: [Int] = []
}

/// How the objects of one entity are checked against one constraint: the constraint's
/// number in the save, and the slots of its names in the entity (`nil` when the entity
/// lacks one of them).
private struct ConstraintRule {
    let number: Int
    let slots: [Int]?
    /// The one slot of a one-property constraint (most of them): read without copying
    /// the array out of the rule.
    let onlySlot: Int?

    init(number: Int, slots: [Int]?) {
        self.number = number
        self.slots = slots
        onlySlot = slots?.count == 1 ? slots![0] : nil
    }
}

/// The groups of objects of one save that share the values of one constraint, kept side
/// by side rather than as one value with its own array per group: most groups hold one
/// object and meet no stored row, so they cost no allocation of their own.
private struct ConstraintGroups {
    /// The constraint's number in the save, by group.
    var constraint: [Int] = []
    var values: [ConstraintValues] = []
    /// The first object of each group, in creation order. Unretained: the save's work,
    /// which ``SavePlan/constraintConflicts(_:in:)`` is given and its caller holds while
    /// it runs, holds every object (a retain and a release per object otherwise).
    var first: [Unmanaged<NSManagedObject>] = []
    /// The group's other objects, in creation order; `nil` while it has only the first.
    var others: [[NSManagedObject]?] = []
    /// The first stored row (other than the save's own) that has the group's values.
    var row: [StoreRow?] = []

    var count: Int { first.count }

    init(capacity: Int) {
        constraint.reserveCapacity(capacity)
        values.reserveCapacity(capacity)
        first.reserveCapacity(capacity)
        others.reserveCapacity(capacity)
        row.reserveCapacity(capacity)
    }

    /// Takes `values` (consuming: the caller's last use of them moves them here, rather
    /// than a copy retaining a string that the caller then releases).
    mutating func append(constraint number: Int, values: consuming ConstraintValues, object: NSManagedObject) {
        constraint.append(number)
        self.values.append(values)
        first.append(Unmanaged.passUnretained(object))
        others.append(nil)
        row.append(nil)
    }

    /// The group's objects, the first one first.
    func objects(_ position: Int) -> [NSManagedObject] {
        guard let others = others[position] else { return [first[position].takeUnretainedValue()] }
        return [first[position].takeUnretainedValue()] + others
    }

    /// Whether the group is a conflict: several objects, or one that meets a stored row.
    func conflicts(_ position: Int) -> Bool { others[position] != nil || row[position] != nil }
}

/// A value worked out once per entity, the last entity's kept at hand: a save's objects
/// come in long runs of one entity, so most look-ups compare one reference and hash nothing.
private struct PerEntityMemo<Value> {
    private var known: [ObjectIdentifier: Value] = [:]
    /// The last entity asked for, by identity (the entities outlive the save, as for
    /// `known`): compared without retaining it or copying a pair out per object.
    private var lastEntity: ObjectIdentifier?
    private var lastValue: Value?

    /// `entity`'s value, made by `make` the first time it is asked for.
    mutating func value(for entity: NSEntityDescription, _ make: (NSEntityDescription) -> Value) -> Value {
        let id = ObjectIdentifier(entity)
        if id == lastEntity, let lastValue { return lastValue }
        let value: Value
        if let found = known[id] {
            value = found
        } else {
            value = make(entity)
            known[id] = value
        }
        lastEntity = id
        lastValue = value
        return value
    }
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
        var groups = ConstraintGroups(capacity: candidates.count)
        // Each constraint gets a number once; per object only its values are hashed, once.
        var constraints: [CheckedConstraint] = []
        var numbers: [ConstraintKey: Int] = [:]
        var rules = PerEntityMemo<[ConstraintRule]>()
        func applicable(to entity: NSEntityDescription) -> [ConstraintRule] {
            rules.value(for: entity) { entity in
                let table = entity.propertyTable
                return entity.applicableUniquenessConstraints.map { declaring, names -> ConstraintRule in
                    let key = ConstraintKey(entity: ObjectIdentifier(declaring), names: names)
                    let number: Int
                    if let known = numbers[key] {
                        number = known
                    } else {
                        number = constraints.count
                        numbers[key] = number
                        // Sized for every candidate at once rather than grown (each growth rehashes).
                        constraints.append(CheckedConstraint(declaring: declaring, names: names, index: ConstraintIndex(capacity: candidates.count)))
                    }
                    let slots = names.map { table.slotByName[$0] }
                    return ConstraintRule(number: number, slots: slots.contains(nil) ? nil : slots.map { $0! })
                }
            }
        }
        // Usually in creation order already (inserted in the order they were made): no sort.
        let inOrder = zip(candidates, candidates.dropFirst()).allSatisfy { $0.objectID.creationSequence < $1.objectID.creationSequence }
        // The rules of a run of objects of one entity, taken once per run: taken per object
        // (a copy of the array) and walked as pairs (a copy of each rule's slots), they cost
        // retains and releases per object.
        var runEntity: ObjectIdentifier?
        var runRules: [ConstraintRule] = []
        for object in inOrder ? candidates : candidates.sorted(by: { $0.objectID.creationSequence < $1.objectID.creationSequence }) {
            if ObjectIdentifier(object.entity) != runEntity {
                runRules = applicable(to: object.entity)
                runEntity = ObjectIdentifier(object.entity)
            }
            for rule in runRules.indices {
                let number = runRules[rule].number
                let values: ConstraintValues
                if let slot = runRules[rule].onlySlot {
                    guard let value = Self.constraintValue(slot, of: object.state.values) else { continue }
                    values = value
                } else {
                    guard let slots = runRules[rule].slots, let value = Self.constraintValues(slots, of: object.state.values) else { continue }
                    values = value
                }
                let position = groups.count
                let found = constraints[number].index.group(of: values, proposing: position)
                if found == position {
                    groups.append(constraint: number, values: values, object: object)
                    constraints[number].positions.append(position)
                } else {
                    if groups.others[found] == nil { groups.others[found] = [object] } else { groups.others[found]!.append(object) }
                }
            }
        }
        var excluded = Set<StoreKey>()
        for object in candidates { if let key = object.objectID.storeKey { excluded.insert(key) } }
        for object in work.deleted { if let key = object.objectID.storeKey { excluded.insert(key) } }
        try findStoredRows(for: &groups, of: constraints, excluding: excluded, in: store)
        let conflicting = (0..<groups.count).filter { groups.conflicts($0) }
        // The stored rows met go into the row cache together: one hold of its lock. The
        // cache takes the save's new rows when it commits: room for both at once.
        let storedRows = conflicting.compactMap { groups.row[$0] }
        if !storedRows.isEmpty { store.rowCache.reserveCapacity(additional: storedRows.count + work.inserted.count) }
        var cachedRows = store.rowCache.store(storedRows).makeIterator()
        // Room in the registry for their objects at once, rather than grown (and rehashed)
        // again and again as the faults are registered one by one; and for the save's new
        // objects, which it registers as the save ends: an upsert otherwise grew the table
        // here and again there (each growth fills a new table and places every entry again).
        context.reserveRegistryCapacity(additional: storedRows.count + work.inserted.count, in: store)
        var conflicts: [NSConstraintConflict] = []
        conflicts.reserveCapacity(conflicting.count)
        // The snapshots of one inserted object (an empty one), the usual conflict's: one
        // array shared by every such conflict rather than one made for each.
        let oneInsertedSnapshot: [[AnyHashable: Any]] = [[:]]
        for position in conflicting {
            let databaseObject = groups.row[position].flatMap { _ in cachedRows.next() }.map { storedObject(for: $0, in: store) }
            let objects = groups.objects(position)
            let snapshots = objects.count == 1 && objects[0].state.isInserted
                ? oneInsertedSnapshot
                : objects.map { object -> [AnyHashable: Any] in
                    guard !object.state.isInserted, let snapshot = object.state.snapshot else { return [:] }
                    var keyed: [AnyHashable: Any] = [:]
                    for (name, value) in snapshotDictionary(of: snapshot, owner: object) { keyed[name] = value }
                    return keyed
                }
            // The database snapshot is made from databaseRow when first asked for.
            let conflict = NSConstraintConflict(
                constraint: constraints[groups.constraint[position]].names, database: databaseObject, conflicting: objects,
                conflictingSnapshots: snapshots)
            conflict.databaseRow = groups.row[position]
            conflicts.append(conflict)
        }
        return conflicts
    }

    /// The object of a stored row a conflict meets (`cached`, the row cache's row for it):
    /// the registered one, or a new fault made from the row (which names its entity, so
    /// its ID needs no look-up by entity number). A fault holds the row, so that firing it
    /// (the merge reads its values) takes this row without searching the cache.
    private func storedObject(for cached: StoreRow, in store: NSPersistentStore) -> NSManagedObject {
        let object = context.object(for: cached, in: store)
        if object.state.isFault { object.state.heldRow = cached }
        return object
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
        var constrainedSlots = PerEntityMemo<[Int]>()
        func slots(of entity: NSEntityDescription) -> [Int] {
            constrainedSlots.value(for: entity) { entity in
                let table = entity.propertyTable
                return entity.applicableUniquenessConstraints.flatMap(\.names).compactMap { table.slotByName[$0] }
            }
        }
        var candidates: [NSManagedObject] = []
        if !stoppingAtFirst { candidates.reserveCapacity(work.inserted.count + work.updated.count) }
        // The slots of a run of objects of one entity, taken once per run (taken per
        // object, the array was copied out of the memo: a retain and a release).
        var runEntity: ObjectIdentifier?
        var constrained: [Int] = []
        for list in [work.inserted, work.updated] {
            for object in list where !object.state.isDeleted {
                if ObjectIdentifier(object.entity) != runEntity {
                    constrained = slots(of: object.entity)
                    runEntity = ObjectIdentifier(object.entity)
                }
                guard !constrained.isEmpty, object.state.isInserted || constrained.contains(where: { object.state.changedSlots.contains($0) }) else { continue }
                candidates.append(object)
                if stoppingAtFirst { return candidates }
            }
        }
        return candidates
    }

    /// The stored values in `slots` of `values`, hashable; `nil` when one is nil.
    private static func constraintValues(_ slots: [Int], of values: PropertyValues) -> ConstraintValues? {
        if slots.count == 1 { return constraintValue(slots[0], of: values) }
        var result: [AnyHashable] = []
        result.reserveCapacity(slots.count)
        for slot in slots {
            guard let value = hashableValue(values[slot]) else { return nil }
            result.append(value)
        }
        return .many(result)
    }

    /// The stored value in `slot` of `values`, hashable; `nil` when it is nil.
    private static func constraintValue(_ slot: Int, of values: PropertyValues) -> ConstraintValues? {
        // A Swift string read where it lies: no copy of the slot's `Any?`, no runtime cast.
        let string = values.withUnsafeSlots { slots in slot < slots.count ? ExactValueReader.read(slots.baseAddress! + slot, as: String.self) : nil }
        if let string { return .string(string) }
        return ConstraintValues(one: values[slot])
    }

    /// Fills each group's `row` with the first stored row (other than `excluded`) that has
    /// its values: one `IN` query per few hundred values for a one-property constraint, one
    /// query per group for a compound one. A row finds its group through the constraint's
    /// own index of values.
    private func findStoredRows(for groups: inout ConstraintGroups, of constraints: [CheckedConstraint], excluding excluded: Set<StoreKey>, in store: NSPersistentStore) throws {
        let engine = store.engine
        for (number, constraint) in constraints.enumerated() where !constraint.positions.isEmpty {
            let positions = constraint.positions
            let table = constraint.declaring.propertyTable
            let attributes = constraint.names.map { table.byName[$0] as? NSAttributeDescription }
            func publicValue(_ values: ConstraintValues, _ i: Int) -> Any {
                let value = values.base(i)
                return attributes[i].map { AttributeValues.public(value, for: $0) } ?? value
            }
            // One query per 500 values for a one-property constraint (its `IN` list made
            // directly: a predicate of 500 constants costs more to build and parse than
            // the query to run), one per group for a compound one.
            var conditions: [(PredicateSQLTranslator) throws -> SQLFragment] = []
            if constraint.names.count == 1 {
                var start = 0
                while start < positions.count {
                    let chunk = positions[start..<min(start + 500, positions.count)]
                    start += chunk.count
                    // A string attribute's strings (its public values are the strings
                    // themselves) go as they are; anything else as `value(forKey:)` gives it.
                    var strings: [String] = []
                    if attributes[0]?.attributeType == .stringAttributeType {
                        strings.reserveCapacity(chunk.count)
                        for position in chunk {
                            guard case .string(let string) = groups.values[position] else { break }
                            strings.append(string)
                        }
                    }
                    if strings.count == chunk.count {
                        conditions.append { [strings] in try $0.inCondition(keyPath: constraint.names[0], strings: strings) }
                    } else {
                        let values = chunk.map { publicValue(groups.values[$0], 0) }
                        conditions.append { try $0.inCondition(keyPath: constraint.names[0], values: values) }
                    }
                }
            } else {
                for position in positions {
                    let parts = constraint.names.enumerated().map { i, name in NSPredicate(format: "%K == %@", name, publicValue(groups.values[position], i)) }
                    conditions.append { try $0.condition(NSCompoundPredicate(andPredicateWithSubpredicates: parts)) }
                }
            }
            // Rows come in long runs of one entity: its rule is made once per run, and kept
            // with the entity's identity (comparing a kept reference retained it per row).
            var rowRule: (entity: ObjectIdentifier, rule: ConstraintRule)?
            for makeCondition in conditions {
                let mapped = try engine.storeEntity(constraint.declaring)
                var query = SQLFetchQuery(entity: mapped)
                let translator = try engine.translator(for: constraint.declaring)
                query.joins = translator.rootJoins
                let parts = [SQLFetchQuery.entityCondition(mapped, includesSubentities: true), try makeCondition(translator)].compactMap { $0 }
                query.condition = SQLFragment.compound(parts, and: true)
                for row in try engine.fetchRows(query, includesSubentities: true) where !excluded.contains(row.key) {
                    if rowRule?.entity != ObjectIdentifier(row.entity) {
                        let rowTable = row.entity.propertyTable
                        let slots = constraint.names.map { rowTable.slotByName[$0] }
                        rowRule = (ObjectIdentifier(row.entity), ConstraintRule(number: number, slots: slots.contains(nil) ? nil : slots.map { $0! }))
                    }
                    let values: ConstraintValues
                    if let slot = rowRule!.rule.onlySlot {
                        guard let value = Self.constraintValue(slot, of: row.attributes) else { continue }
                        values = value
                    } else {
                        guard let slots = rowRule!.rule.slots, let value = Self.constraintValues(slots, of: row.attributes) else { continue }
                        values = value
                    }
                    guard let position = constraint.index[values], groups.row[position] == nil else { continue }
                    groups.row[position] = row
                }
            }
        }
    }
}
