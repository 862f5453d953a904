import Foundation
import XCTest
@testable import WorkbookKit

/// Messy and hostile chapters (issue 18): other line endings, output the tool could
/// mistake for its own, output past the limit, edits during an update, injected output.
/// Nothing a chapter holds or prints may pass silently, lose an edit or crash the tool.
final class HostileInputTests: XCTestCase {
    private var roots: [URL] = []

    override func tearDown() {
        roots.forEach { try? FileManager.default.removeItem(at: $0) }
    }

    private func root(_ chapters: [String: String]) throws -> URL {
        let root = try FixtureSupport.packageRoot(fixtures: [], extra: chapters)
        roots.append(root)
        return root
    }

    private let lfChapter = """
        # Line endings

        Some prose
        on two lines.

        ```swift
        print("one")
        ```

        ```output
        one
        ```

        More prose.

        ```swift
        print("two")
        ```

        ```output
        two
        ```

        """

    // MARK: CRLF and lone CR

    func testCRLFAndLoneCRParseExactlyLikeLF() throws {
        let lf = try XCTUnwrap(FixtureSupport.parseText(lfChapter).chapter)
        XCTAssertEqual(lf.snippets.count, 2)
        for ending in ["\r\n", "\r"] {
            let parsed = FixtureSupport.parseText(lfChapter.replacingOccurrences(of: "\n", with: ending))
            XCTAssertEqual(parsed.problems, [], ending.debugDescription)
            let chapter = try XCTUnwrap(parsed.chapter)
            XCTAssertEqual(chapter.blocks, lf.blocks, "every block, line and rendering as with LF (\(ending.debugDescription))")
        }
        // One CRLF line in prose must not shift the lines of the blocks after it.
        let mixed = lfChapter.replacingOccurrences(of: "Some prose\n", with: "Some prose\r\n")
        XCTAssertEqual(try XCTUnwrap(FixtureSupport.parseText(mixed).chapter).blocks, lf.blocks)
    }

    func testInvalidUTF8IsLocatedOnTheRightLineWhateverTheLineEndings() {
        var bytes = Array("# T\r\rtext\r\n".utf8)
        bytes.append(0xFF)
        let parsed = ChapterParser.parse(path: "Chapters/50-test.md", data: Data(bytes))
        XCTAssertEqual(parsed.problems.map(\.line), [4])
    }

    func testUpdateKeepsEachLinesEnding() throws {
        for ending in ["\r\n", "\r"] {
            let text = lfChapter.replacingOccurrences(of: "\n", with: ending)
            let chapter = try XCTUnwrap(FixtureSupport.parseText(text).chapter)
            let run = ChapterRun(chapterPath: chapter.path, results: [
                SnippetResult(index: 0, output: SnippetOutput(segments: [.init(stream: .stdout, text: "uno\n")]), outcome: .completed),
                SnippetResult(index: 1, output: SnippetOutput(segments: [.init(stream: .stdout, text: "two\n")]), outcome: .completed),
            ], problems: [])
            let updated = OutputUpdater.update(chapter, run: run)
            XCTAssertEqual(updated, lfChapter.replacingOccurrences(of: "one\n```", with: "uno\n```")
                .replacingOccurrences(of: "\n", with: ending), ending.debugDescription)
        }
    }

    func testACRLFChapterRunsAndVerifies() throws {
        let root = try root(["01-crlf.md": lfChapter.replacingOccurrences(of: "\n", with: "\r\n")])
        let outcome = try FixtureSupport.workbook(root).runOne("Chapters/01-crlf.md")
        XCTAssertEqual(outcome.problems, [])
        XCTAssertEqual(outcome.run?.results.map(\.output.text), ["one\n", "two\n"], "both snippets ran")
        XCTAssertEqual(outcome.mismatches, [])
    }

    // MARK: Fences that would silently not run

    func testATabIndentedFenceIsReported() {
        let parsed = FixtureSupport.parseText("# Tabs\n\n\t```swift\n\tprint(\"hidden\")\n\t```\n\n  \t```output\n  \tx\n  \t```\n")
        XCTAssertEqual(parsed.problems.map(\.line), [3, 7], "\(parsed.problems)")
        XCTAssertTrue(parsed.problems.first?.message.contains("tab") == true, "\(parsed.problems)")
    }

