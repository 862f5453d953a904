import Foundation

/// The operations allowed inside ``SQLiteStoreEngine/performSave(_:)``: they all run in
/// the save's one exclusive transaction.
///
/// Write rows before the to-many memberships that refer to them: ``writeToMany(_:source:destinations:)``
/// updates the order keys of rows that must already exist.
final class SQLiteSaveTransaction {
    private unowned let engine: SQLiteStoreEngine
    /// False once the save has committed or rolled back; using the object then is an error.
    private(set) var isActive = true
    /// The statements this save keeps prepared from row to row: in use until ``end()``,
    /// so the cache neither evicts them nor hands them to anyone else meanwhile.
    private var held: [SQLiteStatement] = []

    init(engine: SQLiteStoreEngine) {
        self.engine = engine
        self.externalStorage = engine.externalStorage
        self.database = engine.database
    }

    private let database: SQLiteDatabase
    /// Records this save's persistent history, when the store tracks it.
    private lazy var history: HistoryRecorder? = engine.historyTracking ? HistoryRecorder(engine: engine, database: database) : nil
    /// The history recorded, if any change was.
    var recordedHistory: HistoryRecorder? { engine.historyTracking ? history : nil }
    /// An entity's plan and statements, prepared once per save.
    private final class EntityWriter {
        let mapped: StoreEntity
        let plan: WritePlan
        /// The INSERT statement. (Not checked for overlapping access at run time: each
        /// inserted row reads it, inside the save.)
        @exclusivity(unchecked) var insert: SQLiteStatement?
        /// A batch insert's statement with its conflict clause (`INSERT OR IGNORE …`,
        /// `… ON CONFLICT(…) DO UPDATE …`), and its text.
        var conflictInsert: (sql: String, statement: SQLiteStatement)?
        /// UPDATE statements by the positions (in `plan.slots`) of the columns they set.
        var updates: [[Int]: (slots: [WriteSlot], statement: SQLiteStatement)] = [:]
        /// The last UPDATEs used (at most ``recentUpdateLimit``, the latest first), with the
        /// changed slots each was chosen for: the rows of a save usually change the same few
        /// sets of properties (an import's rows alternate when some already hold a new
        /// value), and comparing slot sets costs less than finding the columns and hashing
        /// their positions for every row. (Not checked for overlapping access at run time:
        /// each updated row reads it, inside the save.)
        @exclusivity(unchecked) var recentUpdates: [(changedSlots: SlotSet?, slots: [WriteSlot], statement: SQLiteStatement, writesExternal: Bool)] = []
        static let recentUpdateLimit = 4
        /// The DELETE statements, plain and with the version test. (Not checked for
        /// overlapping access at run time: each deleted row passes one to `prepared`.)
        @exclusivity(unchecked) var delete: SQLiteStatement?
        @exclusivity(unchecked) var versionedDelete: SQLiteStatement?

        init(mapped: StoreEntity, plan: WritePlan) {
            self.mapped = mapped
            self.plan = plan
        }
    }

    /// The writer of each entity used so far in this save, and the last one used: a save
    /// writes many rows of one entity in a row.
    private var writers: [Int: EntityWriter] = [:]
    /// (Not checked for overlapping access at run time: read for every row written.)
    @exclusivity(unchecked) private var lastWriter: EntityWriter?
    private let externalStorage: ExternalBinaryStorage

    /// Ends the save's use of its statements (reset, values let go); the transaction can
    /// no longer be used.
    func end() {
        isActive = false
        for statement in held { statement.endUse() }
        held.removeAll()
    }

    /// The cached statement for `sql`, kept in use until the save ends.
    private func hold(_ sql: String) throws -> SQLiteStatement {
        let statement = try database.statement(sql)
        statement.isInUse = true
        held.append(statement)
        return statement
    }

    private func checkActive() throws {
        guard isActive, database.isOpen else {
            throw coreDataError(NSCoreDataError, userInfo: [NSLocalizedDescriptionKey: "The save transaction has already ended."])
        }
    }

