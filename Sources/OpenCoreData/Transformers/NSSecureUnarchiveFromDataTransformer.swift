import Foundation

/// Unarchives data written by `NSKeyedArchiver` (``transformedValue(_:)``) and archives
/// values back into data (``reverseTransformedValue(_:)``), accepting only the top-level
/// classes in ``allowedTopLevelClasses``. Core Data's default for Transformable attributes.
///
/// Swift values (`String`, `[Any]`, `[String: Any]`, numbers, `Date`, `Data`, `URL`,
/// `UUID`) are archived as their Foundation classes and come back as Swift values.
open class NSSecureUnarchiveFromDataTransformer: ValueTransformer {
    /// The classes an archive's root object may have.
    open class var allowedTopLevelClasses: [AnyClass] {
        [NSArray.self, NSDictionary.self, NSSet.self, NSString.self, NSNumber.self, NSDate.self, NSData.self, NSURL.self, NSUUID.self, NSNull.self]
    }

    /// Makes the transformer.
    public override init() { super.init() }

    open override class func transformedValueClass() -> AnyClass { NSObject.self }
    open override class func allowsReverseTransformation() -> Bool { true }

    /// The object archived in `value` (a `Data`), or `nil` when it is not an archive or its
    /// root object's class is not allowed.
    open override func transformedValue(_ value: Any?) -> Any? {
        guard let data = CocoaFormatter.unwrap(value) as? Data,
            let unarchiver = try? NSKeyedUnarchiver(forReadingFrom: data)
        else { return nil }
        // corelibs' secure decoding traps on Foundation's own collection classes, so the
        // archive is decoded plainly and its root class checked here.
        unarchiver.requiresSecureCoding = false
        guard let root = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) else { return nil }
        let allowed = type(of: self).allowedTopLevelClasses
        guard let object = root as? NSObject, allowed.contains(where: { object.isKind(of: $0) }) else { return nil }
        return FoundationBridging.swiftValue(object)
    }

    /// `value` archived by `NSKeyedArchiver`, or `nil` when it cannot be archived.
    open override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let value = CocoaFormatter.unwrap(value), let object = FoundationBridging.foundationObject(value) else { return nil }
        return try? NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false)
    }
}

/// Moves values between Swift types and the Foundation classes `NSKeyedArchiver` codes,
/// which Linux does not bridge implicitly.
enum FoundationBridging {
    /// The Foundation object for a Swift value, recursively; objects pass through.
    static func foundationObject(_ value: Any) -> AnyObject? {
        switch value {
        case let string as String: return NSString(string: string)
        case let flag as Bool: return NSNumber(value: flag)
        case let number as Int: return NSNumber(value: number)
        case let number as Int16: return NSNumber(value: number)
        case let number as Int32: return NSNumber(value: number)
        case let number as Int64: return NSNumber(value: number)
        case let number as Double: return NSNumber(value: number)
        case let number as Float: return NSNumber(value: number)
        case let decimal as Decimal: return NSDecimalNumber(decimal: decimal)
        case let date as Date: return NSDate(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate)
        case let data as Data: return NSData(data: data)
        case let url as URL: return NSURL(string: url.absoluteString)
        case let uuid as UUID: return NSUUID(uuidString: uuid.uuidString)
        case let array as [Any]:
            let items = array.compactMap(foundationObject)
            return items.count == array.count ? NSArray(array: items) : nil
        case let dictionary as [AnyHashable: Any]:
            let result = NSMutableDictionary()
            for (key, item) in dictionary {
                guard let keyObject = foundationObject(key.base) as? NSObject, let itemObject = foundationObject(item) else { return nil }
                result[keyObject] = itemObject
            }
            return result
        case let set as Set<AnyHashable>:
            let items = set.compactMap { foundationObject($0.base) }
            return items.count == set.count ? NSSet(array: items) : nil
        case let object as NSObject: return object
        default: return nil
        }
    }

    /// The Swift value for a Foundation object, recursively; other objects pass through.
    static func swiftValue(_ object: Any) -> Any {
        switch object {
        case let string as NSString: return String(describing: string)
        case let number as NSDecimalNumber: return number.decimalValue
        case let number as NSNumber:
            switch String(cString: number.objCType) {
            case "c", "B": return number.boolValue
            case "d": return number.doubleValue
            case "f": return number.floatValue
            default: return number.intValue
            }
        case let date as NSDate: return Date(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate)
        case let data as NSData: return Data(data)
        case let url as NSURL: return url.absoluteURL ?? object
        case let uuid as NSUUID: return UUID(uuidString: uuid.uuidString) ?? object
        case let array as NSArray: return array.map(swiftValue)
        case let dictionary as NSDictionary:
            var result: [AnyHashable: Any] = [:]
            for (key, value) in dictionary {
                guard let hashable = swiftValue(key) as? AnyHashable else { continue }
                result[hashable] = swiftValue(value)
            }
            return result
        case let set as NSSet: return Set(set.allObjects.compactMap { swiftValue($0) as? AnyHashable })
        default: return object
        }
    }
}
