import Foundation

extension NSManagedObjectContext {
    /// The dictionaries a `.dictionaryResultType` request returns. See ``FetchDictionaryResults``.
    func dictionaryResults<T>(for request: NSFetchRequest<T>, entity: NSEntityDescription) throws -> [NSDictionary] {
        try FetchDictionaryResults(request: request.copy(as: NSFetchRequestResult.self), entity: entity, context: self).run()
    }
}

/// Computes the results of a dictionary fetch request as Core Data's SQLite store does:
///
/// - The values are the store's: as Core Data documents, dictionary results do not reflect
///   the context's unsaved changes, insertions or deletions.
/// - `propertiesToFetch` names the columns: attribute names (or key paths through to-one
///   relationships, such as `"country.name"`), attribute or to-one relationship
///   descriptions (a relationship's value is the related object's ID), and
///   ``NSExpressionDescription``s; `"objectID"` is the object's ID. Without it, every
///   attribute. Keys are the names or key
///   paths; `nil` values are left out.
/// - An expression description whose expression is an aggregate function (`sum:`, `count:`,
///   `min:`, `max:`, `average:`, `median:`, `mode:`, `stddev:`) of a key path computes over
///   all matching objects, or per group with `propertiesToGroupBy`; its value has the type
///   `expressionResultType` names. Any other expression is computed per row.
/// - Order of work, as in SQL: predicate, grouping, `havingPredicate`, distinct, sort,
///   offset, limit. Without sort descriptors, groups come in ascending order of their keys.
///
/// A request on an entity of one SQLite store runs as one SQL statement (see
/// `DictionaryFetchSQL.swift`); what that statement builder does not express is computed
/// here in memory from the matching objects, read in a scratch context.
struct FetchDictionaryResults {
    let request: NSFetchRequest<NSFetchRequestResult>
    let entity: NSEntityDescription
    let context: NSManagedObjectContext

    /// One column of the result.
    enum Column {
        /// An attribute, or a key path ending in one.
        case value(key: String)
        /// A to-one relationship: the related object's ID.
        case relationship(key: String)
        /// `"objectID"`: the object's own ID.
        case objectID(key: String)
        /// An expression description's expression, per row.
        case expression(key: String, NSExpression, NSAttributeType)
        /// An aggregate function over a key path, per group.
        case aggregate(key: String, function: String, argument: NSExpression, NSAttributeType)

        var key: String {
            switch self {
            case .value(let key), .relationship(let key), .objectID(let key), .expression(let key, _, _), .aggregate(let key, _, _, _): return key
            }
        }
        var isAggregate: Bool {
            if case .aggregate = self { return true }
            return false
        }
    }

    static let aggregateFunctions: Set<String> = ["sum:", "count:", "min:", "max:", "average:", "median:", "mode:", "stddev:"]

    func run() throws -> [NSDictionary] {
        let columns = makeColumns()
        let groupKeys = try groupByKeys(columns)
        // One statement in the store when SQL can express the request (see DictionaryFetchSQL).
        if let results = try resultsInSQL(columns: columns, groupKeys: groupKeys) { return results }
        return try computeInMemory(columns: columns, groupKeys: groupKeys)
    }

    /// The results computed in memory from the matching objects: for requests SQL cannot
    /// express, for entities spread over several stores, and as the reference the tests
    /// compare the SQL results with.
    func runInMemory() throws -> [NSDictionary] {
        let columns = makeColumns()
        return try computeInMemory(columns: columns, groupKeys: try groupByKeys(columns))
    }

    private func computeInMemory(columns: [Column], groupKeys: [String]?) throws -> [NSDictionary] {
        let grouping = groupKeys != nil || columns.contains(where: \.isAggregate)
        let scratch = context.makeScratchContext()
        defer { withExtendedLifetime(scratch) {} }
        let objects = try storedObjects(in: scratch, sorted: !grouping)

        var rows: [[String: Any]]
        if grouping {
            let groups = group(objects, by: groupKeys ?? [])
            rows = groups.map { row(for: $0, columns: columns) }
            if let having = request.havingPredicate {
                rows = zip(groups, rows).filter { group, row in satisfies(having, group: group, row: row) }.map(\.1)
            }
        } else {
            rows = objects.map { row(for: [$0], columns: columns) }
        }
        var dictionaries = rows.map { NSDictionary(dictionary: $0) }
        if request.returnsDistinctResults {
            var seen: [NSDictionary] = []
            dictionaries = dictionaries.filter { candidate in
                guard !seen.contains(where: { $0.isEqual(candidate) }) else { return false }
                seen.append(candidate)
                return true
            }
        }
        if grouping, let descriptors = request.sortDescriptors, !descriptors.isEmpty {
            dictionaries = sortedObjects(dictionaries, using: descriptors)
        }
        if request.fetchOffset > 0 { dictionaries = Array(dictionaries.dropFirst(request.fetchOffset)) }
        if request.fetchLimit > 0 { dictionaries = Array(dictionaries.prefix(request.fetchLimit)) }
        return dictionaries
    }