    /// Records an update of `slots` of row `key` made with SQL of its own (batch updates,
    /// the delete rules of batch deletes).
    func recordUpdate(_ key: StoreKey, slots: Set<Int>?) throws {
        try history?.recordUpdate(key, slots: slots)
    }

    /// Reserves `count` primary keys for `entity` inside this save.
    func allocatePrimaryKeys(for entity: NSEntityDescription, count: Int) throws -> ClosedRange<Int64> {
        try checkActive()
        return try engine.allocateKeysInTransaction(for: entity, count: count)
    }

    /// Inserts a new row (Z_OPT = `row.version`, normally 1), writing every column,
    /// including to-one keys and the entity column of a to-one into a hierarchy.
    func insert(_ row: StoreRow) throws {
        try checkActive()
        let writer = try self.writer(for: row.key.entityNumber)
        let statement = try prepared(&writer.insert, writer.plan.insertSQL)
        statement.bindKey(row.key.primaryKey, at: 1)
        statement.bindKey(Int64(writer.mapped.number), at: 2)
        statement.bindKey(row.version, at: 3)
        try bindSlots(writer.plan.slots, of: row, to: statement, from: 4)
        try statement.execute()
        try history?.recordInsert(row.key)
    }

    /// What one row of a batch insert with a conflict clause did.
    enum ConflictInsertWrite {
        /// A new row was written, with the row's own key.
        case inserted
        /// A stored row with the same constraint values was updated: its key when the
        /// statement returned it (`RETURNING Z_PK, Z_ENT`), else `nil`.
        case updated(StoreKey?)
        /// Nothing was written (`INSERT OR IGNORE` met a stored duplicate).
        case ignored
    }

    /// Runs a batch insert's `sql` (the entity's INSERT with Core Data's conflict clause,
    /// and `RETURNING Z_PK, Z_ENT` when `returnsKey`) for `row`, binding its columns as
    /// ``insert(_:)`` does. History records an insert, or an update of `updatedSlots`.
    ///
    /// Without `RETURNING`, SQLite tells what happened: no change is an ignored row, and
    /// a change whose rowid is not the row's new key is an update of another row.
    func insert(_ row: StoreRow, conflictSQL sql: String, returnsKey: Bool, updatedSlots: Set<Int>?) throws -> ConflictInsertWrite {
        try checkActive()
        let writer = try self.writer(for: row.key.entityNumber)
        let statement: SQLiteStatement
        if let held = writer.conflictInsert, held.sql == sql {
            statement = held.statement
            statement.rewind()
        } else {
            statement = try hold(sql)
            writer.conflictInsert = (sql, statement)
        }
        statement.bindKey(row.key.primaryKey, at: 1)
        statement.bindKey(Int64(writer.mapped.number), at: 2)
        statement.bindKey(row.version, at: 3)
        try bindSlots(writer.plan.slots, of: row, to: statement, from: 4)
        let write: ConflictInsertWrite
        if returnsKey {
            guard try statement.step() else { return .ignored }
            let key = StoreKey(entityNumber: Int(statement.int64(1)), primaryKey: statement.int64(0))
            try statement.execute()
            write = key == row.key ? .inserted : .updated(key)
        } else {
            try statement.execute()
            guard statement.changes > 0 else { return .ignored }
            write = statement.lastInsertedRowID == row.key.primaryKey ? .inserted : .updated(nil)
        }
        switch write {
        case .inserted: try history?.recordInsert(row.key)
        case .updated(let key?): try history?.recordUpdate(key, slots: updatedSlots)
        default: break
        }
        return write
    }

