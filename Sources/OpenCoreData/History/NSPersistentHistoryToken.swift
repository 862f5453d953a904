import Foundation

/// A bookmark in persistent history: for each store, the last transaction it includes.
///
/// Keep the token of the last transaction you processed and fetch history after it the
/// next time. Tokens survive a relaunch when archived, as apps do on Apple platforms:
///
/// ```swift
/// let data = try NSKeyedArchiver.archivedData(withRootObject: token, requiringSecureCoding: true)
/// let restored = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPersistentHistoryToken.self, from: data)
/// ```
///
/// The token is also `Codable` (`JSONEncoder`, `PropertyListEncoder`). Tokens compare
/// equal when they mark the same transactions; a token is "after" another when it is for
/// every store.
public final class NSPersistentHistoryToken: NSObject, NSSecureCoding, Codable, @unchecked Sendable {
    /// The last transaction number of each store, by store identifier.
    let storeTokens: [String: Int64]

    init(storeTokens: [String: Int64]) {
        self.storeTokens = storeTokens
        super.init()
    }

    /// `true`: tokens decode with `NSKeyedUnarchiver.unarchivedObject(ofClass:from:)`.
    public static var supportsSecureCoding: Bool { true }

    /// Archives the token (the store identifiers and transaction numbers, as one JSON blob).
    public func encode(with coder: NSCoder) {
        let data = (try? JSONEncoder().encode(storeTokens)) ?? Data()
        coder.encode(NSData(data: data), forKey: "storeTokens")
    }

    /// Reads a token ``encode(with:)`` archived; `nil` when the archive holds none.
    public init?(coder: NSCoder) {
        guard let data = coder.decodeObject(of: NSData.self, forKey: "storeTokens") as Data?,
            let tokens = try? JSONDecoder().decode([String: Int64].self, from: data)
        else { return nil }
        self.storeTokens = tokens
        super.init()
    }

    private enum CodingKeys: String, CodingKey { case storeTokens }

    /// Reads a token ``encode(to:)`` wrote.
    public init(from decoder: Decoder) throws {
        storeTokens = try decoder.container(keyedBy: CodingKeys.self).decode([String: Int64].self, forKey: .storeTokens)
        super.init()
    }

    /// Writes the store identifiers and transaction numbers.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(storeTokens, forKey: .storeTokens)
    }

    /// Whether `object` is a token marking the same transactions.
    public override func isEqual(_ object: Any?) -> Bool {
        (object as? NSPersistentHistoryToken)?.storeTokens == storeTokens
    }

    /// A hash of the stores and transaction numbers.
    public override var hash: Int { storeTokens.hashValue }

    /// `<NSPersistentHistoryToken - {"STORE-UUID" = 12;}>`: the transaction number of each store.
    public override var description: String {
        let entries = storeTokens.sorted { $0.key < $1.key }.map { "\"\($0.key)\" = \($0.value);" }.joined(separator: " ")
        return "<NSPersistentHistoryToken - {\(entries)}>"
    }
}

extension NSPersistentStoreCoordinator {
    /// The token of the newest history transaction of `stores` (all stores when `nil`);
    /// `nil` when none of them has history.
    ///
    /// ```swift
    /// let now = container.persistentStoreCoordinator.currentPersistentHistoryToken(fromStores: nil)
    /// ```
    public func currentPersistentHistoryToken(fromStores stores: [Any]?) -> NSPersistentHistoryToken? {
        let chosen = (stores?.compactMap { $0 as? NSPersistentStore }) ?? persistentStores
        var tokens: [String: Int64] = [:]
        for store in chosen {
            if let number = try? store.engine.sqlite(for: "Persistent history").newestHistoryTransaction() { tokens[store.identifier] = number }
        }
        return tokens.isEmpty ? nil : NSPersistentHistoryToken(storeTokens: tokens)
    }
}
