/// A stored row's to-one foreign keys by relationship name (those not NULL).
///
/// What a `[String: StoreKey]` held, without a hashed table per row: a row has few to-ones
/// (most one or none), so a scan comparing names (the relationship's own string, equal by
/// identity or by its inline bytes) is cheaper than hashing the name, and the first key
/// lives inline. A fetch of 100,000 rows with one to-one each built, looked up and freed
/// 100,000 dictionaries.
struct ToOneKeys: Equatable, ExpressibleByDictionaryLiteral, Sendable {
    /// The first key set; nil only when there are none.
    private var first: (name: String, key: StoreKey)?
    /// The keys after the first, in the order they were set.
    private var others: [(name: String, key: StoreKey)] = []

    init() {}

    init(dictionaryLiteral elements: (String, StoreKey)...) {
        for (name, key) in elements { self[name] = key }
    }

    var count: Int { first == nil ? 0 : 1 + others.count }

    /// The key for the relationship `name`; setting nil removes it.
    subscript(name: String) -> StoreKey? {
        get {
            if let first, first.name == name { return first.key }
            for entry in others where entry.name == name { return entry.key }
            return nil
        }
        set {
            if let current = first, current.name == name {
                if let newValue { first = (name, newValue) } else { first = others.popLast() }
            } else if let index = others.firstIndex(where: { $0.name == name }) {
                if let newValue { others[index].key = newValue } else { others.remove(at: index) }
            } else if let newValue {
                if first == nil { first = (name, newValue) } else { others.append((name, newValue)) }
            }
        }
    }

    /// The same names with the same keys, in any order (as for a dictionary).
    static func == (lhs: ToOneKeys, rhs: ToOneKeys) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if let first = lhs.first, rhs[first.name] != first.key { return false }
        return lhs.others.allSatisfy { rhs[$0.name] == $0.key }
    }
}
