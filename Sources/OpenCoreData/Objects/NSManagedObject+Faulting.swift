import Foundation

extension NSManagedObject {
    /// The faulting state of the object: `0` when it is fully initialized and not turning
    /// into a fault or out of one, another value while it does (inside `awakeFromFetch()`,
    /// `willTurnIntoFault()` and `didTurnIntoFault()`), as Apple documents it: "0 if the
    /// object is fully initialized as a managed object and not transitioning to or from
    /// another state, otherwise some other value."
    ///
    /// Whether the object's values are loaded is ``isFault``; this property only tells an
    /// observer that a key-value change arrives in the middle of such a transition.
    public var faultingState: Int { state.isChangingFaultState ? 1 : 0 }
}
