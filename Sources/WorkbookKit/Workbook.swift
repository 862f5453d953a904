import Dispatch
import Foundation

/// The book as the command-line tool and the chapter tests see it: finds chapters, runs
/// them (cached, in parallel) and reports.
public final class Workbook: Sendable {
    /// The repository root (holds `Chapters/`).
    public let packageRoot: URL
    public let chaptersDirectory: URL
    public let runner: ChapterRunner
    public let cache: RunCache?
    /// How many chapters compile and run at once.
    public let jobs: Int
    private let libraryFingerprint: String?

    /// - Parameters:
    ///   - packageRoot: the repository root.
    ///   - buildDirectories: where to look for the OpenCoreData build, in order.
    ///   - useCache: false to run every chapter afresh.
    public init(packageRoot: URL, buildDirectories: [URL], useCache: Bool = true, jobs: Int? = nil) throws {
        self.packageRoot = packageRoot.standardizedFileURL
        chaptersDirectory = self.packageRoot.appendingPathComponent("Chapters", isDirectory: true)
        let library = LibraryBuild.find(inAnyOf: buildDirectories)
        let toolchain = try Toolchain.find()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("workbook-\(getpid())", isDirectory: true)
        runner = ChapterRunner(toolchain: toolchain, library: library, packageRoot: self.packageRoot, scratchDirectory: scratch)
        libraryFingerprint = library?.fingerprint()
        cache = useCache ? RunCache(directory: self.packageRoot.appendingPathComponent(".build/workbook-cache", isDirectory: true)) : nil
        self.jobs = max(1, jobs ?? ProcessInfo.processInfo.activeProcessorCount)
    }

    /// The standard places for the library build: `.build/debug` under the package root,
    /// and the directory of the running executable (the tool and its tests live there).
    public static func defaultBuildDirectories(packageRoot: URL) -> [URL] {
        var candidates: [URL] = []
        if let explicit = ProcessInfo.processInfo.environment["WORKBOOK_BUILD_DIR"] {
            candidates.append(URL(fileURLWithPath: explicit))
        }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        candidates.append(executable.deletingLastPathComponent())
        candidates.append(packageRoot.appendingPathComponent(".build/debug"))
        return candidates
    }

    /// The directory holding `Package.swift` and `Chapters/`, from `start` upwards.
    public static func findPackageRoot(from start: URL) -> URL? {
        var directory = start.standardizedFileURL
        while true {
            let fileManager = FileManager.default
            if fileManager.fileExists(atPath: directory.appendingPathComponent("Package.swift").path),
               fileManager.fileExists(atPath: directory.appendingPathComponent("Chapters").path) {
                return directory
            }
            let parent = directory.deletingLastPathComponent()
            if parent.path == directory.path { return nil }
            directory = parent
        }
    }

    public var libraryBuild: LibraryBuild? { runner.library }

    // MARK: Chapters

