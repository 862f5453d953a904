import Foundation
import XCTest

import class OpenCoreData.NSComparisonPredicate
import class OpenCoreData.NSCompoundPredicate
import class OpenCoreData.NSExpression
import class OpenCoreData.NSPredicate
import class OpenCoreData.NSSortDescriptor
@testable import OpenCoreData

/// Thousands of generated predicates and sorts, each run through SQLite (a fetch with no
/// pending changes, so the SQL path) and through `evaluate(with:)` / `sortedArray(using:)`
/// on every object.
///
/// The two answer differently where NULL is involved: Core Data's SQLite store uses SQL's
/// three-valued logic (`nil != "x"` and `NOT (nil > 3)` are unknown, so not fetched),
/// `evaluate(with:)` Foundation's (both true). The fetch must equal ``StoreLogic``'s
/// answer, an independent three-valued reading of the predicate over the objects' values;
/// wherever no comparison met a nil, that answer must equal `evaluate(with:)`'s. A
/// disagreement prints the seed, the predicate and the values of the objects concerned.
final class FetchDifferentialTests: FetchTestCase {
    /// Seeds of the data sets; each is a fresh store.
    private let dataSeeds: [UInt64] = [11, 2024, 77_777]
    private let predicatesPerSeed = 700
    private let sortsPerSeed = 250

