import Foundation
import XCTest
@testable import OpenCoreData

/// Random sequences of inserts, relationship edits and deletes on the Graph model, saved
/// now and then. After every save a fresh container reads the store back, and:
///
/// - every relationship agrees with its inverse;
/// - nothing points at a deleted object, except through a no-action rule;
/// - the graph read back is exactly the graph the saving context holds.
///
/// A save the model's rules refuse (too few waypoints, too many hikers, a denied delete, a
/// reference to an object deleted before it was saved) is
/// rolled back, and the same checks then compare the rolled-back context with the store.
/// On failure the seed and the operations so far are printed; `GRAPH_SEED=<n>` replays one.
final class GraphPropertyTests: GraphTestCase {
    func testRandomEditsKeepEveryInverseInStepThroughSaves() throws {
        let seeds: [UInt64]
        if let text = ProcessInfo.processInfo.environment["GRAPH_SEED"], let seed = UInt64(text) {
            seeds = [seed]
        } else {
            seeds = (1...12).map { 2026_1123 + UInt64($0) * 7919 }
        }
        for seed in seeds {
            try run(seed: seed, steps: 250)
        }
    }

    // MARK: One run

    private var log: [String] = []
    private var seed: UInt64 = 0
    private var counter = 0

    private func run(seed: UInt64, steps: Int) throws {
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.seed = seed
        log = []
        counter = 0
        var random = SplitMix64(seed: seed)
        let container = try openContainer()
        let context = container.viewContext
        var live = try everything(in: context)
        var saves = 0, refusals = 0
        for _ in 0..<steps {
            apply(randomOperation(&random), live: &live, context: context, random: &random)
            if random.next(upTo: 8) == 0 {
                do {
                    try context.save()
                    saves += 1
                    log.append("save")
                } catch {
                    let error = error as NSError
                    let codes = ((error.userInfo[NSDetailedErrorsKey] as? [NSError]) ?? [error]).map(\.code)
                    guard codes.allSatisfy({ [1550, 1570, 1580, 1590, 1600].contains($0) }) else {
                        return fail("save failed with an unexpected error: \(error)")
                    }
                    refusals += 1
                    log.append("save refused \(codes.sorted()); rollback")
                    context.rollback()
                }
                live = try everything(in: context)
                guard try verify(against: context) else { return }
            }
        }
        XCTAssertGreaterThan(saves, 0, "seed \(seed): no save succeeded")
        let objects = live.values.joined()
        let links = objects.reduce(0) { total, object in
            total + object.entity.relationshipsByName.values.reduce(0) { $0 + object.members(of: $1).count }
        }
        print("graph seed \(seed): \(saves) saves, \(refusals) refused and rolled back; \(objects.count) objects, \(links) relationship ends at the end")
    }

    // MARK: Operations

    private enum Operation: CaseIterable {
        case insertTrail, insertHike, insertHiker, insertWaypoint, insertCountry, insertContinent, insertReport, insertCard
        case setHikeTrail, addHikeToTrail, removeHikeFromTrail
        case linkHiker, linkHike, unlinkHiker
        case setMentor, addMentee, befriend, unfriend
        case giveCard, takeCard
        case moveWaypoint, reorderWaypoints, removeWaypointByIndex
        case setCountry, addTrailToCountry, setContinent, feature
        case delete, deleteTwo
    }

    private func randomOperation(_ random: inout SplitMix64) -> Operation {
        let all = Operation.allCases
        return all[random.next(upTo: all.count)]
    }

