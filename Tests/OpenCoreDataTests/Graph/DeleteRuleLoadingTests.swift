import Foundation
import XCTest
@testable import OpenCoreData

/// The delete rules of many deleted objects: their unloaded one-to-many relationships are
/// read together (`… WHERE  t0.ZTRAIL IN (?, …)`, one statement per 512 owners) and the
/// rules then do exactly what they do one object at a time.
///
/// Core Data fires one to-many fault per deleted owner (its SQL debug output for a cascade
/// shows `SELECT 0, t0.Z_PK FROM … WHERE t1.Z_1COMPANIES = ?` then "to-many relationship
/// fault … fulfilled from database" per owner); the outcome, not the statements, is what
/// these tests hold to Core Data's.
final class DeleteRuleLoadingTests: GraphTestCase {
    /// `count` saved trails named t0, t1, …, trail i with `hikesPerTrail(i)` hikes.
    private func trails(_ count: Int, hikes hikesPerTrail: (Int) -> Int, in context: NSManagedObjectContext) throws -> [GTrail] {
        let trails = (0..<count).map { index -> GTrail in
            let trail = GTrail(context: context)
            trail.name = "t\(index)"
            for hikeIndex in 0..<hikesPerTrail(index) {
                let hike = GHike(context: context)
                hike.note = "t\(index) h\(hikeIndex)"
                hike.trail = trail
            }
            return trail
        }
        try context.save()
        return trails
    }

    /// The trails of a fresh container, their relationships unloaded.
    /// Saves `count` hikers named "mentor i", each the mentor of `menteesEach` hikers named
    /// "mentee i.j".
    private func saveMentors(_ count: Int, menteesEach: Int) throws {
        let context = try openContainer().viewContext
        for index in 0..<count {
            let mentor = GHiker(context: context)
            mentor.name = "mentor \(index)"
            for menteeIndex in 0..<menteesEach {
                let mentee = GHiker(context: context)
                mentee.name = "mentee \(index).\(menteeIndex)"
                mentee.mentor = mentor
            }
        }
        try context.save()
    }

    private func reopenedTrails() throws -> (NSManagedObjectContext, [GTrail]) {
        let context = try openContainer().viewContext
        let trails: [GTrail] = try fetch("Trail", in: context)
        return (context, trails)
    }

    /// How many `SELECT`s from `table` with `condition` were logged.
    private func statements(_ lines: [String], from table: String, _ condition: String) -> Int {
        lines.filter { $0.contains("sql: SELECT") && $0.contains("FROM \(table) t0") && $0.contains(condition) }.count
    }

    func testTheLastOwnerOfARoundLargerThanASliceIsLoadedWithTheOthers() throws {
        // 513 deleted trails: a slice of 512, then a slice of one whose hikes are read by
        // the same IN statement (no fault fired for it), and its rules give the same outcome.
        try trails(513, hikes: { $0 == 512 ? 2 : 1 }, in: try openContainer().viewContext)
        let (context, trails) = try reopenedTrails()
        let (_, lines) = capturingSQL {
            for trail in trails { context.delete(trail) }
            context.processPendingChanges()
        }
        XCTAssertEqual(statements(lines, from: "ZHIKE", "t0.ZTRAIL IN ("), 2, "512 + 1 owners")
        XCTAssertEqual(statements(lines, from: "ZHIKE", "t0.ZTRAIL = ?"), 0, "no to-many fault fired per trail")
        XCTAssertEqual(context.deletedObjects.count, 513 + 514, "every hike cascaded")
        XCTAssertTrue(context.deletedObjects.allSatisfy { !($0 is GHike) || ($0 as! GHike).trail == nil })
        try context.save()
        let stored = try openContainer().viewContext
        XCTAssertEqual(try count("Hike", in: stored), 0)
    }

