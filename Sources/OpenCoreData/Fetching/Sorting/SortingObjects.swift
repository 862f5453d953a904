import Foundation

/// `objects` ordered by `descriptors` (the first decides, later ones break ties); equal
/// objects keep their order. Each object's sort values are read once, so key paths and
/// relationships are not walked again for every comparison. The in-memory fetch code
/// sorts with this.
func sortedObjects<Element>(_ objects: [Element], using descriptors: [NSSortDescriptor]) -> [Element] {
    guard !descriptors.isEmpty, objects.count > 1 else { return objects }
    let keys: [[PredicateScalar]] = descriptors.map { descriptor in objects.map { PredicateScalar(descriptor.value(of: $0)) } }
    let order = objects.indices.sorted { i, j in
        for (d, descriptor) in descriptors.enumerated() {
            switch descriptor.compareKeys(keys[d][i], keys[d][j]) {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: continue
            }
        }
        return i < j
    }
    return order.map { objects[$0] }
}

/// The objects of `objects` that `predicate` holds for, in order. The in-memory fetch code
/// filters with this.
func filteredObjects<Element>(_ objects: [Element], using predicate: NSPredicate?, substitutionVariables: [String: Any]? = nil) -> [Element] {
    guard let predicate else { return objects }
    let context = PredicateEvaluationContext(variables: substitutionVariables ?? [:])
    if case .block(let block) = predicate.kind {
        return objects.filter { block($0, substitutionVariables) }
    }
    return objects.filter { predicate.evaluate($0, context) }
}

extension Array {
    /// The elements `predicate` holds for, as `NSArray.filtered(using:)` returns them.
    public func filtered(using predicate: NSPredicate) -> [Element] {
        filteredObjects(self, using: predicate)
    }

    /// The elements ordered by `sortDescriptors`, as `NSArray.sortedArray(using:)` orders them.
    public func sortedArray(using sortDescriptors: [NSSortDescriptor]) -> [Element] {
        sortedObjects(self, using: sortDescriptors)
    }
}

extension NSArray {
    /// The elements `predicate` holds for.
    public func filtered(using predicate: NSPredicate) -> [Any] {
        filteredObjects(self.map { $0 }, using: predicate)
    }

    /// The elements ordered by `sortDescriptors`.
    public func sortedArray(using sortDescriptors: [NSSortDescriptor]) -> [Any] {
        sortedObjects(self.map { $0 }, using: sortDescriptors)
    }
}

extension NSSet {
    /// The elements `predicate` holds for.
    public func filtered(using predicate: NSPredicate) -> Set<AnyHashable> {
        Set(filteredObjects(allObjects, using: predicate).compactMap { $0 as? AnyHashable })
    }
}