    // MARK: Columns

    private func makeColumns() -> [Column] {
        guard let properties = request.propertiesToFetch else {
            return entity.propertyTable.persistentAttributes.map { .value(key: $0.name) }
        }
        return properties.map { property -> Column in
            if let description = property as? NSExpressionDescription {
                guard let expression = description.expression else {
                    raiseCoreDataException(.invalidArgument, "Invalid property (\(description)) passed to setPropertiesToFetch: an NSExpressionDescription needs an expression")
                }
                if expression.expressionType == .function, Self.aggregateFunctions.contains(expression.function),
                    let argument = expression.arguments?.first, expression.operand == nil,
                    !isToManyPath(argument) || expression.function == "count:"
                {
                    // count: of a to-many counts the related objects of all the group's
                    // objects, as Core Data's COUNT( t1.Z_PK) over a LEFT OUTER JOIN does.
                    return .aggregate(key: description.name, function: expression.function, argument: argument, description.expressionResultType)
                }
                return .expression(key: description.name, expression, description.expressionResultType)
            }
            let key = (property as? String) ?? (property as? NSPropertyDescription)?.name ?? "\(property)"
            if key == "objectID" { return .objectID(key: key) }
            let first = String(key.split(separator: ".").first ?? "")
            if let relationship = entity.propertyTable.relationships.first(where: { $0.name == first }) {
                if key == first {
                    if relationship.isToMany {
                        raiseCoreDataException(.invalidArgument, "Invalid to-many relationship in setPropertiesToFetch: (\(key))")
                    }
                    return .relationship(key: key)
                }
                return .value(key: key)
            }
            guard entity.propertyTable.all.contains(where: { $0.name == first }) else {
                raiseCoreDataException(.invalidArgument, "Invalid keypath \(key) passed to setPropertiesToFetch:")
            }
            return .value(key: key)
        }
    }

    /// Whether `expression` is a key path that starts with a to-many relationship (so it
    /// names a collection per object, as in `count:(hikes)`).
    private func isToManyPath(_ expression: NSExpression) -> Bool {
        guard expression.expressionType == .keyPath, let first = expression.keyPath.split(separator: ".").first else { return false }
        return entity.propertyTable.relationships.contains { $0.name == first && $0.isToMany }
    }

    /// The group-by key paths, after checking that every plain column is one of them.
    private func groupByKeys(_ columns: [Column]) throws -> [String]? {
        guard let properties = request.propertiesToGroupBy, !properties.isEmpty else { return nil }
        let keys = properties.map { ($0 as? String) ?? ($0 as? NSPropertyDescription)?.name ?? "\($0)" }
        for column in columns {
            switch column {
            case .value(let key), .relationship(let key):
                if !keys.contains(key) {
                    let property: Any = entity.propertyTable.all.first(where: { $0.name == key }) ?? key
                    raiseCoreDataException(.invalidArgument, "SELECT clauses in queries with GROUP BY components can only contain properties named in the GROUP BY or aggregate functions (\(property) is not in the GROUP BY)")
                }
            case .objectID, .expression, .aggregate:
                continue
            }
        }
        return keys
    }

    // MARK: Rows

    /// The matching objects as the store holds them (read in `scratch`, which the caller
    /// keeps alive while it reads them), sorted when `sorted`.
    private func storedObjects(in scratch: NSManagedObjectContext, sorted: Bool) throws -> [NSManagedObject] {
        let query = request.copy(as: NSManagedObject.self)
        query.entity = entity
        query.resultType = .managedObjectResultType
        query.includesPendingChanges = false
        query.propertiesToFetch = nil
        query.propertiesToGroupBy = nil
        query.havingPredicate = nil
        query.returnsDistinctResults = false
        query.fetchOffset = 0
        query.fetchLimit = 0
        // Every row is read at once: one statement, no batches of faults.
        query.fetchBatchSize = 0
        query.returnsObjectsAsFaults = false
        if !sorted { query.sortDescriptors = nil }
        return try scratch.fetch(query)
    }

