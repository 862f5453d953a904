import Foundation

/// Compiles and runs one chapter: the main program, each `compile-fail` snippet's own
/// program and one run per `trap` snippet, and collects every snippet's output.
public struct ChapterRunner: Sendable {
    public var toolchain: Toolchain
    /// The OpenCoreData build chapter programs link; nil when it is not built (chapters that
    /// do not import it still run).
    public var library: LibraryBuild?
    /// The repository root: `Chapters/…` paths are relative to it.
    public var packageRoot: URL
    /// Where build and working directories are made; removed after each chapter.
    public var scratchDirectory: URL

    public init(toolchain: Toolchain, library: LibraryBuild?, packageRoot: URL, scratchDirectory: URL) {
        self.toolchain = toolchain
        self.library = library
        self.packageRoot = packageRoot
        self.scratchDirectory = scratchDirectory
    }

    /// The environment every chapter program runs with: fixed values, so that output does
    /// not depend on who runs the book, and so that it can be part of the cache key.
    ///
    /// When the toolchain has Swift's backtracer, a crash writes a backtrace to
    /// `backtraceFile` (not to the program's output); the runner reads the chapter line and
    /// column of the crash from it. Otherwise backtracing is off and the runtime prints only
    /// its `Fatal error: …` line.
    func programEnvironment(workingDirectory: String, backtraceFile: String) -> [String: String] {
        var backtrace = "enable=no"
        if let backtracer = toolchain.backtracer {
            backtrace = "enable=yes,interactive=no,color=no,threads=crashed,registers=none,images=none,limit=64,top=16,sanitize=yes,"
                + "output-to=\(backtraceFile),swift-backtrace=\(backtracer)"
        }
        return [
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": workingDirectory,
            "TMPDIR": workingDirectory + "/.tmp",
            "TZ": "UTC",
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "SWIFT_BACKTRACE": backtrace,
        ]
    }

    /// Arguments common to every compile of a chapter program.
    func compilerArguments() -> [String] {
        var arguments = [
            // The module is named Chapters so that `#fileID` (used by force-unwrap and other
            // runtime messages) reads `Chapters/NN-slug.md`, like `#file` and diagnostics.
            // Swift 5 mode, like OpenCoreData: `#file` is the chapter path, and top-level
            // code reads like the Core Data code readers will write.
            "-swift-version", "5", "-module-name", "Chapters", "-Onone",
            "-diagnostic-style", "llvm", "-no-color-diagnostics",
            // Line tables only: enough for a crash's backtrace to name the chapter line and
            // column, at a small fraction of full debug information's cost.
            "-gline-tables-only",
        ]
        if let library { arguments += library.compilerArguments(packageRoot: packageRoot) }
        return arguments
    }

