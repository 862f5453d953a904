import ArgumentParser
import Foundation
import WorkbookKit

/// The `workbook` command: a thin front end over WorkbookKit.
@main
struct WorkbookCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workbook",
        abstract: "Run, verify and render the chapters of the book.",
        discussion: """
            Chapters are Chapters/NN-slug.md. Each chapter's Swift blocks form one program that is \
            compiled against the package's OpenCoreData build (.build/debug) and run in a fresh \
            working directory; each block's output is checked against the `output` block after it.
            """,
        subcommands: [Run.self, Verify.self, Build.self, Serve.self, ExercisesCommand.self, Check.self, Sources.self])
}

/// Options every subcommand shares.
struct CommonOptions: ParsableArguments {
    @Option(help: "The repository root (default: found upwards from the current directory).")
    var root: String?

    @Option(name: .customLong("build-path"), help: "Directory of the OpenCoreData build (default: .build/debug).")
    var buildPath: String?

    @Flag(name: .customLong("no-cache"), help: "Run every chapter afresh instead of reusing cached results.")
    var noCache = false

    @Option(help: "How many chapters to compile and run at once (default: the number of cores).")
    var jobs: Int?

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
    }

    func makeWorkbook() throws -> Workbook {
        let current = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let root: URL
        if let explicit = self.root {
            root = URL(fileURLWithPath: explicit, relativeTo: current).standardizedFileURL
        } else if let found = Workbook.findPackageRoot(from: current) {
            root = found
        } else {
            throw WorkbookError("cannot find the book: run inside the repository (the folder with Package.swift and Chapters/) or pass --root")
        }
        var directories = Workbook.defaultBuildDirectories(packageRoot: root)
        if let buildPath {
            directories.insert(URL(fileURLWithPath: buildPath, relativeTo: current).standardizedFileURL, at: 0)
        }
        let workbook = try Workbook(packageRoot: root, buildDirectories: directories, useCache: !noCache, jobs: jobs)
        if workbook.libraryBuild == nil {
            Terminal.warn("OpenCoreData is not built (no libOpenCoreData.so in \(directories.map(\.path).joined(separator: " or "))); run `swift build` first. Chapters that import it will fail.")
        }
        return workbook
    }
}
