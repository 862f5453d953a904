import Foundation

/// What ``NSManagedObject/mutableSetValue(forKey:)`` returns: an `NSMutableSet` that reads
/// and writes a to-many relationship of one object.
///
/// It holds no objects of its own. Counting, membership and enumeration read the
/// relationship's current value; adding and removing change the relationship in place
/// and keep every inverse in step, as Core Data's proxy does.
///
/// corelibs Foundation bridges an `NSSet` subclass to a Swift `Set` by copying storage it
/// does not have here, so cast the relationship's value (`value(forKey:)`), not this proxy,
/// when you want a `Set<Hike>`.
final class RelationshipMutableSet: NSMutableSet {
    let owner: NSManagedObject
    let relationship: NSRelationshipDescription

    init(owner: NSManagedObject, relationship: NSRelationshipDescription) {
        self.owner = owner
        self.relationship = relationship
        super.init(objects: nil, count: 0)
    }

    required init(capacity numItems: Int) {
        fatalError("A relationship set is made by mutableSetValue(forKey:).")
    }

    required convenience init?(coder aDecoder: NSCoder) {
        fatalError("A relationship set cannot be decoded.")
    }

    private var members: [NSManagedObject] { owner.members(of: relationship) }

    // MARK: NSSet primitives

    override var count: Int { toManyMembers(owner.relationshipValue(for: relationship)).count }

    override func member(_ object: Any) -> Any? {
        guard let object = object as? NSManagedObject else { return nil }
        if let set = owner.relationshipValue(for: relationship) as? Set<NSManagedObject> {
            return set.contains(object) ? object : nil
        }
        return members.contains { $0 === object } ? object : nil
    }

    override func objectEnumerator() -> NSEnumerator {
        NSArray(array: members).objectEnumerator()
    }

    override var allObjects: [Any] { members }

    // MARK: NSMutableSet primitives and bulk changes

    override func add(_ object: Any) {
        owner.addMembers([managedObject(object)], to: relationship)
    }

    override func remove(_ object: Any) {
        guard let object = object as? NSManagedObject else { return }
        owner.removeMembers([object], from: relationship)
    }

    override func addObjects(from array: [Any]) {
        owner.addMembers(array.map(managedObject), to: relationship)
    }

    override func removeAllObjects() {
        owner.removeMembers(members, from: relationship)
    }

    override func union(_ otherSet: Set<AnyHashable>) {
        owner.addMembers(otherSet.map { managedObject($0.base) }, to: relationship)
    }

    override func minus(_ otherSet: Set<AnyHashable>) {
        owner.removeMembers(otherSet.compactMap { $0.base as? NSManagedObject }, from: relationship)
    }

    override func intersect(_ otherSet: Set<AnyHashable>) {
        let keep = Set(otherSet.compactMap { ($0.base as? NSManagedObject).map(ObjectIdentifier.init) })
        owner.removeMembers(members.filter { !keep.contains(ObjectIdentifier($0)) }, from: relationship)
    }

    override func setSet(_ otherSet: Set<AnyHashable>) {
        owner.setRelationshipValue(otherSet.map { managedObject($0.base) }, for: relationship)
    }

    // MARK: Comparing and printing

    override func isEqual(_ value: Any?) -> Bool {
        let mine = Set(members.map(ObjectIdentifier.init))
        switch value {
        case let other as NSSet: return mine == Set(other.allObjects.compactMap { ($0 as? NSManagedObject).map(ObjectIdentifier.init) })
        case let other as Set<NSManagedObject>: return mine == Set(other.map(ObjectIdentifier.init))
        default: return false
        }
    }

    override var hash: Int { count }

    /// `{(` … `)}` with each object's description, as an `NSSet` prints.
    override var description: String {
        let items = members.map { "    \($0.description)" }
        return "{(\n" + items.joined(separator: ",\n") + (items.isEmpty ? "" : "\n") + ")}"
    }

    private func managedObject(_ value: Any) -> NSManagedObject {
        guard let object = value as? NSManagedObject else {
            raiseCoreDataException(.invalidArgument, "Unacceptable type of value for to-many relationship: property = \"\(relationship.name)\"; desired type = \(relationship.destinationEntity?.name ?? "?"); given type = \(type(of: value)); value = \(value).")
        }
        return object
    }
}

/// What ``NSManagedObject/mutableOrderedSetValue(forKey:)`` returns: an
/// `NSMutableOrderedSet` that reads and writes an ordered to-many relationship.
///
/// corelibs Foundation's `NSOrderedSet` enumerates its own storage, so this proxy keeps a
/// copy of the relationship's members there: every change made through the proxy is made
/// to the relationship (inverses included) and copied back, and the owning object copies
/// the relationship into its live proxies whenever it changes another way.
final class RelationshipMutableOrderedSet: NSMutableOrderedSet {
    let owner: NSManagedObject
    let relationship: NSRelationshipDescription
    /// Set when the owner's values were replaced wholesale; the next use reads them again.
    var isStale = false