    /// Runs the chapter and returns what every snippet printed. Never throws for problems
    /// of the chapter; those are in the run's ``ChapterRun/problems``.
    public func run(_ chapter: Chapter) -> ChapterRun {
        let trace = Trace(chapter.path)
        defer { trace.mark("done") }
        let plans = ProgramAssembler.plans(for: chapter)
        var results = chapter.snippets.map { snippet -> SnippetResult in
            let outcome: SnippetOutcome
            if case .sourceFile = plans[snippet.index] { outcome = .completed } else { outcome = .notRun }
            return SnippetResult(index: snippet.index, output: SnippetOutput(), outcome: outcome)
        }
        var problems: [Problem] = []
        // Nothing to compile (prose, shown-only code): nothing to run.
        guard plans.contains(where: { $0 != .skipped }) else {
            return ChapterRun(chapterPath: chapter.path, results: results, problems: [])
        }
        let fileManager = FileManager.default
        let base = scratchDirectory.appendingPathComponent("\(chapter.slug)-\(UUID().uuidString.prefix(8))")
        defer {
            try? fileManager.removeItem(at: base)
            // The shared scratch directory goes too once no other chapter is using it
            // (rmdir fails on a directory that is not empty).
            _ = rmdir(scratchDirectory.path)
        }
        let normalizer = OutputNormalizer(packageRoot: packageRoot.path, scratch: base.path)
        do {
            // Another chapter finishing may remove the shared scratch directory between the
            // creation of its parent and of `base`: try again.
            for attempt in 1...3 {
                do {
                    try fileManager.createDirectory(at: base, withIntermediateDirectories: true)
                    break
                } catch where attempt < 3 {
                    continue
                }
            }
            // 1. The main program.
            let binary = base.appendingPathComponent("program")
            let compiled = try compile(ProgramAssembler.mainProgram(chapter), into: base.appendingPathComponent("main"), output: binary)
            trace.mark("compiled main program")
            guard compiled.succeeded else {
                problems += compileProblems(compiled, chapter: chapter, normalizer: normalizer)
                if problems.isEmpty {
                    problems.append(Problem(file: chapter.path, line: 1, message: "the chapter program did not compile"))
                }
                return ChapterRun(chapterPath: chapter.path, results: results, problems: problems)
            }
            // 2. Every compile-fail snippet, on its own.
            for snippet in chapter.snippets where plans[snippet.index] == .compileFail {
                let result = try compile(
                    ProgramAssembler.compileFailProgram(chapter, snippet: snippet.index),
                    into: base.appendingPathComponent("fail-\(snippet.index)"), output: base.appendingPathComponent("fail-\(snippet.index).out"))
                if result.succeeded {
                    problems.append(Problem(file: chapter.path, line: snippet.fenceLine,
                                            message: "this `compile-fail` snippet compiled; it must fail to compile"))
                    results[snippet.index].outcome = .completed
                } else {
                    let errors = Diagnostics.errorLines(normalizer.normalize(String(decoding: result.stderr, as: UTF8.self)))
                    results[snippet.index].output = SnippetOutput(segments: errors.isEmpty ? [] : [.init(stream: .stderr, text: errors)])
                    results[snippet.index].outcome = .failedToCompile
                }
            }
            trace.mark("compiled compile-fail snippets")
            // 3. The main run.
            let main = try execute(chapter, binary: binary, trapSnippet: nil, base: base, normalizer: normalizer)
            trace.mark("ran main program")
            var stoppedAt = Int.max
            for (index, output) in main.outputs where plans[index] == .run {
                results[index].output = output
                results[index].outcome = .completed
            }
            if let last = main.lastSnippet, main.truncated {
                stoppedAt = last
                results[last].outcome = .printedTooMuch(limit: OutputCapture.maximumBytes)
                problems.append(printedTooMuch(chapter.snippets[last], chapter: chapter, output: results[last].output))
            } else if let last = main.lastSnippet, !main.reachedEnd {
                stoppedAt = last
                results[last].outcome = outcome(main.termination, timeout: chapter.settings.timeout)
                results[last].trapLocation = main.crashLocation
                problems.append(unexpectedEnd(of: chapter.snippets[last], chapter: chapter, termination: main.termination,
                                              output: results[last].output, location: main.crashLocation))
            } else if main.lastSnippet == nil && !main.reachedEnd {
                let how = main.truncated ? "it printed more than \(OutputCapture.maximumBytes >> 20) MiB" : describe(main.termination)
                problems.append(Problem(file: chapter.path, line: 1, message: "the chapter program ended before its first snippet (\(how))"))
                stoppedAt = -1
            }
            // 4. One run per trap snippet before the point where the main run stopped.
            for snippet in chapter.snippets where plans[snippet.index] == .trap && snippet.index < stoppedAt {
                let run = try execute(chapter, binary: binary, trapSnippet: snippet.index, base: base, normalizer: normalizer)
                let output = run.outputs.first { $0.0 == snippet.index }?.1 ?? SnippetOutput()
                results[snippet.index].output = output
                switch run.termination {
                case _ where run.truncated:
                    let last = run.lastSnippet.map { chapter.snippets[$0] } ?? snippet
                    results[snippet.index].outcome = .printedTooMuch(limit: OutputCapture.maximumBytes)
                    problems.append(printedTooMuch(last, chapter: chapter, output: run.outputs.first { $0.0 == last.index }?.1 ?? output))
                case .signalled(let signal) where run.lastSnippet == snippet.index:
                    results[snippet.index].outcome = .trapped(signal: signal)
                    results[snippet.index].trapLocation = run.crashLocation
                case .exited(0) where run.sawNoTrapMarker:
                    results[snippet.index].outcome = .completed
                    problems.append(Problem(file: chapter.path, line: snippet.fenceLine,
                                            message: "this `trap` snippet finished without crashing; it is expected to trap"))
                default:
                    results[snippet.index].outcome = outcome(run.termination, timeout: chapter.settings.timeout)
                    let last = run.lastSnippet.map { chapter.snippets[$0] } ?? snippet
                    problems.append(unexpectedEnd(of: last, chapter: chapter, termination: run.termination, output: output,
                                                  location: run.crashLocation))
                }
            }
        } catch {
            // Spawning, writing files, reading output: the machine, not the chapter.
            problems.append(Problem(file: chapter.path, line: 1, message: "\(error)", isTransient: true))
        }
        return ChapterRun(chapterPath: chapter.path, results: results, problems: problems)
    }

