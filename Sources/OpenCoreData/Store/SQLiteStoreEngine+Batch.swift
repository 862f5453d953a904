import Foundation

/// Batch requests at the store, row by row: the deletes that cannot run as one
/// statement (see ``SQLiteStoreEngine/batchDelete(_:entity:returningKeys:in:)``), inside
/// the exclusive transaction of ``SQLiteStoreEngine/performSave(_:)``, without managed
/// objects.
extension SQLiteStoreEngine {
    /// Whether the row `key` exists.
    func rowExists(_ key: StoreKey) throws -> Bool {
        let mapped = try storeEntity(number: key.entityNumber)
        return try database.withStatement("SELECT 1 FROM \(mapped.table.name) WHERE Z_PK = ?") { statement in
            statement.bindKey(key.primaryKey, at: 1)
            return try statement.step()
        }
    }

    /// The relationship of an entity whose delete rule a batch delete cannot carry out
    /// (deny), searched through every entity the deletion can reach by cascading: Core Data
    /// refuses such a request before deleting anything.
    func relationshipBlockingBatchDelete(from entities: [NSEntityDescription]) -> NSRelationshipDescription? {
        var seen = Set<ObjectIdentifier>()
        var pending = entities
        while let entity = pending.popLast() {
            guard seen.insert(ObjectIdentifier(entity)).inserted else { continue }
            pending.append(contentsOf: entity.subentities)
            for relationship in entity.propertyTable.relationships where !relationship.isTransient {
                switch relationship.deleteRule {
                case .denyDeleteRule: return relationship
                case .cascadeDeleteRule: if let destination = relationship.destinationEntity { pending.append(destination) }
                case .nullifyDeleteRule, .noActionDeleteRule: break
                }
            }
        }
        return nil
    }

    /// Deletes the rows `keys` and applies their delete rules the way Core Data's batch
    /// delete triggers do:
    ///
    /// - cascade: the related rows are deleted too (and their rules applied);
    /// - nullify: a related row that refers back through a to-one loses that reference;
    ///   a related row on the to-many side of the inverse gets a new version (`Z_OPT + 1`);
    ///   join-table rows go. When the inverse is mandatory (not optional) and a related row
    ///   exists, the request fails: "Constraint trigger violation: Batch delete failed due
    ///   to mandatory OTO (OTM, MTM) nullify inverse on Entity/relationship";
    /// - no action: nothing.
    ///
    /// Returns every deleted row and every row whose values changed. The caller holds the
    /// save transaction, and has checked for deny rules.
    func batchDelete(_ keys: [StoreKey], in transaction: SQLiteSaveTransaction) throws -> (deleted: [StoreKey], changed: Set<StoreKey>) {
        var pending = Array(keys.reversed())
        var deleted: [StoreKey] = []
        var deletedSet = Set<StoreKey>()
        var changed = Set<StoreKey>()
        while let key = pending.popLast() {
            guard !deletedSet.contains(key), try rowExists(key) else { continue }
            let mapped = try storeEntity(number: key.entityNumber)
            let entityName = mapped.entity.name ?? ""
            for relationship in mapped.entity.propertyTable.relationships where !relationship.isTransient {
                switch relationship.deleteRule {
                case .noActionDeleteRule, .denyDeleteRule:
                    continue
                case .cascadeDeleteRule:
                    let destinations = try destinationKeys(of: relationship, from: key)
                    pending.append(contentsOf: destinations.reversed())
                case .nullifyDeleteRule:
                    guard let inverse = relationship.inverseRelationship, !inverse.isTransient else { continue }
                    let destinations = try destinationKeys(of: relationship, from: key).filter { !deletedSet.contains($0) }
                    guard !destinations.isEmpty else { continue }
                    let mandatory = !inverse.isOptional
                    if !relationship.isToMany {
                        if mandatory { throw Self.triggerViolation("mandatory OTO nullify inverse on \(entityName)/\(relationship.name)") }
                        for destination in destinations {
                            if inverse.isToMany {
                                try bumpVersion(destination)
                            } else {
                                try clearToOne(inverse, of: destination)
                            }
                            try recordChange(of: inverse, in: destination, transaction)
                            changed.insert(destination)
                        }
                    } else if !inverse.isToMany {
                        // Core Data's own message spells it "manadatory" here.
                        if mandatory { throw Self.triggerViolation("manadatory OTM nullify inverse on \(entityName)/\(relationship.name)") }
                        for destination in destinations {
                            try clearToOne(inverse, of: destination)
                            try recordChange(of: inverse, in: destination, transaction)
                            changed.insert(destination)
                        }
                    } else if mandatory {
                        for destination in destinations {
                            let others = try destinationKeys(of: inverse, from: destination).filter { $0 != key && !deletedSet.contains($0) }
                            if others.isEmpty { throw Self.triggerViolation("mandatory MTM nullify inverse on \(entityName)/\(relationship.name)") }
                        }
                    }
                }
            }
            try transaction.delete(key)
            deleted.append(key)
            deletedSet.insert(key)
        }
        return (deleted, changed.subtracting(deletedSet))
    }

    // MARK: Helpers

    /// Records in history that the delete rules changed `relationship` of row `key`.
    private func recordChange(of relationship: NSRelationshipDescription, in key: StoreKey, _ transaction: SQLiteSaveTransaction) throws {
        let slot = try storeEntity(number: key.entityNumber).entity.propertyTable.slotByName[relationship.name]
        try transaction.recordUpdate(key, slots: slot.map { [$0] } ?? nil)
    }

    /// `UPDATE … SET Z_OPT = Z_OPT + 1` on one row.
    private func bumpVersion(_ key: StoreKey) throws {
        let mapped = try storeEntity(number: key.entityNumber)
        try database.withStatement("UPDATE OR FAIL \(mapped.table.name) SET Z_OPT = (Z_OPT + 1) WHERE Z_PK = ?") { statement in
            statement.bindKey(key.primaryKey, at: 1)
            try statement.execute()
        }
    }

    /// Sets the to-one `relationship` of row `key` to NULL (with its entity and order
    /// columns) and adds one to its `Z_OPT`.
    private func clearToOne(_ relationship: NSRelationshipDescription, of key: StoreKey) throws {
        let mapped = try storeEntity(number: key.entityNumber)
        let table = mapped.table
        guard let toOne = mapped.toOnes.first(where: { $0.relationship === relationship || $0.relationship.name == relationship.name }) else { return }
        var columns = [table.columns[toOne.column].name]
        if let entityColumn = toOne.entityColumn { columns.append(table.columns[entityColumn].name) }
        if let order = schema.orderColumn(of: toOne.relationship, in: table) { columns.append(order) }
        let assignments = columns.map { "\($0) = NULL" }.joined(separator: ", ")
        try database.withStatement("UPDATE OR FAIL \(table.name) SET \(assignments), Z_OPT = (Z_OPT + 1) WHERE Z_PK = ?") { statement in
            statement.bindKey(key.primaryKey, at: 1)
            try statement.execute()
        }
    }

    /// The error Core Data reports when one of its batch-delete triggers raises.
    static func triggerViolation(_ what: String) -> NSError {
        coreDataError(NSPersistentStoreSaveConflictsError, userInfo: [
            NSLocalizedDescriptionKey: "Constraint trigger violation: Batch delete failed due to \(what)"
        ])
    }
}
