import Foundation
import XCTest
@testable import WorkbookKit

/// Fixture chapters in Fixtures/chapters and a throw-away package root to run them in.
enum FixtureSupport {
    static let chaptersDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().appendingPathComponent("Fixtures/chapters")

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: chaptersDirectory.appendingPathComponent(name))
    }

    static func text(_ name: String) throws -> String {
        try String(decoding: data(name), as: UTF8.self)
    }

    /// Parses a fixture as `Chapters/<name>`.
    static func parse(_ name: String) throws -> ParsedChapter {
        ChapterParser.parse(path: "Chapters/" + name, data: try data(name))
    }

    /// Parses Markdown written in a test.
    static func parseText(_ text: String, name: String = "50-test.md") -> ParsedChapter {
        ChapterParser.parse(path: "Chapters/" + name, text: text)
    }

    /// A package root in a temporary directory whose Chapters/ holds the named fixtures
    /// (and any extra chapters given as text).
    static func packageRoot(fixtures: [String], extra: [String: String] = [:]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("workbook-test-\(UUID().uuidString)")
        let chapters = root.appendingPathComponent("Chapters")
        try FileManager.default.createDirectory(at: chapters, withIntermediateDirectories: true)
        try Data().write(to: root.appendingPathComponent("Package.swift"))
        for name in fixtures {
            try data(name).write(to: chapters.appendingPathComponent(name))
        }
        for (name, text) in extra {
            try Data(text.utf8).write(to: chapters.appendingPathComponent(name))
        }
        return root
    }

    /// A workbook over `root` that links no library and, unless asked, keeps no cache.
    static func workbook(_ root: URL, cache: Bool = false) throws -> Workbook {
        try Workbook(packageRoot: root, buildDirectories: [], useCache: cache)
    }
}
