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