    // MARK: Compiling

    /// How long one compile may take before it is killed.
    static let compileTimeout: Double = 600

    private func compile(_ files: [SourceFile], into directory: URL, output: URL) throws -> Subprocess.Result {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var paths: [String] = []
        for file in files {
            let url = directory.appendingPathComponent(file.name)
            try Data(file.text.utf8).write(to: url)
            paths.append(url.path)
        }
        // Run from the package root, so the relative `Chapters/…` names in #sourceLocation
        // are the names diagnostics print.
        return try Subprocess.run(
            toolchain.swiftc, compilerArguments() + ["-o", output.path] + paths,
            directory: packageRoot.path, timeout: Self.compileTimeout)
    }

    private func compileProblems(_ result: Subprocess.Result, chapter: Chapter, normalizer: OutputNormalizer) -> [Problem] {
        if result.termination == .timedOut {
            return [Problem(file: chapter.path, line: 1, message: "the compiler ran out of time (\(Int(Self.compileTimeout)) s) on the chapter program", isTransient: true)]
        }
        if case .signalled(let signal) = result.termination {
            return [Problem(file: chapter.path, line: 1, message: "the compiler was killed by signal \(signal) (out of memory?) while compiling the chapter program", isTransient: true)]
        }
        let text = normalizer.normalize(String(decoding: result.stderr + result.stdout, as: UTF8.self))
        var problems = Diagnostics.parse(text, chapterPath: chapter.path).filter { $0.isError }.map { diagnostic in
            diagnostic.file == chapter.path
                ? Problem(file: chapter.path, line: diagnostic.line, column: diagnostic.column, message: diagnostic.message)
                // An error in the code the tool wraps around snippets (an unbalanced brace in
                // a snippet can cause one): name the generated file, relative to <build>.
                : Problem(file: chapter.path, line: 1, message: "\(diagnostic.message) (in the generated \(diagnostic.file):\(diagnostic.line); see `workbook sources`)")
        }
        if problems.isEmpty, !text.isEmpty {
            let hint = library == nil && text.contains("no such module 'OpenCoreData'")
                ? " (OpenCoreData is not built: run `swift build` at the package root first)" : ""
            problems.append(Problem(file: chapter.path, line: 1, message: "the chapter program did not compile\(hint):\n" + text))
        } else if library == nil && text.contains("no such module 'OpenCoreData'") {
            problems.append(Problem(file: chapter.path, line: 1, message: "OpenCoreData is not built: run `swift build` at the package root first"))
        }
        return problems
    }

