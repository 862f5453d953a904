import Foundation
@_implementationOnly import CSQLite

extension Derivation.StringFunction {
    /// The function applied to `string`: `canonical:` folds case and diacritics (Apple: "a
    /// case- and diacritic-insensitive String value"), through the folding `[cd]`
    /// comparisons use; `lowercase:` and `uppercase:` map case over all of Unicode.
    func apply(_ string: String) -> String {
        switch self {
        case .canonical: return PredicateStrings.fold(string, [.caseInsensitive, .diacriticInsensitive])
        case .lowercase: return string.lowercased()
        case .uppercase: return string.uppercased()
        }
    }

    /// The SQL function the derived-attribute triggers call, named as in Core Data's stores
    /// (SQLite's own `lower` and `upper` know ASCII only).
    var sqlName: String {
        switch self {
        case .canonical: return "NSCoreDataCanonical"
        case .lowercase: return "NSCoreDataToLower"
        case .uppercase: return "NSCoreDataToUpper"
        }
    }

    /// Registers the three functions on a connection; NULL and non-text values pass through.
    static func register(on handle: OpaquePointer) {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        for function in [Self.canonical, .lowercase, .uppercase] {
            let box = Unmanaged.passRetained(FunctionBox(function))
            sqlite3_create_function_v2(handle, function.sqlName, 1, flags, box.toOpaque(), { context, _, values in
                let function = Unmanaged<FunctionBox>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue().function
                let value = values![0]
                guard sqlite3_value_type(value) == SQLITE_TEXT, let text = sqlite3_value_text(value) else {
                    sqlite3_result_value(context, value)
                    return
                }
                let string = String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value))), as: UTF8.self)
                let result = function.apply(string)
                sqlite3_result_text(context, result, -1, csqlite_transient())
            }, nil, nil, { pointer in
                if let pointer { Unmanaged<FunctionBox>.fromOpaque(pointer).release() }
            })
        }
    }

    private final class FunctionBox {
        let function: Derivation.StringFunction
        init(_ function: Derivation.StringFunction) { self.function = function }
    }
}

/// The rows whose derived values the store's triggers wrote, reported by
/// `NSCoreDataDATriggerUpdatedAffectedObjectValue` (and its `Insert…` variant) as Core
/// Data's triggers report them: after a save, the saving context reads those rows again
/// and gives its objects the new values.
///
/// Guarded by a lock: SQLite calls the function on whichever thread runs the statement.
final class DerivedValueReports {
    private var keys: Set<StoreKey> = []
    private let lock = NSLock()

    func record(_ key: StoreKey) {
        lock.lock(); defer { lock.unlock() }
        keys.insert(key)
    }

    /// The rows reported since the last drain, and forgets them.
    func drain() -> [StoreKey] {
        lock.lock(); defer { lock.unlock() }
        defer { keys.removeAll() }
        return Array(keys)
    }

    /// Registers `NSCoreDataNow()` and the report functions on a connection; with no
    /// `reports` (a migration's connection) the reports are ignored. The engine owning
    /// `reports` closes the connection before it lets `reports` go.
    static func register(on handle: OpaquePointer, reports: DerivedValueReports?) {
        let flags = SQLITE_UTF8
        sqlite3_create_function_v2(handle, "NSCoreDataNow", 0, flags, nil, { context, _, _ in
            sqlite3_result_double(context, Date().timeIntervalSinceReferenceDate)
        }, nil, nil, nil)
        let box = reports.map { Unmanaged.passUnretained($0).toOpaque() }
        for name in ["NSCoreDataDATriggerUpdatedAffectedObjectValue", "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue"] {
            // (table, Z_ENT, Z_PK, attribute name, value)
            sqlite3_create_function_v2(handle, name, 5, flags, box, { context, _, values in
                if let pointer = sqlite3_user_data(context), let values {
                    let reports = Unmanaged<DerivedValueReports>.fromOpaque(pointer).takeUnretainedValue()
                    reports.record(StoreKey(entityNumber: Int(sqlite3_value_int64(values[1])), primaryKey: sqlite3_value_int64(values[2])))
                }
                sqlite3_result_null(context)
            }, nil, nil, nil)
        }
        // Core Data's change-tracking triggers in some of Apple's own stores call this one;
        // what Core Data does with it is not known, so here it does nothing.
        sqlite3_create_function_v2(handle, "NSCoreDataTriggerUpdateAffectedObjectValue", 5, flags, nil, { context, _, _ in
            sqlite3_result_null(context)
        }, nil, nil, nil)
    }
}
