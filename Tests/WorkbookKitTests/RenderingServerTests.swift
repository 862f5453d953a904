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
    private func get(_ target: String) throws -> (status: Int, headers: String, body: String) {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        XCTAssertEqual(connected, 0, "cannot connect to the server")
        let request = Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        XCTAssertEqual(send(fd, request, request.count, 0), request.count)
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            data.append(contentsOf: buffer[0..<count])
        }
        let text = String(decoding: data, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        let statusLine = parts[0].components(separatedBy: "\r\n")[0].split(separator: " ")
        let status = statusLine.count > 1 ? Int(statusLine[1]) ?? 0 : 0
        return (status, parts[0], parts.dropFirst().joined(separator: "\r\n\r\n"))
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
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
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
