import Foundation

/// A snapshot of sectioned content: section identifiers, each with its item identifiers in
/// order. A fetched results controller hands one to its delegate with the section names
/// (`String`) as section identifiers and the objects' `NSManagedObjectID`s as items.
///
/// On Apple platforms this class comes from UIKit or AppKit; Linux has neither, so
/// OpenCoreData provides it with the same API (the part that reads a snapshot and builds
/// one). Identifiers must be `Hashable`.
///
/// ```swift
/// func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>,
///                 didChangeContentWith snapshot: NSDiffableDataSourceSnapshotReference) {
///     for section in snapshot.sectionIdentifiers {
///         print(section, snapshot.numberOfItems(inSection: section))
///     }
/// }
/// ```
open class NSDiffableDataSourceSnapshotReference: NSObject {
    private var sections: [AnyHashable] = []
    private var itemsBySection: [AnyHashable: [AnyHashable]] = [:]
    private var sectionOfItem: [AnyHashable: AnyHashable] = [:]
    private var reloaded: [AnyHashable] = []
    /// Fills the snapshot the first time it is read: a controller hands out snapshots of
    /// its sections without paying for them when nobody looks.
    private var pendingFill: (() -> Void)?

    /// An empty snapshot.
    public override init() {}

    /// A snapshot of `sections` (names and objects), built when first read.
    init(sections: [(name: String, objects: [NSManagedObject])], reloading reloadedIDs: [NSManagedObjectID]) {
        super.init()
        pendingFill = { [unowned self] in
            for section in sections {
                appendSections(withIdentifiers: [section.name])
                appendItems(withIdentifiers: section.objects.map(\.objectID), intoSectionWithIdentifier: section.name)
            }
            if !reloadedIDs.isEmpty { reloadItems(withIdentifiers: reloadedIDs) }
        }
    }

    fileprivate func filled() {
        guard let fill = pendingFill else { return }
        pendingFill = nil
        fill()
    }

    private static func hashable(_ value: Any, _ role: String) -> AnyHashable {
        guard let hashable = value as? AnyHashable else {
            raiseCoreDataException(.invalidArgument, "Snapshot \(role) identifiers must be hashable: \(value)")
        }
        return hashable
    }

    /// How many items the snapshot holds, in all sections.
    open var numberOfItems: Int { filled(); return sectionOfItem.count }
    /// How many sections the snapshot holds.
    open var numberOfSections: Int { filled(); return sections.count }
    /// The section identifiers, in order.
    open var sectionIdentifiers: [Any] { filled(); return sections.map(\.base) }
    /// Every item identifier, section by section.
    open var itemIdentifiers: [Any] { filled(); return sections.flatMap { itemsBySection[$0] ?? [] }.map(\.base) }
    /// The items marked for reloading (the objects a controller saw updated in place).
    open var reloadedItemIdentifiers: [Any] { filled(); return reloaded.map(\.base) }

    /// How many items the section holds (0 when there is no such section).
    open func numberOfItems(inSection sectionIdentifier: Any) -> Int {
        filled()
        return itemsBySection[Self.hashable(sectionIdentifier, "section")]?.count ?? 0
    }

    /// The items of a section, in order.
    open func itemIdentifiersInSection(withIdentifier sectionIdentifier: Any) -> [Any] {
        filled()
        return (itemsBySection[Self.hashable(sectionIdentifier, "section")] ?? []).map(\.base)
    }

    /// The section holding an item, or nil.
    open func sectionIdentifier(forSectionContainingItemIdentifier itemIdentifier: Any) -> Any? {
        filled()
        return sectionOfItem[Self.hashable(itemIdentifier, "item")]?.base
    }