    private func apply(_ operation: Operation, live: inout [String: [NSManagedObject]], context: NSManagedObjectContext, random: inout SplitMix64) {
        func pick(_ entity: String) -> NSManagedObject? {
            // Objects already deleted are not handed out: relating a live object to one
            // is a programming error (Core Data reports a dangling reference).
            let objects = live[entity, default: []].filter { !$0.isDeleted && $0.managedObjectContext != nil }
            return objects.isEmpty ? nil : objects[random.next(upTo: objects.count)]
        }
        func maybe(_ entity: String) -> NSManagedObject? {
            random.next(upTo: 4) == 0 ? nil : pick(entity)
        }
        func insert(_ entity: String, labelKey: String) -> NSManagedObject {
            counter += 1
            let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
            if labelKey == "number" {
                object.setValue(counter, forKey: labelKey)
            } else {
                object.setValue("\(entity.lowercased())\(counter)", forKey: labelKey)
            }
            live[entity, default: []].append(object)
            log.append("insert \(label(object))")
            return object
        }
        func record(_ text: String) { log.append(text) }

        switch operation {
        case .insertTrail:
            let trail = insert("Trail", labelKey: "name")
            if let country = maybe("Country") { trail.setValue(country, forKey: "country"); record("  country = \(label(country))") }
        case .insertHike:
            let hike = insert("Hike", labelKey: "note")
            if let trail = maybe("Trail") { hike.setValue(trail, forKey: "trail"); record("  trail = \(label(trail))") }
        case .insertHiker:
            _ = insert("Hiker", labelKey: "name")
        case .insertWaypoint:
            guard let trail = pick("Trail") else { return }
            let waypoint = insert("Waypoint", labelKey: "name")
            let waypoints = trail.mutableOrderedSetValue(forKey: "waypoints")
            let index = random.next(upTo: waypoints.count + 1)
            waypoints.insert(waypoint, at: index)
            record("  into \(label(trail)).waypoints at \(index)")
        case .insertCountry:
            let country = insert("Country", labelKey: "name")
            if let continent = maybe("Continent") { country.setValue(continent, forKey: "continent"); record("  continent = \(label(continent))") }
        case .insertContinent:
            _ = insert("Continent", labelKey: "name")
        case .insertReport:
            let report = insert("Report", labelKey: "text")
            if let trail = maybe("Trail") { report.setValue(trail, forKey: "trail"); record("  trail = \(label(trail))") }
        case .insertCard:
            let card = insert("MembershipCard", labelKey: "number")
            if let hiker = maybe("Hiker") { card.setValue(hiker, forKey: "owner"); record("  owner = \(label(hiker))") }
        case .setHikeTrail:
            guard let hike = pick("Hike") else { return }
            let trail = maybe("Trail")
            hike.setValue(trail, forKey: "trail")
            record("\(label(hike)).trail = \(label(trail))")
        case .addHikeToTrail:
            guard let hike = pick("Hike"), let trail = pick("Trail") else { return }
            trail.mutableSetValue(forKey: "hikes").add(hike)
            record("\(label(trail)).hikes add \(label(hike))")
        case .removeHikeFromTrail:
            guard let trail = pick("Trail"), let hike = (trail.value(forKey: "hikes") as? Set<NSManagedObject>)?.sorted(by: byLabel).first else { return }
            trail.mutableSetValue(forKey: "hikes").remove(hike)
            record("\(label(trail)).hikes remove \(label(hike))")
        case .linkHiker:
            guard let hike = pick("Hike"), let hiker = pick("Hiker") else { return }
            hike.mutableSetValue(forKey: "hikers").add(hiker)
            record("\(label(hike)).hikers add \(label(hiker))")
        case .linkHike:
            guard let hike = pick("Hike"), let hiker = pick("Hiker") else { return }
            hiker.mutableSetValue(forKey: "hikes").add(hike)
            record("\(label(hiker)).hikes add \(label(hike))")
        case .unlinkHiker:
            guard let hiker = pick("Hiker"), let hike = (hiker.value(forKey: "hikes") as? Set<NSManagedObject>)?.sorted(by: byLabel).first else { return }
            if random.next(upTo: 2) == 0 {
                hiker.mutableSetValue(forKey: "hikes").remove(hike)
            } else {
                hike.mutableSetValue(forKey: "hikers").remove(hiker)
            }
            record("unlink \(label(hiker)) and \(label(hike))")
        case .setMentor:
            guard let hiker = pick("Hiker") else { return }
            let mentor = maybe("Hiker")
            hiker.setValue(mentor, forKey: "mentor")
            record("\(label(hiker)).mentor = \(label(mentor))")
        case .addMentee:
            guard let mentor = pick("Hiker"), let mentee = pick("Hiker") else { return }
            mentor.mutableSetValue(forKey: "mentees").add(mentee)
            record("\(label(mentor)).mentees add \(label(mentee))")
        case .befriend:
            guard let a = pick("Hiker"), let b = pick("Hiker") else { return }
            a.mutableSetValue(forKey: "friends").add(b)
            record("\(label(a)).friends add \(label(b))")
        case .unfriend:
            guard let a = pick("Hiker"), let b = (a.value(forKey: "friends") as? Set<NSManagedObject>)?.sorted(by: byLabel).last else { return }
            a.mutableSetValue(forKey: "friends").remove(b)
            record("\(label(a)).friends remove \(label(b))")
        case .giveCard:
            guard let card = pick("MembershipCard") else { return }
            let hiker = maybe("Hiker")
            card.setValue(hiker, forKey: "owner")
            record("\(label(card)).owner = \(label(hiker))")
        case .takeCard:
            guard let hiker = pick("Hiker") else { return }
            let card = maybe("MembershipCard")
            hiker.setValue(card, forKey: "card")
            record("\(label(hiker)).card = \(label(card))")
        case .moveWaypoint:
            guard let waypoint = pick("Waypoint"), let trail = pick("Trail") else { return }
            if random.next(upTo: 2) == 0 {
                waypoint.setValue(trail, forKey: "trail")
                record("\(label(waypoint)).trail = \(label(trail))")
            } else {
                let waypoints = trail.mutableOrderedSetValue(forKey: "waypoints")
                let index = random.next(upTo: waypoints.count + 1)
                if waypoints.contains(waypoint) { return }
                waypoints.insert(waypoint, at: index)
                record("\(label(trail)).waypoints insert \(label(waypoint)) at \(index)")
            }
        case .reorderWaypoints:
            guard let trail = pick("Trail") else { return }
            let waypoints = trail.mutableOrderedSetValue(forKey: "waypoints")
            guard waypoints.count > 1 else { return }
            let from = random.next(upTo: waypoints.count), to = random.next(upTo: waypoints.count)
            waypoints.exchangeObject(at: from, withObjectAt: to)
            record("\(label(trail)).waypoints exchange \(from) \(to)")
        case .removeWaypointByIndex:
            guard let trail = pick("Trail") else { return }
            let waypoints = trail.mutableOrderedSetValue(forKey: "waypoints")
            guard waypoints.count > 0 else { return }
            let index = random.next(upTo: waypoints.count)
            let waypoint = waypoints.object(at: index) as! NSManagedObject
            waypoints.removeObject(at: index)
            // A waypoint must belong to a trail: an orphan is deleted.
            context.delete(waypoint)
            live["Waypoint"]?.removeAll { $0 === waypoint }
            record("\(label(trail)).waypoints remove at \(index), delete \(label(waypoint))")
        case .setCountry:
            guard let trail = pick("Trail") else { return }
            let country = maybe("Country")
            trail.setValue(country, forKey: "country")
            record("\(label(trail)).country = \(label(country))")
        case .addTrailToCountry:
            guard let trail = pick("Trail"), let country = pick("Country") else { return }
            country.mutableSetValue(forKey: "trails").add(trail)
            record("\(label(country)).trails add \(label(trail))")
        case .setContinent:
            guard let country = pick("Country") else { return }
            let continent = maybe("Continent")
            country.setValue(continent, forKey: "continent")
            record("\(label(country)).continent = \(label(continent))")
        case .feature:
            guard let trail = pick("Trail") else { return }
            let region = random.next(upTo: 2) == 0 ? maybe("Country") : maybe("Continent")
            trail.setValue(region, forKey: "featuredIn")
            record("\(label(trail)).featuredIn = \(label(region))")
        case .delete, .deleteTwo:
            let entities = ["Trail", "Hike", "Hiker", "Waypoint", "Country", "Continent", "Report", "MembershipCard"]
            for _ in 0..<(operation == .delete ? 1 : 2) {
                guard let object = pick(entities[random.next(upTo: entities.count)]) else { continue }
                record("delete \(label(object))")
                context.delete(object)
                for key in live.keys { live[key]?.removeAll { $0 === object || $0.isDeleted } }
            }
        }
    }

