import Foundation

extension SQLiteStoreEngine {
    /// The stored row (key and version) that already holds the values `values` gives for
    /// one of `entity`'s uniqueness constraints, if any: what a batch insert under a
    /// merge policy other than error updates instead of inserting a duplicate.
    func constrainedRow(matching values: [String: Any], of entity: NSEntityDescription) throws -> StoreRow? {
        for (declaring, names) in entity.applicableUniquenessConstraints {
            let table = declaring.propertyTable
            var parts: [NSPredicate] = []
            for name in names {
                guard let value = values[name], let attribute = table.byName[name] as? NSAttributeDescription else { break }
                parts.append(NSPredicate(format: "%K == %@", name, AttributeValues.public(value, for: attribute)))
            }
            guard parts.count == names.count else { continue }
            let mapped = try storeEntity(declaring)
            let translator = try self.translator(for: declaring)
            var query = SQLFetchQuery(entity: mapped)
            query.joins = translator.rootJoins
            let condition = try translator.condition(NSCompoundPredicate(andPredicateWithSubpredicates: parts))
            query.condition = SQLFragment.compound([SQLFetchQuery.entityCondition(mapped, includesSubentities: true), condition].compactMap { $0 }, and: true)
            query.limit = 1
            if let row = try fetchRows(query, includesSubentities: true).first { return row }
        }
        return nil
    }

    /// Writes a batch insert's values over an existing row: every attribute the batch
    /// gives (the batch's rows carry defaults for the others), no relationship, Z_OPT + 1.
    func overwrite(_ existing: StoreRow, with values: [String: Any], in transaction: SQLiteSaveTransaction) throws {
        let table = existing.entity.propertyTable
        var slots = SlotSet()
        for attribute in table.persistentAttributes { if let slot = table.slotByName[attribute.name] { slots.insert(slot) } }
        let row = StoreRow(key: existing.key, entity: existing.entity, version: existing.version + 1, attributes: values, toOne: [:])
        guard try transaction.update(row, expectedVersion: existing.version, changedSlots: slots) else {
            throw coreDataError(NSManagedObjectMergeError, userInfo: [NSLocalizedDescriptionKey: "The row \(existing.key) changed during the batch insert."])
        }
    }
}
