import Foundation

/// How a fetched results controller divides its objects into sections, as Core Data does.
///
/// - Without a `sectionNameKeyPath` there is one section, named `""`, even when empty.
/// - When the request's objects can be grouped by the store (no unsaved changes count, the
///   key paths are persistent, no limit or offset, SQLite stores only), Core Data asks the
///   store for the section names and counts with a grouped count request ordered by the
///   section key, then gives each section the next `count` fetched objects. If the sort
///   descriptors disagree with the section key path, objects end up in the wrong sections,
///   silently: that is why the first sort descriptor must match.
/// - Otherwise the names are read from the fetched objects in order; a name that comes back
///   after another section started fails with Core Data's out-of-order error (134060).
struct FetchedResultsSectioning {
    let sectionNameKeyPath: String?
    let request: NSFetchRequest<NSManagedObject>
    let entity: NSEntityDescription
    let context: NSManagedObjectContext
    /// The index title of a section name (delegate, then controller).
    let indexTitle: (String) -> String?

    /// The section name of `object`: the description of its key path value, a related
    /// object's URI, or `""` for nil.
    static func sectionName(of object: NSManagedObject, keyPath: String) -> String? {
        guard let value = unwrapAny(object.value(forKeyPath: keyPath)), !(value is NSNull) else { return nil }
        switch value {
        case let related as NSManagedObject: return related.objectID.uriRepresentation().absoluteString
        case let id as NSManagedObjectID: return id.uriRepresentation().absoluteString
        case let string as String: return string
        default: return "\(value)"
        }
    }

    /// Logs Core Data's message for a nil section name and returns the unnamed section's name.
    static func unnamedSection(keyPath: String) -> String {
        FileHandle.standardError.write(Data("CoreData: error: (NSFetchedResultsController) A section returned nil value for section name key path '\(keyPath)'. Objects will be placed in unnamed section\n".utf8))
        return ""
    }

    /// The sections of `objects` (already in the request's order).
    func sections(of objects: [NSManagedObject]) throws -> [FetchedResultsSection] {
        guard let keyPath = sectionNameKeyPath else {
            return [FetchedResultsSection(name: "", indexTitle: nil, members: objects)]
        }
        if objects.isEmpty { return [] }
        if canGroupInStore, let grouped = try? groupedCounts(keyPath: keyPath) {
            return Self.slice(objects, into: grouped.map { ($0.name, indexTitle($0.name), $0.count) })
        }
        return try sectionsReadingNames(of: objects, keyPath: keyPath)
    }

    /// Whether Core Data would ask the store for the section counts.
    private var canGroupInStore: Bool {
        if request.includesPendingChanges && context.hasChanges { return false }
        if request.fetchLimit != 0 || request.fetchOffset != 0 { return false }
        let keyPaths = (request.sortDescriptors ?? []).compactMap(\.key) + [sectionNameKeyPath ?? ""]
        if keyPaths.contains(where: { !isPersistentKeyPath($0) }) { return false }
        let stores = request.affectedStores ?? context.persistentStoreCoordinator?.persistentStores ?? []
        return stores.allSatisfy { $0.type == NSSQLiteStoreType }
    }

    /// Whether every step of `keyPath` is a persistent attribute or a relationship.
    private func isPersistentKeyPath(_ keyPath: String) -> Bool {
        var current: NSEntityDescription? = entity
        for component in keyPath.split(separator: ".").map(String.init) {
            guard let property = current?.propertiesByName[component], !property.isTransient else { return false }
            if let relationship = property as? NSRelationshipDescription {
                current = relationship.destinationEntity
            } else if let attribute = property as? NSAttributeDescription {
                if attribute.attributeType == .undefinedAttributeType || attribute is NSDerivedAttributeDescription { return false }
                current = nil
            } else {
                return false
            }
        }
        return true
    }