    func testCascadeOfManyOwnersLoadsTheirHikesInOneStatementPer512Owners() throws {
        try trails(1_100, hikes: { $0 % 3 }, in: try openContainer().viewContext)
        let (context, trails) = try reopenedTrails()
        XCTAssertEqual(trails.count, 1_100)
        let (_, lines) = capturingSQL {
            for trail in trails { context.delete(trail) }
            context.processPendingChanges()
        }
        XCTAssertEqual(statements(lines, from: "ZHIKE", "t0.ZTRAIL IN ("), 3, "512 + 512 + 76 owners")
        XCTAssertEqual(statements(lines, from: "ZHIKE", "t0.ZTRAIL = ?"), 0, "no to-many fault fired per trail")
        let expectedHikes = (0..<1_100).reduce(0) { $0 + $1 % 3 }
        XCTAssertEqual(context.deletedObjects.count, 1_100 + expectedHikes, "every hike cascaded")
        XCTAssertTrue(context.deletedObjects.allSatisfy { !($0 is GHike) || ($0 as! GHike).trail == nil },
                      "each cascaded hike's own nullify rule ran")
        XCTAssertEqual(GTrail.preparedForDeletion, 1_100)
        try context.save()
        let stored = try openContainer().viewContext
        XCTAssertEqual(try count("Trail", in: stored), 0)
        XCTAssertEqual(try count("Hike", in: stored), 0)
    }

    func testTheLoadedHikesAreTheOnesEachTrailsFaultGives() throws {
        try trails(4, hikes: { $0 + 1 }, in: try openContainer().viewContext)
        let (context, trails) = try reopenedTrails()
        for trail in trails { context.delete(trail) }
        context.processPendingChanges()
        // The rules tore the relationships down; the hikes they reached are deleted, each
        // pointing at no trail, each note naming the trail it belonged to.
        let hikes = context.deletedObjects.compactMap { $0 as? GHike }
        XCTAssertEqual(hikes.count, 1 + 2 + 3 + 4)
        XCTAssertEqual(Set(hikes.compactMap(\.note)).count, 10)
        for trail in trails { XCTAssertEqual(trail.hikes, [], "the deleted trail let go of its hikes") }
    }

    func testNullifyOfManyMentorsLeavesTheirMenteesWithoutAMentor() throws {
        try saveMentors(3, menteesEach: 4)

        let reopened = try openContainer().viewContext
        let hikers: [GHiker] = try fetch("Hiker", in: reopened)
        let mentors = hikers.filter { $0.name?.hasPrefix("mentor") == true }
        let (_, lines) = capturingSQL {
            for mentor in mentors { reopened.delete(mentor) }
            reopened.processPendingChanges()
        }
        XCTAssertEqual(statements(lines, from: "ZHIKER", "t0.ZMENTOR IN ("), 1)
        XCTAssertEqual(reopened.deletedObjects.count, 3, "nullify deletes nothing else")
        for mentee in hikers where mentee.name?.hasPrefix("mentee") == true {
            XCTAssertNil(mentee.value(forKey: "mentor"), "\(mentee.name ?? "") lost its mentor")
            XCTAssertTrue(mentee.isUpdated)
        }
        try reopened.save()
        XCTAssertEqual(try sql("SELECT COUNT(*) FROM ZHIKER WHERE ZMENTOR IS NOT NULL").first?.first as? Int64, 0)
        XCTAssertEqual(try sql("SELECT COUNT(*) FROM ZHIKER").first?.first as? Int64, 12)
    }

