import Foundation

/// The five ways a context can settle the conflicts a save finds.
public enum NSMergePolicyType: UInt, Sendable {
    /// The save fails and reports the conflicts (the default).
    case errorMergePolicyType = 0
    /// Property by property; where both the store and the context changed a property, the
    /// store's value wins.
    case mergeByPropertyStoreTrumpMergePolicyType = 1
    /// Property by property; where both changed a property, the context's value wins.
    case mergeByPropertyObjectTrumpMergePolicyType = 2
    /// The context's whole object is written over the stored one.
    case overwriteMergePolicyType = 3
    /// The context's changes to the conflicting objects are discarded.
    case rollbackMergePolicyType = 4
}

/// Decides what a save does when it finds conflicts: optimistic-locking conflicts
/// (``NSMergeConflict``: an object changed in the store since it was fetched) and
/// uniqueness-constraint conflicts (``NSConstraintConflict``).
///
/// Set a context's ``NSManagedObjectContext/mergePolicy`` to one of the shared policies
/// (``error``, ``mergeByPropertyStoreTrump``, ``mergeByPropertyObjectTrump``,
/// ``overwrite``, ``rollback``) or to an instance of a subclass that overrides
/// ``resolve(optimisticLockingConflicts:)`` or ``resolve(constraintConflicts:)`` and
/// calls `super` for what it does not handle itself.
///
/// ```swift
/// context.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
/// ```
///
/// The resolution runs inside the save, while the save holds the store's write lock, so
/// no other context or process can change the rows in between.
open class NSMergePolicy: NSObject {
    /// The policy's type.
    public let mergeType: NSMergePolicyType

    /// A policy that behaves as `ty`; a subclass passes the type closest to what it wants.
    public init(merge ty: NSMergePolicyType) {
        mergeType = ty
        super.init()
    }

    /// The default policy: a save with conflicts fails, reporting them.
    public static let error = NSMergePolicy(merge: .errorMergePolicyType)
    /// Property by property, the store's changes win over the context's.
    public static let mergeByPropertyStoreTrump = NSMergePolicy(merge: .mergeByPropertyStoreTrumpMergePolicyType)
    /// Property by property, the context's changes win over the store's.
    public static let mergeByPropertyObjectTrump = NSMergePolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
    /// The context's objects are written whole over the stored ones.
    public static let overwrite = NSMergePolicy(merge: .overwriteMergePolicyType)
    /// The context's changes to conflicting objects are discarded for the store's.
    public static let rollback = NSMergePolicy(merge: .rollbackMergePolicyType)

    /// Resolves a mixed list: first its ``NSMergeConflict``s through
    /// ``resolve(optimisticLockingConflicts:)``, then its ``NSConstraintConflict``s
    /// through ``resolve(constraintConflicts:)``.
    open func resolve(mergeConflicts list: [Any]) throws {
        // One pass, one cast for each conflict of the kind a save lists most (a failed cast
        // from `Any` costs as much as a successful one): the two classes are unrelated.
        var locking: [NSMergeConflict] = [], constraints: [NSConstraintConflict] = []
        for conflict in list {
            if let constraint = conflict as? NSConstraintConflict {
                constraints.append(constraint)
            } else if let merge = conflict as? NSMergeConflict {
                locking.append(merge)
            }
        }
        if !locking.isEmpty { try resolve(optimisticLockingConflicts: locking) }
        if !constraints.isEmpty { try resolve(constraintConflicts: constraints) }
    }

    /// Resolves optimistic-locking conflicts as ``mergeType`` says; the error policy
    /// throws ``NSManagedObjectMergeError`` (133020) with the list under `conflictList`.
    open func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
        guard !list.isEmpty else { return }
        if mergeType == .errorMergePolicyType {
            throw coreDataError(NSManagedObjectMergeError, userInfo: [NSPersistentStoreSaveConflictsErrorKey: list])
        }
        for conflict in list { OptimisticLockingResolution.resolve(conflict, as: mergeType) }
    }

    /// Resolves uniqueness-constraint conflicts as ``mergeType`` says; the error policy
    /// throws ``NSManagedObjectConstraintMergeError`` (133021) with the list under
    /// `conflictList`. The other policies merge objects of one entity only: a conflict
    /// between objects of different entities (sub-entities of the entity that declares the
    /// constraint) throws ``NSManagedObjectMergeError`` (133020), leaving it and the
    /// conflicts after it unresolved, as Core Data's policies do.
    open func resolve(constraintConflicts list: [NSConstraintConflict]) throws {
        guard !list.isEmpty else { return }
        if mergeType == .errorMergePolicyType {
            throw coreDataError(NSManagedObjectConstraintMergeError, userInfo: [
                "NSExceptionOmitCallstacks": true,
                NSPersistentStoreSaveConflictsErrorKey: list,
            ])
        }
        let context = list.lazy.compactMap { $0.conflictingObjects.first?.managedObjectContext ?? $0.databaseObject?.managedObjectContext }.first
        // Each conflict handed on where the list holds it (no retain and release of each).
        try list.withUnsafeBufferPointer { conflicts in
            for index in conflicts.indices {
                // Decompiled NSMergePolicy (iOS 26, resolveConstraintConflicts:error:): the
                // entities of the conflict's objects and of its database object go into a set;
                // with more than one, the method stops with error 133020 (its user info is a
                // constant dictionary the decompiled code does not show; Core Data's
                // description for the code is given).
                if ConstraintResolution.spansSeveralEntities(conflicts[index]) { throw coreDataError(NSManagedObjectMergeError) }
                ConstraintResolution.resolve(conflicts[index], as: mergeType)
            }
        }
        // The delete rules of the objects the policy deleted run before the save writes.
        // (Core Data seems to end each conflict this way; once for all of them gives the
        // same rows and saves 5 % of a 10,000-object upsert, one event instead of 5,000.)
        context?.processPendingChanges()
    }

    /// `<NSMergePolicy: 0x…>`, with the subclass's name for a policy of your own.
    open override var description: String {
        "<\(String(describing: type(of: self))): \(cocoaAddress(of: self))>"
    }
}

/// The default merge policy, as the Objective-C global Core Data's Swift overlay exposes
/// (typed `Any`); the same object as ``NSMergePolicy/error``.
nonisolated(unsafe) public let NSErrorMergePolicy: Any = NSMergePolicy.error
/// ``NSMergePolicy/mergeByPropertyStoreTrump`` under its Objective-C name.
nonisolated(unsafe) public let NSMergeByPropertyStoreTrumpMergePolicy: Any = NSMergePolicy.mergeByPropertyStoreTrump
/// ``NSMergePolicy/mergeByPropertyObjectTrump`` under its Objective-C name.
nonisolated(unsafe) public let NSMergeByPropertyObjectTrumpMergePolicy: Any = NSMergePolicy.mergeByPropertyObjectTrump
/// ``NSMergePolicy/overwrite`` under its Objective-C name.
nonisolated(unsafe) public let NSOverwriteMergePolicy: Any = NSMergePolicy.overwrite
/// ``NSMergePolicy/rollback`` under its Objective-C name.
nonisolated(unsafe) public let NSRollbackMergePolicy: Any = NSMergePolicy.rollback
