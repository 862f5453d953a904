import Foundation

/// Records changes so that they can be undone and redone: Foundation's `UndoManager`,
/// which swift-corelibs-foundation lacks, with its API and behaviour.
///
/// Actions are registered in *groups*; `undo()` reverses the last group and records what
/// it did as a group on the redo stack, `redo()` does the reverse. With ``groupsByEvent``
/// (the default) a group opens by itself at the first registration and closes when the
/// main run loop next turns; ``beginUndoGrouping()`` and ``endUndoGrouping()`` make
/// groups of your own.
///
/// ```swift
/// let undoManager = UndoManager()
/// context.undoManager = undoManager
/// trail.setValue(4.5, forKey: "rating")
/// undoManager.undo()   // the rating is back to what it was
/// ```
open class UndoManager {
    private var undoStack: [UndoGroup] = []
    private var redoStack: [UndoGroup] = []
    /// Open groups, outermost first.
    private var openGroups: [UndoGroup] = []
    private var disableCount = 0
    /// Whether the open top-level group was opened by a registration (``groupsByEvent``).
    private var isAutomaticGroupOpen = false

    /// Whether a group opens by itself at the first registration and closes at the end
    /// of the run loop's turn. `true` by default.
    open var groupsByEvent = true
    /// The most top-level groups each stack keeps; 0 (the default) means no limit.
    open var levelsOfUndo = 0 {
        didSet { trim() }
    }
    /// Whether an undo is in progress.
    open private(set) var isUndoing = false
    /// Whether a redo is in progress.
    open private(set) var isRedoing = false

    /// A new undo manager with empty stacks.
    public init() {}

    // MARK: Registering

    /// Records `handler`, to be called with `target` when the current group is undone.
    ///
    /// The undo manager does not keep `target` alive; an action whose target is gone is
    /// skipped. Registering outside an undo or redo clears the redo stack.
    open func registerUndo<TargetType: AnyObject>(withTarget target: TargetType, handler: @escaping (TargetType) -> Void) {
        guard isUndoRegistrationEnabled else { return }
        if openGroups.isEmpty {
            guard groupsByEvent else {
                raiseCoreDataException(.internalInconsistency, "_registerUndoObject:: NSUndoManager \(cocoaAddress(of: self)) is in invalid state, must begin a group before registering undo")
            }
            openGroup(goesToRedoStack: isUndoing)
            isAutomaticGroupOpen = true
            scheduleEndOfEventGroup()
        }
        if !isUndoing, !isRedoing { redoStack.removeAll() }
        let item = UndoGroup.Item.action(target: UndoGroup.Weak(object: target)) { object in
            if let typed = object as? TargetType { handler(typed) }
        }
        openGroups[openGroups.count - 1].items.append(item)
    }

    /// Whether registrations are recorded (see ``disableUndoRegistration()``).
    open var isUndoRegistrationEnabled: Bool { disableCount == 0 }

    /// Stops recording registrations until a matching ``enableUndoRegistration()``; calls nest.
    open func disableUndoRegistration() { disableCount += 1 }

    /// Resumes recording after ``disableUndoRegistration()``.
    open func enableUndoRegistration() {
        guard disableCount > 0 else {
            raiseCoreDataException(.internalInconsistency, "-[NSUndoManager enableUndoRegistration]: enableUndoRegistration may only be invoked with matching call to disableUndoRegistration")
        }
        disableCount -= 1
    }

    // MARK: Groups

    /// How deeply groups are nested now: 0 when none is open.
    open var groupingLevel: Int { openGroups.count }

    /// Opens a group; the actions registered until the matching ``endUndoGrouping()`` are
    /// undone together. Posts `NSUndoManagerCheckpoint` (unless the group is a top-level
    /// one) and `NSUndoManagerDidOpenUndoGroup`.
    open func beginUndoGrouping() {
        if !openGroups.isEmpty { post(.NSUndoManagerCheckpoint) }
        openGroup(goesToRedoStack: isUndoing)
        post(.NSUndoManagerDidOpenUndoGroup)
    }