    func testAFenceIndentedByFourSpacesIsReportedToo() {
        let parsed = FixtureSupport.parseText("# Spaces\n\n    ```swift\n    print(1)\n    ```\n\n    ```text\n    shown as it is\n    ```\n")
        XCTAssertEqual(parsed.problems.map(\.line), [3], "a ```text block indented is just code: \(parsed.problems)")
    }

    func testANulByteDoesNotHideTheRestOfTheChapter() throws {
        let parsed = FixtureSupport.parseText("# NUL\n\ntext \u{0} more\n\n```swift\nprint(1)\n```\n")
        XCTAssertEqual(try XCTUnwrap(parsed.chapter).snippets.count, 1, "the snippet after the NUL is still found")
    }

    // MARK: Settings and chapter numbers

    func testATimeoutThatIsNotAPositiveNumberIsAClearError() {
        for value in ["0", "-5", "abc", "inf"] {
            let parsed = FixtureSupport.parseText("# T\n\n<!-- workbook: timeout=\(value) -->\n")
            XCTAssertEqual(parsed.problems.count, 1)
            let message = parsed.problems.first?.message ?? ""
            XCTAssertFalse(message.contains("unknown"), message)
            XCTAssertTrue(message.contains("positive number of seconds"), message)
        }
        XCTAssertTrue(FixtureSupport.parseText("# T\n\n<!-- workbook: color=red -->\n").problems.first?.message
            .contains("unknown workbook setting") == true)
    }

    func testTwoChaptersWithTheSameNumberAreAnError() throws {
        let root = try root(["90-first.md": "# A\n", "90-second.md": "# B\n", "91-other.md": "# C\n"])
        let workbook = try FixtureSupport.workbook(root)
        for selectors in [["90"], [], ["91"]] {
            XCTAssertThrowsError(try workbook.resolve(selectors)) { error in
                let message = "\(error)"
                XCTAssertTrue(message.contains("90-first.md") && message.contains("90-second.md"), message)
            }
        }
    }

    // MARK: Recording output that is not plain text

    private func chapterRecording(_ output: String) throws -> (recorded: String, chapter: Chapter) {
        let chapter = try XCTUnwrap(FixtureSupport.parseText("# T\n\n```swift\nprint(1)\n```\n").chapter)
        let run = ChapterRun(chapterPath: chapter.path, results: [
            SnippetResult(index: 0, output: SnippetOutput(segments: [.init(stream: .stdout, text: output)]), outcome: .completed),
        ], problems: [])
        let updated = try XCTUnwrap(FixtureSupport.parseText(OutputUpdater.update(chapter, run: run)).chapter)
        return (try XCTUnwrap(updated.snippets[0].expectedOutput?.text), updated)
    }

    func testALiteralEllipsisIsRecordedSoThatItMatchesOnlyItself() throws {
        let (recorded, _) = try chapterRecording("loading… done\n…\n")
        XCTAssertEqual(recorded, "loading\\u{2026} done\n\\u{2026}\n")
        XCTAssertTrue(OutputMatcher(expected: recorded, actual: "loading… done\n…\n").matches)
        XCTAssertFalse(OutputMatcher(expected: recorded, actual: "loading 50% done\n…\n").matches)
        XCTAssertFalse(OutputMatcher(expected: recorded, actual: "loading… done\nmore\nlines\n").matches)
        // A diff shows the actual line as it would be recorded: a reader can tell the two apart.
        let diff = OutputMatcher(expected: "loading…\n", actual: "loading…\nnext…\n").unifiedDiff()
        XCTAssertTrue(diff.contains("+next\\u{2026}\n"), diff)
        // Text that looks like an escape is escaped itself.
        let (literal, _) = try chapterRecording("\\u{41} and \\n\n")
        XCTAssertEqual(literal, "\\u{5C}u{41} and \\n\n")
        XCTAssertTrue(OutputMatcher(expected: literal, actual: "\\u{41} and \\n\n").matches)
        XCTAssertFalse(OutputMatcher(expected: literal, actual: "A and \\n\n").matches)
    }