    /// The item's position among all items (`NSNotFound` when absent).
    open func index(ofItemIdentifier itemIdentifier: Any) -> Int {
        filled()
        let item = Self.hashable(itemIdentifier, "item")
        guard let section = sectionOfItem[item] else { return NSNotFound }
        var offset = 0
        for identifier in sections {
            let items = itemsBySection[identifier] ?? []
            if identifier == section { return offset + (items.firstIndex(of: item) ?? 0) }
            offset += items.count
        }
        return NSNotFound
    }

    /// The section's position (`NSNotFound` when absent).
    open func index(ofSectionIdentifier sectionIdentifier: Any) -> Int {
        filled()
        return sections.firstIndex(of: Self.hashable(sectionIdentifier, "section")) ?? NSNotFound
    }

    /// Adds sections at the end.
    open func appendSections(withIdentifiers sectionIdentifiers: [Any]) {
        filled()
        for identifier in sectionIdentifiers.map({ Self.hashable($0, "section") }) {
            guard itemsBySection[identifier] == nil else {
                raiseCoreDataException(.internalInconsistency, "Section identifier \(identifier.base) is already in the snapshot")
            }
            sections.append(identifier)
            itemsBySection[identifier] = []
        }
    }

    /// Adds items at the end of the last section.
    open func appendItems(withIdentifiers identifiers: [Any]) {
        filled()
        guard let last = sections.last else {
            raiseCoreDataException(.internalInconsistency, "There are currently no sections in the data source. Please add a section first.")
        }
        appendItems(withIdentifiers: identifiers, intoSectionWithIdentifier: last.base)
    }

    /// Adds items at the end of a section.
    open func appendItems(withIdentifiers identifiers: [Any], intoSectionWithIdentifier sectionIdentifier: Any) {
        filled()
        let section = Self.hashable(sectionIdentifier, "section")
        guard itemsBySection[section] != nil else {
            raiseCoreDataException(.internalInconsistency, "Invalid section identifier \(section.base): not in the snapshot")
        }
        for item in identifiers.map({ Self.hashable($0, "item") }) {
            guard sectionOfItem[item] == nil else {
                raiseCoreDataException(.internalInconsistency, "Item identifier \(item.base) is already in the snapshot")
            }
            itemsBySection[section]!.append(item)
            sectionOfItem[item] = section
        }
    }

    /// Removes items.
    open func deleteItems(withIdentifiers identifiers: [Any]) {
        filled()
        for item in identifiers.map({ Self.hashable($0, "item") }) {
            guard let section = sectionOfItem.removeValue(forKey: item) else { continue }
            itemsBySection[section]?.removeAll { $0 == item }
            reloaded.removeAll { $0 == item }
        }
    }

    /// Removes sections and their items.
    open func deleteSections(withIdentifiers sectionIdentifiers: [Any]) {
        filled()
        for section in sectionIdentifiers.map({ Self.hashable($0, "section") }) {
            guard let items = itemsBySection.removeValue(forKey: section) else { continue }
            for item in items { sectionOfItem.removeValue(forKey: item) }
            sections.removeAll { $0 == section }
        }
    }

    /// Removes everything.
    open func deleteAllItems() {
        filled()
        sections = []; itemsBySection = [:]; sectionOfItem = [:]; reloaded = []
    }

    /// Marks items for reloading.
    open func reloadItems(withIdentifiers identifiers: [Any]) {
        filled()
        for item in identifiers.map({ Self.hashable($0, "item") }) where sectionOfItem[item] != nil && !reloaded.contains(item) {
            reloaded.append(item)
        }
    }

    /// Two snapshots are equal when they hold the same sections and items in the same order.
    open override func isEqual(_ object: Any?) -> Bool {
        filled()
        guard let other = object as? NSDiffableDataSourceSnapshotReference else { return false }
        other.filled()
        return sections == other.sections && itemsBySection == other.itemsBySection
    }

    open override var hash: Int { filled(); return sections.hashValue }

    open override var description: String {
        filled()
        return "<NSDiffableDataSourceSnapshot: \(cocoaAddress(of: self))> sections: \(numberOfSections), items: \(numberOfItems)"
    }
}