    // MARK: Running

    struct Execution {
        var outputs: [(Int, SnippetOutput)] = []
        var lastSnippet: Int?
        var reachedEnd = false
        var sawNoTrapMarker = false
        var termination: Termination = .exited(0)
        /// Where the program crashed, from its backtrace, when that is in the chapter.
        var crashLocation: String?
        /// Output beyond the capture limit was dropped.
        var truncated = false
    }

    private func execute(_ chapter: Chapter, binary: URL, trapSnippet: Int?, base: URL, normalizer: OutputNormalizer) throws -> Execution {
        let fileManager = FileManager.default
        let work = base.appendingPathComponent(trapSnippet.map { "work-trap-\($0)" } ?? "work")
        try fileManager.createDirectory(at: work.appendingPathComponent(".tmp"), withIntermediateDirectories: true)
        for file in chapter.dataFiles {
            let url = work.appendingPathComponent(file.path)
            try fileManager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(file.contents.utf8).write(to: url)
        }
        let backtraceFile = base.appendingPathComponent("backtrace-\(trapSnippet.map(String.init) ?? "main").txt")
        var environment = programEnvironment(workingDirectory: work.path, backtraceFile: backtraceFile.path)
        if let trapSnippet { environment[ProgramAssembler.trapVariable] = String(trapSnippet) }
        let captured = try OutputCapture.run(
            executable: binary.path, environment: environment, directory: work.path, timeout: chapter.settings.timeout)
        var normalizer = normalizer
        normalizer.workingDirectory = work.path
        var execution = Self.split(captured, snippetCount: chapter.snippets.count, normalizer: normalizer)
        if case .signalled = captured.termination, let data = FileManager.default.contents(atPath: backtraceFile.path) {
            execution.crashLocation = Self.crashLocation(in: String(decoding: data, as: UTF8.self), chapterPath: chapter.path)
        }
        return execution
    }

    /// The first frame of a backtrace that is in the chapter: `Chapters/NN-slug.md:LINE:COLUMN`.
    static func crashLocation(in backtrace: String, chapterPath: String) -> String? {
        for line in backtrace.split(separator: "\n") {
            guard let range = line.range(of: " at " + chapterPath + ":") else { continue }
            let location = line[line.index(range.lowerBound, offsetBy: 4)...]
            return String(location.prefix { !$0.isWhitespace })
        }
        return nil
    }

    /// Splits captured output at the runtime's markers into per-snippet output. A marker
    /// that names no snippet of the chapter (only a program that writes to the marker
    /// descriptor itself can send one) is ignored.
    static func split(_ captured: CapturedOutput, snippetCount: Int, normalizer: OutputNormalizer) -> Execution {
        var execution = Execution(termination: captured.termination)
        execution.truncated = captured.truncated
        var current: Int?
        var pieces: [(SnippetOutput.Stream, [UInt8])] = []
        func flush() {
            guard let index = current else { return }
            var output = SnippetOutput()
            for (stream, bytes) in pieces {
                var text = normalizer.normalize(String(decoding: bytes, as: UTF8.self))
                if stream == .stderr { text = OutputNormalizer.removeRuntimeBacktrace(text) }
                output.append(text, from: stream)
            }
            execution.outputs.append((index, output))
            pieces = []
        }
        for chunk in captured.chunks {
            let stream: SnippetOutput.Stream
            switch chunk.source {
            case .stdout: stream = .stdout
            case .stderr: stream = .stderr
            case .marker:
                let name = String(decoding: chunk.bytes, as: UTF8.self)
                if name.hasPrefix("snippet "), let index = Int(name.dropFirst(8)), (0..<snippetCount).contains(index) {
                    flush()
                    current = index
                    execution.lastSnippet = index
                } else if name == "end" {
                    flush()
                    execution.reachedEnd = true
                    current = nil
                } else if name == "no-trap" {
                    flush()
                    execution.sawNoTrapMarker = true
                    current = nil
                }
                continue
            }
            // No binding of `pieces.last`: a second reference would make every append copy
            // the whole buffer, quadratic in the output's length.
            if pieces.last?.0 == stream {
                pieces[pieces.count - 1].1.append(contentsOf: chunk.bytes)
            } else {
                pieces.append((stream, chunk.bytes))
            }
        }
        flush()
        return execution
    }