    func testGeneratedPredicatesAnswerAsCoreDatasStore() throws {
        var checked = 0, selective = 0, differing = 0, nullFree = 0, pairs = 0
        for seed in dataSeeds {
            let fixture = try TrailheadFixture(directory: directory, name: "Differential-\(seed).sqlite")
            try fixture.fill(seed: seed)
            fixture.reset()
            var generator = PredicateGenerator(seed: seed &* 31 &+ 7, fixture: fixture)
            for entityName in ["Trail", "Hike"] {
                let all = try fixture.context.fetch(NSFetchRequest<NSManagedObject>(entityName: entityName))
                let entity = fixture.container.managedObjectModel.entitiesByName[entityName]!
                for index in 0..<predicatesPerSeed {
                    let predicate = entityName == "Trail" ? generator.trailPredicate(depth: 2) : generator.hikePredicate(depth: 2)
                    // The generator writes only what SQL can express: prove that SQL ran.
                    do {
                        _ = try fixture.store.engine.translator(for: entity).condition(predicate)
                    } catch {
                        XCTFail("seed \(seed) #\(index): not translated (\(error)): \(predicate)")
                        continue
                    }
                    let request = NSFetchRequest<NSManagedObject>(entityName: entityName)
                    request.predicate = predicate
                    let inSQL = try fixture.context.fetch(request)
                    let inMemory = all.filter { predicate.evaluate(with: $0) }
                    var expected: [NSManagedObject] = []
                    for object in all {
                        var logic = StoreLogic()
                        let answer = logic.answer(predicate, object)
                        if answer == true { expected.append(object) }
                        pairs += 1
                        // No comparison met a nil: the store and Foundation must agree.
                        if !logic.metNull && !logic.metBytewiseOrder {
                            nullFree += 1
                            if answer != predicate.evaluate(with: object) {
                                XCTFail("seed \(seed) #\(index): \(predicate) without nil: store logic \(String(describing: answer)), memory \(!(answer ?? true))")
                            }
                        }
                    }
                    if inSQL.map(\.objectID) != expected.map(\.objectID) {
                        report(seed: seed, index: index, predicate: predicate, sql: inSQL, expected: expected, all: all)
                    }
                    if index % 7 == 0 {
                        XCTAssertEqual(try fixture.context.count(for: request), expected.count, "seed \(seed) #\(index): count of \(predicate)")
                    }
                    checked += 1
                    if inSQL.map(\.objectID) != inMemory.map(\.objectID) { differing += 1 }
                    if !expected.isEmpty && expected.count < all.count { selective += 1 }
                }
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 4000)
        // Most predicates must pick some objects and not others, or agreement proves little.
        XCTAssertGreaterThan(selective, checked / 3, "\(selective) of \(checked) predicates were selective")
        // NULL must come up often (the fixture leaves 10–30% of values nil), and most
        // answers must still be checked for equality with evaluate(with:).
        XCTAssertGreaterThan(differing, checked / 20, "\(differing) of \(checked) fetches differ from evaluate(with:)")
        XCTAssertGreaterThan(nullFree, pairs / 2, "\(nullFree) of \(pairs) answers met no nil")
        print("FetchDifferentialTests: \(checked) predicates, \(selective) selective, \(differing) differ from memory by NULL logic")
    }

    func testGeneratedSortsAgreeWithInMemorySorting() throws {
        for seed in dataSeeds {
            let fixture = try TrailheadFixture(directory: directory, name: "Sorting-\(seed).sqlite")
            try fixture.fill(seed: seed)
            fixture.reset()
            var generator = PredicateGenerator(seed: seed &+ 99, fixture: fixture)
            let all = try fixture.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
            for index in 0..<sortsPerSeed {
                let descriptors = generator.sortDescriptors()
                let predicate = generator.chance(30) ? generator.trailPredicate(depth: 1) : nil
                let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
                request.sortDescriptors = descriptors
                request.predicate = predicate
                if generator.chance(40) { request.fetchLimit = generator.int(1...12) }
                if generator.chance(30) { request.fetchOffset = generator.int(1...10) }
                XCTAssertNoThrow(try fixture.store.engine.translator(for: fixture.container.managedObjectModel.entitiesByName["Trail"]!).orderBy(descriptors))
                let inSQL = try fixture.context.fetch(request)
                var logic = StoreLogic()
                var expected = all.filter { object in predicate.map { logic.answer($0, object) == true } ?? true }.sortedArray(using: descriptors)
                expected = Array(expected.dropFirst(request.fetchOffset))
                if request.fetchLimit > 0 { expected = Array(expected.prefix(request.fetchLimit)) }
                if inSQL.map(\.objectID) != expected.map(\.objectID) {
                    let keys = descriptors.compactMap(\.key)
                    func show(_ objects: [NSManagedObject]) -> String {
                        objects.map { object in "p\(object.objectID.storeKey!.primaryKey)" + keys.map { " \($0)=\(String(describing: object.value(forKeyPath: $0)))" }.joined() }
                            .joined(separator: "\n    ")
                    }
                    XCTFail("""
                        seed \(seed) #\(index): sort \(descriptors) predicate \(predicate.map { "\($0)" } ?? "none") \
                        limit \(request.fetchLimit) offset \(request.fetchOffset)
                          SQL:
                            \(show(inSQL))
                          memory:
                            \(show(expected))
                        """)
                }
            }
        }
    }

    /// Generated requests with unsaved inserts, updates and deletes of trails: the fetch runs
    /// its SQL, then merges the changes as Core Data does. Saved, unchanged trails answer
    /// by the store's logic; inserted and updated ones by `evaluate(with:)`; deleted ones
    /// not at all; then sort, offset and limit apply to the whole.
    func testGeneratedRequestsMergePendingChanges() throws {
        let seed: UInt64 = 2024
        let fixture = try TrailheadFixture(directory: directory, name: "Pending-\(seed).sqlite")
        try fixture.fill(seed: seed)
        fixture.reset()
        let context = fixture.context
        var generator = PredicateGenerator(seed: seed &+ 5, fixture: fixture)
        var checked = 0, withChanges = 0
        for round in 0..<8 {
            context.rollback()
            let saved = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Trail"))
            var insertedTrails: [NSManagedObject] = []
            for _ in 0..<3 {
                let trail = fixture.insert("Trail", ["name": generator.pick(awkwardStrings), "lengthKm": generator.chance(20) ? nil : Double(generator.int(0...80)) / 4])
                trail.setValue(generator.chance(30) ? nil : generator.pick(fixture.countries), forKey: "country")
                insertedTrails.append(trail)
            }
            for trail in saved where generator.chance(12) {
                trail.setValue(generator.pick(awkwardStrings), forKey: "name")
                trail.setValue(generator.chance(20) ? nil : Int16(generator.int(0...5)), forKey: "rating")
            }
            for trail in saved where generator.chance(6) { context.delete(trail) }
            context.processPendingChanges()
            let changed = Set(context.updatedObjects.map(ObjectIdentifier.init)).union(context.deletedObjects.map(ObjectIdentifier.init))
            // Unsorted, saved trails come in primary-key order, unsaved ones after them in
            // the order they were inserted (insertedObjects is a set: no order).
            let current = saved.filter { !$0.isDeleted } + insertedTrails
            for index in 0..<45 {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Trail")
                request.predicate = generator.chance(75) ? generator.trailPredicate(depth: 1) : nil
                let descriptors = generator.chance(60) ? generator.sortDescriptors() : []
                request.sortDescriptors = descriptors
                if generator.chance(40) { request.fetchLimit = generator.int(1...12) }
                if generator.chance(30) { request.fetchOffset = generator.int(1...10) }
                var logic = StoreLogic()
                let matching = current.filter { object in
                    guard let predicate = request.predicate else { return true }
                    let judgedInMemory = object.objectID.isTemporaryID || changed.contains(ObjectIdentifier(object))
                    return judgedInMemory ? predicate.evaluate(with: object) : logic.answer(predicate, object) == true
                }
                var expected = descriptors.isEmpty ? matching : matching.sortedArray(using: descriptors)
                expected = Array(expected.dropFirst(request.fetchOffset))
                if request.fetchLimit > 0 { expected = Array(expected.prefix(request.fetchLimit)) }
                let fetched = try context.fetch(request)
                let label = "round \(round) #\(index): \(request.predicate.map { "\($0)" } ?? "no predicate") sort \(descriptors) limit \(request.fetchLimit) offset \(request.fetchOffset)"
                XCTAssertEqual(fetched.count, expected.count, label)
                if descriptors.isEmpty || (request.fetchLimit == 0 && request.fetchOffset == 0) {
                    XCTAssertEqual(Set(fetched.map(ObjectIdentifier.init)), Set(expected.map(ObjectIdentifier.init)), label)
                }
                // Equal sort keys may come in either order; the keys themselves may not.
                for (got, want) in zip(fetched, expected) where !descriptors.allSatisfy({ $0.compare(got, to: want) == .orderedSame }) {
                    XCTFail("\(label): out of order")
                    break
                }
                if index % 5 == 0 {
                    XCTAssertEqual(try context.count(for: request), expected.count, "count: \(label)")
                }
                checked += 1
                if !changed.isEmpty { withChanges += 1 }
            }
        }
        XCTAssertEqual(checked, 360)
        XCTAssertGreaterThan(withChanges, 300)
        context.rollback()
    }

    private func report(seed: UInt64, index: Int, predicate: NSPredicate, sql: [NSManagedObject], expected: [NSManagedObject], all: [NSManagedObject]) {
        let sqlIDs = Set(sql.map(\.objectID)), memoryIDs = Set(expected.map(\.objectID))
        let differing = all.filter { sqlIDs.contains($0.objectID) != memoryIDs.contains($0.objectID) }
        let lines = differing.prefix(5).map { object -> String in
            let inSQL = sqlIDs.contains(object.objectID)
            var values = object.entity.attributesByName.keys.sorted().map { "\($0)=\(String(describing: object.value(forKey: $0)))" }
            let has = { (key: String) in object.entity.propertiesByName[key] != nil }
            if has("country"), let country = object.value(forKey: "country") as? NSManagedObject { values.append("country.name=\(String(describing: country.value(forKey: "name")))") }
            if has("trail"), let trail = object.value(forKey: "trail") as? NSManagedObject { values.append("trail.name=\(String(describing: trail.value(forKey: "name")))") }
            if has("hikers"), let hikers = object.value(forKey: "hikers") as? Set<NSManagedObject> {
                values.append("hikers=" + hikers.map { "{\(String(describing: $0.value(forKey: "name"))) \(String(describing: $0.value(forKey: "age")))}" }.joined(separator: ","))
            }
            if has("hikes"), let hikes = object.value(forKey: "hikes") as? Set<NSManagedObject> {
                values.append("hikes=" + hikes.map { "{d=\(String(describing: $0.value(forKey: "distance"))) n=\(String(describing: $0.value(forKey: "notes")))}" }.joined(separator: ","))
            }
            return "p\(object.objectID.storeKey!.primaryKey) SQL=\(inSQL) expected=\(!inSQL): " + values.joined(separator: " ")
        }
        XCTFail("seed \(seed) #\(index): the SQL fetch and the store's NULL logic disagree on \(predicate)\n  " + lines.joined(separator: "\n  "))
    }
}

/// Core Data's SQLite answer for a predicate on one object, computed from the object's
/// values without SQL: SQL's three-valued logic (true, false, unknown = `nil`).
///
/// - A comparison with a nil operand is unknown, except `== nil` and `!= nil`, and `IN` a
///   list holding nil (`x IN (…) OR x IS NULL`); `x IN {}` is false (SQLite's `IN ()`).
/// - `AND`, `OR`, `NOT` are Kleene's: `NOT unknown` is unknown, `unknown OR true` is true.
/// - `ANY` is true when some element's comparison is true, `ALL` when none is false
///   (`NOT EXISTS (… WHERE NOT …)`); relationship membership (`CONTAINS`, `IN` a to-many)
///   is an `EXISTS`, true or false.
/// - Otherwise, where no operand is nil, the comparison answers as `evaluate(with:)`.
struct StoreLogic {
    /// Whether some comparison had a nil operand (where the two logics can part).
    private(set) var metNull = false
    /// Whether some string ordering answered differently by bytes than Foundation does
    /// (`"é" > "f"` by UTF-8 bytes, not in `compare:`), the other place they part.
    private(set) var metBytewiseOrder = false

