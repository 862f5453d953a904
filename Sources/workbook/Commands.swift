import ArgumentParser
import Foundation
import WorkbookKit

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run one chapter and print each snippet's output.")

    @Argument(help: "The chapter: its number (1, 01) or file name.")
    var chapter: String

    @OptionGroup var options: CommonOptions

    func run() throws {
        let workbook = try options.makeWorkbook()
        defer { workbook.cleanUp() }
        let path = try workbook.resolve([chapter])[0]
        let outcome = workbook.runOne(path)
        if let chapter = outcome.parsed.chapter, let run = outcome.run {
            Terminal.printRun(chapter: chapter, run: run)
        }
        Terminal.printProblems(outcome.problems)
        if !outcome.problems.isEmpty { throw ExitCode.failure }
    }
}

struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check chapters against their recorded output (all chapters when none is named).",
        discussion: "Exits non-zero when any snippet's output differs or any chapter has a problem; every difference in every chapter is reported first.")

    @Argument(help: "Chapters by number or file name (default: every chapter).")
    var chapters: [String] = []

    @Flag(help: "Accept the new output: rewrite the chapters' output blocks in place.")
    var update = false

    @OptionGroup var options: CommonOptions

    func run() throws {
        let start = Date()
        let workbook = try options.makeWorkbook()
        defer { workbook.cleanUp() }
        let paths = try workbook.resolve(chapters)
        let outcomes = workbook.run(paths)
        var failed = 0
        var updated = 0
        for outcome in outcomes {
            var outcome = outcome
            if update {
                do {
                    let accepted = try workbook.acceptOutput(outcome)
                    outcome = accepted.outcome
                    if accepted.changed {
                        updated += 1
                        Terminal.say("updated \(outcome.path)")
                    }
                } catch let problem as Problem {
                    // An edit made while the chapter ran: report it, keep the file, go on.
                    Terminal.printProblems([problem])
                    failed += 1
                    continue
                }
            }
            Terminal.printProblems(outcome.problems)
            let mismatches = outcome.mismatches
            for mismatch in mismatches { Terminal.printMismatch(mismatch) }
            if !outcome.problems.isEmpty || !mismatches.isEmpty { failed += 1 }
        }
        let cached = outcomes.filter(\.cached).count
        let seconds = String(format: "%.2f", Date().timeIntervalSince(start))
        var summary = "\(outcomes.count) chapter\(outcomes.count == 1 ? "" : "s"): \(outcomes.count - failed) ok, \(failed) failed (\(cached) from cache, \(seconds) s)"
        if update { summary += "; \(updated) updated" }
        Terminal.say(summary)
        if failed > 0 { throw ExitCode.failure }
    }
}

struct Build: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run every chapter and render the HTML book into book/.")

    @Option(help: "Where to write the book (default: book/ at the repository root).")
    var out: String?

    @OptionGroup var options: CommonOptions

    func run() throws {
        let workbook = try options.makeWorkbook()
        defer { workbook.cleanUp() }
        let output = out.map { URL(fileURLWithPath: $0) } ?? workbook.packageRoot.appendingPathComponent("book")
        let problems = try BookBuilder.build(workbook, into: output, report: { Terminal.say($0) })
        Terminal.say("wrote the book: file://\(output.standardizedFileURL.appendingPathComponent("index.html").path)")
        if problems > 0 {
            Terminal.warn("\(problems) chapter\(problems == 1 ? " has" : "s have") problems (listed above); their pages show them")
            throw ExitCode.failure
        }
    }
}

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve book/ on 127.0.0.1, rebuilding changed chapters and reloading the page.",
        discussion: "In the served pages every example has an Edit button: run your edit, compare its output with the book's, and save it into the chapter file. Only this server's own pages can run code (a per-run secret, Host and Origin are checked), and only when it listens on a loopback address.")

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0 picks a free one).")
    var port = 8000

    @OptionGroup var options: CommonOptions

    func run() throws {
        let workbook = try options.makeWorkbook()
        let output = workbook.packageRoot.appendingPathComponent("book")
        _ = try BookBuilder.build(workbook, into: output, report: { Terminal.say($0) })
        let server = BookServer(host: host, port: port, bookDirectory: output) {
            Terminal.say("a chapter changed; rebuilding")
            do {
                _ = try BookBuilder.build(workbook, into: output, report: { Terminal.say($0) })
            } catch {
                Terminal.warn("the rebuild failed: \(error)")
            }
        }
        server.chaptersDirectory = workbook.chaptersDirectory
        if BookServer.isLoopback(host) {
            server.practice = Practice(workbook: workbook)
        } else {
            Terminal.warn("editing and running examples in the page is off: it is offered only on a loopback address (127.0.0.1), never to the network")
        }
        let bound = try server.start()
        Terminal.say("serving the book on http://\(host):\(bound)/ (Ctrl-C to stop)")
        try server.run()
    }
}