    func testControlCharactersAreRecordedVisiblyAndVerify() throws {
        let output = "progress 10%\rprogress 100%\nnul\u{0}byte\u{1B}[0m\n"
        let (recorded, chapter) = try chapterRecording(output)
        XCTAssertEqual(recorded, "progress 10%\\u{D}progress 100%\nnul\\u{0}byte\\u{1B}[0m\n")
        let run = ChapterRun(chapterPath: chapter.path, results: [
            SnippetResult(index: 0, output: SnippetOutput(segments: [.init(stream: .stdout, text: output)]), outcome: .completed),
        ], problems: [])
        XCTAssertEqual(Verifier.mismatches(chapter, run: run), [])
        XCTAssertEqual(OutputUpdater.update(chapter, run: run), chapter.source, "a second update changes nothing")
    }

    func testControlCharactersInOutputAreShownVisiblyInTheBook() throws {
        let chapter = try XCTUnwrap(FixtureSupport.parseText("# T\n\n```swift\nprint(1)\n```\n").chapter)
        let run = ChapterRun(chapterPath: chapter.path, results: [
            SnippetResult(index: 0, output: SnippetOutput(segments: [.init(stream: .stdout, text: "a\u{0}b\u{1B}[1m\rc\tend…\n")]),
                          outcome: .completed),
        ], problems: [])
        let html = try XCTUnwrap(SnippetRenderer(run: run).render(chapter.snippets[0])).rendered
        XCTAssertFalse(html.unicodeScalars.contains { OutputEscapes.needsEscape($0) && $0 != "\n" && $0 != "…" }, html)
        XCTAssertTrue(html.contains("a\\u{0}b\\u{1B}[1m\\u{D}c\tend…"), html)
    }

    // MARK: Exercises

    func testCheckDescribesAnExerciseThatDidNotFinishInASentence() throws {
        let chapter = try XCTUnwrap(FixtureSupport.parseText("# T\n\n```swift exercise\nwhile true {}\n```\n").chapter)
        let run = ChapterRun(chapterPath: chapter.path, results: [
            SnippetResult(index: 0, output: SnippetOutput(), outcome: .timedOut(seconds: 60)),
        ], problems: [])
        let problem = try XCTUnwrap(Exercises.check(chapter, run: run).first?.problem)
        XCTAssertEqual(problem, "did not finish: it ran out of time (60 s)")
    }

    // MARK: Running hostile programs

