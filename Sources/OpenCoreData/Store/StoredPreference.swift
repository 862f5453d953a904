import Foundation
#if canImport(CoreFoundation)
import CoreFoundation
#endif

/// The value stored for one user default in the application's preferences, the domain
/// `UserDefaults.set(_:forKey:)` and `removeObject(forKey:)` write. Read directly, it costs
/// a fraction of `UserDefaults.object(forKey:)` (which copies its volatile domains under a
/// lock first), so a setting read at every statement can notice a change cheaply.
/// Registered defaults and launch arguments live in those volatile domains, not here.
struct StoredPreference {
    #if canImport(CoreFoundation)
    /// The key, made once: a `CFString` made per read would cost as much as the read.
    private let key: CFString?

    init(key: String) {
        self.key = CFStringCreateWithCString(nil, key, CFStringBuiltInEncodings.UTF8.rawValue)
    }

    /// The stored value, or `nil` when none is stored.
    func value() -> AnyObject? {
        guard let key else { return nil }
        return CFPreferencesCopyAppValue(key, kCFPreferencesCurrentApplication)
    }

    /// Whether two values `value()` returned are the same stored value.
    static func isSame(_ first: AnyObject?, _ second: AnyObject?) -> Bool {
        switch (first, second) {
        case (nil, nil): return true
        case let (first?, second?): return CFEqual(first, second)
        default: return false
        }
    }
    #else
    private let key: String

    init(key: String) { self.key = key }

    /// Without CoreFoundation there is no cheaper read: every change check misses.
    func value() -> AnyObject? { nil }

    static func isSame(_ first: AnyObject?, _ second: AnyObject?) -> Bool { false }
    #endif
}
