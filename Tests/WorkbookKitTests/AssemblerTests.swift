import XCTest
@testable import WorkbookKit

final class AssemblerTests: XCTestCase {
    private func chapter() throws -> Chapter {
        try XCTUnwrap(FixtureSupport.parse("10-every-kind.md").chapter)
    }

    func testPlans() throws {
        let plans = ProgramAssembler.plans(for: try chapter())
        XCTAssertEqual(plans, [.run, .run, .run, .sourceFile("Point.swift"), .run, .compileOnly, .skipped, .compileFail, .trap, .run, .skipped, .run])
    }

    func testMainProgramMapsEverySnippetToItsChapterLine() throws {
        let files = ProgramAssembler.mainProgram(try chapter())
        XCTAssertEqual(files.map(\.name), ["main.swift", "_WorkbookRuntime.swift", "Point.swift"])
        let main = files[0].text
        XCTAssertTrue(main.hasPrefix("_WorkbookRuntime.start()\n_WorkbookRuntime.begin(0)\n#sourceLocation(file: \"Chapters/10-every-kind.md\", line: 6)\nimport Foundation\n"), main)
        XCTAssertTrue(main.hasSuffix("_WorkbookRuntime.end()\n"))
        XCTAssertFalse(main.contains("\"seven\""), "compile-fail snippets stay out of the main program")
        XCTAssertFalse(main.contains("this is not Swift"), "ignored snippets are not compiled")
        XCTAssertFalse(main.contains("{ 0 }"), "an exercise stub followed by its solution is not compiled")
        XCTAssertTrue(main.contains("if _WorkbookRuntime.runsTrap(8) {\n#sourceLocation(file: \"Chapters/10-every-kind.md\", line: 66)\n"))
        XCTAssertTrue(main.contains("if _WorkbookRuntime.never {\n#sourceLocation(file: \"Chapters/10-every-kind.md\", line: 50)\nwhile true"))
        XCTAssertEqual(files[2].text, "#sourceLocation(file: \"Chapters/10-every-kind.md\", line: 32)\nstruct Point { var x: Int; var y: Int }\n#sourceLocation()\n")
    }

    func testCompileFailProgramEndsWithTheFailingSnippet() throws {
        let files = ProgramAssembler.compileFailProgram(try chapter(), snippet: 7)
        let main = files[0].text
        XCTAssertTrue(main.contains("line: 58)\nlet number: Int = \"seven\"\n#sourceLocation()\n"))
        XCTAssertFalse(main.contains("before the trap"), "snippets after the failing one are left out")
        XCTAssertTrue(files.contains { $0.name == "Point.swift" }, "source files are always part of the program")
    }

    func testNoRunDeclarationsStayVisible() {
        XCTAssertTrue(ProgramAssembler.isDeclarationsOnly("import Foundation\nstruct A {}\nextension A { func f() {} }\nfunc g() {}\n"))
        XCTAssertFalse(ProgramAssembler.isDeclarationsOnly("let x = 1\n"), "a global's initializer runs")
        XCTAssertFalse(ProgramAssembler.isDeclarationsOnly("print(1)\n"))
    }

    func testPathsAreValidStringLiterals() {
        XCTAssertEqual(ProgramAssembler.stringLiteral("a\"b\\c"), "\"a\\\"b\\\\c\"")
    }
}

final class ProgramExportTests: XCTestCase {
    func testWritesTheProgramAndAScriptThatBuildsIt() throws {
        let chapter = try XCTUnwrap(FixtureSupport.parse("10-every-kind.md").chapter)
        let runner = ChapterRunner(
            toolchain: Toolchain(swiftc: "/usr/bin/swiftc", version: "test"), library: nil,
            packageRoot: URL(fileURLWithPath: "/book"), scratchDirectory: URL(fileURLWithPath: "/tmp/x"))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try ProgramExport.write(chapter, runner: runner, to: directory)
        let script = try String(contentsOf: directory.appendingPathComponent("run.sh"), encoding: .utf8)
        XCTAssertTrue(script.contains("/usr/bin/swiftc -swift-version 5 -module-name Chapters"))
        XCTAssertTrue(script.contains("fail-7/main.swift"), "the compile-fail program is compiled, expecting failure")
        XCTAssertTrue(script.contains("WORKBOOK_TRAP_SNIPPET=\"8\""), "one more run for the trap snippet")
        for path in ["main/main.swift", "main/_WorkbookRuntime.swift", "main/Point.swift", "data/data/point.json"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: directory.appendingPathComponent(path).path), path)
        }
        XCTAssertEqual(ProgramExport.quote("it's"), "'it'\\''s'")
    }
}
