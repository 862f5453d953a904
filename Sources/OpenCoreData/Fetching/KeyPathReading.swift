import Foundation

// Reading values by key path, the part of key-value coding that predicates, expressions and
// sort descriptors need. Shared by the fetching code: `keyPathValue(_:of:)` is the entry point.

/// The value at `keyPath` (`"trail.region.name"`, `"hikes.@count"`, `"hikes.@avg.rating"`)
/// of `object`, read as key-value coding reads it:
///
/// - `KeyValueCoding` objects through `value(forKey:)`, `[String: Any]` and `NSDictionary`
///   by key, any other value through its stored properties (`Mirror`);
/// - `self` / `SELF` is the object itself;
/// - a key applied to a to-many collection (`Array`, `Set`, `NSArray`, `NSSet`,
///   `NSOrderedSet`) maps over its elements; nested collections are flattened, and missing
///   values become `NSNull` as in `-[NSArray valueForKey:]`;
/// - collection operators (`@count`, `@sum`, `@avg`, `@min`, `@max`, `@unionOfObjects`,
///   `@distinctUnionOfObjects`, `@unionOfArrays`, `@distinctUnionOfArrays`,
///   `@unionOfSets`, `@distinctUnionOfSets`) apply to the collection on their left and the
///   rest of the path.
///
/// Returns `nil` for a missing value anywhere along the path.
func keyPathValue(_ keyPath: String, of object: Any?) -> Any? {
    keyPathValue(components: splitKeyPath(keyPath)[...], of: object)
}

/// `keyPath` split at its dots.
func splitKeyPath(_ keyPath: String) -> [String] {
    keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
}

/// The value at the key path made of `components`; see ``keyPathValue(_:of:)``.
func keyPathValue(components: ArraySlice<String>, of object: Any?) -> Any? {
    var current = unwrapAny(object)
    var index = components.startIndex
    while index < components.endIndex {
        let key = components[index]
        guard let value = current else { return nil }
        if key.utf8.first == UInt8(ascii: "@") {
            if value is NSNull { return nil }
            return collectionOperator(key, rest: components[(index + 1)...], of: value)
        }
        switch readKey(key, of: value) {
        case .value(let next):
            current = unwrapAny(next)
            index += 1
        case .elements(let elements):
            // A key through a to-many relationship maps over the elements.
            var mapped: [Any] = []
            mapped.reserveCapacity(elements.count)
            let rest = components[index...]
            for element in elements {
                let inner = keyPathValue(components: rest, of: element)
                if let innerValue = inner, !(innerValue is NSNull), let nested = collectionElements(innerValue) {
                    mapped.append(contentsOf: nested)
                } else {
                    mapped.append(inner ?? NSNull())
                }
            }
            return mapped
        }
    }
    return current
}

/// What one key of a value gives: a value, or the elements of a collection to map over.
private enum KeyReading {
    case value(Any?)
    case elements([Any])
}

/// Reads `key` of `value`, testing the likely kinds first (objects that adopt
/// `KeyValueCoding`, then `[String: Any]`), since every failed dynamic cast costs time.
@inline(__always)
private func readKey(_ key: String, of value: Any) -> KeyReading {
    let type = Swift.type(of: value)
    if type is AnyClass {
        if let coding = value as? KeyValueCoding {
            return .value(key == "self" || key == "SELF" ? coding : coding.value(forKey: key))
        }
        if value is NSNull { return .value(nil) }
        if let elements = collectionElements(value) { return .elements(elements) }
        return .value(singleKeyValue(key, of: value))
    }
    if ObjectIdentifier(type) == FastTypes.stringDictionary {
        let dictionary = value as! [String: Any]
        if let found = dictionary[key] { return .value(found) }
        return .value(key == "self" || key == "SELF" ? dictionary : nil)
    }
    if FastTypes.isPlainScalar(type) {
        return .value(key == "self" || key == "SELF" ? value : nil)
    }
    if let elements = collectionElements(value) { return .elements(elements) }
    return .value(singleKeyValue(key, of: value))
}

/// The value of one key of one (non-collection) object.
func singleKeyValue(_ key: String, of object: Any) -> Any? {
    switch object {
    case let coding as KeyValueCoding:
        if key == "self" || key == "SELF" { return coding }
        return coding.value(forKey: key)
    case let dictionary as [String: Any]:
        if let value = dictionary[key] { return value }
        return key == "self" || key == "SELF" ? dictionary : nil
    case let dictionary as [AnyHashable: Any]:
        if let value = dictionary[AnyHashable(key)] { return value }
        return key == "self" || key == "SELF" ? dictionary : nil
    case let dictionary as NSDictionary:
        if let value = dictionary.object(forKey: key) { return value }
        if let value = dictionary.object(forKey: NSString(string: key)) { return value }
        return key == "self" || key == "SELF" ? dictionary : nil
    default:
        if key == "self" || key == "SELF" { return object }
        return mirroredValue(key, of: object)
    }
}

/// A stored property of a plain Swift value or object, found by name through `Mirror`
/// (superclasses included). A stand-in for key-value coding on types that do not adopt
/// ``KeyValueCoding``.
private func mirroredValue(_ key: String, of object: Any) -> Any? {
    var mirror: Mirror? = Mirror(reflecting: object)
    while let current = mirror {
        for child in current.children where child.label == key || child.label == "_" + key {
            return child.value
        }
        mirror = current.superclassMirror
    }
    return nil
}

