import Digest
import Foundation

/// Chapter runs stored by a key that hashes everything that can change them.
///
/// The key covers: the cache format, the toolchain's version, the OpenCoreData build's
/// fingerprint, the compiler arguments, the chapter path, every assembled source file of
/// the main and compile-fail programs (snippet code with its `#sourceLocation` lines, so
/// moving a snippet changes it), the data files, the time limit and the program's
/// environment. Prose and `output` blocks are not part of it: rewriting output with
/// `--update` does not by itself force a new run. Runs that timed out, or that failed for
/// a reason outside the chapter, are not stored.
public struct RunCache: Sendable {
    /// Bump when the runner's behaviour changes in a way the key cannot see.
    static let formatVersion = "workbook-run-cache-5"

    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    /// The key for running `chapter` with `runner`.
    public static func key(for chapter: Chapter, runner: ChapterRunner, libraryFingerprint: String?) -> String {
        var hasher = SHA256()
        func add(_ label: String, _ value: String) {
            // Length-prefixed, so no two different inputs produce the same byte stream.
            hasher.update("\(label):\(value.utf8.count):")
            hasher.update(value)
            hasher.update("\n")
        }
        add("format", formatVersion)
        add("toolchain", runner.toolchain.version)
        add("library", libraryFingerprint ?? "none")
        add("arguments", runner.compilerArguments().joined(separator: "\u{0}"))
        add("chapter", chapter.path)
        add("timeout", String(chapter.settings.timeout))
        let environment = runner.programEnvironment(workingDirectory: "<workdir>", backtraceFile: "<build>/backtrace.txt")
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) {
            add("env", "\(name)=\(value)")
        }
        for file in ProgramAssembler.mainProgram(chapter) {
            add("main:" + file.name, file.text)
        }
        let plans = ProgramAssembler.plans(for: chapter)
        for snippet in chapter.snippets where plans[snippet.index] == .compileFail {
            for file in ProgramAssembler.compileFailProgram(chapter, snippet: snippet.index) where file.name == "main.swift" {
                add("fail:\(snippet.index)", file.text)
            }
        }
        for file in chapter.dataFiles {
            add("data:" + file.path, file.contents)
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    private func url(for key: String) -> URL {
        directory.appendingPathComponent(key + ".json")
    }

    public func load(_ key: String) -> ChapterRun? {
        guard let data = try? Data(contentsOf: url(for: key)) else { return nil }
        return try? JSONDecoder().decode(ChapterRun.self, from: data)
    }

    public func store(_ run: ChapterRun, for key: String) {
        let cacheable = run.results.allSatisfy {
            // A timeout may not recur on a faster machine; output past the limit is too big to keep.
            switch $0.outcome {
            case .timedOut, .printedTooMuch: false
            default: true
            }
        } && !run.problems.contains { $0.isTransient == true }
        guard cacheable else { return }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try encoder.encode(run).write(to: url(for: key), options: .atomic)
        } catch {
            // A cache that cannot be written only costs time.
        }
    }
}
