import Foundation
import XCTest
@testable import WorkbookKit

/// Hostile programs and chapters on disk (issue 18): output the tool could mistake for its
/// own, output past the limit, injected output, edits during an update, duplicate chapter
/// numbers. Nothing a chapter holds or prints may pass silently, lose an edit or crash
/// the tool.
final class HostileProgramTests: XCTestCase {
    private var roots: [URL] = []

    override func tearDown() {
        roots.forEach { try? FileManager.default.removeItem(at: $0) }
    }

    private func root(_ chapters: [String: String]) throws -> URL {
        let root = try FixtureSupport.packageRoot(fixtures: [], extra: chapters)
        roots.append(root)
        return root
    }

    // MARK: Line endings

    func testACRLFChapterRunsAndVerifies() throws {
        let root = try root(["01-crlf.md": HostileChapterTests.lfChapter.replacingOccurrences(of: "\n", with: "\r\n")])
        let outcome = try FixtureSupport.workbook(root).runOne("Chapters/01-crlf.md")
        XCTAssertEqual(outcome.problems, [])
        XCTAssertEqual(outcome.run?.results.map(\.output.text), ["one\n", "two\n"], "both snippets ran")
        XCTAssertEqual(outcome.mismatches, [])
    }

    // MARK: Chapter numbers

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
