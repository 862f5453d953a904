import Digest

/// Builds version hashes: SHA-256 over length-prefixed components, so that
/// `["ab", "c"]` and `["a", "bc"]` never collide.
enum VersionHashing {
    static func hash(_ components: [String]) -> [UInt8] {
        var hasher = SHA256()
        for component in components {
            hasher.update("\(component.utf8.count):")
            hasher.update(component)
        }
        return hasher.finalize()
    }
}
