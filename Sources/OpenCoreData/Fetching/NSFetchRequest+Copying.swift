import Foundation

extension NSFetchRequest {
    /// A copy of the request that you may change, even when this one is a template of an
    /// immutable model (the way to adapt a stored template).
    ///
    /// ```swift
    /// let template = model.fetchRequestTemplate(forName: "LongTrails")!
    /// let sorted = template.copy() as! NSFetchRequest<NSFetchRequestResult>
    /// sorted.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
    /// ```
    public func copy() -> Any { copy(as: ResultType.self) }

    /// A mutable copy whose results are typed `T`.
    func copy<T>(as type: T.Type) -> NSFetchRequest<T> {
        let copy = NSFetchRequest<T>()
        copy.entityName = entityName
        if let entity { copy.entity = entity }
        copy.predicate = predicate
        copy.sortDescriptors = sortDescriptors
        copy.fetchLimit = fetchLimit
        copy.fetchOffset = fetchOffset
        copy.fetchBatchSize = fetchBatchSize
        copy.resultType = resultType
        copy.includesSubentities = includesSubentities
        copy.includesPendingChanges = includesPendingChanges
        copy.returnsObjectsAsFaults = returnsObjectsAsFaults
        copy.propertiesToFetch = propertiesToFetch
        copy.returnsDistinctResults = returnsDistinctResults
        copy.propertiesToGroupBy = propertiesToGroupBy
        copy.havingPredicate = havingPredicate
        copy.shouldRefreshRefetchedObjects = shouldRefreshRefetchedObjects
        copy.affectedStores = affectedStores
        return copy
    }

    /// The entity of the request, from the request or by name from `model`.
    func resolvedEntity(in model: NSManagedObjectModel?) -> NSEntityDescription? {
        if let entity { return entity }
        return entityName.flatMap { model?.entity(named: $0) }
    }
}
