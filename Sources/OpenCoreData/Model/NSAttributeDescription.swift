import Foundation

/// The type of an attribute's value. Raw values match Core Data's.
public enum NSAttributeType: UInt, Sendable {
    /// No type: only for transient attributes (`Undefined` in the model editor).
    case undefinedAttributeType = 0
    /// `Integer 16`: an `Int16`.
    case integer16AttributeType = 100
    /// `Integer 32`: an `Int32`.
    case integer32AttributeType = 200
    /// `Integer 64`: an `Int64`.
    case integer64AttributeType = 300
    /// `Decimal`: a `Decimal`.
    case decimalAttributeType = 400
    /// `Double`: a `Double`.
    case doubleAttributeType = 500
    /// `Float`: a `Float`.
    case floatAttributeType = 600
    /// `String`: a `String`.
    case stringAttributeType = 700
    /// `Boolean`: a `Bool`.
    case booleanAttributeType = 800
    /// `Date`: a `Date`, stored as seconds since 1 January 2001.
    case dateAttributeType = 900
    /// `Binary Data`: a `Data`, optionally stored in an external file.
    case binaryDataAttributeType = 1000
    /// `UUID`: a `UUID`.
    case UUIDAttributeType = 1100
    /// `URI`: a `URL`.
    case URIAttributeType = 1200
    /// `Transformable`: any value, stored as data through a value transformer.
    case transformableAttributeType = 1800
    /// `ObjectID`: an `NSManagedObjectID` (used by fetched properties and derived values).
    case objectIDAttributeType = 2000
    /// `Composite`: a dictionary of the values of its elements (``NSCompositeAttributeDescription``).
    case compositeAttributeType = 2100
}

/// An attribute of an entity: a value stored in a column.
open class NSAttributeDescription: NSPropertyDescription {
    /// The kind of value the attribute holds. Defaults to `.undefinedAttributeType`.
    /// (Not checked for overlapping access at run time: every value read and set reads it.)
    @exclusivity(unchecked) public var attributeType: NSAttributeType = .undefinedAttributeType
    /// The name of the value's class (`NSNumber`, `NSString`, `NSDate`, …), derived from
    /// the attribute type unless set (Transformable attributes name their custom class).
    public var attributeValueClassName: String? {
        get { explicitValueClassName ?? attributeType.defaultValueClassName }
        set { explicitValueClassName = newValue }
    }
    /// The value a newly inserted object gets.
    public var defaultValue: Any? = nil
    /// The registered name of the `ValueTransformer` of a Transformable attribute.
    public var valueTransformerName: String? = nil
    /// Whether large Binary Data values may be kept in files beside the store.
    public var allowsExternalBinaryDataStorage: Bool = false
    /// Whether the value is kept in persistent history after deletion.
    public var preservesValueInHistoryOnDeletion: Bool = false
    /// Kept for API compatibility; CloudKit does not exist on Linux.
    public var allowsCloudEncryption: Bool = false

    /// Value constraints from the model editor (minimum, maximum, pattern, …).
    /// Core Data keeps these as validation predicates; validation reads them here.
    var constraints = AttributeConstraints()

    private var explicitValueClassName: String?
    /// The composite attribute this attribute is an element of, if any (its store column
    /// belongs to the composite's entity).
    weak var compositeOwner: NSCompositeAttributeDescription?

    /// The attribute that owns this one's column: the outermost composite holding it, or itself.
    var storedOwner: NSAttributeDescription { compositeChain.first ?? self }

    /// The names from the outermost composite down to this attribute (`["address", "geo", "lat"]`).
    var compositePath: [String] { compositeChain.map(\.name) + [name] }

    /// The composites holding this attribute, outermost first (at most 16: a composite
    /// that contains itself is refused when a store is added).
    private var compositeChain: [NSAttributeDescription] {
        var chain: [NSAttributeDescription] = []
        var current = compositeOwner
        while let owner = current, chain.count < 16 {
            chain.insert(owner, at: 0)
            current = owner.compositeOwner
        }
        return chain
    }

