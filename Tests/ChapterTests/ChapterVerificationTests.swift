import Foundation
import WorkbookKit
import XCTest

/// Verifies every chapter in Chapters/: what `workbook verify` does, as a test.
///
/// Chapter programs link the package's own OpenCoreData build, which `swift test` builds
/// (it builds every product, including the dynamic `libOpenCoreData.so`) into the directory
/// this test bundle runs from. Results are cached in `.build/workbook-cache`, shared with
/// the `workbook` tool, so after `make book` this test only re-runs chapters that changed.
final class ChapterVerificationTests: XCTestCase {
    private static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testEveryChapterVerifies() throws {
        let root = Self.packageRoot
        let directories = Workbook.defaultBuildDirectories(packageRoot: root)
        let workbook = try Workbook(packageRoot: root, buildDirectories: directories)
        defer { workbook.cleanUp() }
        guard workbook.libraryBuild != nil else {
            return XCTFail("libOpenCoreData.so is not built in \(directories.map(\.path)); run `swift build` (make test does)")
        }
        let paths = try workbook.chapterPaths()
        XCTAssertFalse(paths.isEmpty, "no chapters in \(workbook.chaptersDirectory.path)")
        let outcomes = workbook.run(paths)
        var failed: [String] = []
        for outcome in outcomes {
            let problems = outcome.problems
            let mismatches = outcome.mismatches
            for problem in problems { XCTFail(problem.description) }
            for mismatch in mismatches { XCTFail(mismatch.report) }
            if !problems.isEmpty || !mismatches.isEmpty {
                failed.append("\(outcome.path) (\(problems.count) problems, \(mismatches.count) differences)")
            }
        }
        if !failed.isEmpty {
            XCTFail("\(failed.count) of \(outcomes.count) chapters do not verify: \(failed.joined(separator: ", "))")
        }
    }
}
