import Foundation
import XCTest
@testable import OpenCoreData

/// The library's UndoManager (corelibs Foundation has none) against Foundation's
/// documented behaviour: groups, nesting, the redo stack, names, levels and notifications.
final class UndoManagerTests: XCTestCase {
    /// A value whose changes register their own undo, as an app's model objects do.
    final class Counter {
        let undoManager: UndoManager
        private(set) var value = 0
        init(_ undoManager: UndoManager) { self.undoManager = undoManager }
        func set(_ newValue: Int) {
            let old = value
            undoManager.registerUndo(withTarget: self) { $0.set(old) }
            value = newValue
        }
    }

    func testExplicitGroupsUndoAndRedoTogether() {
        let manager = UndoManager()
        let counter = Counter(manager)
        XCTAssertFalse(manager.canUndo)
        manager.beginUndoGrouping()
        counter.set(1)
        counter.set(2)
        manager.endUndoGrouping()
        manager.beginUndoGrouping()
        counter.set(3)
        manager.endUndoGrouping()
        XCTAssertEqual(manager.groupingLevel, 0)
        XCTAssertTrue(manager.canUndo)

        manager.undo()
        XCTAssertEqual(counter.value, 2)
        manager.undo()
        XCTAssertEqual(counter.value, 0, "both actions of the first group are undone, last first")
        XCTAssertFalse(manager.canUndo)
        XCTAssertTrue(manager.canRedo)
        manager.redo()
        XCTAssertEqual(counter.value, 2)
        manager.redo()
        XCTAssertEqual(counter.value, 3)
        XCTAssertFalse(manager.canRedo)
        manager.undo()
        XCTAssertEqual(counter.value, 2)
    }

    func testANewRegistrationClearsTheRedoStack() {
        let manager = UndoManager()
        manager.groupsByEvent = false
        let counter = Counter(manager)
        manager.beginUndoGrouping(); counter.set(1); manager.endUndoGrouping()
        manager.undo()
        XCTAssertTrue(manager.canRedo)
        manager.beginUndoGrouping(); counter.set(5); manager.endUndoGrouping()
        XCTAssertFalse(manager.canRedo)
    }

    func testGroupsByEventOpensAGroupThatUndoClosesOrTheRunLoopCloses() {
        let manager = UndoManager()
        let counter = Counter(manager)
        counter.set(1)
        XCTAssertEqual(manager.groupingLevel, 1, "the first registration opened a group")
        counter.set(2)
        manager.undo()  // closes the group, then undoes it whole
        XCTAssertEqual(counter.value, 0)

        manager.redo()
        counter.set(7)
        RunLoop.main.run(until: Date().addingTimeInterval(0.05))
        XCTAssertEqual(manager.groupingLevel, 0, "the end of the run loop's turn closed the group")
        counter.set(8)
        manager.undo()
        XCTAssertEqual(counter.value, 7, "one group per turn of the run loop")
    }

    func testNestedGroupsAreOneUndoAndUndoNestedGroupTakesTheInnerOne() {
        let manager = UndoManager()
        let counter = Counter(manager)
        manager.beginUndoGrouping()
        counter.set(1)
        manager.beginUndoGrouping()
        counter.set(2)
        manager.endUndoGrouping()
        XCTAssertEqual(manager.groupingLevel, 1)
        manager.undoNestedGroup()
        XCTAssertEqual(counter.value, 1, "only the nested group")
        XCTAssertTrue(manager.canRedo, "what it did went to the redo stack")
        manager.endUndoGrouping()
        manager.undo()
        XCTAssertEqual(counter.value, 0)
    }

    func testDisabledRegistrationRecordsNothing() {
        let manager = UndoManager()
        let counter = Counter(manager)
        manager.disableUndoRegistration()
        manager.disableUndoRegistration()
        XCTAssertFalse(manager.isUndoRegistrationEnabled)
        counter.set(1)
        manager.enableUndoRegistration()
        XCTAssertFalse(manager.isUndoRegistrationEnabled, "calls nest")
        manager.enableUndoRegistration()
        XCTAssertTrue(manager.isUndoRegistrationEnabled)
        XCTAssertFalse(manager.canUndo)
        XCTAssertEqual(manager.groupingLevel, 0)
    }