    func testMenteesLoadedByTheRulesReportTheirNullifiedMentorAsASetterWould() throws {
        // The mentees are not registered before the rules run: the rules' loading makes them
        // faults holding their rows, and the nullify of each one's `mentor` fires it. The
        // change is the one `mentee.mentor = nil` makes: reported updated, its old value kept
        // for changedValues, the event's undo and the save.
        try saveMentors(2, menteesEach: 3)

        let reopened = try openContainer().viewContext
        let undoManager = UndoManager()
        reopened.undoManager = undoManager
        let request = NSFetchRequest<GHiker>(entityName: "Hiker")
        request.predicate = NSPredicate(format: "name BEGINSWITH 'mentor'")
        let mentors = try reopened.fetch(request)
        XCTAssertEqual(reopened.registeredObjects.count, 2, "no mentee registered before the rules run")
        let recorder = NotificationRecorder(.NSManagedObjectContextObjectsDidChange, from: reopened)
        undoManager.beginUndoGrouping()
        for mentor in mentors { reopened.delete(mentor) }
        reopened.processPendingChanges()
        undoManager.endUndoGrouping()

        XCTAssertEqual(recorder.count, 1)
        XCTAssertEqual(recorder.objects(NSDeletedObjectsKey), Set(mentors))
        let mentees = recorder.objects(NSUpdatedObjectsKey).map { $0 as! GHiker }
        XCTAssertEqual(Set(mentees.compactMap(\.name)), ["mentee 0.0", "mentee 0.1", "mentee 0.2", "mentee 1.0", "mentee 1.1", "mentee 1.2"])
        for mentee in mentees {
            XCTAssertFalse(mentee.isFault)
            XCTAssertTrue(mentee.isUpdated)
            XCTAssertNil(mentee.mentor)
            XCTAssertEqual(Array(mentee.changedValues().keys), ["mentor"])
            XCTAssertTrue(mentee.changedValues()["mentor"] is NSNull)
            let committed = mentee.committedValues(forKeys: ["mentor"])["mentor"] as? GHiker
            XCTAssertEqual(committed?.name.map { String($0.prefix(8)) }, mentee.name.map { "mentor " + String($0.dropFirst(7).prefix(1)) })
        }
        XCTAssertEqual(Set(reopened.updatedObjects), Set(mentees))

        reopened.undo()
        for mentee in mentees {
            XCTAssertEqual(mentee.mentor?.name, mentee.name.map { "mentor " + String($0.dropFirst(7).prefix(1)) }, "undo gives the mentor back")
        }
        XCTAssertTrue(mentors.allSatisfy { !$0.isDeleted })
    }

    func testDenyStillFailsTheSaveForTheCountriesThatHoldTrails() throws {
        let context = try openContainer().viewContext
        for index in 0..<3 {
            let country = GCountry(context: context)
            country.name = "c\(index)"
            if index > 0 {
                let trail = GTrail(context: context)
                trail.name = "trail of c\(index)"
                trail.country = country
            }
        }
        try context.save()

        let reopened = try openContainer().viewContext
        let countries: [GCountry] = try fetch("Country", in: reopened)
        for country in countries { reopened.delete(country) }
        XCTAssertThrowsError(try reopened.save()) { error in
            let error = error as NSError
            XCTAssertEqual(error.code, NSValidationMultipleErrorsError)
            let details = error.userInfo[NSDetailedErrorsKey] as? [NSError] ?? []
            XCTAssertEqual(details.map(\.code), [NSValidationRelationshipDeniedDeleteError, NSValidationRelationshipDeniedDeleteError])
            XCTAssertEqual(Set(details.compactMap { ($0.userInfo[NSValidationObjectErrorKey] as? GCountry)?.name }), ["c1", "c2"])
        }
        XCTAssertEqual(try count("Country", in: try openContainer().viewContext), 3, "nothing was written")
    }

