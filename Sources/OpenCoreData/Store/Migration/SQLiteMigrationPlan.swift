import Foundation

/// A mapping model turned into table and column work on a SQLite store: which old rows
/// become which new rows, and where each new column's value comes from.
///
/// Only mapping models whose expressions SQL can carry out have a plan: `$source.key`
/// for attributes, the source relationship for relationships, constants and defaults,
/// no custom policies and no source expressions. Inferred mapping models always do;
/// others go through ``NSMigrationManager`` object by object.
struct SQLiteMigrationPlan {
    /// One source entity's rows becoming one destination entity's rows.
    struct Move {
        let old: StoreEntity
        let new: StoreEntity
        let mapping: NSEntityMapping
    }

    /// Where a destination attribute's value comes from.
    enum AttributeSource {
        /// The source attribute's column, converted when the storage differs.
        case column(String, AttributeStorage)
        /// A fixed value (the default value, or a constant expression).
        case value(Any?)
    }

    let source: NSManagedObjectModel
    let destination: NSManagedObjectModel
    let oldSchema: StoreSchema
    let newSchema: StoreSchema
    let moves: [Move]
    /// Moves by old entity number.
    let moveByOldNumber: [Int: Move]

    /// The plan, or `nil` when the mapping model needs the object-by-object migration.
    init?(mapping: NSMappingModel, source: NSManagedObjectModel, destination: NSManagedObjectModel, configurationName: String?) {
        self.source = source
        self.destination = destination
        oldSchema = StoreSchema(model: source, configurationName: configurationName)
        newSchema = StoreSchema(model: destination, configurationName: configurationName)
        var moves: [Move] = []
        var seenOld: Set<Int> = [], seenNew: Set<Int> = []
        for entityMapping in mapping.entityMappings ?? [] {
            guard entityMapping.sourceExpression == nil,
                entityMapping.entityMigrationPolicyClassName == nil || entityMapping.entityMigrationPolicyClassName == "NSEntityMigrationPolicy"
            else { return nil }
            switch entityMapping.mappingType {
            case .addEntityMappingType, .removeEntityMappingType: continue
            case .copyEntityMappingType, .transformEntityMappingType: break
            case .customEntityMappingType, .undefinedEntityMappingType: return nil
            }
            guard let sourceName = entityMapping.sourceEntityName, let destinationName = entityMapping.destinationEntityName,
                let oldEntity = source.entity(named: sourceName).flatMap(oldSchema.entity),
                let newEntity = destination.entity(named: destinationName).flatMap(newSchema.entity),
                seenOld.insert(oldEntity.number).inserted, seenNew.insert(newEntity.number).inserted
            else { return nil }
            moves.append(Move(old: oldEntity, new: newEntity, mapping: entityMapping))
        }
        self.moves = moves
        self.moveByOldNumber = Dictionary(uniqueKeysWithValues: moves.map { ($0.old.number, $0) })
        for move in moves {
            for property in move.new.entity.properties where !property.isTransient {
                if let attribute = property as? NSAttributeDescription {
                    guard attributeSource(of: attribute, in: move) != nil else { return nil }
                } else if let relationship = property as? NSRelationshipDescription {
                    guard relationshipMappingIsPlain(relationship, in: move) else { return nil }
                }
            }
        }
    }

    // MARK: Reading the mapping

    /// The property mapping of `name` in `move`'s entity mapping.
    private func propertyMapping(_ name: String, in mappings: [NSPropertyMapping]?) -> NSPropertyMapping? {
        mappings?.first { $0.name == name }
    }

    /// The source key of `$source.key`, if `expression` is exactly that.
    static func sourceKey(of expression: NSExpression?) -> String? {
        guard let expression, expression.expressionType == .function, expression.function == "valueForKeyPath:" || expression.function == "valueForKey:",
            let operand = expression.operand, operand.expressionType == .variable, operand.variable == NSMigrationSourceObjectKey
        else { return nil }
        let key = expression.keyPath.isEmpty ? (expression.arguments?.first?.constantValue as? String ?? "") : expression.keyPath
        return key.isEmpty || key.contains(".") ? nil : key
    }

