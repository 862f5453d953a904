import Foundation

#if !canImport(ObjectiveC)
/// The pointer type of `validateValue(_:forKey:)`'s value, as Apple's Core Data declares
/// it. Without the Objective-C runtime there is no autorelease pool, so it is a plain
/// pointer here; code that overrides `validateValue(_:forKey:)` compiles unchanged.
public typealias AutoreleasingUnsafeMutablePointer<Pointee> = UnsafeMutablePointer<Pointee>
#endif

extension NSManagedObject {
    /// The model's rules for `key`, as `validateValue(_:forKey:)` checks them.
    func modelValidateValue(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>, forKey key: String) throws {
        guard let property = entity.propertyTable.byName[key] else { return }
        let errors: [NSError]
        switch property {
        case let attribute as NSAttributeDescription:
            let present = unboxed(value.pointee)
            // A value that is there breaks no rule of an attribute without rules (min, max,
            // pattern, dates): attributeValidationErrors would return [] after unwrapping it.
            errors = present != nil && attribute.constraints.isEmpty
                ? [] : attributeValidationErrors(value: present, attribute: attribute, object: self)
        case let relationship as NSRelationshipDescription:
            errors = relationshipValidationErrors(unboxed(value.pointee), relationship: relationship)
        default:
            errors = []
        }
        if let error = combinedValidationError(errors) { throw error }
    }

    /// The Deny delete rules, as `validateForDelete()` checks them.
    func validateDeleteRules() throws {
        // Most entities have no deny rule, and a cascade validates every object it deleted:
        // nothing is retained to find that out. (Retains and releases are atomic
        // instructions, which no later load may pass: with one per object, the save's walk
        // over its deleted objects, cold in memory, met their cache misses one at a time.)
        guard Unmanaged.passUnretained(entity)._withUnsafeGuaranteedRef({ $0.propertyTable.hasDenyRules }) else { return }
        var errors: [NSError] = []
        // Walked borrowed (every deleted object is checked; most entities have no deny
        // rule): the local array keeps the relationships alive.
        let relationships = entity.propertyTable.relationships
        relationships.forEachBorrowed { relationship in
            guard relationship.deleteRule == .denyDeleteRule else { return }
            let members = relationship.isToMany
                ? toManyMembers(relationshipValue(for: relationship))
                : (relationshipValue(for: relationship) as? NSManagedObject).map { [$0] } ?? []
            if !members.filter({ !$0.isDeleted }).isEmpty {
                errors.append(coreDataError(NSValidationRelationshipDeniedDeleteError, userInfo: [
                    NSValidationObjectErrorKey: self, NSValidationKeyErrorKey: relationship.name,
                    NSValidationValueErrorKey: publicRelationshipValue(relationship),
                ]))
            }
        }
        if let error = combinedValidationError(errors) { throw error }
    }

    /// Runs ``validateValue(_:forKey:)`` for every property, collecting every error.
    func validateAllProperties() throws {
        var errors: [NSError] = []
        // The base class's validateValue(_:forKey:) is the model's rules alone: an optional
        // attribute without rules passes whatever it holds, and a required one passes a
        // value that is there. Such values need not be boxed into objects only to be
        // checked for nothing. A subclass may override validateValue, so each of its values
        // is handed over.
        let checksModelRulesOnly = type(of: self) == NSManagedObject.self
        let table = entity.propertyTable
        fulfillFaultIfNeeded()
        for property in checksModelRulesOnly ? table.propertiesWithRules : table.all where !(property is NSFetchedPropertyDescription) {
            if checksModelRulesOnly, let attribute = property as? NSAttributeDescription,
                attribute.constraints.isEmpty, state.values[attribute.name] != nil
            {
                continue
            }
            // A relationship of a saved object that was never loaded has not changed since
            // it was saved and validated; loading it just to check it again would fetch
            // every destination.
            if property is NSRelationshipDescription, !state.isInserted, !state.hasLoaded(property) { continue }
            var boxed: AnyObject? = boxedValue(property)
            do {
                try withUnsafeMutablePointer(to: &boxed) { pointer in
                    try validateValue(pointer, forKey: property.name)
                }
            } catch let error as NSError {
                errors.append(error)
            }
        }
        if let error = combinedValidationError(errors) { throw error }
    }

    /// The property's value as an object, as Core Data passes it to validation.
    private func boxedValue(_ property: NSPropertyDescription) -> AnyObject? {
        guard let value = publicValue(primitiveValue(forKey: property.name), for: property) else { return nil }
        return value as AnyObject
    }

    private func publicRelationshipValue(_ relationship: NSRelationshipDescription) -> Any {
        let value = relationshipValue(for: relationship)
        if relationship.isToMany, let set = value as? Set<NSManagedObject> { return NSSet(set: set) }
        return value ?? NSNull()
    }

    /// Relationship rules: a missing mandatory to-one (1570), too few (1580) or too many
    /// (1590) objects in a to-many.
    private func relationshipValidationErrors(_ value: Any?, relationship: NSRelationshipDescription) -> [NSError] {
        var info: [String: Any] = [NSValidationObjectErrorKey: self, NSValidationKeyErrorKey: relationship.name]
        let members = relationship.isToMany ? toManyMembers(value) : (value as? NSManagedObject).map { [$0] } ?? []
        if let context = managedObjectContext, let gone = members.first(where: { $0.managedObjectContext !== context }) {
            // An object deleted before it was ever saved, or one from nowhere: the row
            // would point at nothing.
            return [coreDataError(NSManagedObjectValidationError, userInfo: info.merging([
                NSValidationValueErrorKey: gone, NSLocalizedDescriptionKey: "Dangling reference to an invalid object.",
            ]) { _, new in new })]
        }
        guard relationship.isToMany else {
            if value == nil, !relationship.isOptional {
                return [coreDataError(NSValidationMissingMandatoryPropertyError, userInfo: info)]
            }
            return []
        }
        let count = members.count
        info[NSValidationValueErrorKey] = value ?? NSSet()
        if count == 0, relationship.isOptional { return [] }
        if count < max(relationship.minCount, relationship.isOptional ? 0 : 1) {
            return [coreDataError(NSValidationRelationshipLacksMinimumCountError, userInfo: info)]
        }
        if relationship.maxCount > 0, count > relationship.maxCount {
            return [coreDataError(NSValidationRelationshipExceedsMaximumCountError, userInfo: info)]
        }
        return []
    }

    /// Undoes the boxing of `validateValue`'s pointer: `NSNull` and `nil` are nil.
    private func unboxed(_ object: AnyObject?) -> Any? {
        guard let object, !(object is NSNull) else { return nil }
        return object
    }
}
