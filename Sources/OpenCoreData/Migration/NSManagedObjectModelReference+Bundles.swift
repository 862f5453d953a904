import Foundation

extension NSManagedObjectModelReference {
    /// A reference to the version of the model named `modelName` in `bundle` (the main
    /// bundle's resources when `nil`, then beside the executable and the working directory)
    /// whose ``NSManagedObjectModel/versionChecksum`` is `versionChecksum`.
    ///
    /// On Linux the model is the `.xcdatamodeld` (or `.xcdatamodel`) itself; each of its
    /// versions is compared by checksum. An unversioned model is taken as it is. A name that
    /// finds no model, or a checksum that matches no version, raises
    /// `NSInvalidArgumentException` naming what was looked for.
    ///
    /// ```swift
    /// let v1 = NSManagedObjectModelReference(name: "Trailhead", in: nil, versionChecksum: v1Checksum)
    /// ```
    public convenience init(name modelName: String, in bundle: Bundle?, versionChecksum: String) {
        let directories = bundle.map { [$0.resourceURL ?? $0.bundleURL] } ?? ModelLocator.searchDirectories()
        guard let url = ModelLocator.modelURL(named: modelName, in: directories) else {
            raiseCoreDataException(.invalidArgument, "NSManagedObjectModelReference: no model named \(modelName) in \(directories.map(\.path).joined(separator: ", ")).")
        }
        let versions = Self.versions(of: url)
        if versions.count == 1, url.pathExtension != "xcdatamodeld" {
            self.init(model: versions[0], versionChecksum: versionChecksum)
            return
        }
        guard let model = versions.first(where: { $0.versionChecksum == versionChecksum }) else {
            raiseCoreDataException(.invalidArgument, "NSManagedObjectModelReference: no version of \(url.lastPathComponent) has the checksum \(versionChecksum) (its versions have \(versions.map(\.versionChecksum).joined(separator: ", "))).")
        }
        self.init(model: model, versionChecksum: versionChecksum)
    }

    /// A reference to the model version, among the models in `bundle` (as for
    /// ``init(name:in:versionChecksum:)``), whose entities have exactly the version hashes
    /// `versionHash` lists (entity name to hash, as in a store's metadata).
    public convenience init(entityVersionHashes versionHash: [AnyHashable: Any], in bundle: Bundle?, versionChecksum: String) {
        var wanted: [String: Data] = [:]
        for (key, value) in versionHash {
            guard let name = key as? String, let hash = value as? Data else { continue }
            wanted[name] = hash
        }
        let directories = bundle.map { [$0.resourceURL ?? $0.bundleURL] } ?? ModelLocator.searchDirectories()
        let candidates = directories.flatMap(ModelVersions.modelFiles(in:)).flatMap(Self.versions(of:))
        guard let model = candidates.first(where: { $0.entityVersionHashesByName == wanted }) else {
            raiseCoreDataException(.invalidArgument, "NSManagedObjectModelReference: no model in \(directories.map(\.path).joined(separator: ", ")) has the entity version hashes given (entities \(wanted.keys.sorted().joined(separator: ", "))).")
        }
        self.init(model: model, versionChecksum: versionChecksum)
    }

    /// Every version of the model file at `url`, oldest first; the file itself when it is
    /// not versioned.
    private static func versions(of url: URL) -> [NSManagedObjectModel] {
        let files = url.pathExtension == "xcdatamodeld" ? ModelVersions.versionURLs(in: url) : [url]
        return files.compactMap { try? NSManagedObjectModel.load(contentsOf: $0) }
    }
}
