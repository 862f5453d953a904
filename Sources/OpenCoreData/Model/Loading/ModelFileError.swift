import Foundation

/// Builds the errors of model loading: `NSCocoaErrorDomain` errors whose description
/// starts with the file and line, like a compiler diagnostic.
enum ModelFileError {
    /// `<file>:<line>: <message>`, with the path under `NSFilePathErrorKey`.
    static func at(_ file: URL, line: Int, _ message: String, code: Int = NSFileReadCorruptFileError) -> NSError {
        coreDataError(code, userInfo: [
            NSLocalizedDescriptionKey: "\(file.path):\(line): \(message)",
            NSFilePathErrorKey: file.path,
        ])
    }

    /// `<file>: <message>`, for problems that belong to no line (a missing file).
    static func file(_ file: URL, _ message: String, code: Int = NSFileReadCorruptFileError) -> NSError {
        coreDataError(code, userInfo: [
            NSLocalizedDescriptionKey: "\(file.path): \(message)",
            NSFilePathErrorKey: file.path,
        ])
    }
}
