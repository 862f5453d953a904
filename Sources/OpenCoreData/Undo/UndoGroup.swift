import Foundation

/// One entry of an undo or redo stack: the actions registered between the opening and
/// the closing of a group, in order, each an action or a nested group.
final class UndoGroup {
    enum Item {
        /// `handler` applied to `target`, unless the target is gone (the undo manager does
        /// not keep targets alive, as Foundation's does not).
        case action(target: Weak, handler: (AnyObject) -> Void)
        case group(UndoGroup)
    }

    /// A weak reference to an action's target.
    struct Weak {
        weak var object: AnyObject?
    }

    var items: [Item] = []
    var actionName = ""
    var isDiscardable = false
    /// The stack the group goes to when it closes: redo for groups recorded while undoing.
    let goesToRedoStack: Bool

    init(goesToRedoStack: Bool) { self.goesToRedoStack = goesToRedoStack }

    var isEmpty: Bool { items.isEmpty }

    /// Performs the actions, last registered first, nested groups likewise.
    func perform() {
        for item in items.reversed() {
            switch item {
            case .action(let target, let handler):
                if let object = target.object { handler(object) }
            case .group(let group):
                group.perform()
            }
        }
    }

    /// Drops the actions whose target is `target`, and nested groups left empty.
    func removeActions(withTarget target: AnyObject) {
        items = items.compactMap { item in
            switch item {
            case .action(let weak, _):
                return weak.object === target ? nil : item
            case .group(let group):
                group.removeActions(withTarget: target)
                return group.isEmpty ? nil : item
            }
        }
    }
}
