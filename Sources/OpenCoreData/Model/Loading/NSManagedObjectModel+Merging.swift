import Foundation

extension NSManagedObjectModel {
    /// One model holding the entities of every model found in `bundles` (the main bundle
    /// when `nil`), or `nil` when none is found, one fails to load or two declare the same
    /// entity.
    public class func mergedModel(from bundles: [Bundle]?) -> NSManagedObjectModel? {
        let directories = (bundles ?? [Bundle.main]).compactMap(\.resourceURL)
        let extensions: Set<String> = ["momd", "mom", "xcdatamodeld", "xcdatamodel"]
        var models: [NSManagedObjectModel] = []
        for directory in directories {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
            for name in names where extensions.contains((name as NSString).pathExtension) {
                guard let model = NSManagedObjectModel(contentsOf: directory.appendingPathComponent(name)) else { return nil }
                models.append(model)
            }
        }
        return models.isEmpty ? nil : NSManagedObjectModel(byMerging: models)
    }

    /// A model holding the entities, configurations and fetch request templates of all
    /// `models`, or `nil` when two of them declare the same entity or template.
    ///
    /// The entities move to the merged model: use the merged model, not the originals.
    public convenience init?(byMerging models: [NSManagedObjectModel]?) {
        let models = models ?? []
        var seen: Set<String> = []
        for name in models.flatMap({ $0.entities.compactMap(\.name) }) {
            guard seen.insert(name).inserted else {
                FileHandle.standardError.write(Data("OpenCoreData: cannot merge models with two entities named \(name)\n".utf8))
                return nil
            }
        }
        let templateNames = models.flatMap { Array($0.fetchRequestTemplateSources.keys) + Array($0.fetchRequestTemplates.keys) }
        guard Set(templateNames).count == templateNames.count else { return nil }
        self.init()
        entities = models.flatMap(\.entities)
        for model in models {
            for name in model.configurations {
                let existing = configurations.contains(name) ? (entities(forConfigurationName: name) ?? []) : []
                setEntities(existing + (model.entities(forConfigurationName: name) ?? []), forConfigurationName: name)
            }
            fetchRequestTemplateSources.merge(model.fetchRequestTemplateSources) { first, _ in first }
            fetchRequestTemplates.merge(model.fetchRequestTemplates) { first, _ in first }
            versionIdentifiers.formUnion(model.versionIdentifiers)
        }
    }
}