    /// Writes the columns of the properties in `changedSlots` (slots of the row's entity's
    /// property table: attributes and to-one relationships; other properties are ignored;
    /// `nil` for every column) from `row`, and sets
    /// Z_OPT = `row.version`,
    /// only if the stored Z_OPT equals `expectedVersion`. Returns false, writing nothing,
    /// when it differs or the row is gone (optimistic locking).
    ///
    /// As Core Data does, only changed columns are set: the others already hold the
    /// snapshot's values, which the version check guarantees, and a column that is not
    /// rewritten costs nothing to bind or store.
    func update(_ row: StoreRow, expectedVersion: Int64, changedSlots: SlotSet? = nil) throws -> Bool {
        try checkActive()
        let writer = try self.writer(for: row.key.entityNumber)
        // The fields of a recent update read one by one: a copy of the whole entry
        // retained and released its set of slots too.
        let slots: [WriteSlot], statement: SQLiteStatement, writesExternal: Bool
        if let recent = writer.recentUpdates.firstIndex(where: { $0.changedSlots == changedSlots }) {
            slots = writer.recentUpdates[recent].slots
            statement = writer.recentUpdates[recent].statement
            writesExternal = writer.recentUpdates[recent].writesExternal
        } else {
            (slots, statement) = try updateStatement(writer, changedSlots: changedSlots)
            writesExternal = slots.contains(where: { $0.isExternal })
            if writer.recentUpdates.count == EntityWriter.recentUpdateLimit { writer.recentUpdates.removeLast() }
            writer.recentUpdates.insert((changedSlots, slots, statement, writesExternal), at: 0)
        }
        // Only when a column is external: an empty dictionary made for every row cost a
        // retain and a release (of the shared empty storage).
        var previous: [String: Data]?
        if writesExternal {
            // The current column bytes: the files they name are reused or removed at commit.
            guard let stored = try externalColumns(of: writer.mapped, plan: writer.plan, key: row.key.primaryKey, version: expectedVersion) else { return false }
            let written = Set(slots.filter(\.isExternal).map(\.column))
            previous = stored.filter { written.contains($0.key) }
        }
        statement.rewind()
        let next = try bindSlots(slots, of: row, to: statement, from: 1, reusing: previous)
        statement.bindKey(row.version, at: next)
        statement.bindKey(row.key.primaryKey, at: next + 1)
        statement.bindKey(expectedVersion, at: next + 2)
        try statement.execute()
        guard statement.changes == 1 else { return false }
        if let history {
            let properties = row.entity.propertyTable.all
            try history.recordUpdate(row.key, slots: changedSlots.map { Set($0.filter { !properties[$0].isTransient }) })
        }
        if let previous {
            for (name, old) in previous {
                let written = writtenExternalColumns[name]
                if written != old { old.withUnsafeBytes { externalStorage.removeAfterCommit(column: $0) } }
            }
        }
        return true
    }

    /// The UPDATE that sets the columns of `changedSlots`, prepared once per set of columns.
    private func updateStatement(_ writer: EntityWriter, changedSlots: SlotSet?) throws -> (slots: [WriteSlot], statement: SQLiteStatement) {
        let all = writer.plan.slots.indices
        let positions = changedSlots.map { changed in all.filter { changed.contains(writer.plan.slots[$0].slot) } } ?? Array(all)
        if let known = writer.updates[positions] { return known }
        let slots = positions.map { writer.plan.slots[$0] }
        let prepared = (slots, try hold(writer.plan.updateSQL(setting: slots)))
        writer.updates[positions] = prepared
        return prepared
    }

    /// Deletes the row, its join-table rows, and (at commit) its external data files.
    func delete(_ key: StoreKey) throws {
        _ = try delete(key, expectedVersion: nil)
    }

    /// Deletes the row, its join-table rows, and (at commit) its external data files; with
    /// `expectedVersion`, only if the stored Z_OPT equals it (Core Data's
    /// `DELETE FROM ZX WHERE Z_PK = ? AND Z_OPT = ?`). Returns whether a row was deleted:
    /// false when the row is gone or, with a version, moved on (optimistic locking).
    func delete(_ key: StoreKey, expectedVersion: Int64?) throws -> Bool {
        try checkActive()
        return try deleteRow(key, expectedVersion: expectedVersion, writer: writer(for: key.entityNumber), history: history)
    }