    // MARK: Checking

    private static let entityNames = ["Trail", "Hike", "Hiker", "Waypoint", "Country", "Continent", "Report", "MembershipCard"]

    /// Every object of every entity, by entity name, sorted by label.
    private func everything(in context: NSManagedObjectContext) throws -> [String: [NSManagedObject]] {
        var result: [String: [NSManagedObject]] = [:]
        for name in Self.entityNames {
            let request = NSFetchRequest<NSManagedObject>(entityName: name)
            request.includesSubentities = false
            result[name] = try context.fetch(request).sorted(by: byLabel)
        }
        return result
    }

    /// Reopens the store and checks the three properties; false (after failing the test) when one is broken.
    private func verify(against context: NSManagedObjectContext) throws -> Bool {
        let reopened = try openContainer()
        let fresh = reopened.viewContext
        let stored = try everything(in: fresh)
        for (_, objects) in stored {
            for object in objects {
                for relationship in object.entity.relationshipsByName.values.sorted(by: { $0.name < $1.name }) {
                    let members = object.members(of: relationship)
                    let danglingAllowed = relationship.inverseRelationship?.deleteRule == .noActionDeleteRule
                    for member in members {
                        if member.isFault { _ = member.value(forKey: member.entity.attributesByName.keys.sorted().first!) }
                        if member.isDeleted {
                            if danglingAllowed { continue }
                            fail("\(label(object)).\(relationship.name) points at a deleted object \(member.objectID)")
                            return false
                        }
                        guard let inverse = relationship.inverseRelationship else { continue }
                        let back = member.members(of: inverse)
                        if !back.contains(where: { $0 === object }) {
                            fail("\(label(object)).\(relationship.name) holds \(label(member)), but \(label(member)).\(inverse.name) is \(back.map { label($0) })")
                            return false
                        }
                    }
                }
            }
        }
        let expected = snapshot(try everything(in: context))
        let actual = snapshot(stored)
        if expected != actual {
            let keys = Set(expected.keys).union(actual.keys).sorted()
            let differences = keys.filter { expected[$0] != actual[$0] }.prefix(5).map { "\($0): context \(expected[$0].map { "\($0)" } ?? "none") store \(actual[$0].map { "\($0)" } ?? "none")" }
            fail("the store differs from the context:\n" + differences.joined(separator: "\n"))
            return false
        }
        return true
    }