    /// Closes the innermost open group. Posts `NSUndoManagerCheckpoint`,
    /// `NSUndoManagerWillCloseUndoGroup` and `NSUndoManagerDidCloseUndoGroup`; an empty
    /// group is dropped.
    open func endUndoGrouping() {
        guard let group = openGroups.last else {
            raiseCoreDataException(.internalInconsistency, "-[NSUndoManager endUndoGrouping]: endUndoGrouping called with no matching begin")
        }
        post(.NSUndoManagerCheckpoint)  // observers (a context) record their pending changes
        post(.NSUndoManagerWillCloseUndoGroup, userInfo: group.isDiscardable ? [NSUndoManagerGroupIsDiscardableKey: true] : nil)
        closeGroup()
        post(.NSUndoManagerDidCloseUndoGroup)
    }

    // MARK: Undoing and redoing

    /// Whether there is something to undo.
    open var canUndo: Bool {
        !undoStack.isEmpty || (openGroups.first.map { !$0.goesToRedoStack && !$0.isEmpty } ?? false)
    }

    /// Whether there is something to redo. Posts `NSUndoManagerCheckpoint` first, so that
    /// pending changes (which clear the redo stack) are recorded.
    open var canRedo: Bool {
        post(.NSUndoManagerCheckpoint)
        return !redoStack.isEmpty
    }

    /// Closes the open top-level group, if one is open, and undoes the last group.
    /// Stops the program when a nested group is open, as Foundation raises.
    ///
    /// Posts `NSUndoManagerCheckpoint` first: an observer with pending changes (a context)
    /// registers them now, in the group that is about to close (or in one of their own).
    open func undo() {
        post(.NSUndoManagerCheckpoint)
        if openGroups.count == 1 { endUndoGrouping() }
        guard openGroups.isEmpty else {
            raiseCoreDataException(.internalInconsistency, "-[NSUndoManager undo]: undo was called with too many nested undo groups")
        }
        undoNestedGroup()
    }

    /// Undoes the last group (the last nested group of the open group, when one is open),
    /// recording what it does as one group on the redo stack. Posts
    /// `NSUndoManagerCheckpoint`, `NSUndoManagerWillUndoChange` and `NSUndoManagerDidUndoChange`.
    open func undoNestedGroup() {
        post(.NSUndoManagerCheckpoint)
        let group: UndoGroup
        if let open = openGroups.last {
            guard case .group(let nested)? = open.items.last else { return }
            open.items.removeLast()
            group = nested
        } else {
            guard let last = undoStack.popLast() else { return }
            group = last
        }
        post(.NSUndoManagerWillUndoChange)
        isUndoing = true
        record(into: .redo, named: group.actionName) { group.perform() }
        isUndoing = false
        post(.NSUndoManagerDidUndoChange)
    }

    /// Redoes the last undone group, recording what it does as one group on the undo
    /// stack. Posts `NSUndoManagerCheckpoint`, `NSUndoManagerWillRedoChange` and
    /// `NSUndoManagerDidRedoChange`. Stops the program when called during an undo.
    open func redo() {
        guard !isUndoing else {
            raiseCoreDataException(.internalInconsistency, "-[NSUndoManager redo]: do not invoke this method while undoing")
        }
        post(.NSUndoManagerCheckpoint)
        guard let group = redoStack.popLast() else { return }
        post(.NSUndoManagerWillRedoChange)
        isRedoing = true
        record(into: .undo, named: group.actionName) { group.perform() }
        isRedoing = false
        post(.NSUndoManagerDidRedoChange)
    }

