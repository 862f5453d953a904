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
/// '…'`), then SIGABRT, as `abort()` ends an app.
///
/// Core Data raises exceptions, not errors, for mistakes in the program (an unknown entity
/// name, a value of the wrong type); Swift cannot catch them on Apple platforms either.
///
/// The signal is sent with `kill`, not `abort()`: Swift's crash backtracer walks frame
/// pointers, which glibc's `abort`, `raise` and `pthread_kill` do not keep, so a backtrace
/// from `abort()` stops inside the C library. `kill` is a bare system call that leaves the
/// frame pointer alone, so the backtrace reaches the caller's statement (the workbook
/// locates a crash there). `abort()` follows in case the signal is blocked or handled.
func raiseCoreDataException(_ name: CoreDataExceptionName, _ reason: String) -> Never {
    FileHandle.standardError.write(Data("*** Terminating app due to uncaught exception '\(name.rawValue)', reason: '\(reason)'\n".utf8))
    kill(getpid(), SIGABRT)
    abort()
}

/// Runs a read that cannot report an error to its caller (a fault firing, a relationship
/// loading) and stops the program with Core Data's exception when the store fails, so
/// that a busy or damaged database is never taken for a missing row or an empty
/// relationship (which would mark the object deleted, or lose its relationship at the
/// next save). A row that is really gone is not an error: the read returns nothing.
func readingStore<T>(for objectID: NSManagedObjectID, _ read: () throws -> T) -> T {
    do {
        return try read()
    } catch {
        raiseCoreDataException(.internalInconsistency, "CoreData could not fulfill a fault for '\(objectID)': \((error as NSError).localizedDescription)")
    }
}