    /// Where `attribute`'s value comes from for rows of `move`, or `nil` when SQL cannot
    /// say (an expression other than `$source.key` or a constant, or a storage change
    /// SQL cannot make).
    func attributeSource(of attribute: NSAttributeDescription, in move: Move) -> AttributeSource? {
        if attribute.compositeOwner != nil { return elementSource(of: attribute, move: move) }
        guard let storage = AttributeStorage(attribute) else { return .value(nil) }
        guard let mapping = propertyMapping(attribute.name, in: move.mapping.attributeMappings), let expression = mapping.valueExpression else {
            return .value(attribute.defaultValue)
        }
        if expression.expressionType == .constantValue { return .value(expression.constantValue) }
        guard let key = Self.sourceKey(of: expression),
            let old = move.old.entity.attributesByName[key], !old.isTransient,
            let oldStorage = AttributeStorage(old),
            let column = move.old.table.column(for: old),
            SQLiteMigrationPlan.canCarry(oldStorage, to: storage)
        else { return nil }
        return .column(column.name, oldStorage)
    }

    /// Where an element of a composite comes from: the element at the same path in the
    /// source composite its mapping reads (`$source.address`), or the element's default.
    private func elementSource(of element: NSAttributeDescription, move: Move) -> AttributeSource? {
        guard let storage = AttributeStorage(element) else { return .value(nil) }
        let root = element.storedOwner
        let path = Array(element.compositePath.dropFirst())
        guard let mapping = propertyMapping(root.name, in: move.mapping.attributeMappings), let expression = mapping.valueExpression else {
            return .value(element.defaultValue)
        }
        if expression.expressionType == .constantValue { return .value(NSCompositeAttributeDescription.value(at: path[...], in: expression.constantValue)) }
        guard let key = Self.sourceKey(of: expression),
            let old = move.old.entity.attributesByName[key] as? NSCompositeAttributeDescription, !old.isTransient
        else { return nil }
        guard let oldElement = old.leafElements.first(where: { $0.path == path })?.element else { return .value(element.defaultValue) }
        guard let oldStorage = AttributeStorage(oldElement), let column = move.old.table.column(for: oldElement),
            SQLiteMigrationPlan.canCarry(oldStorage, to: storage)
        else { return nil }
        return .column(column.name, oldStorage)
    }

    /// Whether SQL can turn a column of `old` storage into one of `new` storage.
    static func canCarry(_ old: AttributeStorage, to new: AttributeStorage) -> Bool {
        if old == new { return true }
        let integers: Set<AttributeStorage> = [.integer16, .integer32, .integer64, .boolean]
        if integers.contains(old) && (integers.contains(new) || new == .double || new == .float || new == .decimal) { return true }
        if (old == .float || old == .double) && (new == .float || new == .double) { return true }
        return false
    }

    /// The source relationship a destination relationship takes its objects from:
    /// the last `$source.key` of its value expression.
    func sourceRelationship(of relationship: NSRelationshipDescription, in move: Move) -> NSRelationshipDescription? {
        guard let mapping = propertyMapping(relationship.name, in: move.mapping.relationshipMappings),
            let expression = mapping.valueExpression
        else { return nil }
        let key = Self.sourceKey(of: expression) ?? expression.arguments?.compactMap(Self.sourceKey(of:)).last
        return key.flatMap { move.old.entity.relationshipsByName[$0] }
    }

    /// Whether `relationship` is unmapped, or mapped from a source relationship stored
    /// the same way (a key column for a key column, a join table for a join table).
    private func relationshipMappingIsPlain(_ relationship: NSRelationshipDescription, in move: Move) -> Bool {
        guard let mapping = propertyMapping(relationship.name, in: move.mapping.relationshipMappings), mapping.valueExpression != nil else { return true }
        guard let old = sourceRelationship(of: relationship, in: move), let oldDestination = old.destinationEntity,
            let newDestination = relationship.destinationEntity,
            let mappedDestination = moves.first(where: { $0.new.entity === newDestination })?.old.entity,
            mappedDestination.isKindOf(entity: oldDestination) || oldDestination.isKindOf(entity: mappedDestination)
        else { return false }
        if relationship.isToMany != old.isToMany { return false }
        if !relationship.isToMany { return move.old.table.column(for: old) != nil }
        switch (newSchema.toMany(relationship), oldSchema.toMany(old)) {
        case (.foreignKey?, .foreignKey?), (.joinTable?, .joinTable?), (.hiddenKey?, .hiddenKey?): return true
        default: return false
        }
    }

    /// The move whose destination entity is `entity`.
    func move(toNew entity: NSEntityDescription) -> Move? {
        moves.first { $0.new.entity === entity }
    }
}