    /// Empties both stacks, closes any open group without recording it, and enables
    /// registration again.
    open func removeAllActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        openGroups.removeAll()
        isAutomaticGroupOpen = false
        disableCount = 0
    }

    /// Removes every action whose target is `target` from both stacks (and from open
    /// groups); groups left empty are dropped.
    open func removeAllActions(withTarget target: Any) {
        let object = target as AnyObject
        for group in undoStack + redoStack + openGroups { group.removeActions(withTarget: object) }
        undoStack.removeAll { $0.isEmpty }
        redoStack.removeAll { $0.isEmpty }
    }

    // MARK: Action names

    /// Names the group being recorded (the open group, else the last one on the stack
    /// recording goes to): what an Undo menu item shows.
    open func setActionName(_ actionName: String) {
        if let group = openGroups.first {
            group.actionName = actionName
        } else if let group = isUndoing ? redoStack.last : undoStack.last {
            group.actionName = actionName
        }
    }

    /// The name of the group `undo()` would undo, or an empty string.
    open var undoActionName: String { groupToUndo?.actionName ?? "" }
    /// The name of the group `redo()` would redo, or an empty string.
    open var redoActionName: String { redoStack.last?.actionName ?? "" }
    /// `Undo` followed by ``undoActionName`` when there is one.
    open var undoMenuItemTitle: String { undoMenuTitle(forUndoActionName: undoActionName) }
    /// `Redo` followed by ``redoActionName`` when there is one.
    open var redoMenuItemTitle: String { redoMenuTitle(forUndoActionName: redoActionName) }
    /// `Undo` followed by `actionName` when it is not empty.
    open func undoMenuTitle(forUndoActionName actionName: String) -> String { actionName.isEmpty ? "Undo" : "Undo \(actionName)" }
    /// `Redo` followed by `actionName` when it is not empty.
    open func redoMenuTitle(forUndoActionName actionName: String) -> String { actionName.isEmpty ? "Redo" : "Redo \(actionName)" }

    /// Marks the group being recorded as discardable (it changes nothing worth saving).
    open func setActionIsDiscardable(_ discardable: Bool) {
        (openGroups.first ?? undoStack.last)?.isDiscardable = discardable
    }
    /// Whether the group `undo()` would undo is discardable.
    open var undoActionIsDiscardable: Bool { groupToUndo?.isDiscardable ?? false }
    /// Whether the group `redo()` would redo is discardable.
    open var redoActionIsDiscardable: Bool { redoStack.last?.isDiscardable ?? false }

    // MARK: Internals

    /// The group `undo()` would undo: the open top-level group when it has actions.
    private var groupToUndo: UndoGroup? {
        if let open = openGroups.first, !open.goesToRedoStack, !open.isEmpty { return open }
        return undoStack.last
    }

    private enum Stack { case undo, redo }

    /// Runs `actions` (an undo or a redo) with a group open for what they register, and
    /// puts that group on `stack` as one entry, even when a group of the caller is open.
    private func record(into stack: Stack, named name: String, _ actions: () -> Void) {
        let depth = openGroups.count
        let group = openGroup(goesToRedoStack: stack == .redo)
        group.actionName = name
        actions()
        while openGroups.count > depth + 1 { closeGroup() }  // groups the actions left open
        openGroups.removeLast()
        if openGroups.isEmpty { isAutomaticGroupOpen = false }
        guard !group.isEmpty else { return }
        switch stack {
        case .undo: undoStack.append(group)
        case .redo: redoStack.append(group)
        }
        trim()
    }

    @discardableResult
    private func openGroup(goesToRedoStack: Bool) -> UndoGroup {
        let group = UndoGroup(goesToRedoStack: goesToRedoStack)
        openGroups.append(group)
        return group
    }

    /// Closes the innermost group: into its parent, or onto its stack; empty groups vanish.
    private func closeGroup() {
        let group = openGroups.removeLast()
        if openGroups.isEmpty { isAutomaticGroupOpen = false }
        guard !group.isEmpty else { return }
        if let parent = openGroups.last {
            parent.items.append(.group(group))
        } else if group.goesToRedoStack {
            redoStack.append(group)
        } else {
            undoStack.append(group)
        }
        trim()
    }

    /// Drops the oldest groups beyond ``levelsOfUndo``.
    private func trim() {
        guard levelsOfUndo > 0 else { return }
        if undoStack.count > levelsOfUndo { undoStack.removeFirst(undoStack.count - levelsOfUndo) }
        if redoStack.count > levelsOfUndo { redoStack.removeFirst(redoStack.count - levelsOfUndo) }
    }

    /// Closes the group a registration opened when the run loop's current turn ends, as
    /// Foundation's undo manager does through a run loop observer. On Linux the end of the
    /// turn is the next time the main queue (or this thread's run loop) runs.
    private func scheduleEndOfEventGroup() {
        let close = { [weak self] in
            guard let self, self.isAutomaticGroupOpen, self.openGroups.count == 1 else { return }
            self.endUndoGrouping()
        }
        if Thread.isMainThread {
            DispatchQueue.main.async(execute: close)
        } else {
            RunLoop.current.perform(close)
        }
    }

    private func post(_ name: Notification.Name, userInfo: [AnyHashable: Any]? = nil) {
        NotificationCenter.default.post(name: name, object: self, userInfo: userInfo)
    }
}