    func testActionNamesAndMenuTitles() {
        let manager = UndoManager()
        let counter = Counter(manager)
        XCTAssertEqual(manager.undoMenuItemTitle, "Undo")
        manager.beginUndoGrouping()
        counter.set(1)
        manager.setActionName("Rate Trail")
        manager.endUndoGrouping()
        XCTAssertEqual(manager.undoActionName, "Rate Trail")
        XCTAssertEqual(manager.undoMenuItemTitle, "Undo Rate Trail")
        manager.undo()
        XCTAssertEqual(manager.undoActionName, "")
        XCTAssertEqual(manager.redoActionName, "Rate Trail", "the name moves to the redo stack")
        XCTAssertEqual(manager.redoMenuItemTitle, "Redo Rate Trail")
    }

    func testLevelsOfUndoKeepsTheNewestGroups() {
        let manager = UndoManager()
        manager.levelsOfUndo = 2
        let counter = Counter(manager)
        for value in 1...4 {
            manager.beginUndoGrouping(); counter.set(value); manager.endUndoGrouping()
        }
        manager.undo(); manager.undo()
        XCTAssertEqual(counter.value, 2)
        XCTAssertFalse(manager.canUndo)
    }

    func testRemoveAllActionsWithTargetLeavesOtherTargets() {
        let manager = UndoManager()
        let first = Counter(manager), second = Counter(manager)
        manager.beginUndoGrouping(); first.set(1); manager.endUndoGrouping()
        manager.beginUndoGrouping(); second.set(1); manager.endUndoGrouping()
        manager.removeAllActions(withTarget: second)
        manager.undo()
        XCTAssertEqual(first.value, 0)
        XCTAssertEqual(second.value, 1)
        XCTAssertFalse(manager.canUndo)
        manager.removeAllActions()
        XCTAssertFalse(manager.canRedo)
    }

    func testIsUndoingAndIsRedoingDuringTheActions() {
        let manager = UndoManager()
        final class Probe { var seen: [String] = [] }
        let probe = Probe()
        manager.beginUndoGrouping()
        manager.registerUndo(withTarget: probe) { probe in
            probe.seen.append("undoing=\(manager.isUndoing)")
            manager.registerUndo(withTarget: probe) { probe in probe.seen.append("redoing=\(manager.isRedoing)") }
        }
        manager.endUndoGrouping()
        manager.undo()
        manager.redo()
        XCTAssertEqual(probe.seen, ["undoing=true", "redoing=true"])
        XCTAssertFalse(manager.isUndoing || manager.isRedoing)
    }

    func testNotificationsInFoundationsOrder() {
        let manager = UndoManager()
        let counter = Counter(manager)
        final class Log { var names: [String] = [] }
        let log = Log()
        let names: [Notification.Name] = [.NSUndoManagerCheckpoint, .NSUndoManagerDidOpenUndoGroup, .NSUndoManagerWillCloseUndoGroup,
                                           .NSUndoManagerDidCloseUndoGroup, .NSUndoManagerWillUndoChange, .NSUndoManagerDidUndoChange,
                                           .NSUndoManagerWillRedoChange, .NSUndoManagerDidRedoChange]
        let tokens = names.map { name in
            NotificationCenter.default.addObserver(forName: name, object: manager, queue: nil) { note in
                log.names.append(note.name.rawValue.replacingOccurrences(of: "NSUndoManager", with: "").replacingOccurrences(of: "Notification", with: ""))
            }
        }
        defer { tokens.forEach(NotificationCenter.default.removeObserver) }
        manager.beginUndoGrouping()
        counter.set(1)
        manager.endUndoGrouping()
        manager.undo()
        manager.redo()
        XCTAssertEqual(log.names, ["DidOpenUndoGroup", "Checkpoint", "WillCloseUndoGroup", "DidCloseUndoGroup",
                                   "Checkpoint", "Checkpoint", "WillUndoChange", "DidUndoChange",
                                   "Checkpoint", "WillRedoChange", "DidRedoChange"])
        XCTAssertEqual(Notification.Name.NSUndoManagerCheckpoint.rawValue, "NSUndoManagerCheckpointNotification")
    }
}