    /// The section names and counts from a grouped count request, ordered by the section key
    /// in the direction of the sort descriptor on that key (else of the first descriptor).
    private func groupedCounts(keyPath: String) throws -> [(name: String, count: Int)] {
        let query = NSFetchRequest<NSDictionary>(entityName: entity.name ?? "")
        query.entity = entity
        query.predicate = request.predicate
        query.includesSubentities = request.includesSubentities
        query.affectedStores = request.affectedStores
        query.resultType = .dictionaryResultType
        let count = NSExpressionDescription()
        count.name = "sectionCount"
        count.expression = NSExpression(forFunction: "count:", arguments: [NSExpression.expressionForEvaluatedObject()])
        count.expressionResultType = .integer32AttributeType
        query.propertiesToFetch = [keyPath, count]
        query.propertiesToGroupBy = [keyPath]
        let descriptors = request.sortDescriptors ?? []
        let ascending = descriptors.last(where: { $0.key == keyPath })?.ascending ?? descriptors.first?.ascending ?? true
        query.sortDescriptors = [NSSortDescriptor(key: keyPath, ascending: ascending)]
        return try context.fetch(query).map { row in
            let value = row.object(forKey: keyPath)
            let name: String
            switch value {
            case nil, is NSNull: name = Self.unnamedSection(keyPath: keyPath)
            case let id as NSManagedObjectID: name = id.uriRepresentation().absoluteString
            case let string as String: name = string
            case let other?: name = "\(other)"
            }
            let counted = row.object(forKey: "sectionCount")
            return (name, (counted as? NSNumber)?.intValue ?? (counted as? Int) ?? 0)
        }
    }

    /// Reads each object's section name in order; fails when a section's name comes back.
    private func sectionsReadingNames(of objects: [NSManagedObject], keyPath: String) throws -> [FetchedResultsSection] {
        var sections: [FetchedResultsSection] = []
        var finished: Set<String> = []
        var currentName: String?
        var start = 0
        var loggedUnnamed = false
        for (index, object) in objects.enumerated() {
            var name = Self.sectionName(of: object, keyPath: keyPath)
            if name == nil {
                if !loggedUnnamed { _ = Self.unnamedSection(keyPath: keyPath); loggedUnnamed = true }
                name = ""
            }
            let sectionName = name!
            if let current = currentName {
                if sectionName == current { continue }
                if finished.contains(sectionName) {
                    throw Self.outOfOrderError(index: index, currentSection: current)
                }
                finished.insert(current)
                sections.append(FetchedResultsSection(name: current, indexTitle: indexTitle(current), members: Array(objects[start..<index])))
            }
            currentName = sectionName
            start = index
        }
        if let current = currentName {
            sections.append(FetchedResultsSection(name: current, indexTitle: indexTitle(current), members: Array(objects[start...])))
        }
        return sections
    }

    /// Core Data's error for an object whose section name came back after another section
    /// started: code 134060, the message under `"reason"`, logged as Core Data logs it. The
    /// message names the section the object interrupts (the previous object's).
    static func outOfOrderError(index: Int, currentSection: String) -> NSError {
        let reason = "The fetched object at index \(index) has an out of order section name '\(currentSection)'. Objects must be sorted by section name"
        FileHandle.standardError.write(Data("CoreData: error: (NSFetchedResultsController) \(reason)\n".utf8))
        return NSError(domain: NSCocoaErrorDomain, code: NSCoreDataError, userInfo: ["reason": reason])
    }

    /// `objects` cut into consecutive sections of the given names and counts. Counts that do
    /// not add up to the objects (the store changed in between) give nil.
    static func slice(_ objects: [NSManagedObject], into sections: [(name: String, indexTitle: String?, count: Int)]) -> [FetchedResultsSection] {
        var result: [FetchedResultsSection] = []
        var start = 0
        for section in sections where section.count > 0 {
            let end = min(objects.count, start + section.count)
            result.append(FetchedResultsSection(name: section.name, indexTitle: section.indexTitle, members: Array(objects[start..<end])))
            start = end
        }
        if start < objects.count, let last = result.last {
            last.members.append(contentsOf: objects[start...])
        }
        return result
    }
}