    mutating func answer(_ predicate: NSPredicate, _ object: NSManagedObject) -> Bool? {
        switch predicate.kind {
        case .value(let value): return value
        case .block: return predicate.evaluate(with: object)
        case .tree: break
        }
        if let compound = predicate as? NSCompoundPredicate {
            let parts = compound.predicates.map { answer($0, object) }
            switch compound.compoundPredicateType {
            case .and: return parts.contains(false) ? false : (parts.contains(nil) ? nil : true)
            case .or: return parts.contains(true) ? true : (parts.contains(nil) ? nil : false)
            case .not: return parts.first.map { $0.map(!) } ?? true
            }
        }
        let comparison = predicate as! NSComparisonPredicate
        let context = PredicateEvaluationContext(variables: [:])
        let left = storeValue(comparison.leftExpression, object, context)
        let right = storeValue(comparison.rightExpression, object, context)
        let leftIsConstant = PredicateSQLTranslator.isConstant(comparison.leftExpression)
        let rightIsConstant = PredicateSQLTranslator.isConstant(comparison.rightExpression)
        switch comparison.comparisonPredicateModifier {
        case .direct:
            return compare(left, leftIsConstant, comparison, right, rightIsConstant)
        case .any, .all:
            let any = comparison.comparisonPredicateModifier == .any
            guard let elements = Self.elements(comparison.leftExpression.keyPath, of: object) else {
                // A single value: nil is an empty collection.
                if isNilValue(left) { return !any }
                return any ? compare(left, false, comparison, right, rightIsConstant) : (compare(left, false, comparison, right, rightIsConstant) ?? false)
            }
            let results = elements.map { compare($0, false, comparison, right, rightIsConstant) }
            return any ? results.contains(true) : !results.contains(false)
        }
    }

