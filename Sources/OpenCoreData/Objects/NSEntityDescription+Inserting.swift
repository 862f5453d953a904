import Foundation

extension NSEntityDescription {
    /// The entity named `entityName` in the model of `context`'s coordinator.
    public class func entity(forEntityName entityName: String, in context: NSManagedObjectContext) -> NSEntityDescription? {
        context.persistentStoreCoordinator?.managedObjectModel.entity(named: entityName)
    }

    /// Creates an object of the entity named `entityName`, of the class the model names,
    /// and inserts it into `context`.
    ///
    /// Stops the program when the model has no such entity, as Core Data raises an exception.
    public class func insertNewObject(forEntityName entityName: String, into context: NSManagedObjectContext) -> NSManagedObject {
        guard let entity = entity(forEntityName: entityName, in: context) else {
            raiseCoreDataException(.internalInconsistency, "+entityForName: could not locate an entity named '\(entityName)' in this model.")
        }
        return ManagedObjectClasses.objectClass(for: entity).init(entity: entity, insertInto: context)
    }
}