    /// Creates an attribute with no name and an undefined type; set both before use.
    public override init() { super.init() }

    /// Core Data's attribute hash: the shared property hash, the attribute type as a
    /// 32-bit number, then one byte 1 for external binary storage and one for keeping
    /// the value in history after deletion (each only when set).
    override func computeVersionHash() -> Data {
        var hasher = VersionHasher()
        hasher.add(bytes: super.computeVersionHash())
        hasher.add(uint32: UInt32(truncatingIfNeeded: attributeType.rawValue))
        if allowsExternalBinaryDataStorage { hasher.add(byte: 1) }
        if preservesValueInHistoryOnDeletion { hasher.add(byte: 1) }
        return hasher.finalize()
    }

    open override var description: String {
        super.description + ", attributeType \(attributeType.rawValue), attributeValueClassName \(attributeValueClassName ?? "(null)"), defaultValue \(defaultValue.map { "\($0)" } ?? "(null)")"
    }
}

/// Limits on an attribute's value, as the model editor records them. Numbers, string
/// lengths and dates each use the pair that fits the attribute's type.
struct AttributeConstraints: Equatable {
    /// Smallest allowed number (`minValueString`), or shortest string length.
    var minimum: Decimal?
    /// Largest allowed number (`maxValueString`), or longest string length.
    var maximum: Decimal?
    /// Earliest allowed date, as seconds since 2001-01-01 (`minDateTimeInterval`).
    var minimumDate: Double?
    /// Latest allowed date, as seconds since 2001-01-01 (`maxDateTimeInterval`).
    var maximumDate: Double?
    /// ICU regular expression a string must match in whole (`regularExpressionString`).
    var regularExpression: String?

    var isEmpty: Bool {
        minimum == nil && maximum == nil && minimumDate == nil && maximumDate == nil && regularExpression == nil
    }
}

extension NSAttributeType {
    /// The class name Core Data reports for values of this type.
    var defaultValueClassName: String? {
        switch self {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType,
            .doubleAttributeType, .floatAttributeType, .booleanAttributeType:
            "NSNumber"
        case .decimalAttributeType: "NSDecimalNumber"
        case .stringAttributeType: "NSString"
        case .dateAttributeType: "NSDate"
        case .binaryDataAttributeType: "NSData"
        case .UUIDAttributeType: "NSUUID"
        case .URIAttributeType: "NSURL"
        case .compositeAttributeType: "NSDictionary"
        case .transformableAttributeType, .undefinedAttributeType, .objectIDAttributeType: nil
        }
    }

    /// The name Xcode writes in a model file's `attributeType`.
    public var modelFileName: String {
        switch self {
        case .undefinedAttributeType: "Undefined"
        case .integer16AttributeType: "Integer 16"
        case .integer32AttributeType: "Integer 32"
        case .integer64AttributeType: "Integer 64"
        case .decimalAttributeType: "Decimal"
        case .doubleAttributeType: "Double"
        case .floatAttributeType: "Float"
        case .stringAttributeType: "String"
        case .booleanAttributeType: "Boolean"
        case .dateAttributeType: "Date"
        case .binaryDataAttributeType: "Binary"
        case .UUIDAttributeType: "UUID"
        case .URIAttributeType: "URI"
        case .transformableAttributeType: "Transformable"
        case .objectIDAttributeType: "ObjectID"
        case .compositeAttributeType: "Composite"
        }
    }

    /// The type Xcode's model file names, e.g. `"Integer 16"`.
    public init?(modelFileName: String) {
        let all: [NSAttributeType] = [
            .undefinedAttributeType, .integer16AttributeType, .integer32AttributeType, .integer64AttributeType,
            .decimalAttributeType, .doubleAttributeType, .floatAttributeType, .stringAttributeType,
            .booleanAttributeType, .dateAttributeType, .binaryDataAttributeType, .UUIDAttributeType,
            .URIAttributeType, .transformableAttributeType, .objectIDAttributeType, .compositeAttributeType,
        ]
        guard let match = all.first(where: { $0.modelFileName == modelFileName }) else { return nil }
        self = match
    }
}