    /// The expression's value as the store computes it: as in memory, except that
    /// `x.@avg.y` is SQL's AVG, NULL where no element has a value (Core Data's store writes
    /// `@avg` as `average:`, an AVG subquery), where memory answers 0: a nil met.
    private mutating func storeValue(_ expression: NSExpression, _ object: NSManagedObject, _ context: PredicateEvaluationContext) -> Any? {
        if case .keyPath(_, let components) = expression.node, components.contains("@avg"),
            let values = Self.elements(components.filter { $0 != "@avg" }.joined(separator: "."), of: object),
            values.allSatisfy({ isNilValue($0) })
        {
            metNull = true
            return nil
        }
        return expression.value(of: object, context)
    }

    private mutating func compare(_ left: Any?, _ leftIsConstant: Bool, _ comparison: NSComparisonPredicate, _ right: Any?, _ rightIsConstant: Bool) -> Bool? {
        let op = comparison.effectiveOperator
        let memory = NSComparisonPredicate(leftExpression: NSExpression(forConstantValue: left), rightExpression: NSExpression(forConstantValue: right),
                                           modifier: .direct, type: op, options: comparison.options).evaluate(with: nil)
        let leftNil = isNilValue(left), rightNil = isNilValue(right)
        if (op == .equalTo || op == .notEqualTo) && ((leftIsConstant && leftNil) || (rightIsConstant && rightNil)) { return memory }
        if op == .in && !rightIsConstant { return memory }  // IN a to-many relationship: EXISTS
        if op == .contains && Self.isCollection(left) { return memory }  // a to-many CONTAINS an object: EXISTS
        if op == .in, rightIsConstant, leftNil, let list = unwrapAny(right), let elements = collectionElements(list) {
            if elements.isEmpty { return false }
            metNull = true
            return elements.contains { isNilValue($0) } ? true : nil
        }
        if leftNil || rightNil {
            metNull = true
            return nil
        }
        if let ordered = Self.bytewiseOrdering(left, op, right, comparison.options) {
            if ordered != memory { metBytewiseOrder = true }
            return ordered
        }
        return memory
    }