struct ExercisesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exercises",
        abstract: "Write your own copy of the chapters, with every solution replaced by its exercise stub.")

    @Option(help: "The folder to write the chapters into.")
    var out = "exercises"

    @Argument(help: "Chapters by number or file name (default: every chapter).")
    var chapters: [String] = []

    @OptionGroup var options: CommonOptions

    func run() throws {
        let workbook = try options.makeWorkbook()
        let directory = URL(fileURLWithPath: out)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var written = 0
        for path in try workbook.resolve(chapters) {
            let parsed = workbook.parse(path)
            guard let chapter = parsed.chapter, parsed.problems.isEmpty else {
                Terminal.printProblems(parsed.problems)
                continue
            }
            let target = directory.appendingPathComponent(chapter.fileName)
            try Data(Exercises.readerCopy(of: chapter).utf8).write(to: target, options: .atomic)
            written += 1
        }
        Terminal.say("wrote \(written) chapter\(written == 1 ? "" : "s") to \(out)/; edit the exercise blocks, then run `workbook check \(out)/NN-….md`")
    }
}

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run an edited chapter and say, for each exercise, whether its output matches the book's.")

    @Argument(help: "The chapter file you edited, e.g. exercises/00-how-to-use-this-book.md.")
    var file: String

    @OptionGroup var options: CommonOptions

    func run() throws {
        let workbook = try options.makeWorkbook()
        defer { workbook.cleanUp() }
        let url = URL(fileURLWithPath: file).standardizedFileURL
        let root = workbook.packageRoot.path + "/"
        let path = url.path.hasPrefix(root) ? String(url.path.dropFirst(root.count)) : url.path
        let parsed = workbook.parse(path)
        guard let chapter = parsed.chapter, parsed.problems.isEmpty else {
            Terminal.printProblems(parsed.problems)
            throw ExitCode.failure
        }
        let outcome = workbook.runParsed(chapter, parsed: parsed)
        Terminal.printProblems(outcome.problems)
        guard let run = outcome.run else { throw ExitCode.failure }
        let reports = Exercises.check(chapter, run: run)
        if reports.isEmpty {
            Terminal.say("\(path) has no exercise stubs to check (make a copy with `workbook exercises`)")
        }
        for report in reports {
            if report.matches {
                Terminal.say("\(path):\(report.line): exercise ✓ your output matches the book's")
            } else if let problem = report.problem {
                Terminal.say("\(path):\(report.line): exercise ✗ \(problem)")
            } else {
                Terminal.say("\(path):\(report.line): exercise ✗ your output differs from the book's:\n\(report.diff)")
            }
        }
        let passed = reports.filter(\.matches).count
        Terminal.say("\(passed) of \(reports.count) exercise\(reports.count == 1 ? "" : "s") match")
        if passed < reports.count || !outcome.problems.isEmpty { throw ExitCode.failure }
    }
}

struct Sources: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a chapter's generated program and a run.sh that builds and runs it with bare swiftc.",
        discussion: "Used by the benchmark (Benchmarks/workbook) and for looking at what the tool compiles.")

    @Argument(help: "The chapter: its number or file name.")
    var chapter: String

    @Option(help: "The folder to write into.")
    var out: String

    @OptionGroup var options: CommonOptions

    func run() throws {
        let workbook = try options.makeWorkbook()
        let path = try workbook.resolve([chapter])[0]
        let parsed = workbook.parse(path)
        guard let chapter = parsed.chapter, parsed.problems.isEmpty else {
            Terminal.printProblems(parsed.problems)
            throw ExitCode.failure
        }
        let directory = URL(fileURLWithPath: out).standardizedFileURL
        try ProgramExport.write(chapter, runner: workbook.runner, to: directory)
        Terminal.say("wrote \(directory.path)/run.sh")
    }
}
