import Digest
import Foundation

/// Builds version hashes byte for byte as Core Data does, so that a store written by
/// Apple's Core Data opens with the same model here, and the other way round.
///
/// Core Data feeds one SHA-256 with plain bytes, no separators or lengths: names as
/// UTF-8, flags and counts as little-endian integers of a fixed width, and the 32-byte
/// hashes of the parts an entity is made of. The layout of each hash is described
/// where it is built (`NSPropertyDescription`, `NSAttributeDescription`,
/// `NSRelationshipDescription`, `NSDerivedAttributeDescription`, `NSEntityDescription`),
/// and the tests check it against hashes Apple's Core Data computed
/// (`AppleVersionHashTests`).
struct VersionHasher {
    private var sha = SHA256()

    /// Adds the UTF-8 bytes of `text`; nothing for `nil` (Core Data skips a missing name
    /// or modifier, so `nil` and `""` hash alike).
    mutating func add(_ text: String?) {
        if let text { sha.update(text) }
    }

    /// Adds raw bytes, such as another description's version hash.
    mutating func add(bytes: Data) { sha.update(bytes) }

    /// Adds one byte.
    mutating func add(byte: UInt8) { sha.update(CollectionOfOne(byte)) }

    /// Adds the low 16 bits of `value`, little-endian.
    mutating func add(uint16 value: UInt16) {
        sha.update([UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)])
    }

    /// Adds the low 32 bits of `value`, little-endian.
    mutating func add(uint32 value: UInt32) {
        sha.update((0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * UInt32($0))) })
    }

    /// The 32 bytes of the hash.
    func finalize() -> Data { Data(sha.finalize()) }
}