    /// Strings ordered without `[c]`/`[d]` (`<`, `<=`, `>`, `>=`, `BETWEEN`) are compared
    /// in SQL by SQLite's BINARY collation, byte by byte of their UTF-8, as Core Data's
    /// `t0.ZNAME BETWEEN ? AND ?` is; `nil` for every other comparison.
    static func bytewiseOrdering(_ left: Any?, _ op: NSComparisonPredicate.Operator, _ right: Any?, _ options: NSComparisonPredicate.Options) -> Bool? {
        guard PredicateStrings.foldingOptions(options).isEmpty, let l = unwrapAny(left).flatMap(PredicateValues.string) else { return nil }
        func less(_ a: String, _ b: String) -> Bool { Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)) }
        if op == .between {
            guard let bounds = unwrapAny(right).flatMap(collectionElements), bounds.count == 2,
                  let low = unwrapAny(bounds[0]).flatMap(PredicateValues.string),
                  let high = unwrapAny(bounds[1]).flatMap(PredicateValues.string) else { return nil }
            return !less(l, low) && !less(high, l)
        }
        guard let r = unwrapAny(right).flatMap(PredicateValues.string) else { return nil }
        switch op {
        case .lessThan: return less(l, r)
        case .lessThanOrEqualTo: return !less(r, l)
        case .greaterThan: return less(r, l)
        case .greaterThanOrEqualTo: return !less(l, r)
        default: return nil
        }
    }

    private static func isCollection(_ value: Any?) -> Bool {
        guard let value = unwrapAny(value) else { return false }
        return collectionElements(value) != nil
    }

    /// The values a key path reaches through a to-many relationship, one per element (nil
    /// values kept, nested collections flattened); `nil` when it crosses none.
    static func elements(_ keyPath: String, of object: NSManagedObject) -> [Any?]? {
        var items: [Any?] = [object]
        var crossedToMany = false
        for key in keyPath.split(separator: ".").map(String.init) {
            var next: [Any?] = []
            for case let item as NSManagedObject in items.compactMap({ $0 }) {
                let value = item.value(forKey: key)
                guard item.entity.relationshipsByName[key]?.isToMany == true else {
                    next.append(value)
                    continue
                }
                crossedToMany = true
                if let set = value as? Set<NSManagedObject> {
                    next.append(contentsOf: set.map { $0 as Any? })
                } else if let set = value as? NSSet {
                    next.append(contentsOf: set.allObjects.map { $0 as Any? })
                } else if let ordered = value as? NSOrderedSet {
                    next.append(contentsOf: ordered.array.map { $0 as Any? })
                }
            }
            items = next
        }
        return crossedToMany ? items : nil
    }
}

/// Random predicates and sort descriptors over the Trailhead model, restricted to what the
/// SQL translator handles, with awkward constants (nil, other types, Unicode).
struct PredicateGenerator {
    private var random: SeededGenerator
    private let fixture: TrailheadFixture

