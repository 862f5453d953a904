#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import XCTest
@testable import WorkbookKit

/// Starts the book server on an ephemeral port and talks raw HTTP to it, so the request
/// path reaches the server exactly as written (no client-side `..` normalization).
final class RenderingServerTests: XCTestCase {
    private var book: URL!
    private var server: BookServer!
    private var port = 0

    override func setUpWithError() throws {
        book = FileManager.default.temporaryDirectory.appendingPathComponent("served-\(UUID().uuidString)/book")
        try BookRenderer(outputDirectory: book).render(chapters: [RenderingFixture.chapter], runs: [:])
        server = BookServer(host: "127.0.0.1", port: 0, bookDirectory: book, rebuild: {})
        port = try server.start()
        XCTAssertGreaterThan(port, 0)
    }

    override func tearDownWithError() throws {
        server.stop()
        try? FileManager.default.removeItem(at: book.deletingLastPathComponent())
    }

    /// Sends one request and returns the status code, headers and body.
    private func get(_ target: String) throws -> RawHTTPClient.Reply {
        RawHTTPClient.send(Data("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8), port: port)
    }

    func testServesIndexAsHTML() throws {
        let response = try get("/index.html")
        XCTAssertEqual(response.status, 200)
        XCTAssertTrue(response.headers.contains("Content-Type: text/html; charset=utf-8"), response.headers)
        XCTAssertTrue(response.body.contains("<a href=\"03-sample.html\">A sample chapter</a>"))
        XCTAssertEqual(try get("/").status, 200, "the root serves index.html")
    }

    func testServesAssetsWithTheirTypes() throws {
        let css = try get("/assets/book.css")
        XCTAssertEqual(css.status, 200)
        XCTAssertTrue(css.headers.contains("Content-Type: text/css"), css.headers)
        XCTAssertTrue(try get("/assets/search-index.js").headers.contains("Content-Type: text/javascript"))
    }

    func testRefusesPathsOutsideTheBook() throws {
        XCTAssertNotEqual(try get("/../etc/passwd").status, 200)
        XCTAssertEqual(try get("/../etc/passwd").status, 403)
        XCTAssertEqual(try get("/assets/%2e%2e/%2e%2e/etc/passwd").status, 403)
        XCTAssertEqual(try get("/missing.html").status, 404)
    }

    func testRefusesSymlinksLeavingTheBook() throws {
        let outside = book.deletingLastPathComponent().appendingPathComponent("secret.txt")
        try Data("secret".utf8).write(to: outside)
        try FileManager.default.createSymbolicLink(at: book.appendingPathComponent("link.txt"), withDestinationURL: outside)
        XCTAssertEqual(try get("/link.txt").status, 403)
    }

    func testReloadEndpointReportsTheVersion() throws {
        let response = try get("/__reload?since=0")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, "0\n")
    }

    func testSurvivesAClientThatHangsUp() throws {
        let fd = RawHTTPClient.connect(port: port)
        let request = Array("GET /03-sample.html HTTP/1.1\r\n\r\n".utf8)
        _ = send(fd, request, request.count, 0)
        close(fd)
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertEqual(try get("/index.html").status, 200)
    }

    func testRejectsMalformedRequests() throws {
        XCTAssertEqual(try get("no-slash").status, 403)
        XCTAssertEqual(try get("/a b").status, 400)
    }

    func testChapterSnapshotNoticesEditsAndNewChapters() throws {
        let chapters = book.deletingLastPathComponent().appendingPathComponent("Chapters")
        try FileManager.default.createDirectory(at: chapters, withIntermediateDirectories: true)
        let first = chapters.appendingPathComponent("01-a.md")
        try Data("# A\n".utf8).write(to: first)
        let before = ChapterSnapshot(directory: chapters)
        XCTAssertEqual(ChapterSnapshot(directory: chapters), before, "nothing changed")
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 5)], ofItemAtPath: first.path)
        let edited = ChapterSnapshot(directory: chapters)
        XCTAssertNotEqual(edited, before)
        try Data("# B\n".utf8).write(to: chapters.appendingPathComponent("02-b.md"))
        XCTAssertNotEqual(ChapterSnapshot(directory: chapters), edited)
        XCTAssertEqual(server.chaptersDirectory.standardizedFileURL.path, chapters.standardizedFileURL.path, "Chapters/ beside book/ is watched")
    }

    func testEditingAChapterRebuildsAndBumpsTheReloadVersion() throws {
        let chapters = book.deletingLastPathComponent().appendingPathComponent("Chapters")
        try FileManager.default.createDirectory(at: chapters, withIntermediateDirectories: true)
        let chapter = chapters.appendingPathComponent("01-a.md")
        try Data("# A\n".utf8).write(to: chapter)
        final class Counter { var rebuilds = 0 }
        let counter = Counter()
        let watched = BookServer(host: "127.0.0.1", port: 0, bookDirectory: book, rebuild: { counter.rebuilds += 1 })
        let watchedPort = try watched.start()
        defer { watched.stop() }
        let path = chapter.path
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.3)
            try? FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 10)], ofItemAtPath: path)
        }
        let deadline = Date(timeIntervalSinceNow: 10)
        watched.watchChapters(every: 0.1) { counter.rebuilds == 0 && Date() < deadline }
        XCTAssertEqual(counter.rebuilds, 1)
        XCTAssertEqual(watched.version, 1)
        port = watchedPort
        XCTAssertEqual(try get("/__reload?since=0").body, "1\n", "pages polling the server see the new version")
    }
}
