import Foundation

/// An object whose methods `FUNCTION(object, 'name:', …)` expressions can call without
/// the Objective-C runtime.
protocol ExpressionMethodTarget {
    func callExpressionMethod(_ name: String, arguments: [Any?]) -> Any?
}

/// The steps of one entity mapping in an object-by-object migration. Subclass it and
/// name the subclass in ``NSEntityMapping/entityMigrationPolicyClassName`` to change how
/// instances are created or related.
///
/// The default implementation creates one destination instance per source instance,
/// sets its attributes from the attribute mappings' value expressions, then its
/// relationships from the relationship mappings'.
open class NSEntityMigrationPolicy: ExpressionMethodTarget {
    /// Creates a policy; the migration manager makes one per entity mapping that names it.
    public required init() {}

    /// Called before the mapping's instances are created.
    open func begin(_ mapping: NSEntityMapping, with manager: NSMigrationManager) throws {}

    /// Creates the destination instance(s) for `sInstance` and associates them with it
    /// (``NSMigrationManager/associate(sourceInstance:withDestinationInstance:for:)``).
    open func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        guard let entityName = mapping.destinationEntityName else { return }
        let destination = NSEntityDescription.insertNewObject(forEntityName: entityName, into: manager.destinationContext)
        let variables = manager.expressionVariables(source: sInstance, destination: destination, mapping: mapping, policy: self)
        for propertyMapping in mapping.attributeMappings ?? [] {
            guard let name = propertyMapping.name, let expression = propertyMapping.valueExpression else { continue }
            variables[NSMigrationPropertyMappingKey] = propertyMapping
            let value = expression.expressionValue(with: sInstance, context: variables)
            if let error = manager.cancellation { throw error }
            destination.setValue(value is NSNull ? nil : value, forKey: name)
        }
        manager.associate(sourceInstance: sInstance, withDestinationInstance: destination, for: mapping)
    }

    /// Called after every instance of the mapping was created.
    open func endInstanceCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Sets `dInstance`'s relationships from the relationship mappings.
    open func createRelationships(forDestination dInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        guard let name = mapping.name, let sources = manager.sourceInstances(forEntityMappingName: name, destinationInstances: [dInstance]) as [NSManagedObject]?,
            let sInstance = sources.first
        else { return }
        let variables = manager.expressionVariables(source: sInstance, destination: dInstance, mapping: mapping, policy: self)
        for propertyMapping in mapping.relationshipMappings ?? [] {
            guard let key = propertyMapping.name, let expression = propertyMapping.valueExpression,
                let relationship = dInstance.entity.relationshipsByName[key]
            else { continue }
            variables[NSMigrationPropertyMappingKey] = propertyMapping
            let value = unwrapAny(expression.expressionValue(with: sInstance, context: variables))
            if let error = manager.cancellation { throw error }
            let objects = NSMigrationManager.objects(in: value)
            if relationship.isToMany {
                dInstance.setValue(relationship.isOrdered ? NSOrderedSet(array: objects) as Any : NSSet(array: objects) as Any, forKey: key)
            } else {
                dInstance.setValue(objects.first, forKey: key)
            }
        }
    }

    /// Called after every relationship of the mapping was set.
    open func endRelationshipCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Checks the migrated data before it is saved; throw to fail the migration.
    open func performCustomValidation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Called when the mapping is done.
    open func end(_ mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Answers `FUNCTION($entityPolicy, "name:", …)` in a value expression. Override it
    /// to offer your own functions, calling `super` for the names you do not handle.
    /// (On Apple platforms Core Data calls the policy's Objective-C method of that
    /// name; without the Objective-C runtime the policy answers by name here.)
    ///
    /// The default answers nothing and cancels the migration naming the function.
    open func value(forFunction name: String, arguments: [Any?], manager: NSMigrationManager?) -> Any? {
        manager?.cancelMigrationWithError(coreDataError(NSEntityMigrationPolicyError, userInfo: [
            NSLocalizedDescriptionKey: "\(type(of: self)) does not answer FUNCTION($entityPolicy, '\(name)', …): override value(forFunction:arguments:manager:).",
            "reason": "unrecognized function \(name)",
        ]))
        return nil
    }

    /// The manager running this policy, for `FUNCTION($entityPolicy, …)`.
    weak var runningManager: NSMigrationManager?

    func callExpressionMethod(_ name: String, arguments: [Any?]) -> Any? {
        value(forFunction: name, arguments: arguments, manager: runningManager)
    }

    // MARK: Finding policy classes

    /// Policy classes registered by name, for class names the Swift runtime cannot find.
    nonisolated(unsafe) private static var registeredClasses: [String: NSEntityMigrationPolicy.Type] = [:]
    private static let registryLock = NSLock()

    /// Makes `policyClass` findable under its name (with and without module), for
    /// ``NSEntityMapping/entityMigrationPolicyClassName``.
    public static func register(_ policyClass: NSEntityMigrationPolicy.Type) {
        registryLock.lock(); defer { registryLock.unlock() }
        let full = String(reflecting: policyClass)
        registeredClasses[full] = policyClass
        registeredClasses[String(describing: policyClass)] = policyClass
    }

    /// The policy class named `name`: `NSEntityMigrationPolicy` itself, a registered one,
    /// or one the Swift runtime finds by its qualified name.
    static func policyClass(named name: String?) -> NSEntityMigrationPolicy.Type? {
        guard let name, !name.isEmpty, name != "NSEntityMigrationPolicy" else { return NSEntityMigrationPolicy.self }
        registryLock.lock()
        let registered = registeredClasses[name]
        registryLock.unlock()
        if let registered { return registered }
        return _typeByName(name) as? NSEntityMigrationPolicy.Type
    }
}