    init(seed: UInt64, fixture: TrailheadFixture) {
        random = SeededGenerator(seed: seed)
        self.fixture = fixture
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(random.next() % UInt64(range.count)) }
    mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
    mutating func pick<T>(_ values: [T]) -> T { values[int(0...(values.count - 1))] }

    // MARK: Constants

    mutating func string() -> String? {
        if chance(8) { return nil }
        var text = pick(awkwardStrings) ?? "Ridge"
        if chance(25), !text.isEmpty {
            // A piece of a string: prefixes, suffixes and middles find more matches.
            let characters = Array(text)
            let start = int(0...(characters.count - 1)), end = int(start...(characters.count - 1))
            text = String(characters[start...end])
        }
        return text
    }

    mutating func likePattern() -> String {
        var characters = Array(pick(awkwardStrings.compactMap { $0 }.filter { !$0.isEmpty }))
        for _ in 0..<int(1...2) {
            let index = int(0...(characters.count - 1))
            characters[index] = chance(50) ? "*" : "?"
        }
        if chance(30) { characters.insert("*", at: 0) }
        return String(characters)
    }

    mutating func regex() -> String {
        pick(["R.*", ".*e.*", "[A-Z].*", ".*é", "\\p{L}+", "caf.", ".*", "(?i)ridge.*", "[^ ]+ [^ ]+", "...", "e\u{301}", ".*\\*.*", "Stra(ß|ss)e"])
    }

    mutating func number(integral: Bool) -> Any? {
        if chance(6) { return nil }
        if chance(4) { return "3" }  // another type never matches
        if chance(5) { return chance(50) }
        return integral && chance(70) ? int(-10...3000) as Any : Double(int(0...80)) * 0.25
    }

    mutating func date() -> Any? {
        if chance(6) { return nil }
        if chance(3) { return 5 }
        return Date(timeIntervalSinceReferenceDate: Double(int(0...1400)) * 86_400)
    }

    // MARK: Comparisons

    private mutating func stringOptions() -> NSComparisonPredicate.Options {
        pick([[], [], [.caseInsensitive], [.diacriticInsensitive], [.caseInsensitive, .diacriticInsensitive], [.normalized]])
    }

    private static let orderOperators: [NSComparisonPredicate.Operator] = [.equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo]

    private func comparison(_ left: NSExpression, _ op: NSComparisonPredicate.Operator, _ right: Any?,
                            _ options: NSComparisonPredicate.Options = [], modifier: NSComparisonPredicate.Modifier = .direct) -> NSPredicate {
        let rightExpression = (right as? NSExpression) ?? NSExpression(forConstantValue: right)
        // Core Data's store refuses an ordering against nil ('illegal comparison with NULL',
        // PredicateSQLTranslationTests.testNilConstantsCoreDataRefuses): ask != nil instead.
        let orderings: [NSComparisonPredicate.Operator] = [.lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo]
        let type = orderings.contains(op) && right is NSExpression == false && isNilValue(right) ? .notEqualTo : op
        return NSComparisonPredicate(leftExpression: left, rightExpression: rightExpression, modifier: modifier, type: type, options: options)
    }

    /// A comparison of a string value at `key`.
    mutating func stringComparison(_ key: NSExpression, modifier: NSComparisonPredicate.Modifier = .direct) -> NSPredicate {
        let options = stringOptions()
        switch int(0...11) {
        case 0...3: return comparison(key, pick(Self.orderOperators), chance(5) ? 42 : string(), options, modifier: modifier)
        case 4: return comparison(key, .beginsWith, string(), options, modifier: modifier)
        case 5: return comparison(key, .endsWith, string(), options, modifier: modifier)
        case 6: return comparison(key, .contains, string(), options, modifier: modifier)
        case 7: return comparison(key, .like, likePattern(), options, modifier: modifier)
        case 8: return comparison(key, .matches, regex(), options, modifier: modifier)
        case 9: return comparison(key, .in, (0..<int(0...3)).map { _ in string() as Any }, options, modifier: modifier)
        case 10:
            let bounds = [string() ?? "A", string() ?? "z"]
            return comparison(key, .between, bounds, options, modifier: modifier)
        default:
            // The constant on the left.
            guard modifier == .direct else { return comparison(key, .equalTo, string(), options, modifier: modifier) }
            return comparison(NSExpression(forConstantValue: string() ?? "Ridge Trail"), pick([.beginsWith, .contains, .endsWith, .equalTo, .lessThan]), key, options)
        }
    }