    /// Deletes the rows of `deletions` in order, as ``delete(_:expectedVersion:)`` deletes
    /// each, and calls `missed` with each whose DELETE changed no row (gone or, with a
    /// version, moved on); `missed` may throw to stop. The writer of a run of rows of one
    /// entity, and the history recorder, are looked up once, not for each row (a save's
    /// deletions come in long runs of one entity; each look-up cost retains and releases).
    func delete(_ deletions: [(key: StoreKey, version: Int64?)], missed: (StoreKey, _ version: Int64?) throws -> Void) throws {
        guard !deletions.isEmpty else { return }
        try checkActive()
        let history = self.history
        var writer = try self.writer(for: deletions[0].key.entityNumber)
        for (key, version) in deletions {
            if writer.mapped.number != key.entityNumber { writer = try self.writer(for: key.entityNumber) }
            if try !deleteRow(key, expectedVersion: version, writer: writer, history: history) { try missed(key, version) }
        }
    }

    /// ``delete(_:expectedVersion:)`` once the transaction is known to be active, with the
    /// writer of the row's entity and the history recorder at hand.
    private func deleteRow(_ key: StoreKey, expectedVersion: Int64?, writer: EntityWriter, history: HistoryRecorder?) throws -> Bool {
        // The plan's fields read where they lie: a copy of the whole plan per row retained
        // and released every string and array in it (0.9 % of a cascade through 100,000).
        if !writer.plan.externalColumns.isEmpty,
           let stored = try externalColumns(of: writer.mapped, plan: writer.plan, key: key.primaryKey, version: expectedVersion) {
            for bytes in stored.values { bytes.withUnsafeBytes { externalStorage.removeAfterCommit(column: $0) } }
        }
        try history?.recordDelete(key)
        let statement: SQLiteStatement
        if let expectedVersion {
            statement = try prepared(&writer.versionedDelete, writer.plan.versionedDeleteSQL)
            statement.bindKey(key.primaryKey, at: 1)
            statement.bindKey(expectedVersion, at: 2)
        } else {
            statement = try prepared(&writer.delete, writer.plan.deleteSQL)
            statement.bindKey(key.primaryKey, at: 1)
        }
        try statement.execute()
        let deleted = statement.changes == 1
        for sql in writer.plan.unlinkSQL {
            try database.withStatement(sql) { unlink in
                unlink.bindKey(key.primaryKey, at: 1)
                try unlink.execute()
            }
        }
        return deleted
    }

    /// The writer of entity number `number`.
    private func writer(for number: Int) throws -> EntityWriter {
        if let last = lastWriter, last.mapped.number == number { return last }
        if let known = writers[number] {
            lastWriter = known
            return known
        }
        let mapped = try engine.storeEntity(number: number)
        let writer = EntityWriter(mapped: mapped, plan: engine.plans.write(mapped, schema: engine.schema))
        writers[number] = writer
        lastWriter = writer
        return writer
    }

    /// `statement` ready to run again, or the statement for `sql` from the database.
    /// `sql` is read only for a statement not prepared yet (read every time, the plan's
    /// string was retained and released per row).
    private func prepared(_ statement: inout SQLiteStatement?, _ sql: @autoclosure () -> String) throws -> SQLiteStatement {
        if let statement {
            // Every parameter is bound again, so a plain SQLite reset will do.
            statement.rewind()
            return statement
        }
        let fresh = try hold(sql())
        statement = fresh
        return fresh
    }

