@testable import OpenCoreData

/// Managed objects in no context, of a bare entity: what tests of the context's own
/// lists and tables put in them.
func detachedObjects(_ count: Int) -> [NSManagedObject] {
    let entity = NSEntityDescription()
    entity.name = "Item"
    return (0..<count).map { _ in NSManagedObject(entity: entity, insertInto: nil) }
}
