import Foundation

/// The Objective-C exception names Core Data raises for programming errors.
enum CoreDataExceptionName: String {
    case internalInconsistency = "NSInternalInconsistencyException"
    case invalidArgument = "NSInvalidArgumentException"
    case unknownKey = "NSUnknownKeyException"
    case objectInaccessible = "NSObjectInaccessibleException"
}

/// Stops the program as an uncaught Core Data exception stops an app: the same first
/// line on standard error (`*** Terminating app due to uncaught exception '…', reason:
/// '…'`), then `abort()`.
///
/// Core Data raises exceptions, not errors, for mistakes in the program (an unknown entity
/// name, a value of the wrong type); Swift cannot catch them on Apple platforms either.
func raiseCoreDataException(_ name: CoreDataExceptionName, _ reason: String) -> Never {
    FileHandle.standardError.write(Data("*** Terminating app due to uncaught exception '\(name.rawValue)', reason: '\(reason)'\n".utf8))
    abort()
}
