import Foundation

/// How to order objects by one key: ascending or descending, with a comparison method.
///
/// ```swift
/// let byName = NSSortDescriptor(key: "name", ascending: true, selector: Selector("localizedStandardCompare:"))
/// let newestFirst = NSSortDescriptor(key: "date", ascending: false)
/// ```
///
/// Values are read by key path (through to-one relationships, e.g. `"trail.region.name"`).
/// `nil` sorts before every value in ascending order (after them in descending order), as
/// Core Data's SQLite store orders `NULL`.
///
/// The selectors Linux understands are `compare:`, `caseInsensitiveCompare:`,
/// `localizedCompare:`, `localizedCaseInsensitiveCompare:` and `localizedStandardCompare:`;
/// any other traps when the descriptor is created, naming the selector. The string
/// selectors order strings; other values (numbers, dates) are ordered as `compare:` does.
open class NSSortDescriptor: NSObject, NSCopying {
    /// The key path of the values compared, or `nil` to compare the objects themselves.
    public let key: String?
    /// Whether smaller values come first.
    public let ascending: Bool
    /// The comparison method; `nil` when the descriptor uses a comparator block.
    public let selector: Selector?
    /// The Swift key path given to `init(keyPath:ascending:)`, if any.
    public let keyPath: AnyKeyPath?

    let method: SortMethod
    let keyComponents: [String]
    let block: Comparator?
    /// Reads a Swift key path whose property name is unknown (a computed property).
    let accessor: ((Any) -> Any?)?

    /// Compares the values at `key` with `compare:`.
    public convenience init(key: String?, ascending: Bool) {
        self.init(key: key, ascending: ascending, selector: Selector("compare:"))
    }