    /// Every `NN-slug.md` in `Chapters/`, in reading order, as `Chapters/…` paths.
    /// - Throws: when two chapters have the same number (`07-a.md` and `7-b.md` too): the
    ///   reading order and `verify 7` would have to pick one silently.
    public func chapterPaths() throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: chaptersDirectory.path)
        let chapters = names.filter { $0.hasSuffix(".md") && $0.first?.isNumber == true }.sorted()
        let byNumber = Dictionary(grouping: chapters) { Self.number(of: $0) }
        if let (number, same) = byNumber.filter({ $0.value.count > 1 }).min(by: { $0.key < $1.key }) {
            throw WorkbookError("chapters \(same.map { "Chapters/" + $0 }.joined(separator: " and ")) have the same number \(number); give each chapter its own number")
        }
        return chapters.map { "Chapters/" + $0 }
    }

    /// The number a chapter file name starts with (`07-a.md` → 7); big numbers compare as text.
    private static func number(of name: String) -> String {
        let digits = name.prefix { $0.isASCII && $0.isNumber }
        let trimmed = digits.drop { $0 == "0" }
        return trimmed.isEmpty ? "0" : String(trimmed)
    }

    /// Resolves `00`, `0`, `7`, `07-attributes-in-depth`, a file name or a path to chapter paths.
    public func resolve(_ selectors: [String]) throws -> [String] {
        let all = try chapterPaths()
        guard !selectors.isEmpty else { return all }
        return try selectors.map { selector in
            let name = selector.split(separator: "/").last.map(String.init) ?? selector
            if !name.isEmpty, name.allSatisfy({ $0.isASCII && $0.isNumber }),
               let match = all.first(where: { Self.number(of: String($0.dropFirst("Chapters/".count))) == Self.number(of: name) }) {
                return match
            }
            if let match = all.first(where: { $0 == "Chapters/" + name || $0 == "Chapters/" + name + ".md" }) {
                return match
            }
            throw WorkbookError("no chapter \(selector) in Chapters/ (chapters: \(all.map { $0.dropFirst(9) }.joined(separator: ", ")))")
        }
    }

    /// Reads and parses a chapter; `path` is relative to the package root (or absolute).
    public func parse(_ path: String) -> ParsedChapter {
        let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : packageRoot.appendingPathComponent(path)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            return ParsedChapter(chapter: nil, problems: [Problem(file: path, line: 1, message: "cannot read the chapter file")])
        }
        return ChapterParser.parse(path: path, data: data)
    }

    // MARK: Running

    /// A chapter's outcome: the parse, and the run when the chapter could be run.
    public struct Outcome: Sendable {
        public var path: String
        public var parsed: ParsedChapter
        public var run: ChapterRun?
        /// Whether the run came from the cache.
        public var cached: Bool

        /// Parse and run problems together.
        public var problems: [Problem] { parsed.problems + (run?.problems ?? []) }

        public var mismatches: [Mismatch] {
            guard let chapter = parsed.chapter, let run else { return [] }
            return Verifier.mismatches(chapter, run: run)
        }
    }

    /// Parses and runs the chapters, up to ``jobs`` at a time, using the cache.
    public func run(_ paths: [String], progress: (@Sendable (Outcome) -> Void)? = nil) -> [Outcome] {
        let box = ResultBox(count: paths.count)
        // Each worker takes the next chapter not yet taken, so one slow chapter does not hold
        // back the ones behind it. Threads rather than concurrentPerform, which never runs
        // more than the number of cores at once whatever `jobs` asks for.
        let workers = DispatchGroup()
        for _ in 0..<min(jobs, max(paths.count, 1)) {
            workers.enter()
            Thread {
                while let index = box.take() {
                    let outcome = self.runOne(paths[index])
                    box.set(index, outcome)
                    progress?(outcome)
                }
                workers.leave()
            }.start()
        }
        workers.wait()
        return box.values
    }

    /// Parses and runs one chapter, using the cache.
    public func runOne(_ path: String) -> Outcome {
        let parsed = parse(path)
        guard let chapter = parsed.chapter, parsed.problems.isEmpty else {
            return Outcome(path: path, parsed: parsed, run: nil, cached: false)
        }
        return runParsed(chapter, parsed: parsed)
    }

    /// Runs an already parsed chapter, using the cache.
    public func runParsed(_ chapter: Chapter, parsed: ParsedChapter) -> Outcome {
        let key = RunCache.key(for: chapter, runner: runner, libraryFingerprint: libraryFingerprint)
        if let cache, let run = cache.load(key) {
            return Outcome(path: chapter.path, parsed: parsed, run: run, cached: true)
        }
        let run = runner.run(chapter)
        cache?.store(run, for: key)
        return Outcome(path: chapter.path, parsed: parsed, run: run, cached: false)
    }

    /// `verify --update`: rewrites the chapter's `output` blocks with what it printed.
    ///
    /// Recorded output can contain chapter line numbers (diagnostics, trap messages), and
    /// rewriting a block moves the lines after it, so the chapter is run again after each
    /// rewrite until its text no longer changes (at most four rounds).
    ///
    /// The file is written only if it still holds the text that ran (see ``ChapterFile``).
    /// - Returns: the final outcome and whether the file changed.
    /// - Throws: a ``Problem`` when the chapter was edited while it ran, or cannot be written.
    public func acceptOutput(_ outcome: Outcome) throws -> (outcome: Outcome, changed: Bool) {
        var current = outcome
        var changed = false
        for _ in 0..<4 {
            guard let chapter = current.parsed.chapter, let run = current.run else { break }
            let text = OutputUpdater.update(chapter, run: run)
            guard text != chapter.source else { break }
            let url = chapter.path.hasPrefix("/") ? URL(fileURLWithPath: chapter.path) : packageRoot.appendingPathComponent(chapter.path)
            try ChapterFile.replace(url, path: chapter.path, expecting: Data(chapter.source.utf8), with: Data(text.utf8))
            changed = true
            current = runOne(chapter.path)
        }
        return (current, changed)
    }

    /// Removes the scratch directory.
    public func cleanUp() {
        try? FileManager.default.removeItem(at: runner.scratchDirectory)
    }
}

/// Results written by concurrent workers, each to its own slot.
///
/// `@unchecked Sendable`: every access goes through `lock`.
private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Workbook.Outcome?]
    private var next = 0

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    /// The next index to work on, or nil when every one is taken.
    func take() -> Int? {
        lock.withLock {
            guard next < slots.count else { return nil }
            defer { next += 1 }
            return next
        }
    }

    func set(_ index: Int, _ value: Workbook.Outcome) { lock.withLock { slots[index] = value } }

    var values: [Workbook.Outcome] { lock.withLock { slots.compactMap { $0 } } }
}
