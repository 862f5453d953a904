import Digest
import Foundation

/// Where the package's own debug build of OpenCoreData is, and how chapter programs link it.
public struct LibraryBuild: Sendable, Equatable {
    /// The build products directory, e.g. `.build/debug` (holds `libOpenCoreData.so`).
    public var binDirectory: URL
    /// `binDirectory/Modules` (or the bin directory itself on older SwiftPM layouts).
    public var modulesDirectory: URL
    public var library: URL
    public var swiftModule: URL
    /// The `@Managed` macro plugin, when the build has one.
    public var macroTool: URL?

    static let libraryName = "libOpenCoreData.so"

    /// The build in `binDirectory`, or nil when the library is not there.
    public static func find(in binDirectory: URL) -> LibraryBuild? {
        let fileManager = FileManager.default
        let library = binDirectory.appendingPathComponent(libraryName)
        guard fileManager.fileExists(atPath: library.path) else { return nil }
        var modules = binDirectory.appendingPathComponent("Modules")
        if !fileManager.fileExists(atPath: modules.appendingPathComponent("OpenCoreData.swiftmodule").path) {
            modules = binDirectory
        }
        let module = modules.appendingPathComponent("OpenCoreData.swiftmodule")
        guard fileManager.fileExists(atPath: module.path) else { return nil }
        let tool = binDirectory.appendingPathComponent("OpenCoreDataMacros-tool")
        return LibraryBuild(
            binDirectory: binDirectory, modulesDirectory: modules, library: library, swiftModule: module,
            macroTool: fileManager.isExecutableFile(atPath: tool.path) ? tool : nil)
    }

    /// The first of `candidates` that holds the library.
    public static func find(inAnyOf candidates: [URL]) -> LibraryBuild? {
        for candidate in candidates {
            // Resolved, so `.build/debug` and the triple directory it links to give one
            // fingerprint, and the tool and the tests share cached runs.
            if let build = find(in: candidate.standardizedFileURL.resolvingSymlinksInPath()) { return build }
        }
        return nil
    }

    /// A fingerprint of the build: path, size and modification time of the library, its
    /// module and the macro tool. SwiftPM rewrites these files whenever it rebuilds them,
    /// so the fingerprint changes exactly when a chapter program could link differently.
    /// (Hashing the bytes of a debug `.so` on every verify would cost more than the 2 s
    /// budget of a cached run.)
    public func fingerprint() -> String {
        var hasher = SHA256()
        for url in [library, swiftModule, macroTool].compactMap({ $0 }) {
            hasher.update(url.path + "\n")
            hasher.update(Self.fileStamp(url) + "\n")
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// Size and nanosecond modification time, or of every file inside a directory.
    static func fileStamp(_ url: URL) -> String {
        var stamp = ""
        var info = stat()
        guard stat(url.path, &info) == 0 else { return "missing" }
        stamp += "\(info.st_size):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        if (info.st_mode & S_IFMT) == S_IFDIR,
           let names = try? FileManager.default.contentsOfDirectory(atPath: url.path) {
            for name in names.sorted() { stamp += ";" + name + "=" + fileStamp(url.appendingPathComponent(name)) }
        }
        return stamp
    }

    /// Compiler arguments that make `import OpenCoreData` (and its `@Managed` macro) work.
    func compilerArguments(packageRoot: URL) -> [String] {
        var arguments = [
            "-I", modulesDirectory.path,
            "-L", binDirectory.path, "-lOpenCoreData",
            "-Xlinker", "-rpath", "-Xlinker", binDirectory.path,
        ]
        if let macroTool {
            arguments += ["-load-plugin-executable", macroTool.path + "#OpenCoreDataMacros"]
        }
        // The library's module may import the system-library modules; give their maps.
        for target in ["CSQLite", "CCMark"] {
            let map = packageRoot.appendingPathComponent("Sources/\(target)/module.modulemap")
            if FileManager.default.fileExists(atPath: map.path) {
                arguments += ["-I", map.deletingLastPathComponent().path, "-Xcc", "-fmodule-map-file=\(map.path)"]
            }
        }
        return arguments
    }
}

/// The Swift compiler the chapter programs are built with.
public struct Toolchain: Sendable {
    public var swiftc: String
    /// Identifies the compiler in cache keys: the resolved compiler binary with its size and
    /// modification time. (Asking `swiftc --version` would cost a tenth of a second on every
    /// run of the tool; installing another toolchain changes the binary either way.)
    public var version: String
    /// Swift's crash backtracer (`swift-backtrace`), when the toolchain has one.
    public var backtracer: String?

    public init(swiftc: String, version: String, backtracer: String? = nil) {
        self.swiftc = swiftc
        self.version = version
        self.backtracer = backtracer
    }

    /// Finds `swiftc`: `$SWIFTC`, then beside the running tool's toolchain on `PATH`.
    public static func find() throws -> Toolchain {
        let environment = ProcessInfo.processInfo.environment
        let candidates = [environment["SWIFTC"], Spawn.which("swiftc"), "/opt/swift/usr/bin/swiftc", "/usr/bin/swiftc"]
        guard let swiftc = candidates.compactMap({ $0 }).first(where: { access($0, X_OK) == 0 }) else {
            throw WorkbookError("cannot find swiftc: put the Swift toolchain on PATH or set SWIFTC")
        }
        let binary = URL(fileURLWithPath: swiftc).resolvingSymlinksInPath()
        let backtracer = binary.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("libexec/swift/linux/swift-backtrace").path
        return Toolchain(
            swiftc: swiftc, version: binary.path + " " + LibraryBuild.fileStamp(binary),
            backtracer: access(backtracer, X_OK) == 0 ? backtracer : nil)
    }
}

/// An error of the tool itself (not of a chapter), with a message for the user.
public struct WorkbookError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
