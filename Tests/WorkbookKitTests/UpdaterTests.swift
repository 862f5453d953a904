import XCTest
@testable import WorkbookKit

final class UpdaterTests: XCTestCase {
    private func run(_ chapter: Chapter, _ outputs: [Int: String]) -> ChapterRun {
        ChapterRun(chapterPath: chapter.path, results: chapter.snippets.map { snippet in
            let text = outputs[snippet.index]
            return SnippetResult(
                index: snippet.index,
                output: SnippetOutput(segments: text.map { [.init(stream: .stdout, text: $0)] } ?? []),
                outcome: text == nil ? .notRun : .completed)
        }, problems: [])
    }

    private let source = """
        # Title

        Prose stays *exactly* as it is.

        ```swift
        print("a")
        ```

        ```output
        old
        ```

        ```swift
        print(UUID())
        ```

        ```output
        id …
        ```

        ```swift
        print("new block")
        ```
        Text right after.

        """

    func testRewritesOnlyOutputBlocks() throws {
        let chapter = try XCTUnwrap(FixtureSupport.parseText(source).chapter)
        let updated = OutputUpdater.update(chapter, run: run(chapter, [0: "a\n", 1: "id 7\n", 2: "fresh\n"]))
        XCTAssertEqual(updated, """
            # Title

            Prose stays *exactly* as it is.

            ```swift
            print("a")
            ```

            ```output
            a
            ```

            ```swift
            print(UUID())
            ```

            ```output
            id …
            ```

            ```swift
            print("new block")
            ```

            ```output
            fresh
            ```
            Text right after.

            """)
        // The update is stable: a second pass changes nothing.
        let again = try XCTUnwrap(FixtureSupport.parseText(updated).chapter)
        XCTAssertEqual(OutputUpdater.update(again, run: run(again, [0: "a\n", 1: "id 8\n", 2: "fresh\n"])), updated)
        XCTAssertEqual(Verifier.mismatches(again, run: run(again, [0: "a\n", 1: "id 8\n", 2: "fresh\n"])), [])
    }

    func testOutputWithFencesGetsALongerFence() throws {
        let chapter = try XCTUnwrap(FixtureSupport.parseText("# T\n\n```swift\nprint(\"```\")\n```\n\n```output\n```\n").chapter)
        let updated = OutputUpdater.update(chapter, run: run(chapter, [0: "```\n"]))
        XCTAssertEqual(updated, "# T\n\n```swift\nprint(\"```\")\n```\n\n````output\n```\n````\n")
        let reparsed = try XCTUnwrap(FixtureSupport.parseText(updated).chapter)
        XCTAssertEqual(reparsed.snippets[0].expectedOutput?.text, "```\n")
    }

    func testSnippetsThatDidNotRunAreLeftAlone() throws {
        let chapter = try XCTUnwrap(FixtureSupport.parseText(source).chapter)
        XCTAssertEqual(OutputUpdater.update(chapter, run: run(chapter, [:])), chapter.source)
        var crashed = run(chapter, [0: "crash\n"])
        crashed.results[0].outcome = .trapped(signal: 4)
        XCTAssertEqual(OutputUpdater.update(chapter, run: crashed), chapter.source, "an unexpected crash is not accepted as output")
    }

    func testMismatchReportNamesTheOutputBlock() throws {
        let chapter = try XCTUnwrap(FixtureSupport.parseText(source).chapter)
        let mismatches = Verifier.mismatches(chapter, run: run(chapter, [0: "new\n", 1: "id 1\n", 2: ""]))
        XCTAssertEqual(mismatches.count, 1)
        XCTAssertTrue(mismatches[0].report.hasPrefix("Chapters/50-test.md:9: output of the snippet at line 5 differs from the recording\n--- expected\n+++ actual\n@@ -1,1 +1,1 @@\n-old\n+new\n"), mismatches[0].report)
    }
}