    /// label → relationship → member labels (in order when ordered, else sorted).
    private func snapshot(_ objects: [String: [NSManagedObject]]) -> [String: [String: [String]]] {
        var result: [String: [String: [String]]] = [:]
        for object in objects.values.joined() {
            var relationships: [String: [String]] = [:]
            for relationship in object.entity.relationshipsByName.values {
                let members = object.members(of: relationship).map { member -> String in
                    if member.isFault, member.managedObjectContext != nil { _ = member.value(forKey: member.entity.attributesByName.keys.sorted().first!) }
                    return member.isDeleted || member.managedObjectContext == nil ? "<deleted>" : label(member)
                }
                relationships[relationship.name] = relationship.isOrdered ? members : members.sorted()
            }
            result[label(object)] = relationships
        }
        return result
    }

    private func label(_ object: NSManagedObject?) -> String {
        guard let object else { return "nil" }
        for key in ["name", "note", "text", "number"] where object.entity.attributesByName[key] != nil {
            return "\(object.entity.name ?? "?"):\(object.value(forKey: key).map { "\($0)" } ?? "?")"
        }
        return "\(object.objectID)"
    }

    private func byLabel(_ a: NSManagedObject, _ b: NSManagedObject) -> Bool { label(a) < label(b) }

    private func fail(_ message: String) {
        XCTFail("seed \(seed) (GRAPH_SEED=\(seed) replays it): \(message)\noperations:\n" + log.suffix(200).joined(separator: "\n"))
    }
}

/// A small, fast, seedable random number generator (SplitMix64).
struct SplitMix64 {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func nextValue() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound`.
    mutating func next(upTo bound: Int) -> Int {
        Int(nextValue() % UInt64(bound))
    }
}