    init(owner: NSManagedObject, relationship: NSRelationshipDescription) {
        self.owner = owner
        self.relationship = relationship
        super.init(objects: nil, count: 0)
        copyRelationship()
    }

    required convenience init(arrayLiteral elements: Any...) {
        fatalError("A relationship ordered set is made by mutableOrderedSetValue(forKey:).")
    }

    required convenience init?(coder aDecoder: NSCoder) {
        fatalError("A relationship ordered set cannot be decoded.")
    }

    /// Replaces the proxy's storage with the relationship's current members.
    func copyRelationship() {
        isStale = false
        super.removeAllObjects()
        super.addObjects(from: owner.members(of: relationship))
    }

    private func fresh() {
        if isStale { copyRelationship() }
    }

    /// Applies `change` to a copy of the members, then makes the relationship that.
    private func change(_ change: (NSMutableOrderedSet) -> Void) {
        fresh()
        let scratch = NSMutableOrderedSet(array: owner.members(of: relationship))
        change(scratch)
        let members = scratch.array.map(managedObject)
        owner.setRelationshipValue(NSOrderedSet(array: members), for: relationship)
        copyRelationship()
    }

    private func managedObject(_ value: Any) -> NSManagedObject {
        guard let object = value as? NSManagedObject else {
            raiseCoreDataException(.invalidArgument, "Unacceptable type of value for to-many relationship: property = \"\(relationship.name)\"; desired type = \(relationship.destinationEntity?.name ?? "?"); given type = \(type(of: value)); value = \(value).")
        }
        return object
    }

    // MARK: Reading

    override var count: Int { fresh(); return super.count }
    override func object(at idx: Int) -> Any { fresh(); return super.object(at: idx) }
    override func index(of object: Any) -> Int { fresh(); return super.index(of: object) }
    override func contains(_ object: Any) -> Bool { fresh(); return super.contains(object) }
    override func objects(at indexes: IndexSet) -> [Any] { fresh(); return super.objects(at: indexes) }

    // MARK: Changing

    override func insert(_ object: Any, at idx: Int) {
        precondition(idx >= 0 && idx <= count, "\(relationship.name): index \(idx) out of bounds")
        let member = managedObject(object)
        owner.addMembers([member], to: relationship, at: idx)
        copyRelationship()
    }

    override func add(_ object: Any) {
        owner.addMembers([managedObject(object)], to: relationship)
        copyRelationship()
    }

    override func addObjects(from array: [Any]) {
        owner.addMembers(array.map(managedObject), to: relationship)
        copyRelationship()
    }

    override func add(_ objects: UnsafePointer<AnyObject>?, count: Int) {
        addObjects(from: Array(UnsafeBufferPointer(start: objects, count: count)))
    }

    override func remove(_ val: Any) {
        guard let object = val as? NSManagedObject else { return }
        owner.removeMembers([object], from: relationship)
        copyRelationship()
    }

    override func removeObject(at idx: Int) { change { $0.removeObject(at: idx) } }
    override func replaceObject(at idx: Int, with obj: Any) { change { $0.replaceObject(at: idx, with: obj) } }
    override func exchangeObject(at idx1: Int, withObjectAt idx2: Int) { change { $0.exchangeObject(at: idx1, withObjectAt: idx2) } }
    override func moveObjects(at indexes: IndexSet, to idx: Int) { change { $0.moveObjects(at: indexes, to: idx) } }
    override func insert(_ objects: [Any], at indexes: IndexSet) { change { $0.insert(objects, at: indexes) } }
    override func setObject(_ obj: Any, at idx: Int) { change { $0.setObject(obj, at: idx) } }
    override func replaceObjects(at indexes: IndexSet, with objects: [Any]) { change { $0.replaceObjects(at: indexes, with: objects) } }
    override func removeObjects(in range: NSRange) { change { $0.removeObjects(in: range) } }
    override func removeObjects(at indexes: IndexSet) { change { $0.removeObjects(at: indexes) } }
    override func removeObjects(in array: [Any]) { change { $0.removeObjects(in: array) } }
    override func removeAllObjects() { change { $0.removeAllObjects() } }
    override func intersect(_ other: NSOrderedSet) { change { $0.intersect(other) } }
    override func minus(_ other: NSOrderedSet) { change { $0.minus(other) } }
    override func union(_ other: NSOrderedSet) { change { $0.union(other) } }
    override func intersectSet(_ other: Set<AnyHashable>) { change { $0.intersectSet(other) } }
    override func minusSet(_ other: Set<AnyHashable>) { change { $0.minusSet(other) } }
    override func unionSet(_ other: Set<AnyHashable>) { change { $0.unionSet(other) } }
    override func sort(options opts: NSSortOptions = [], usingComparator cmptr: (Any, Any) -> ComparisonResult) {
        change { $0.sort(options: opts, usingComparator: cmptr) }
    }
    override func sortRange(_ range: NSRange, options opts: NSSortOptions = [], usingComparator cmptr: (Any, Any) -> ComparisonResult) {
        change { $0.sortRange(range, options: opts, usingComparator: cmptr) }
    }
}
