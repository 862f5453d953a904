import Foundation

/// A property whose value is the result of a fetch request, evaluated lazily the first
/// time it is read and kept until the object is refreshed.
///
/// The request's predicate may use `$FETCH_SOURCE` (the object whose property is read)
/// and `$FETCHED_PROPERTY` (this description): `trail == $FETCH_SOURCE`. The value is an
/// array of managed objects (or of what the request's result type gives); it is not
/// written to the store and does not change when other objects change until the object
/// is refreshed (`refresh(_:mergeChanges:)`).
open class NSFetchedPropertyDescription: NSPropertyDescription {
    /// The request whose results are the property's value.
    public var fetchRequest: NSFetchRequest<NSFetchRequestResult>?
    /// From a model file: the entity and predicate format, made into ``fetchRequest``
    /// when the model is resolved.
    var requestSource: (entityName: String, predicateFormat: String?)?

    public override init() { super.init() }

    open override var description: String {
        super.description + ", fetchRequest \(fetchRequest.map { "\($0)" } ?? "(null)")"
    }
}

extension NSManagedObject {
    /// The value of fetched property `property`: the cached results, or the results of its
    /// request run now in this object's context with `$FETCH_SOURCE` set to this object.
    func fetchedPropertyValue(_ property: NSFetchedPropertyDescription, slot: Int) -> Any? {
        if let cached = state.values[slot] { return cached }
        guard let context = managedObjectContext, let template = property.fetchRequest else { return [Any]() }
        let request = template.copy() as! NSFetchRequest<NSFetchRequestResult>
        if let predicate = template.predicate {
            request.predicate = predicate.withSubstitutionVariables(["FETCH_SOURCE": self, "FETCHED_PROPERTY": property])
        }
        let results: [Any]
        do {
            results = try context.fetch(request)
        } catch {
            // A failed fetched property hands out no objects; the reason goes to standard
            // error in the library's own words (not in Core Data's log format).
            FileHandle.standardError.write(Data("OpenCoreData: fetched property \(property.name) of \(entity.name ?? ""): \((error as NSError).localizedDescription)\n".utf8))
            return [Any]()
        }
        state.values[slot] = results
        return results
    }
}
