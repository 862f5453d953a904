/// Declares a Core Data managed property: the Linux spelling of `@NSManaged`.
///
/// ```swift
/// final class Trail: NSManagedObject {
///     @Managed var name: String?
///     @Managed var rating: Double
/// }
/// ```
///
/// The getter and setter go through ``NSManagedObject/managedValue(forKey:)`` and
/// ``NSManagedObject/setManagedValue(_:forKey:)``, so change tracking, faulting and
/// key-value access behave as they do for `@NSManaged` on Apple platforms. It works in a
/// class body and in an extension (as in Xcode's generated `+CoreDataProperties` files).
@attached(accessor)
public macro Managed() = #externalMacro(module: "OpenCoreDataMacros", type: "ManagedMacro")
