import Foundation

/// Stored fetch request templates: requests kept in the model by name, written in code
/// with ``NSManagedObjectModel/setFetchRequestTemplate(_:forName:)`` or in Xcode's model
/// editor (`<fetchRequest name entity predicateString/>` in the model file).
///
/// Once a coordinator uses the model (``NSManagedObjectModel/isEditable`` is `false`), the
/// templates it hands out are immutable: changing one stops the program with Core Data's
/// `NSInternalInconsistencyException`, "Can't modify a named fetch request in an immutable
/// model." Copy a template, or use
/// ``NSManagedObjectModel/fetchRequestFromTemplate(withName:substitutionVariables:)``, to get
/// a request you can change.
extension NSManagedObjectModel {
    /// The template stored under `name`, or `nil`. The same request object every time; it
    /// cannot be changed once the model is in use by a coordinator.
    ///
    /// A template with substitution variables (`$NAME`) is returned as stored: use
    /// ``fetchRequestFromTemplate(withName:substitutionVariables:)`` to fill them in.
    public func fetchRequestTemplate(forName name: String) -> NSFetchRequest<NSFetchRequestResult>? {
        guard let template = storedTemplate(named: name) else { return nil }
        template.isImmutableTemplate = !isEditable
        return template
    }

    /// A new, changeable copy of the template `name` with each `$VARIABLE` in its predicate
    /// replaced by the value `variables` gives for it; `nil` when there is no such template.
    ///
    /// ```swift
    /// let request = model.fetchRequestFromTemplate(withName: "TrailsInCountry",
    ///                                              substitutionVariables: ["COUNTRY": "Japan"])!
    /// ```
    public func fetchRequestFromTemplate(withName name: String, substitutionVariables variables: [String: Any]) -> NSFetchRequest<NSFetchRequestResult>? {
        guard let template = storedTemplate(named: name) else { return nil }
        let request = template.copy(as: NSFetchRequestResult.self)
        if let predicate = template.predicate {
            request.predicate = predicate.withSubstitutionVariables(variables)
        }
        return request
    }

    /// Stores `template` under `name` (a copy of it, so later changes to `template` do not
    /// reach the model); `nil` removes the template. Only while the model is editable:
    /// changing a model in use raises Core Data's "Can't modify an immutable model."
    public func setFetchRequestTemplate<T>(_ template: NSFetchRequest<T>?, forName name: String) {
        guard isEditable else {
            raiseCoreDataException(.internalInconsistency, "Can't modify an immutable model.")
        }
        fetchRequestTemplateSources[name] = nil
        fetchRequestTemplates[name] = template.map { $0.copy(as: NSFetchRequestResult.self) }
    }

    /// Every template by name, the ones read from the model file included.
    public var fetchRequestTemplatesByName: [String: NSFetchRequest<NSFetchRequestResult>] {
        var templates: [String: NSFetchRequest<NSFetchRequestResult>] = [:]
        for name in Set(fetchRequestTemplates.keys).union(fetchRequestTemplateSources.keys) {
            templates[name] = fetchRequestTemplate(forName: name)
        }
        return templates
    }

    /// The stored request for `name`, built on first use from the model file's
    /// `<fetchRequest>` (entity and predicate format) when it came from there.
    private func storedTemplate(named name: String) -> NSFetchRequest<NSFetchRequestResult>? {
        if let stored = fetchRequestTemplates[name] as? NSFetchRequest<NSFetchRequestResult> { return stored }
        guard let source = fetchRequestTemplateSources[name] else { return nil }
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: source.entityName)
        if let entity = entity(named: source.entityName) { request.entity = entity }
        if let format = source.predicateFormat, !format.isEmpty {
            request.predicate = NSPredicate(format: format, argumentArray: nil)
        }
        fetchRequestTemplates[name] = request
        return request
    }
}

extension NSManagedObjectModel {
    /// Marks the stored templates immutable once the model is, as Core Data does when a
    /// coordinator starts using the model.
    func freezeFetchRequestTemplates() {
        for case let template as NSFetchRequest<NSFetchRequestResult> in fetchRequestTemplates.values {
            template.isImmutableTemplate = !isEditable
        }
    }
}
