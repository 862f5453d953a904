import Foundation
import XCTest
@testable import WorkbookKit

/// Compiles and runs fixture chapters with the real toolchain (no OpenCoreData needed).
final class RunnerTests: XCTestCase {
    private var roots: [URL] = []

    override func tearDown() {
        roots.forEach { try? FileManager.default.removeItem(at: $0) }
    }

    private func outcomes(_ fixtures: [String], extra: [String: String] = [:], cache: Bool = false) throws -> (Workbook, [Workbook.Outcome]) {
        let root = try FixtureSupport.packageRoot(fixtures: fixtures, extra: extra)
        roots.append(root)
        let workbook = try FixtureSupport.workbook(root, cache: cache)
        return (workbook, workbook.run(try workbook.chapterPaths()))
    }

    func testEveryKindOfSnippetRunsAndVerifies() throws {
        let (_, outcomes) = try outcomes(["10-every-kind.md"])
        let outcome = try XCTUnwrap(outcomes.first)
        XCTAssertEqual(outcome.problems, [])
        XCTAssertEqual(outcome.mismatches, [])
        let run = try XCTUnwrap(outcome.run)
        XCTAssertEqual(run.result(for: 2)?.output.segments, [
            .init(stream: .stdout, text: "HELLO\n"), .init(stream: .stderr, text: "to stderr\n"), .init(stream: .stdout, text: "after\n"),
        ])
        XCTAssertEqual(run.result(for: 5)?.outcome, .notRun, "no-run")
        XCTAssertEqual(run.result(for: 6)?.outcome, .notRun, "ignore")
        XCTAssertEqual(run.result(for: 7)?.outcome, .failedToCompile)
        XCTAssertEqual(run.result(for: 8)?.outcome, .trapped(signal: 4))
        XCTAssertEqual(run.result(for: 8)?.output.segments.last?.stream, .stderr)
        XCTAssertEqual(run.result(for: 9)?.outcome, .completed, "snippets after a trap run")
        XCTAssertEqual(run.result(for: 10)?.outcome, .notRun, "the exercise stub is replaced by its solution")
        XCTAssertEqual(run.result(for: 11)?.output.text, "42\n")
    }

    func testStandardOutputAndErrorKeepTheirOrder() throws {
        var code = "import Foundation\n"
        for index in 0..<200 {
            code += index % 3 == 0
                ? "FileHandle.standardError.write(\"e\\(\(index))\\n\".data(using: .utf8)!)\n"
                : "print(\"o\\(\(index))\")\n"
        }
        let chapter = "# Order\n\n```swift\n\(code)```\n"
        let (_, outcomes) = try outcomes([], extra: ["01-order.md": chapter])
        let output = try XCTUnwrap(outcomes.first?.run?.result(for: 0)?.output)
        let expected = (0..<200).map { $0 % 3 == 0 ? "e\($0)\n" : "o\($0)\n" }.joined()
        XCTAssertEqual(output.text, expected)
        XCTAssertEqual(output.segments.filter { $0.stream == .stderr }.map(\.text).joined(),
                       (0..<200).filter { $0 % 3 == 0 }.map { "e\($0)\n" }.joined())
    }

    func testBadChaptersAreReportedAndTheOthersStillRun() throws {
        let fixtures = ["10-every-kind.md", "20-not-utf8.md", "21-unterminated.md", "22-orphan-output.md", "23-duplicate-file.md",
                        "24-escaping-path.md", "25-compile-error.md", "26-infinite-loop.md", "27-unknown-attribute.md", "28-unexpected-trap.md"]
        let started = Date()
        let (_, outcomes) = try outcomes(fixtures)
        XCTAssertEqual(outcomes.map(\.path), fixtures.map { "Chapters/" + $0 })
        let good = outcomes[0]
        XCTAssertEqual(good.problems, [])
        XCTAssertEqual(good.mismatches, [])
        for outcome in outcomes.dropFirst() {
            XCTAssertFalse(outcome.problems.isEmpty, "\(outcome.path) must report a problem")
            for problem in outcome.problems {
                XCTAssertEqual(problem.file, outcome.path)
                XCTAssertGreaterThan(problem.line, 0)
            }
        }
        let compile = outcomes[6].problems
        XCTAssertEqual(compile.map(\.description), ["Chapters/25-compile-error.md:8:19: error: cannot find 'undefinedName' in scope"])

        let loop = outcomes[7]
        XCTAssertEqual(loop.problems.map(\.line), [13])
        XCTAssertTrue(loop.problems[0].message.contains("ran out of time (2 s)"))
        XCTAssertEqual(loop.run?.result(for: 0)?.output.text, "starting\n", "output before the loop is kept")
        XCTAssertEqual(loop.run?.result(for: 1)?.outcome, .timedOut(seconds: 2))
        XCTAssertEqual(loop.run?.result(for: 2)?.outcome, .notRun)

        let trap = outcomes[9]
        XCTAssertEqual(trap.problems.map(\.line), [14], "the line of the force unwrap, from the runtime's message")
        XCTAssertEqual(trap.run?.result(for: 1)?.outcome, .trapped(signal: 4))
        XCTAssertEqual(trap.run?.result(for: 2)?.outcome, .notRun)
        XCTAssertLessThan(Date().timeIntervalSince(started), 60)
    }

