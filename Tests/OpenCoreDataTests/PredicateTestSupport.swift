import Foundation
import XCTest

@testable import OpenCoreData

// XCTest re-exports Foundation, whose NSPredicate, NSSortDescriptor, NSExpression,
// NSCompoundPredicate and NSComparisonPredicate would otherwise be ambiguous with the
// library's in type positions; scoped imports make the library's win (see
// PredicateShadowingTests and LinuxDifferences.md).
import class OpenCoreData.NSComparisonPredicate
import class OpenCoreData.NSCompoundPredicate
import class OpenCoreData.NSExpression
import class OpenCoreData.NSPredicate
import class OpenCoreData.NSSortDescriptor

/// A region: the to-one end of `Trail.region`.
final class PRegion: NSObject, KeyValueCoding {
    var name: String?
    var country: String?

    init(name: String?, country: String? = nil) {
        self.name = name
        self.country = country
    }

    func value(forKey key: String) -> Any? {
        switch key {
        case "name": return name
        case "country": return country
        default: return nil
        }
    }
}

/// A hike on a trail: the to-many end of `Trail.hikes`.
final class PHike: NSObject, KeyValueCoding {
    var rating: Int16
    var date: Date
    var companions: [String]
    var distance: Double

    init(rating: Int16, date: Date = Date(timeIntervalSinceReferenceDate: 0), companions: [String] = [], distance: Double = 1) {
        self.rating = rating
        self.date = date
        self.companions = companions
        self.distance = distance
    }

    func value(forKey key: String) -> Any? {
        switch key {
        case "rating": return rating
        case "date": return date
        case "companions": return companions
        case "distance": return distance
        default: return nil
        }
    }
}

/// A trail with attributes of most types and both kinds of relationship.
final class PTrail: NSObject, KeyValueCoding {
    var name: String?
    var rating: Int16 = 0
    var length: Double = 0
    var price: Decimal?
    var isFavorite = false
    var created: Date?
    var id: UUID?
    var url: URL?
    var photo: Data?
    var tags: [String] = []
    var region: PRegion?
    var hikes: Set<PHike> = []
    var orderedHikes: NSOrderedSet = NSOrderedSet()

    init(name: String?, rating: Int16 = 0, length: Double = 0, region: PRegion? = nil, hikes: Set<PHike> = []) {
        self.name = name
        self.rating = rating
        self.length = length
        self.region = region
        self.hikes = hikes
    }

    func value(forKey key: String) -> Any? {
        switch key {
        case "name": return name
        case "rating": return rating
        case "length": return length
        case "price": return price
        case "isFavorite": return isFavorite
        case "created": return created
        case "id": return id
        case "url": return url
        case "photo": return photo
        case "tags": return tags
        case "region": return region
        case "hikes": return hikes
        case "orderedHikes": return orderedHikes
        default: return nil
        }
    }

    override var description: String { "PTrail(\(name ?? "nil"))" }
}

/// Parses `format` with `arguments`, failing the test (not trapping) on a syntax error.
func parse(_ format: String, _ arguments: Any?..., file: StaticString = #filePath, line: UInt = #line) -> NSPredicate {
    do {
        return try NSPredicate(validatingFormat: format, argumentArray: arguments.map { $0 as Any })
    } catch {
        XCTFail("\(error)", file: file, line: line)
        return NSPredicate(value: false)
    }
}