    /// Records the full membership of a to-many relationship of `source`: for
    /// many-to-many, makes its join-table rows exactly `destinations` (with order keys when
    /// ordered, leaving the inverse side's order keys alone); for an ordered one-to-many,
    /// writes the destinations' order column (`Z_FOK_<REL>`); for an unordered
    /// one-to-many, nothing (the destinations' foreign keys carry it); for a to-many without
    /// inverse, the destinations' hidden key column (`Z<n><REL>`, and its order column).
    ///
    /// Order keys are 1024, 2048, … in the order given.
    func writeToMany(_ relationship: NSRelationshipDescription, source: StoreKey, destinations: [StoreKey]) throws {
        try checkActive()
        guard relationship.isToMany, let storage = engine.schema.toMany(relationship) else {
            throw coreDataError(NSPersistentStoreOperationError, userInfo: [NSLocalizedDescriptionKey: "The store holds no to-many relationship \(relationship.entity?.name ?? "").\(relationship.name)."])
        }
        switch storage {
        case .foreignKey(let destination, _, let orderColumn):
            guard let orderColumn else { return }
            let statement = "UPDATE \(destination.table.name) SET \(orderColumn) = ? WHERE Z_PK = ?"
            try database.withStatement(statement) { update in
                for (position, key) in destinations.enumerated() {
                    update.rewind()
                    update.bindKey(Int64(position + 1) * 1024, at: 1)
                    update.bindKey(key.primaryKey, at: 2)
                    try update.execute()
                }
            }
        case .hiddenKey(let destination, let keyColumn, let orderColumn):
            // Release the previous members, then claim (and order) the current ones.
            let table = destination.table.name
            let clearOrder = orderColumn.map { ", \($0) = NULL" } ?? ""
            try database.withStatement("UPDATE \(table) SET \(keyColumn) = NULL\(clearOrder) WHERE \(keyColumn) = ?") { release in
                release.bindKey(source.primaryKey, at: 1)
                try release.execute()
            }
            let claimSQL = "UPDATE \(table) SET \(keyColumn) = ?" + (orderColumn.map { ", \($0) = ?" } ?? "") + " WHERE Z_PK = ?"
            try database.withStatement(claimSQL) { claim in
                for (position, key) in destinations.enumerated() {
                    claim.rewind()
                    claim.bindKey(source.primaryKey, at: 1)
                    if orderColumn != nil {
                        claim.bindKey(Int64(position + 1) * 1024, at: 2)
                        claim.bindKey(key.primaryKey, at: 3)
                    } else {
                        claim.bindKey(key.primaryKey, at: 2)
                    }
                    try claim.execute()
                }
            }
        case .joinTable(let join, let ownColumn, let otherColumn, let orderColumn, _):
            var wanted: [Int64] = []
            var seen = Set<Int64>()
            for key in destinations where seen.insert(key.primaryKey).inserted { wanted.append(key.primaryKey) }
            let existing: Set<Int64> = try database.withStatement("SELECT \(otherColumn) FROM \(join.name) WHERE \(ownColumn) = ?") { select in
                select.bindKey(source.primaryKey, at: 1)
                var existing = Set<Int64>()
                while try select.step() { existing.insert(select.int64(0)) }
                return existing
            }
            try database.withStatement("DELETE FROM \(join.name) WHERE \(ownColumn) = ? AND \(otherColumn) = ?") { delete in
                for removed in existing.subtracting(seen).sorted() {
                    delete.rewind()
                    delete.bindKey(source.primaryKey, at: 1)
                    delete.bindKey(removed, at: 2)
                    try delete.execute()
                }
            }
            try database.withStatement("INSERT OR IGNORE INTO \(join.name)(\(ownColumn), \(otherColumn)) VALUES(?, ?)") { insert in
                for added in wanted where !existing.contains(added) {
                    insert.rewind()
                    insert.bindKey(source.primaryKey, at: 1)
                    insert.bindKey(added, at: 2)
                    try insert.execute()
                }
            }
            if let orderColumn {
                try database.withStatement("UPDATE \(join.name) SET \(orderColumn) = ? WHERE \(ownColumn) = ? AND \(otherColumn) = ?") { update in
                    for (position, member) in wanted.enumerated() {
                        update.rewind()
                        update.bindKey(Int64(position + 1) * 1024, at: 1)
                        update.bindKey(source.primaryKey, at: 2)
                        update.bindKey(member, at: 3)
                        try update.execute()
                    }
                }
            }
        }
    }

    // MARK: Binding rows

    /// External-data column bytes bound by the last ``bindSlots``, by column name.
    private var writtenExternalColumns: [String: Data] = [:]