    func testCrashesInsideTheStandardLibraryAreLocatedInTheChapter() throws {
        let text = "# Crash\n\n```swift\nlet trails = [\"a\"]\nprint(\"reading\")\nprint(trails[3])\n```\n\n```swift trap\nlet empty: [Int] = []\n_ = empty[0]\n```\n"
        let (_, outcomes) = try outcomes([], extra: ["01-crash.md": text])
        let outcome = try XCTUnwrap(outcomes.first)
        // The runtime's message names the standard library; the backtrace names the chapter.
        XCTAssertEqual(outcome.problems.map { "\($0.line):\($0.column ?? 0)" }, ["6:13"], "\(outcome.problems)")
        XCTAssertEqual(outcome.run?.result(for: 0)?.trapLocation, "Chapters/01-crash.md:6:13")
        XCTAssertEqual(outcome.run?.result(for: 0)?.output.text.hasPrefix("reading\nSwift/"), true)
        XCTAssertFalse(outcome.run?.result(for: 0)?.output.text.contains("Backtracing") ?? true)
        XCTAssertEqual(outcome.run?.result(for: 1)?.outcome, .notRun, "trap snippets after an unexpected crash do not run")
    }

    func testChapterNamesDoNotCaptureTheRuntime() throws {
        let text = "# Names\n\n```swift\nfunc write(_ text: String) { print(\"mine:\", text) }\nfunc exit(_ code: Int32) {}\nstruct FILE {}\nwrite(\"hello\")\n```\n\n```swift\nprint(\"next\")\n```\n"
        let (_, outcomes) = try outcomes([], extra: ["01-names.md": text, "02-prose.md": "# Only prose\n\nNo code.\n"])
        XCTAssertEqual(outcomes[0].problems, [])
        XCTAssertEqual(outcomes[0].run?.results.map(\.output.text), ["mine: hello\n", "next\n"])
        XCTAssertEqual(outcomes[1].problems, [])
        XCTAssertEqual(outcomes[1].run?.results, [])
    }

    func testCachedRunsAreReusedUntilTheCodeChanges() throws {
        let root = try FixtureSupport.packageRoot(fixtures: [], extra: ["01-a.md": "# A\n\n```swift\nprint(1)\n```\n", "02-b.md": "# B\n\n```swift\nprint(2)\n```\n"])
        roots.append(root)
        let workbook = try FixtureSupport.workbook(root, cache: true)
        XCTAssertEqual(workbook.run(try workbook.chapterPaths()).map(\.cached), [false, false])
        XCTAssertEqual(workbook.run(try workbook.chapterPaths()).map(\.cached), [true, true])
        try Data("# B\n\n```swift\nprint(3)\n```\n".utf8).write(to: root.appendingPathComponent("Chapters/02-b.md"))
        let again = workbook.run(try workbook.chapterPaths())
        XCTAssertEqual(again.map(\.cached), [true, false], "only the edited chapter runs again")
        XCTAssertEqual(again[1].run?.result(for: 0)?.output.text, "3\n")
    }

    func testAcceptOutputRecordsLineNumbersThatStayTrue() throws {
        let text = "# A\n\n```swift\nprint(\"x\")\n```\n\n```output\n```\n\n```swift trap\nfatalError(\"stop\")\n```\n"
        let root = try FixtureSupport.packageRoot(fixtures: [], extra: ["01-a.md": text])
        roots.append(root)
        let workbook = try FixtureSupport.workbook(root)
        let first = workbook.runOne("Chapters/01-a.md")
        let accepted = try workbook.acceptOutput(first)
        XCTAssertTrue(accepted.changed)
        let written = try String(contentsOf: root.appendingPathComponent("Chapters/01-a.md"), encoding: .utf8)
        XCTAssertEqual(written, "# A\n\n```swift\nprint(\"x\")\n```\n\n```output\nx\n```\n\n```swift trap\nfatalError(\"stop\")\n```\n\n```output\nChapters/01-a.md:12: Fatal error: stop\n```\n")
        XCTAssertEqual(accepted.outcome.mismatches, [])
    }

    func testCheckReportsEachExercise() throws {
        let chapter = try XCTUnwrap(FixtureSupport.parse("10-every-kind.md").chapter)
        let copy = Exercises.readerCopy(of: chapter)
        let solved = copy.replacingOccurrences(of: "{ 0 }", with: "{ x + x }")
        let (workbook, _) = try outcomes([], extra: ["10-every-kind.md": copy, "11-solved.md": solved])
        for (name, matches) in [("10-every-kind.md", false), ("11-solved.md", true)] {
            let outcome = workbook.runOne("Chapters/" + name)
            let reports = Exercises.check(outcome.parsed.chapter!, run: outcome.run!)
            XCTAssertEqual(reports.map(\.matches), [matches], name)
            if !matches { XCTAssertTrue(reports[0].diff.contains("-42\n+0\n"), reports[0].diff) }
        }
    }
}