final class ExercisesTests: XCTestCase {
    func testReaderCopyPutsTheStubWhereTheSolutionWas() throws {
        let chapter = try XCTUnwrap(FixtureSupport.parse("10-every-kind.md").chapter)
        let copy = Exercises.readerCopy(of: chapter)
        XCTAssertFalse(copy.contains("x * 2"), "the solution is gone")
        XCTAssertTrue(copy.hasSuffix("""
            ## Exercises

            ```swift exercise
            func double(_ x: Int) -> Int { 0 }
            print(double(21))
            ```

            ```output
            42
            ```

            """), copy)
        let reparsed = try XCTUnwrap(FixtureSupport.parseText(copy).chapter)
        XCTAssertEqual(ProgramAssembler.plans(for: reparsed).last, .run, "without a solution, the stub runs")
    }

    func testChaptersWithoutExercisesAreCopiedUnchanged() throws {
        let chapter = try XCTUnwrap(FixtureSupport.parseText("# T\n\n```swift\nprint(1)\n```\n").chapter)
        XCTAssertEqual(Exercises.readerCopy(of: chapter), chapter.source)
    }
}

final class CacheKeyTests: XCTestCase {
    private let runner = ChapterRunner(
        toolchain: Toolchain(swiftc: "/usr/bin/swiftc", version: "Swift version 6.3.1"), library: nil,
        packageRoot: URL(fileURLWithPath: "/book"), scratchDirectory: URL(fileURLWithPath: "/tmp/x"))

    private func key(_ text: String, runner: ChapterRunner? = nil, library: String? = "lib-1") -> String {
        RunCache.key(for: FixtureSupport.parseText(text).chapter!, runner: runner ?? self.runner, libraryFingerprint: library)
    }

    private let base = "# T\n\nProse.\n\n```swift\nprint(1)\n```\n\n```output\n1\n```\n\n```json file=a.json\n[]\n```\n"

    func testKeyIsStableAndIgnoresOutputBlocks() {
        XCTAssertEqual(key(base), key(base))
        XCTAssertEqual(key(base), key(base.replacingOccurrences(of: "```output\n1\n```", with: "```output\n2\n```")),
                       "accepting new output does not invalidate the run")
        XCTAssertEqual(key(base), key(base.replacingOccurrences(of: "Prose.", with: "Other words.")),
                       "prose that moves no line does not invalidate the run")
    }

    func testKeyChangesWithEverythingThatChangesTheRun() {
        let original = key(base)
        XCTAssertNotEqual(original, key(base.replacingOccurrences(of: "print(1)", with: "print(2)")), "code")
        XCTAssertNotEqual(original, key(base.replacingOccurrences(of: "Prose.", with: "Prose.\n\nMore.")), "snippet lines moved")
        XCTAssertNotEqual(original, key(base.replacingOccurrences(of: "[]", with: "[1]")), "data file")
        XCTAssertNotEqual(original, key(base + "\n<!-- workbook: timeout=5 -->\n"), "time limit")
        XCTAssertNotEqual(original, key(base, library: "lib-2"), "library build")
        var other = runner
        other.toolchain.version = "Swift version 6.4"
        XCTAssertNotEqual(original, key(base, runner: other), "toolchain")
    }

    func testLibraryFingerprintFollowsTheFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lib-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("Modules"), withIntermediateDirectories: true)
        try Data("so".utf8).write(to: directory.appendingPathComponent("libOpenCoreData.so"))
        try Data("module".utf8).write(to: directory.appendingPathComponent("Modules/OpenCoreData.swiftmodule"))
        let build = try XCTUnwrap(LibraryBuild.find(in: directory))
        XCTAssertEqual(build.modulesDirectory.lastPathComponent, "Modules")
        let before = build.fingerprint()
        XCTAssertEqual(before, build.fingerprint())
        try Data("so, rebuilt".utf8).write(to: directory.appendingPathComponent("libOpenCoreData.so"))
        XCTAssertNotEqual(before, build.fingerprint())
        XCTAssertNil(LibraryBuild.find(in: directory.appendingPathComponent("Modules")))
    }
}
