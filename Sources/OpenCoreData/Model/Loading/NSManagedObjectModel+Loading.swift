import Foundation

extension NSManagedObjectModel {
    /// Loads the model Xcode wrote at `url`: a versioned `.xcdatamodeld` directory (its
    /// current version, as `.xccurrentversion` names it), an `.xcdatamodel` directory, or
    /// a `contents` file.
    ///
    /// Returns `nil` when the model cannot be read, printing the reason (file and line) to
    /// standard error, as Core Data logs why a model failed to load.
    ///
    /// ```swift
    /// let url = URL(fileURLWithPath: "Trailhead.xcdatamodeld")
    /// guard let model = NSManagedObjectModel(contentsOf: url) else { fatalError("no model") }
    /// let container = NSPersistentContainer(name: "Trailhead", managedObjectModel: model)
    /// ```
    ///
    /// - Parameter url: the model's location; a compiled `.momd` or `.mom` is refused
    ///   (see the Linux differences).
    public convenience init?(contentsOf url: URL) {
        let loaded: NSManagedObjectModel
        do {
            loaded = try NSManagedObjectModel.load(contentsOf: url)
        } catch {
            FileHandle.standardError.write(Data("OpenCoreData: \((error as NSError).localizedDescription)\n".utf8))
            return nil
        }
        self.init()
        adopt(loaded)
    }

    /// Loads a model like ``init(contentsOf:)``, throwing an error whose description names
    /// the file and line of the problem.
    static func load(contentsOf url: URL) throws -> NSManagedObjectModel {
        let contents = try ModelFileLocation.contentsFile(for: url)
        let data: Data
        do {
            data = try Data(contentsOf: contents)
        } catch {
            throw ModelFileError.file(contents, "cannot read the model file", code: NSFileReadNoSuchFileError)
        }
        if data.starts(with: Array("bplist".utf8)) {
            throw ModelFileError.file(contents, "compiled models (.mom) cannot be read on Linux; ship the .xcdatamodeld that Xcode edits")
        }
        return try ModelFileParser(file: contents).parse(data)
    }

    /// Takes over the entities, configurations and templates of a freshly loaded model,
    /// so the convenience initializer can hand out `self`.
    private func adopt(_ other: NSManagedObjectModel) {
        entities = other.entities
        for name in other.configurations {
            setEntities(other.entities(forConfigurationName: name) ?? [], forConfigurationName: name)
        }
        fetchRequestTemplateSources = other.fetchRequestTemplateSources
        fetchRequestTemplates = other.fetchRequestTemplates
        versionIdentifiers = other.versionIdentifiers
        sourceURL = other.sourceURL
    }
}

/// Finds the `contents` XML inside the forms a model takes on disk.
enum ModelFileLocation {
    static func contentsFile(for url: URL) throws -> URL {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ModelFileError.file(url, "no model file or directory here", code: NSFileReadNoSuchFileError)
        }
        guard isDirectory.boolValue else { return url }
        let contents = url.appendingPathComponent("contents")
        if FileManager.default.fileExists(atPath: contents.path) { return contents }
        let version = try currentVersion(in: url)
        return try contentsFile(for: version)
    }

    /// The current version of a versioned model directory: the one `.xccurrentversion`
    /// names, or else the only or the last (by name, numbers compared as numbers) version.
    static func currentVersion(in directory: URL) throws -> URL {
        let listing = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let versions = listing.filter { $0.hasSuffix(".xcdatamodel") }
            .sorted { $0.compare($1, options: [.numeric]) == .orderedAscending }
        let marker = directory.appendingPathComponent(".xccurrentversion")
        if let data = try? Data(contentsOf: marker) {
            let plist = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil)
            guard let name = (plist as? [String: Any])?["_XCCurrentVersionName"] as? String else {
                throw ModelFileError.file(marker, "cannot read _XCCurrentVersionName from this property list")
            }
            guard versions.contains(name) else {
                throw ModelFileError.file(marker, "names current version \(name), which \(directory.lastPathComponent) does not contain")
            }
            return directory.appendingPathComponent(name)
        }
        if let last = versions.last { return directory.appendingPathComponent(last) }
        if directory.pathExtension == "mom" || directory.pathExtension == "momd" || listing.contains(where: { $0.hasSuffix(".mom") }) {
            throw ModelFileError.file(directory, "compiled models (.mom) cannot be read on Linux; ship the .xcdatamodeld that Xcode edits")
        }
        throw ModelFileError.file(directory, "contains no contents file and no .xcdatamodel version", code: NSFileReadNoSuchFileError)
    }
}

/// Finds a model by name the way an app finds its own: in the main bundle's resources,
/// beside the executable, then in the current directory.
enum ModelLocator {
    /// The first existing `<name>.momd`, `<name>.mom`, `<name>.xcdatamodeld` or
    /// `<name>.xcdatamodel`, looking in each place in turn.
    static func modelURL(named name: String) -> URL? {
        modelURL(named: name, in: searchDirectories())
    }

    static func modelURL(named name: String, in directories: [URL]) -> URL? {
        let extensions = ["momd", "mom", "xcdatamodeld", "xcdatamodel"]
        for directory in directories {
            for pathExtension in extensions {
                let candidate = directory.appendingPathComponent("\(name).\(pathExtension)")
                if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            }
        }
        return nil
    }

    /// Bundle.main's resources, the executable's directory, the working directory.
    static func searchDirectories() -> [URL] {
        var directories: [URL] = []
        if let resources = Bundle.main.resourceURL { directories.append(resources) }
        if let executable = Bundle.main.executableURL {
            directories.append(executable.deletingLastPathComponent())
        } else if let first = CommandLine.arguments.first {
            directories.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        directories.append(URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        var seen: Set<String> = []
        return directories.filter { seen.insert($0.standardizedFileURL.path).inserted }
    }
}