    func testMixedEntitiesInOneRoundEachLoadTheirOwnRelationship() throws {
        let context = try openContainer().viewContext
        let continents = (0..<2).map { index -> GContinent in
            let continent = GContinent(context: context)
            continent.name = "continent \(index)"
            return continent
        }
        var countries: [GCountry] = []
        for index in 0..<4 {
            let country = GCountry(context: context)
            country.name = "country \(index)"
            country.continent = continents[index % 2]
            countries.append(country)
        }
        let trails = try self.trails(3, hikes: { _ in 2 }, in: context)
        trails[0].featuredIn = continents[0]
        trails[1].featuredIn = countries[0]
        try context.save()

        let reopened = try openContainer().viewContext
        let regions: [GRegion] = try fetch("Region", in: reopened)
        let storedTrails: [GTrail] = try fetch("Trail", in: reopened)
        let doomed = regions.filter { $0 is GContinent || $0.name == "country 0" } + storedTrails.filter { $0.name != "t2" }
        let (_, lines) = capturingSQL {
            for object in doomed { reopened.delete(object) }
            reopened.processPendingChanges()
        }
        XCTAssertEqual(statements(lines, from: "ZHIKE", "t0.ZTRAIL IN ("), 1, "the two trails' hikes together")
        XCTAssertEqual(statements(lines, from: "ZREGION", "t0.ZCONTINENT IN ("), 1, "the two continents' countries together")
        XCTAssertEqual(reopened.deletedObjects.count, 2 + 1 + 2 + 4, "continents, a country, two trails, their hikes")
        for country in regions.compactMap({ $0 as? GCountry }) where !country.isDeleted {
            XCTAssertNil(country.continent, "nullify through Continent.countries")
        }
        let survivor = try XCTUnwrap(storedTrails.first { $0.name == "t2" })
        XCTAssertEqual(survivor.hikes.count, 2)
        try reopened.save()
        let stored = try openContainer().viewContext
        XCTAssertEqual(try count("Region", in: stored), 3)
        XCTAssertEqual(try count("Trail", in: stored), 1)
        XCTAssertEqual(try count("Hike", in: stored), 2)
        XCTAssertEqual(try sql("SELECT COUNT(*) FROM ZTRAIL WHERE ZFEATUREDIN IS NOT NULL").first?.first as? Int64, 0)
    }

    func testOwnersWithLoadedOrChangedHikesKeepTheirInMemoryMembers() throws {
        try trails(5, hikes: { _ in 2 }, in: try openContainer().viewContext)
        let (context, trails) = try reopenedTrails()
        // t0's hikes loaded; one of t1's moved to t0 (loading t1's too); a new hike on t2.
        let moved = try XCTUnwrap(trails[1].hikes.first)
        let movedNote = try XCTUnwrap(moved.note)
        moved.trail = trails[0]
        let fresh = GHike(context: context)
        fresh.note = "new"
        fresh.trail = trails[2]
        XCTAssertEqual(trails[0].hikes.count, 3)
        let (_, lines) = capturingSQL {
            for index in [0, 2, 3, 4] { context.delete(trails[index]) }
            context.processPendingChanges()
        }
        XCTAssertEqual(statements(lines, from: "ZHIKE", "t0.ZTRAIL IN ("), 1, "only t3 and t4 were unloaded")
        XCTAssertTrue(moved.isDeleted, "the moved hike went with the trail it was moved to")
        XCTAssertNil(fresh.managedObjectContext, "the unsaved hike went at once")
        XCTAssertEqual(trails[1].hikes.count, 1)
        XCTAssertFalse(trails[1].hikes.first!.isDeleted)
        try context.save()
        let stored = try openContainer().viewContext
        XCTAssertEqual(try count("Trail", in: stored), 1)
        XCTAssertEqual(try fetch("Hike", in: stored, sortedBy: "note", as: GHike.self).compactMap(\.note), ["t1 h0", "t1 h1"].filter { $0 != movedNote })
    }

    func testUnsavedOwnersDeletedBesideSavedOnesGoAtOnce() throws {
        try trails(3, hikes: { _ in 2 }, in: try openContainer().viewContext)
        let (context, trails) = try reopenedTrails()
        let unsaved = GTrail(context: context)
        unsaved.name = "unsaved"
        let unsavedHikes = (0..<2).map { _ -> GHike in
            let hike = GHike(context: context)
            hike.trail = unsaved
            return hike
        }
        for trail in trails + [unsaved] { context.delete(trail) }
        XCTAssertNil(unsaved.managedObjectContext)
        XCTAssertTrue(unsavedHikes.allSatisfy { $0.managedObjectContext == nil })
        context.processPendingChanges()
        XCTAssertEqual(context.deletedObjects.count, 3 + 6)
        XCTAssertTrue(context.insertedObjects.isEmpty)
        try context.save()
        XCTAssertEqual(try count("Hike", in: try openContainer().viewContext), 0)
    }
}