    /// Binds each slot's value from `row`, starting at parameter `first`; returns the next
    /// parameter index. An external-data value equal to the file its column already names
    /// (in `reusing`) keeps that file instead of writing a new one.
    @discardableResult
    private func bindSlots(_ slots: [WriteSlot], of row: StoreRow, to statement: SQLiteStatement, from first: Int32, reusing: [String: Data]? = nil) throws -> Int32 {
        var index = first
        if let reusing, !reusing.isEmpty { writtenExternalColumns.removeAll() }
        // The row's values read once: each read of the row's property is an access to a
        // class's stored property (checked at run time) and a copy (two retains).
        let values = row.attributes
        // Each value read where it lies, not copied out of its slot first (a copy of an
        // `Any` is a call through its type's metadata, per column of every row).
        try values.withUnsafeSlots { values in
            // By position, reading each field in place: a copy of the whole slot per column
            // (its name, column and attribute retained and released) cost more than the binding.
            for position in slots.indices {
                switch slots[position].kind {
                case .attribute(let storage):
                    let slot = slots[position].slot
                    if storage == .externalBinary {
                        try bindExternal(slot < values.count ? values[slot] : nil, slot: slots[position], to: statement, at: index, reusing: reusing)
                    } else if slot < values.count {
                        // Not tested for nil first: that test copies the value out too. The
                        // attribute is read out of the slot only for a value of another type
                        // (passed along, it was retained and released for every value).
                        let value = values.baseAddress! + slot
                        if !RowCodec.bindExact(valueIn: value, storage: storage, to: statement, at: index) {
                            try RowCodec.bind(value.pointee, storage: storage, attribute: slots[position].attribute!, to: statement, at: index, external: externalStorage)
                        }
                    } else {
                        statement.bindNull(at: index)
                    }
                case .compositeElement(let storage):
                    let slot = slots[position]
                    if let value = NSCompositeAttributeDescription.value(at: slot.name.split(separator: ".").map(String.init)[...], in: slot.slot < values.count ? values[slot.slot] : nil) {
                        try RowCodec.bind(value, storage: storage, attribute: slot.attribute!, to: statement, at: index, external: externalStorage)
                    } else {
                        statement.bindNull(at: index)
                    }
                case .foreignKey:
                    if let key = row.toOne[slots[position].name] { statement.bindKey(key.primaryKey, at: index) } else { statement.bindNull(at: index) }
                case .foreignEntity:
                    if let key = row.toOne[slots[position].name] { statement.bindKey(Int64(key.entityNumber), at: index) } else { statement.bindNull(at: index) }
                }
                index += 1
            }
        }
        return index
    }

    /// Binds an external-data value, keeping the file its column already names when the
    /// data is the same.
    private func bindExternal(_ value: Any?, slot: WriteSlot, to statement: SQLiteStatement, at index: Int32, reusing: [String: Data]?) throws {
        if let old = reusing?[slot.column], let data = value.flatMap(RowCodec.bytes), sameFileContents(old, data) {
            statement.bind(old, at: index)
            writtenExternalColumns[slot.column] = old
        } else {
            try RowCodec.bind(value, storage: .externalBinary, attribute: slot.attribute!, to: statement, at: index, external: externalStorage)
            writtenExternalColumns[slot.column] = Data()
        }
    }

    /// Whether column bytes `old` name a file whose contents are `data`.
    private func sameFileContents(_ old: Data, _ data: Data) -> Bool {
        old.withUnsafeBytes { bytes in
            guard let url = externalStorage.fileURL(fromColumn: bytes),
                let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber,
                size.intValue == data.count
            else { return false }
            return (try? Data(contentsOf: url)) == data
        }
    }

    /// The external-data column bytes of a stored row (with version `version`, when given);
    /// `nil` when no such row exists.
    private func externalColumns(of mapped: StoreEntity, plan: WritePlan, key: Int64, version: Int64?) throws -> [String: Data]? {
        var sql = "SELECT \(plan.externalColumns.joined(separator: ", ")) FROM \(mapped.table.name) WHERE Z_PK = ?"
        if version != nil { sql += " AND Z_OPT = ?" }
        return try database.withStatement(sql) { select in
            select.bindKey(key, at: 1)
            if let version { select.bindKey(version, at: 2) }
            guard try select.step() else { return nil }
            var result: [String: Data] = [:]
            for (index, name) in plan.externalColumns.enumerated() where !select.isNull(Int32(index)) {
                result[name] = select.data(Int32(index))
            }
            return result
        }
    }
}
