import Foundation

/// An `NSError` that prints the way Apple's Foundation prints one.
///
/// swift-corelibs-foundation prints `"(null)"UserInfo={…}` with the keys in hash order;
/// Core Data's users read `Error Domain=NSCocoaErrorDomain Code=1610 "rating is too large."
/// UserInfo={NSValidationErrorObject=…, NSLocalizedDescription=…, …}`, so every error the
/// library creates is one of these.
final class CoreDataNSError: NSError, @unchecked Sendable {
    override init(domain: String, code: Int, userInfo dict: [String: Any]? = nil) {
        super.init(domain: domain, code: code, userInfo: dict)
    }

    required init?(coder aDecoder: NSCoder) {
        super.init(coder: aDecoder)
    }

    override var localizedDescription: String {
        if let text = userInfo[NSLocalizedDescriptionKey] as? String { return text }
        return "The operation couldn’t be completed. (\(domain) error \(code).)"
    }

    override var description: String { cocoaErrorDescription(self) }
    override var debugDescription: String { cocoaErrorDescription(self) }
}

/// Apple's one-line form of an error: domain, code, quoted description, then the userInfo
/// in ``cocoaUserInfoKeyOrder(_:)`` order, each value as its own `description` prints.
func cocoaErrorDescription(_ error: NSError) -> String {
    let info = error.userInfo
    let quoted = (info[NSLocalizedDescriptionKey] as? String).map { "\"\($0)\"" } ?? "\"(null)\""
    var text = "Error Domain=\(error.domain) Code=\(error.code) \(quoted)"
    if !info.isEmpty {
        let pairs = cocoaUserInfoKeyOrder(Array(info.keys)).map { "\($0)=\(cocoaPlainDescription(info[$0]))" }
        text += " UserInfo={\(pairs.joined(separator: ", "))}"
    }
    return text
}

/// The order in which the userInfo keys of a Core Data error print.
///
/// Apple prints an `NSDictionary` in hash-table order, which no rule reproduces in general.
/// This fixed ranking reproduces the published examples: a value error prints
/// `NSValidationErrorObject, NSLocalizedDescription, NSValidationErrorKey,
/// NSValidationErrorValue`; a missing mandatory value (no value key) prints
/// `NSValidationErrorObject, NSValidationErrorKey, NSLocalizedDescription`; a 1560 prints
/// `NSDetailedErrors` first (as in published output). Any other key follows, alphabetically.
func cocoaUserInfoKeyOrder(_ keys: [String]) -> [String] {
    let hasValue = keys.contains(NSValidationValueErrorKey)
    let ranking =
        hasValue
        ? [NSValidationObjectErrorKey, NSDetailedErrorsKey, NSLocalizedDescriptionKey, NSValidationKeyErrorKey, NSValidationValueErrorKey]
        : [NSValidationObjectErrorKey, NSDetailedErrorsKey, NSValidationKeyErrorKey, NSLocalizedDescriptionKey]
    let ranked = ranking.filter(keys.contains)
    return ranked + keys.filter { !ranking.contains($0) }.sorted()
}

/// An error in `NSCocoaErrorDomain` with Core Data's `code`, printing as Apple's does.
///
/// Without an `NSLocalizedDescription` in `userInfo`, Core Data's message for the code is
/// added when one is known and the error names a property (`NSValidationErrorKey`).
func coreDataError(_ code: Int, userInfo: [String: Any] = [:]) -> NSError {
    var info = userInfo
    if info[NSLocalizedDescriptionKey] == nil, let message = coreDataLocalizedDescription(code: code, key: info[NSValidationKeyErrorKey] as? String) {
        info[NSLocalizedDescriptionKey] = message
    }
    return CoreDataNSError(domain: NSCocoaErrorDomain, code: code, userInfo: info)
}

/// Combines validation errors the way Core Data reports them: none gives `nil`, one is
/// returned as it is, several become one `NSValidationMultipleErrorsError` (1560) listing
/// them under `NSDetailedErrors`.
func combinedValidationError(_ errors: [NSError]) -> NSError? {
    switch errors.count {
    case 0: return nil
    case 1: return errors[0]
    default:
        // A detailed error that is itself a 1560 contributes its own list, keeping it flat.
        let flat = errors.flatMap { error -> [NSError] in
            if error.domain == NSCocoaErrorDomain, error.code == NSValidationMultipleErrorsError,
                let inner = error.userInfo[NSDetailedErrorsKey] as? [NSError]
            {
                return inner
            }
            return [error]
        }
        return coreDataError(NSValidationMultipleErrorsError, userInfo: [NSDetailedErrorsKey: flat])
    }
}