    private func outcome(_ termination: Termination, timeout: Double) -> SnippetOutcome {
        switch termination {
        case .exited(let status): .exited(status: status)
        case .signalled(let signal): .trapped(signal: signal)
        case .timedOut: .timedOut(seconds: timeout)
        }
    }

    private func describe(_ termination: Termination) -> String {
        switch termination {
        case .exited(let status): "it exited with status \(status)"
        case .signalled(let signal): "it crashed with signal \(signal)"
        case .timedOut: "it ran out of time"
        }
    }

    /// The problem for a program stopped because `snippet` printed past the limit: located
    /// at the snippet, with the start of what it printed against its recording.
    private func printedTooMuch(_ snippet: Snippet, chapter: Chapter, output: SnippetOutput) -> Problem {
        let diff = OutputMatcher.briefDiff(expected: snippet.expectedOutput?.text ?? "", actual: output.text)
        return Problem(file: chapter.path, line: snippet.fenceLine, message: "this snippet printed more than \(OutputCapture.maximumBytes >> 20) MiB, so the program was stopped there: later snippets did not run, and nothing of this one was recorded. The start of its output against the recording:\n" + diff)
    }

    /// The problem for a program that stopped while `snippet` ran.
    private func unexpectedEnd(
        of snippet: Snippet, chapter: Chapter, termination: Termination, output: SnippetOutput, location: String?
    ) -> Problem {
        // The backtrace names the chapter line and column of the crash; without one, the
        // runtime's message names the line when the failing check is in chapter code
        // (fatalError, precondition, a force unwrap); otherwise the snippet's line.
        let errorText = output.segments.filter { $0.stream == .stderr }.map(\.text).joined()
        let parts = location?.dropFirst(chapter.path.count + 1).split(separator: ":").compactMap { Int($0) } ?? []
        let line = parts.first ?? Diagnostics.runtimeLocation(in: errorText, chapterPath: chapter.path) ?? snippet.fenceLine
        let column = parts.count > 1 ? parts[1] : nil
        let lastError = errorText.split(separator: "\n").last.map(String.init)
        switch termination {
        case .timedOut:
            return Problem(file: chapter.path, line: snippet.fenceLine, message: "the chapter ran out of time (\(formatSeconds(chapter.settings.timeout)) s) while this snippet ran; it was killed. A longer limit: <!-- workbook: timeout=SECONDS -->")
        case .signalled(let signal):
            let detail = lastError.map { ": \($0)" } ?? ""
            let kind = snippet.attributes.mode == .trap ? "" : "; mark the snippet `trap` if that is intended"
            return Problem(file: chapter.path, line: line, column: column, message: "the program crashed (signal \(signal)) in the snippet at line \(snippet.fenceLine)\(detail)\(kind)")
        case .exited(let status):
            return Problem(file: chapter.path, line: line, message: "the program exited with status \(status) in the snippet at line \(snippet.fenceLine); later snippets did not run")
        }
    }

    private func formatSeconds(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}

/// Phase timings on standard error when `WORKBOOK_TRACE` is set: where a chapter's time goes.
struct Trace {
    let name: String
    let start = Date()
    let enabled = ProcessInfo.processInfo.environment["WORKBOOK_TRACE"] != nil

    init(_ name: String) { self.name = name }

    func mark(_ phase: String) {
        guard enabled else { return }
        FileHandle.standardError.write(Data(String(format: "[trace] %@ %.3f s %@\n", name, Date().timeIntervalSince(start), phase).utf8))
    }
}