/// The elements of a to-many value (`Array`, `Set`, `NSArray`, `NSSet`, `NSOrderedSet`), or
/// `nil` when `value` is not a collection. Strings and dictionaries are not collections here.
func collectionElements(_ value: Any) -> [Any]? {
    let type = Swift.type(of: value)
    if FastTypes.isPlainScalar(type) || ObjectIdentifier(type) == FastTypes.stringDictionary { return nil }
    if ObjectIdentifier(type) == FastTypes.anyArray { return (value as! [Any]) }
    if ObjectIdentifier(type) == FastTypes.stringArray { return (value as! [String]).map { $0 } }
    if type is AnyClass {
        // Objects: only Foundation's collection classes are collections.
        if let array = value as? NSArray { return array.map { $0 } }
        if let set = value as? NSSet { return set.allObjects }
        if let ordered = value as? NSOrderedSet { return ordered.array }
        return nil
    }
    switch value {
    case is String, is NSString, is Data, is NSData: return nil
    case let array as [Any]: return array
    case let set as Set<AnyHashable>: return set.map(\.base)
    case let array as NSArray: return array.map { $0 }
    case let set as NSSet: return set.allObjects
    case let ordered as NSOrderedSet: return ordered.array
    case let sequence as AnyCollectionBox: return sequence.anyElements
    default: return nil
    }
}

/// Collections whose static type is not one of the bridged shapes above (for example a
/// `Set<Hike>` seen as `Any`) still reach their elements through this protocol.
protocol AnyCollectionBox {
    var anyElements: [Any] { get }
}

extension Set: AnyCollectionBox {
    var anyElements: [Any] { map { $0 } }
}

extension Array: AnyCollectionBox {
    var anyElements: [Any] { map { $0 } }
}

/// The elements of `value` when it is a collection; a dictionary gives its values (as
/// `IN` uses them); anything else gives `nil`.
func collectionOrDictionaryElements(_ value: Any) -> [Any]? {
    if let elements = collectionElements(value) { return elements }
    switch value {
    case let dictionary as [AnyHashable: Any]: return Array(dictionary.values)
    case let dictionary as NSDictionary: return dictionary.allValues
    default: return nil
    }
}

/// Looks through `Optional` layers hidden inside `Any`.
@inline(__always)
func unwrapAny(_ value: Any?) -> Any? {
    guard let value else { return nil }
    let type = Swift.type(of: value)
    if FastTypes.isPlainScalar(type) || type is AnyClass { return value }
    if let optional = value as? AnyOptional { return unwrapAny(optional.wrappedAny) }
    return value
}

/// `nil` and `NSNull` are both "no value" for predicates.
@inline(__always)
func isNilValue(_ value: Any?) -> Bool {
    guard let value = unwrapAny(value) else { return true }
    // A string, number or date is never NSNull; asking the runtime (`is NSNull`) would
    // first try to bridge it to an object (a save's constraint look-up asks for every value).
    if FastTypes.isPlainScalar(type(of: value)) { return false }
    return value is NSNull
}

protocol AnyOptional {
    var wrappedAny: Any? { get }
}

extension Optional: AnyOptional {
    var wrappedAny: Any? {
        switch self {
        case .some(let value): return value
        case .none: return nil
        }
    }
}

// MARK: Collection operators

/// Applies `@count`, `@sum`, `@avg`, `@min`, `@max` and the union operators to `value`.
private func collectionOperator(_ name: String, rest: ArraySlice<String>, of value: Any) -> Any? {
    let elements = collectionElements(value) ?? [value]
    func mapped() -> [Any] {
        guard !rest.isEmpty else { return elements }
        return elements.map { keyPathValue(components: rest, of: $0) ?? NSNull() }
    }
    switch name {
    case "@count":
        // `@count` ends the path; what follows applies to the number (rarely useful).
        let count = elements.count
        return rest.isEmpty ? count : keyPathValue(components: rest, of: count)
    case "@sum":
        return ExpressionMath.sum(mapped().filter { !isNilValue($0) })
    case "@avg":
        let values = mapped().filter { !isNilValue($0) }
        return values.isEmpty ? 0 : ExpressionMath.average(values)
    case "@min":
        return ExpressionMath.extreme(mapped(), wantMaximum: false)
    case "@max":
        return ExpressionMath.extreme(mapped(), wantMaximum: true)
    case "@unionOfObjects":
        return mapped().filter { !isNilValue($0) }
    case "@distinctUnionOfObjects":
        return distinct(mapped().filter { !isNilValue($0) })
    case "@unionOfArrays", "@unionOfSets":
        return mapped().flatMap { collectionElements($0) ?? [$0] }.filter { !isNilValue($0) }
    case "@distinctUnionOfArrays", "@distinctUnionOfSets":
        return distinct(mapped().flatMap { collectionElements($0) ?? [$0] }.filter { !isNilValue($0) })
    default:
        return nil
    }
}

/// `values` without repeats (predicate equality), first occurrence kept.
func distinct(_ values: [Any]) -> [Any] {
    var result: [Any] = []
    for value in values where !result.contains(where: { PredicateValues.equal($0, value, options: []) }) {
        result.append(value)
    }
    return result
}
