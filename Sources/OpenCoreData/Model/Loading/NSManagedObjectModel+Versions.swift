import Foundation

extension NSManagedObjectModel {
    /// A model from the models in `bundles` (the main bundle when `nil`) whose entities hash
    /// like the store that `metadata` describes, or `nil` when none does.
    ///
    /// Every version of a versioned model (`.xcdatamodeld`) is a candidate, not only the
    /// current one: this is how Core Data finds the model that wrote an old store before it
    /// migrates the store to the current version.
    public class func mergedModel(from bundles: [Bundle]?, forStoreMetadata metadata: [String: Any]) -> NSManagedObjectModel? {
        let directories = (bundles ?? [Bundle.main]).compactMap(\.resourceURL)
        return ModelVersions.compatibleModel(in: directories.flatMap(ModelVersions.modelFiles(in:)), metadata: metadata)
    }

    /// Every version of the versioned model this model was loaded from, oldest first (by
    /// version name, numbers compared as numbers); empty when the model did not come from
    /// an `.xcdatamodeld`.
    var siblingVersions: [NSManagedObjectModel] {
        guard let bundle = ModelVersions.versionedBundle(containing: sourceURL) else { return [] }
        return ModelVersions.versionURLs(in: bundle).compactMap { try? NSManagedObjectModel.load(contentsOf: $0) }
    }
}

/// Finds the versions of versioned models on disk.
enum ModelVersions {
    /// The model files (`.xcdatamodeld`, `.xcdatamodel`) directly inside `directory`, by name.
    static func modelFiles(in directory: URL) -> [URL] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
        return names.filter { ["xcdatamodeld", "xcdatamodel"].contains(($0 as NSString).pathExtension) }
            .map { directory.appendingPathComponent($0) }
    }

    /// The `.xcdatamodel` versions inside a versioned model directory, oldest first.
    static func versionURLs(in bundle: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: bundle.path)) ?? []
        return names.filter { $0.hasSuffix(".xcdatamodel") }
            .sorted { ($0 as NSString).deletingPathExtension.compare(($1 as NSString).deletingPathExtension, options: [.numeric]) == .orderedAscending }
            .map { bundle.appendingPathComponent($0) }
    }

    /// The `.xcdatamodeld` that holds the model file `url` (a `contents` file or an
    /// `.xcdatamodel` directory), if any.
    static func versionedBundle(containing url: URL?) -> URL? {
        guard var url else { return nil }
        if url.lastPathComponent == "contents" { url.deleteLastPathComponent() }
        guard url.pathExtension == "xcdatamodel" else { return nil }
        let parent = url.deletingLastPathComponent()
        return parent.pathExtension == "xcdatamodeld" ? parent : nil
    }

    /// The first model, among every version of every file in `files`, compatible with the
    /// store `metadata` describes.
    static func compatibleModel(in files: [URL], metadata: [String: Any]) -> NSManagedObjectModel? {
        for file in files {
            let versions = file.pathExtension == "xcdatamodeld" ? versionURLs(in: file) : [file]
            for version in versions {
                guard let model = try? NSManagedObjectModel.load(contentsOf: version) else { continue }
                if model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) { return model }
            }
        }
        return nil
    }
}