    func testPrintingTheToolsMarkerCrashesNothing() throws {
        let marker = "\\u{1}\\u{2}workbook:"
        let text = """
            # Markers

            ```swift
            print("\(marker)snippet 99\\u{2}\\u{1}")
            print("\(marker)end\\u{2}\\u{1}")
            print("\(marker)snippet 1\\u{2}\\u{1}", terminator: "")
            print("after")
            ```

            ```swift
            print("second")
            ```

            """
        let root = try root(["01-markers.md": text])
        let workbook = try FixtureSupport.workbook(root)
        let outcome = workbook.runOne("Chapters/01-markers.md")
        XCTAssertEqual(outcome.problems, [])
        XCTAssertEqual(outcome.run?.results.map(\.outcome), [.completed, .completed])
        XCTAssertEqual(outcome.run?.result(for: 0)?.output.text,
                       "\u{1}\u{2}workbook:snippet 99\u{2}\u{1}\n\u{1}\u{2}workbook:end\u{2}\u{1}\n\u{1}\u{2}workbook:snippet 1\u{2}\u{1}after\n")
        XCTAssertEqual(outcome.run?.result(for: 1)?.output.text, "second\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: workbook.runner.scratchDirectory.path), "the scratch directory is removed")
    }

    func testMarkersThatNameNoSnippetAreIgnored() {
        // Markers with indices the chapter does not have, however they arrive, are ignored.
        var captured = CapturedOutput(termination: .exited(0))
        captured.chunks = [(.marker, Array("snippet 0".utf8)), (.marker, Array("snippet 7".utf8)), (.stdout, Array("x\n".utf8)),
                           (.marker, Array("snippet -1".utf8)), (.marker, Array("end".utf8))]
        let execution = ChapterRunner.split(captured, snippetCount: 1, normalizer: OutputNormalizer(packageRoot: "/none", scratch: "/none"))
        XCTAssertEqual(execution.lastSnippet, 0)
        XCTAssertEqual(execution.outputs.map(\.1.text), ["x\n"])
        XCTAssertTrue(execution.reachedEnd)
    }

    func testManySmallWritesTakeOneChunkPerStreamChange() throws {
        // 16 MiB of one-byte writes must not become sixteen million arrays in the tool.
        let script = "i=0; while [ $i -lt 3000 ]; do printf x; i=$((i+1)); done; printf e >&2; printf y; printf y"
        let captured = try OutputCapture.run(executable: "/bin/sh", arguments: ["-c", script], environment: ["PATH": "/usr/bin:/bin"],
                                             directory: "/", timeout: 60)
        XCTAssertEqual(captured.chunks.map(\.source), [.stdout, .stderr, .stdout])
        XCTAssertEqual(captured.chunks.map(\.bytes.count), [3000, 1, 2])
    }

    func testNoOtherProcessCanWriteIntoTheCapturedOutput() throws {
        // The program plays the other local process: it looks for the tool's sockets in
        // /proc/net/unix and sends to each one it finds.
        let text = """
            # Injection

            ```swift
            import Foundation
            #if canImport(Glibc)
            import Glibc
            #endif
            let table = (try? String(contentsOfFile: "/proc/net/unix", encoding: .utf8)) ?? ""
            var abstract = 0
            for line in table.split(separator: "\\n") {
                // Only this run's own sockets: other runs on the machine are not to be disturbed.
                guard let name = line.split(separator: " ").last,
                      name.contains("workbook-\\(getppid())-") || name.contains("workbook-capture-") else { continue }
                if name.hasPrefix("@") { abstract += 1 }
                let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
                var address = sockaddr_un()
                address.sun_family = sa_family_t(AF_UNIX)
                let bytes = Array(name.utf8)
                withUnsafeMutableBytes(of: &address.sun_path) { raw in
                    for (offset, byte) in bytes.prefix(raw.count - 1).enumerated() { raw[offset] = byte == UInt8(ascii: "@") && offset == 0 ? 0 : byte }
                }
                let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
                let message = Array("INJECTED\\n".utf8)
                _ = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, message, message.count, 0, $0, length) }
                }
                close(fd)
            }
            usleep(100_000)
            print("abstract sockets: \\(abstract)")
            ```

            """
        let root = try root(["01-inject.md": text])
        let outcome = try FixtureSupport.workbook(root).runOne("Chapters/01-inject.md")
        XCTAssertEqual(outcome.problems, [])
        XCTAssertEqual(outcome.run?.result(for: 0)?.output.text, "abstract sockets: 0\n")
    }

    func testOutputPastTheLimitStopsTheProgramAndIsNotRecorded() throws {
        let text = """
            # Too much

            ```swift
            print("start")
            ```

            ```output
            start
            ```

            ```swift
            let line = String(repeating: "x", count: 1023)
            for _ in 0..<20_000 { print(line) }
            ```

            ```output
            short
            ```

            ```swift
            print("next")
            ```

            ```output
            next
            ```

            """
        let root = try root(["01-flood.md": text])
        let workbook = try FixtureSupport.workbook(root)
        let outcome = workbook.runOne("Chapters/01-flood.md")
        XCTAssertEqual(outcome.problems.map(\.line), [11], "located at the snippet that printed: \(outcome.problems.map(\.line))")
        let message = outcome.problems.first?.message ?? ""
        XCTAssertTrue(message.contains("more than 16 MiB"), String(message.prefix(300)))
        XCTAssertTrue(message.contains("-short\n+xxxx"), String(message.prefix(600)))
        XCTAssertLessThan(message.utf8.count, 4000, "a short diff")
        XCTAssertEqual(outcome.run?.result(for: 2)?.outcome, .notRun)
        XCTAssertTrue(outcome.mismatches.allSatisfy { $0.diff.utf8.count < 4000 })
        let accepted = try workbook.acceptOutput(outcome)
        XCTAssertFalse(accepted.changed, "nothing is recorded from a run that printed too much")
        XCTAssertEqual(try String(contentsOf: root.appendingPathComponent("Chapters/01-flood.md"), encoding: .utf8), text)
    }

    // MARK: Writing the chapter back

    func testAnEditSavedDuringAnUpdateIsNeverOverwritten() throws {
        let text = "# A\n\n```swift\nprint(\"new\")\n```\n\n```output\nold\n```\n"
        let root = try root(["01-a.md": text])
        let workbook = try FixtureSupport.workbook(root)
        let outcome = workbook.runOne("Chapters/01-a.md")
        XCTAssertEqual(outcome.mismatches.count, 1)
        // The author saves an edit while the chapter runs.
        let url = root.appendingPathComponent("Chapters/01-a.md")
        let edited = text.replacingOccurrences(of: "# A", with: "# A, edited")
        try Data(edited.utf8).write(to: url)
        XCTAssertThrowsError(try workbook.acceptOutput(outcome)) { error in
            XCTAssertTrue("\(error)".contains("changed while"), "\(error)")
        }
        XCTAssertEqual(try String(contentsOf: url, encoding: .utf8), edited)
    }

    func testASymlinkedChapterStaysASymlink() throws {
        let text = "# A\n\n```swift\nprint(\"new\")\n```\n\n```output\nold\n```\n"
        let root = try root([:])
        let target = root.appendingPathComponent("elsewhere.md")
        try Data(text.utf8).write(to: target)
        let link = root.appendingPathComponent("Chapters/01-a.md")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "../elsewhere.md")
        let workbook = try FixtureSupport.workbook(root)
        let accepted = try workbook.acceptOutput(workbook.runOne("Chapters/01-a.md"))
        XCTAssertTrue(accepted.changed)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link.path), "../elsewhere.md")
        XCTAssertEqual(try String(contentsOf: target, encoding: .utf8), text.replacingOccurrences(of: "old", with: "new"))
    }

    // MARK: Core Data exceptions

    func testAnUncaughtCoreDataExceptionIsLocatedAtTheStatementThatRaisedIt() throws {
        let text = """
            # Exception

            ```swift
            import OpenCoreData
            let entity = NSEntityDescription()
            entity.name = "Trail"
            let name = NSAttributeDescription()
            name.name = "name"
            name.attributeType = .stringAttributeType
            entity.properties = [name]
            let model = NSManagedObjectModel()
            model.entities = [entity]
            let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            let trail = NSManagedObject(entity: entity, insertInto: context)
            print("before")
            trail.setValue(42, forKey: "name")
            print("never")
            ```

            """
        let root = try root(["01-exception.md": text])
        // The tests' own OpenCoreData build, beside the test bundle.
        let workbook = try Workbook(packageRoot: root, buildDirectories: Workbook.defaultBuildDirectories(packageRoot: root), useCache: false)
        try XCTSkipIf(workbook.libraryBuild == nil, "OpenCoreData is not built beside the tests")
        let outcome = workbook.runOne("Chapters/01-exception.md")
        let output = outcome.run?.result(for: 0)?.output.text ?? ""
        XCTAssertTrue(output.hasPrefix("before\n*** Terminating app due to uncaught exception 'NSInvalidArgumentException', reason: 'Unacceptable type of value for attribute"), output)
        XCTAssertEqual(outcome.run?.result(for: 0)?.outcome, .trapped(signal: 6))
        XCTAssertEqual(outcome.problems.map(\.line), [17], "the line of setValue, not the snippet's: \(outcome.problems)")
        XCTAssertEqual(outcome.run?.result(for: 0)?.trapLocation?.hasPrefix("Chapters/01-exception.md:17:"), true)
    }
}