    mutating func numberComparison(_ key: NSExpression, integral: Bool, modifier: NSComparisonPredicate.Modifier = .direct) -> NSPredicate {
        switch int(0...7) {
        case 0...4: return comparison(key, pick(Self.orderOperators), number(integral: integral), modifier: modifier)
        case 5: return comparison(key, .in, (0..<int(0...3)).map { _ in number(integral: integral) as Any }, modifier: modifier)
        case 6: return comparison(key, .between, [number(integral: integral) ?? 0, number(integral: integral) ?? 100] as [Any], modifier: modifier)
        default: return comparison(key, pick([.contains, .beginsWith, .like]), "1", modifier: modifier)
        }
    }

    mutating func dateComparison(_ key: NSExpression, modifier: NSComparisonPredicate.Modifier = .direct) -> NSPredicate {
        if chance(15) { return comparison(key, .between, [date() ?? Date.distantPast, date() ?? Date.distantFuture] as [Any], modifier: modifier) }
        return comparison(key, pick(Self.orderOperators), date(), modifier: modifier)
    }

    private func key(_ path: String) -> NSExpression { NSExpression(forKeyPath: path) }

    // MARK: Trails

    mutating func trailPredicate(depth: Int) -> NSPredicate {
        if depth > 0, chance(35) {
            switch int(0...2) {
            case 0: return NSCompoundPredicate(andPredicateWithSubpredicates: (0..<int(2...3)).map { _ in trailPredicate(depth: depth - 1) })
            case 1: return NSCompoundPredicate(orPredicateWithSubpredicates: (0..<int(2...3)).map { _ in trailPredicate(depth: depth - 1) })
            default: return NSCompoundPredicate(notPredicateWithSubpredicate: trailPredicate(depth: depth - 1))
            }
        }
        switch int(0...21) {
        case 0...2: return stringComparison(key("name"))
        case 3: return stringComparison(key(pick(["country.name", "country.code"])))
        case 4: return numberComparison(key("lengthKm"), integral: false)
        case 5: return numberComparison(key(pick(["elevation", "rating"])), integral: true)
        case 6: return comparison(key("isLoop"), pick([.equalTo, .notEqualTo]), pick([true, false, nil, 1, 2] as [Any?]))
        case 7: return dateComparison(key("opened"))
        case 8:
            let uuid = UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", int(0...8)))!
            return comparison(key("id"), pick([.equalTo, .notEqualTo, .lessThan, .greaterThanOrEqualTo]), chance(10) ? nil : uuid)
        case 9: return comparison(key("url"), pick([.equalTo, .notEqualTo, .lessThan]), chance(10) ? nil : URL(string: "https://trails.example/\(int(0...6))"))
        case 10:
            let modifier: NSComparisonPredicate.Modifier = chance(50) ? .any : .all
            let inner = numberComparison(key("hikes.distance"), integral: false, modifier: modifier)
            return chance(20) ? NSCompoundPredicate(notPredicateWithSubpredicate: inner) : inner
        case 11: return stringComparison(key(pick(["hikes.notes", "hikes.hikers.name"])), modifier: chance(60) ? .any : .all)
        case 12: return dateComparison(key("hikes.date"), modifier: pick([.any, .all]))
        case 13:
            return comparison(key("hikes.@count"), pick(Self.orderOperators), int(0...4))
        case 14:
            let op = pick(["@sum", "@avg", "@min", "@max"])
            return comparison(key("hikes.\(op).distance"), pick(Self.orderOperators), chance(10) ? nil : Double(int(0...80)) * 0.5)
        case 15:
            return comparison(key("hikes.@max.date"), pick(Self.orderOperators), date())
        case 16:
            let inner = pick(["$h.distance > %@", "$h.notes CONTAINS[cd] %@", "$h.date < %@", "ANY $h.hikers.age > %@", "$h.hikers.@count >= %@"])
            let argument: Any = inner.contains("notes") ? (string() ?? "e") as Any : (inner.contains("date") ? Date(timeIntervalSinceReferenceDate: Double(int(0...500)) * 86_400) as Any : int(0...30) as Any)
            return NSPredicate(format: "SUBQUERY(hikes, $h, \(inner)).@count \(pick(["==", ">", ">=", "<"])) %@", argumentArray: [argument, int(0...3)])
        case 17:
            let trails = (0..<int(0...3)).map { _ in pick(fixture.trails) }
            switch int(0...3) {
            case 0: return NSPredicate(format: "SELF == %@", argumentArray: [pick(trails.isEmpty ? fixture.trails : trails)])
            case 1: return NSPredicate(format: "SELF IN %@", argumentArray: [trails.map { chance(50) ? $0.objectID as Any : $0 }])
            case 2: return NSPredicate(format: "SELF != %@", argumentArray: [pick(fixture.trails).objectID])
            default: return NSPredicate(format: "NOT SELF IN %@", argumentArray: [trails])
            }
        case 18:
            switch int(0...3) {
            case 0: return NSPredicate(format: "country == %@", argumentArray: [pick(fixture.countries)])
            case 1: return NSPredicate(format: "country == nil")
            case 2: return NSPredicate(format: "country != %@", argumentArray: [pick(fixture.countries).objectID])
            default: return NSPredicate(format: "country IN %@", argumentArray: [[pick(fixture.countries), pick(fixture.countries)]])
            }
        case 19:
            let hike = pick(fixture.hikes)
            return NSPredicate(format: pick(["ANY hikes == %@", "hikes CONTAINS %@", "%@ IN hikes", "NONE hikes == %@"]), argumentArray: [hike])
        case 20:
            return NSPredicate(format: pick(["lengthKm < elevation", "lengthKm == rating", "rating >= elevation", "name == country.name", "name ==[cd] country.name",
                                              "name BEGINSWITH[cd] country.code", "country.trails.@count > 2", "ANY country.trails.rating > 4"]))
        default:
            return NSPredicate(format: pick(["TRUEPREDICATE", "FALSEPREDICATE", "rating > 2 + 1", "1 == 1"]))
        }
    }