    /// Objects grouped by the values at `keys`, groups in ascending order of those values.
    private func group(_ objects: [NSManagedObject], by keys: [String]) -> [[NSManagedObject]] {
        if keys.isEmpty { return [objects] }
        var order: [[Any?]] = []
        var members: [String: [NSManagedObject]] = [:]
        var identities: [String] = []
        for object in objects {
            let values = keys.map { publicValue(at: $0, of: object) }
            let identity = values.map { cocoaDescription($0) }.joined(separator: "\u{1F}")
            if members[identity] == nil {
                order.append(values)
                identities.append(identity)
            }
            members[identity, default: []].append(object)
        }
        let sorted = zip(order, identities).sorted { left, right in
            for (a, b) in zip(left.0, right.0) {
                switch (a, b) {
                case (nil, nil): continue
                case (nil, _): return true
                case (_, nil): return false
                case let (a?, b?):
                    let order = PredicateValues.order(a, b, options: []) ?? .orderedSame
                    if order != .orderedSame { return order == .orderedAscending }
                }
            }
            return false
        }
        return sorted.map { members[$0.1]! }
    }

    /// One result dictionary: plain columns from the group's first object, aggregates over
    /// the whole group.
    private func row(for group: [NSManagedObject], columns: [Column]) -> [String: Any] {
        var row: [String: Any] = [:]
        let first = group.first
        for column in columns {
            let value: Any?
            switch column {
            case .value(let key):
                value = first.flatMap { publicValue(at: key, of: $0) }
            case .relationship(let key):
                value = first.flatMap { ($0.value(forKey: key) as? NSManagedObject)?.objectID }
            case .objectID:
                value = first?.objectID
            case .expression(_, let expression, let type):
                value = first.flatMap { typed(expression.expressionValue(with: $0, context: nil), as: type) }
            case .aggregate(_, let function, let argument, let type):
                value = typed(Self.aggregate(function, over: group.map { argument.expressionValue(with: $0, context: nil) }), as: type)
            }
            if let value { row[column.key] = value }
        }
        return row
    }

    /// An aggregate function over one group's values: `nil` values are skipped, as SQL's
    /// aggregates skip NULL.
    static func aggregate(_ function: String, over values: [Any?]) -> Any? {
        let present = values.compactMap { value -> Any? in
            guard let value = unwrapAny(value), !(value is NSNull) else { return nil }
            return value
        }
        if function == "count:" {
            // A to-many relationship's value counts its objects; any other value counts once.
            return present.reduce(0) { total, value in total + (collectionElements(value)?.count ?? 1) }
        }
        // Core Data sums with SQLite's total(), which is 0 over no values.
        if present.isEmpty, function == "sum:" { return 0 }
        return ExpressionFunctions.call(function, [present])
    }

    /// Whether a group passes the having predicate. The predicate may name a column by its
    /// key (`total > 100`), as a variable (`$total > 100`), or repeat an aggregate
    /// expression (`sum:(lengthKm) > 100`), which is computed over the group.
    private func satisfies(_ predicate: NSPredicate, group: [NSManagedObject], row: [String: Any]) -> Bool {
        let bound = predicate.withSubstitutionVariables(row)
        return bound.evaluate(with: HavingRow(row: row, group: group))
    }

    /// The value at `key` as `value(forKeyPath:)` gives it: `NSNumber` for numbers.
    private func publicValue(at key: String, of object: NSManagedObject) -> Any? {
        let value = unwrapAny(keyPathValue(key, of: object))
        if let value, value is NSNull { return nil }
        return value
    }

    /// `value` as the type `type` names: numbers as `NSNumber` of that type, dates as
    /// `Date`, strings as `String`; unchanged for `.undefinedAttributeType`.
    func typed(_ value: Any?, as type: NSAttributeType) -> Any? {
        guard let value = unwrapAny(value), !(value is NSNull) else { return nil }
        if let list = value as? [Any] { return list.count == 1 ? typed(list[0], as: type) : list }
        switch type {
        case .undefinedAttributeType, .transformableAttributeType, .objectIDAttributeType, .compositeAttributeType:
            if let number = PredicateValues.number(value) {
                switch number {
                case .int(let int): return NSNumber(value: int)
                case .uint(let uint): return NSNumber(value: uint)
                case .double(let double): return NSNumber(value: double)
                case .decimal(let decimal): return NSDecimalNumber(decimal: decimal)
                }
            }
            return value
        default:
            guard let converted = AttributeValues.convert(value, to: type) else { return value }
            return AttributeValues.boxed(converted)
        }
    }
}

/// What a having predicate is evaluated against: a group's result row, whose keys it may
/// name, and the group's objects, over which an aggregate expression is computed.
private final class HavingRow: KeyValueCoding {
    let row: [String: Any]
    let group: [NSManagedObject]

    init(row: [String: Any], group: [NSManagedObject]) {
        self.row = row
        self.group = group
    }

    func value(forKey key: String) -> Any? {
        if let value = row[key] { return value }
        // A key of the entity: the group's values, for aggregates such as sum:(lengthKm).
        return group.map { $0.value(forKey: key) ?? NSNull() }
    }
}