    /// Compares the values at `key` with the method `selector` names, e.g.
    /// `Selector("localizedStandardCompare:")`.
    public init(key: String?, ascending: Bool, selector: Selector?) {
        let name = selector?.name ?? "compare:"
        guard let method = SortMethod(rawValue: name) else {
            fatalError("NSSortDescriptor: unrecognized selector \(name) for key \(key ?? "(null)"); supported: \(SortMethod.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.key = key
        self.ascending = ascending
        self.selector = selector ?? Selector("compare:")
        self.method = method
        keyComponents = key.map(splitKeyPath) ?? []
        block = nil
        accessor = nil
        keyPath = nil
        super.init()
    }

    /// Compares the values at `key` with `comparator`.
    public init(key: String?, ascending: Bool, comparator: @escaping Comparator) {
        self.key = key
        self.ascending = ascending
        selector = nil
        method = .compare
        keyComponents = key.map(splitKeyPath) ?? []
        block = comparator
        accessor = nil
        keyPath = nil
        super.init()
    }

    /// Orders by a Swift key path, e.g. `\Trail.name`. For a stored property the key is its
    /// name (so the store can sort in SQL); a computed property — including `@Managed`
    /// ones — is read through the key path itself and has no `key`.
    public convenience init<Root, Value>(keyPath: KeyPath<Root, Value>, ascending: Bool) {
        self.init(anyKeyPath: keyPath, ascending: ascending, comparator: nil) { ($0 as? Root).map { $0[keyPath: keyPath] } }
    }

    /// Orders by a Swift key path with `comparator`.
    public convenience init<Root, Value>(keyPath: KeyPath<Root, Value>, ascending: Bool, comparator: @escaping Comparator) {
        self.init(anyKeyPath: keyPath, ascending: ascending, comparator: comparator) { ($0 as? Root).map { $0[keyPath: keyPath] } }
    }

    init(anyKeyPath: AnyKeyPath, ascending: Bool, comparator: Comparator?, read: @escaping (Any) -> Any?) {
        let name = keyPathName(anyKeyPath)
        key = name
        self.ascending = ascending
        selector = comparator == nil ? Selector("compare:") : nil
        method = .compare
        keyComponents = name.map(splitKeyPath) ?? []
        block = comparator
        accessor = read
        keyPath = anyKeyPath
        super.init()
    }

    /// The comparison as a block (the selector's method, or the comparator given).
    open var comparator: Comparator {
        if let block { return block }
        let method = method
        return { method.compare($0, $1) }
    }

    /// The same descriptor with the opposite order.
    open var reversedSortDescriptor: Any {
        if let accessor, let keyPath {
            return NSSortDescriptor(anyKeyPath: keyPath, ascending: !ascending, comparator: block, read: accessor)
        }
        if let block { return NSSortDescriptor(key: key, ascending: !ascending, comparator: block) }
        return NSSortDescriptor(key: key, ascending: !ascending, selector: selector)
    }

    /// The order of `object1` and `object2` by this descriptor.
    open func compare(_ object1: Any, to object2: Any) -> ComparisonResult {
        compareValues(value(of: object1), value(of: object2))
    }

    /// The value this descriptor compares for `object`.
    func value(of object: Any) -> Any? {
        if let accessor, let value = accessor(object) { return unwrapAny(value) }
        if keyComponents.isEmpty { return unwrapAny(object) }
        return keyPathValue(components: keyComponents[...], of: object)
    }

    /// Compares two values read with ``value(of:)``, applying `nil` placement and direction.
    func compareValues(_ a: Any?, _ b: Any?) -> ComparisonResult {
        compareKeys(PredicateScalar(a), PredicateScalar(b))
    }

    /// Compares two values already classified (the sorting helper classifies each object's
    /// value once, not at every comparison).
    func compareKeys(_ a: PredicateScalar, _ b: PredicateScalar) -> ComparisonResult {
        let result: ComparisonResult
        switch (a.isNull, b.isNull) {
        case (true, true): result = .orderedSame
        case (true, false): result = .orderedAscending
        case (false, true): result = .orderedDescending
        case (false, false):
            if let block {
                result = block(a.raw!, b.raw!)
            } else {
                result = method.compare(a, b)
            }
        }
        guard !ascending else { return result }
        switch result {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }

    /// `(name, ascending, compare:)`, as Foundation prints a sort descriptor.
    open override var description: String {
        "(\(key ?? "(null)"), \(ascending ? "ascending" : "descending"), \(selector.map { $0.name } ?? "(null)"))"
    }

    open func copy(with zone: NSZone? = nil) -> Any { self }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSSortDescriptor else { return false }
        return other === self
            || (block == nil && other.block == nil && accessor == nil && other.accessor == nil
                && key == other.key && ascending == other.ascending && selector == other.selector)
    }

    open override var hash: Int { (key ?? "").hashValue ^ (ascending ? 1 : 0) }

    /// Kept for API compatibility: sort descriptors are never archived on Linux.
    open func allowEvaluation() {}
}

/// The comparison methods a sort descriptor can name.
enum SortMethod: String, CaseIterable {
    case compare = "compare:"
    case caseInsensitiveCompare = "caseInsensitiveCompare:"
    case localizedCompare = "localizedCompare:"
    case localizedCaseInsensitiveCompare = "localizedCaseInsensitiveCompare:"
    case localizedStandardCompare = "localizedStandardCompare:"

    /// Orders two non-nil values. Strings use the method; other values are ordered as
    /// `compare:` orders them; values that cannot be ordered against each other are the same.
    func compare(_ a: Any, _ b: Any) -> ComparisonResult {
        compare(PredicateScalar(a), PredicateScalar(b))
    }

    func compare(_ a: PredicateScalar, _ b: PredicateScalar) -> ComparisonResult {
        if case .string(let x) = a, case .string(let y) = b {
            switch self {
            case .compare: return x < y ? .orderedAscending : (x == y ? .orderedSame : .orderedDescending)
            case .caseInsensitiveCompare:
                if let a = PredicateStrings.asciiFolded(x, caseInsensitive: true), let b = PredicateStrings.asciiFolded(y, caseInsensitive: true) {
                    return a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
                }
                return x.caseInsensitiveCompare(y)
            case .localizedCompare: return x.localizedCompare(y)
            case .localizedCaseInsensitiveCompare: return x.localizedCaseInsensitiveCompare(y)
            case .localizedStandardCompare: return x.localizedStandardCompare(y)
            }
        }
        return PredicateScalar.order(a, b, options: []) ?? .orderedSame
    }
}
