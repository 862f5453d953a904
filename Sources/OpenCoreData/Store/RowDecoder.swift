import Foundation

/// Turns the rows a select plan reads for one concrete entity into ``StoreRow``s.
///
/// What each row needs (the entity's property table and column maps, the plan's result
/// columns) is read once, when a fetch meets the entity, and held here: read from the
/// entity and the plan for every row, each array and table was retained and released per
/// row (eight calls per row of a fetch of 10,000).
struct RowDecoder {
    let entity: StoreEntity
    /// The plan whose result columns it reads: a decoder kept between fetches (a look-up
    /// by key after another) is used again only with the same plan.
    let plan: SelectPlan
    private let description: NSEntityDescription
    private let table: EntityPropertyTable
    private let attributesInSlotOrder: [(column: Int, attribute: NSAttributeDescription, storage: AttributeStorage, slot: Int)]
    private let compositeElements: [(column: Int, composite: NSCompositeAttributeDescription, element: NSAttributeDescription, path: [String], storage: AttributeStorage, slot: Int)]
    /// The entity's to-ones by name, not by description: a relationship description is
    /// the target of weak references, so each retain and release of it per row took the
    /// reference count's slow path.
    private let toOnes: [(column: Int, entityColumn: Int?, name: String, destinationNumber: Int)]
    /// The plan's result column of each store column, -1 where the plan does not select it.
    private let resultColumn: [Int32]
    private let external: ExternalBinaryStorage

    init(entity: StoreEntity, plan: SelectPlan, external: ExternalBinaryStorage) {
        self.entity = entity
        self.plan = plan
        description = entity.entity
        table = entity.entity.propertyTable
        attributesInSlotOrder = entity.attributesInSlotOrder
        compositeElements = entity.compositeElements
        toOnes = entity.toOnes.map { ($0.column, $0.entityColumn, $0.relationship.name, $0.destinationNumber) }
        resultColumn = plan.resultColumn
        self.external = external
    }

    /// Whether it decodes the rows `plan` reads of the entity numbered `number`.
    func decodes(_ number: Int, of plan: SelectPlan) -> Bool {
        entity.number == number && self.plan === plan
    }

    /// The row at the statement's cursor.
    func decode(_ statement: SQLiteStatement, readAt: TimeInterval) throws -> StoreRow {
        // Each selected attribute's value moved into its slot as it is read, in slot order,
        // the others nil.
        var attributes = try PropertyValues(table: table) { slots in
            // By index, reading the fields it needs: no retain of each attribute's
            // description, which only transformables and external data need.
            for index in attributesInSlotOrder.indices {
                let result = resultColumn[attributesInSlotOrder[index].column]
                guard result >= 0 else { continue }
                let storage = attributesInSlotOrder[index].storage
                if storage.readsPlain {
                    slots.write(RowCodec.readPlain(statement, column: result, storage: storage), at: attributesInSlotOrder[index].slot)
                } else {
                    slots.write(try RowCodec.read(statement, column: result, storage: storage, attribute: attributesInSlotOrder[index].attribute, external: external),
                                at: attributesInSlotOrder[index].slot)
                }
            }
        }
        // A composite is the dictionary of its elements that are not NULL; nil when all are.
        for element in compositeElements {
            let result = resultColumn[element.column]
            guard result >= 0, let value = try RowCodec.read(statement, column: result, storage: element.storage, attribute: element.element, external: external) else { continue }
            attributes[element.slot] = NSCompositeAttributeDescription.setting(value, at: element.path[...], in: attributes[element.slot] as? [String: Any])
        }
        var toOne = ToOneKeys()
        for (column, entityColumn, name, destinationNumber) in toOnes {
            let result = resultColumn[column]
            guard result >= 0, !statement.isNull(result) else { continue }
            var number = destinationNumber
            if let entityColumn, resultColumn[entityColumn] >= 0, !statement.isNull(resultColumn[entityColumn]) {
                number = Int(statement.int64(resultColumn[entityColumn]))
            }
            toOne[name] = StoreKey(entityNumber: number, primaryKey: statement.int64(result))
        }
        return StoreRow(
            key: StoreKey(entityNumber: entity.number, primaryKey: statement.int64(1)), entity: description,
            version: statement.int64(2), attributes: attributes, toOne: toOne, timestamp: readAt)
    }
}