    // MARK: Hikes

    mutating func hikePredicate(depth: Int) -> NSPredicate {
        if depth > 0, chance(30) {
            let parts = (0..<2).map { _ in hikePredicate(depth: depth - 1) }
            return chance(50) ? NSCompoundPredicate(andPredicateWithSubpredicates: parts) : NSCompoundPredicate(orPredicateWithSubpredicates: parts)
        }
        switch int(0...8) {
        case 0: return stringComparison(key("notes"))
        case 1: return stringComparison(key(pick(["trail.name", "trail.country.name"])))
        case 2: return numberComparison(key(pick(["distance", "trail.lengthKm"])), integral: false)
        case 3: return stringComparison(key("hikers.name"), modifier: pick([.any, .all]))
        case 4: return numberComparison(key("hikers.age"), integral: true, modifier: pick([.any, .all]))
        case 5: return comparison(key("hikers.@count"), pick(Self.orderOperators), int(0...3))
        case 6: return NSPredicate(format: pick(["trail == %@", "trail != %@", "trail.country == %@"]), argumentArray: [pick(fixture.trails + fixture.countries)])
        case 7: return NSPredicate(format: pick(["trail == nil", "trail != nil", "trail.country == nil", "ALL trail.hikes.distance > 3", "distance > trail.lengthKm"]))
        default: return dateComparison(key("date"))
        }
    }

    // MARK: Sorts

    mutating func sortDescriptors() -> [NSSortDescriptor] {
        let selectors = ["compare:", "caseInsensitiveCompare:", "localizedCompare:", "localizedCaseInsensitiveCompare:", "localizedStandardCompare:"]
        return (0..<int(1...3)).map { _ in
            let key = pick(["name", "name", "name", "lengthKm", "elevation", "rating", "isLoop", "opened", "id", "url", "country.name", "country.code"])
            return NSSortDescriptor(key: key, ascending: chance(50), selector: Selector(pick(selectors)))
        }
    }
}
