import Foundation
import XCTest
@testable import WorkbookKit

/// `workbook serve` running and saving a reader's edits: only this server's own pages may,
/// and a save never overwrites a chapter that changed on disk.
final class PracticeServerTests: XCTestCase {
    private var root: URL!
    private var server: BookServer!
    private var port = 0

    private static let chapter = """
        # Practice

        ```swift
        print(1 + 2)
        ```

        ```output
        3
        ```

        ## Exercises

        Print the product of 6 and 7.

        ```swift exercise
        // Your code here
        ```

        ```swift solution
        print(6 * 7)
        ```

        ```output
        42
        ```

        """

    private var chapterURL: URL { root.appendingPathComponent("Chapters/01-practice.md") }

    override func setUpWithError() throws {
        root = try FixtureSupport.packageRoot(fixtures: [], extra: ["01-practice.md": Self.chapter])
        let workbook = try FixtureSupport.workbook(root)
        let book = root.appendingPathComponent("book")
        _ = try BookBuilder.build(workbook, into: book, report: { _ in })
        server = BookServer(host: "127.0.0.1", port: 0, bookDirectory: book, rebuild: {})
        server.practice = Practice(workbook: workbook)
        port = try server.start()
    }

    override func tearDownWithError() throws {
        server.stop()
        try? FileManager.default.removeItem(at: root)
    }

    // MARK: Talking to the server

    private func request(_ raw: Data) throws -> RawHTTPClient.Reply {
        RawHTTPClient.send(raw, port: port)
    }

    /// A POST as the server's own page sends it; each argument can be changed to attack it.
    private func post(
        _ path: String, _ edit: [String: Any], host: String? = nil, origin: String? = nil, secret: String? = nil,
        contentType: String = "application/json"
    ) throws -> RawHTTPClient.Reply {
        let named = host ?? "127.0.0.1:\(port)"
        let body = try JSONSerialization.data(withJSONObject: edit)
        var head = "POST \(path) HTTP/1.1\r\nHost: \(named)\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n"
        if origin != "" { head += "Origin: \(origin ?? "http://" + named)\r\n" }
        if secret != "" { head += "X-Workbook-Secret: \(secret ?? server.secret)\r\n" }
        return try request(Data((head + "\r\n").utf8) + body)
    }

    /// An edit as the page sends it; a save names the code it replaces and its fence line.
    private func edit(_ snippet: Int, _ code: String, original: String? = nil, line: Int = 3) -> [String: Any] {
        var edit: [String: Any] = ["chapter": "01-practice.md", "snippet": snippet, "code": code]
        if let original {
            edit["original"] = original
            edit["line"] = line
        }
        return edit
    }

    private func chapterText() throws -> String { try String(contentsOf: chapterURL, encoding: .utf8) }

    // MARK: Who may run and save

    func testServedPagesCarryTheSecretAndTheChapterName() throws {
        let page = try request(Data("GET /01-practice.html HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8))
        XCTAssertEqual(page.status, 200)
        XCTAssertTrue(page.body.contains("<meta name=\"workbook-secret\" content=\"\(server.secret)\">"))
        XCTAssertTrue(page.body.contains("<article data-chapter=\"01-practice.md\">"))
        XCTAssertGreaterThanOrEqual(server.secret.count, 32)
    }

    func testAnotherSitesNameIsRefusedEvenForPages() throws {
        // A rebound DNS name reaches 127.0.0.1 but names another site in Host.
        let page = try request(Data("GET /01-practice.html HTTP/1.1\r\nHost: attacker.example:\(port)\r\n\r\n".utf8))
        XCTAssertEqual(page.status, 403)
        XCTAssertFalse(page.body.contains(server.secret))
        let run = try post("/__save", edit(0, "print(3)\n", original: "print(1 + 2)\n"), host: "attacker.example:\(port)")
        XCTAssertEqual(run.status, 403)
        XCTAssertTrue(try chapterText().contains("print(1 + 2)"))
    }

    func testARequestWithoutTheSecretOrFromAnotherOriginIsRefused() throws {
        let saving = edit(0, "print(3)\n", original: "print(1 + 2)\n")
        let noSecret = try post("/__save", saving, secret: "")
        XCTAssertEqual(noSecret.status, 403)
        XCTAssertTrue(noSecret.body.contains("secret"), noSecret.body)
        XCTAssertEqual(try post("/__save", saving, secret: String(repeating: "0", count: server.secret.count)).status, 403)
        let otherOrigin = try post("/__save", saving, origin: "http://attacker.example")
        XCTAssertEqual(otherOrigin.status, 403)
        XCTAssertTrue(otherOrigin.body.contains("Origin"), otherOrigin.body)
        XCTAssertEqual(try post("/__save", saving, origin: "").status, 403, "no Origin: not from a page")
        XCTAssertEqual(try post("/__run", saving, contentType: "text/plain").status, 415)
        XCTAssertTrue(try chapterText().contains("print(1 + 2)"), "nothing refused touched the chapter")
    }

    func testOnlyChaptersInTheChaptersDirectoryCanBeNamed() throws {
        var outside = edit(0, "print(3)\n", original: "print(1 + 2)\n")
        outside["chapter"] = "../Package.swift"
        XCTAssertEqual(try post("/__save", outside).status, 404)
        XCTAssertEqual(try post("/__save", edit(9, "print(3)\n", original: "")).status, 404)
    }

    func testAnOversizedBodyIsRefusedUnread() throws {
        let huge = edit(0, String(repeating: "x", count: ConnectionHandler.bodyLimit + 1), original: "print(1 + 2)\n")
        XCTAssertEqual(try post("/__save", huge).status, 413)
    }

    func testMalformedBodyLengthsAreRefusedAndTheServerStaysUp() throws {
        for header in ["Content-Length: -1", "Content-Length: 12abc", "Content-Length: 5\r\nContent-Length: 6",
                       "Transfer-Encoding: chunked"] {
            let reply = try request(Data("POST /__run HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(header)\r\n\r\n".utf8))
            XCTAssertEqual(reply.status, 400, header)
        }
        XCTAssertEqual(try request(Data("GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8)).status, 200)
    }

    func testPagesMayNotBeFramedByAnotherSite() throws {
        let page = try request(Data("GET /01-practice.html HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8))
        XCTAssertTrue(page.headers.contains("X-Frame-Options: DENY"), page.headers)
        XCTAssertTrue(page.headers.contains("Content-Security-Policy: frame-ancestors 'none'"), page.headers)
    }

    func testEditingIsOfferedOnlyOnLoopbackAddresses() {
        XCTAssertTrue(BookServer.isLoopback("127.0.0.1"))
        XCTAssertTrue(BookServer.isLoopback("localhost"))
        XCTAssertTrue(BookServer.isLoopback("::1"))
        XCTAssertFalse(BookServer.isLoopback("0.0.0.0"))
        XCTAssertFalse(BookServer.isLoopback("192.168.1.5"))
    }

    // MARK: Saving

    func testSaveWritesOnlyTheSnippetsCode() throws {
        let before = try chapterText()
        let reply = try post("/__save", edit(0, "let sum = 1 + 2\nprint(sum)\n", original: "print(1 + 2)\n"))
        XCTAssertEqual(reply.status, 200, reply.body)
        XCTAssertEqual(try chapterText(), before.replacingOccurrences(of: "print(1 + 2)\n", with: "let sum = 1 + 2\nprint(sum)\n"))
    }

    func testSaveRefusesWhenTheSnippetChangedOnDisk() throws {
        try Data(try chapterText().replacingOccurrences(of: "print(1 + 2)", with: "print(2 + 1)").utf8).write(to: chapterURL)
        let reply = try post("/__save", edit(0, "print(3)\n", original: "print(1 + 2)\n"))
        XCTAssertEqual(reply.status, 409)
        XCTAssertTrue(reply.body.contains("changed on disk"), reply.body)
        XCTAssertTrue(try chapterText().contains("print(2 + 1)"), "the edit on disk is kept")
    }

    func testSaveRefusesWhenTheExampleMovedAlthoughItsCodeIsTheSame() throws {
        // A snippet added above moves the example: same index and code would point elsewhere.
        let reply = try post("/__save", edit(0, "print(3)\n", original: "print(1 + 2)\n", line: 7))
        XCTAssertEqual(reply.status, 409)
        XCTAssertTrue(try chapterText().contains("print(1 + 2)"))
    }

    func testCodeIndentedFourSpacesMayHoldAFence() throws {
        let code = "let text = \"\"\"\n    ```\n    \"\"\"\nprint(text)\n"
        XCTAssertEqual(try post("/__save", edit(0, code, original: "print(1 + 2)\n")).status, 200)
        XCTAssertTrue(try chapterText().contains("    ```\n"))
    }

    func testCodeThatWouldCloseTheBlockIsRefused() throws {
        let reply = try post("/__save", edit(0, "print(1)\n```\n# Injected heading\n", original: "print(1 + 2)\n"))
        XCTAssertEqual(reply.status, 400)
        XCTAssertTrue(reply.body.contains("line 2"), reply.body)
    }

    // MARK: Running

    func testRunReportsTheOutputAndWhetherItMatchesTheBook() throws {
        let wrong = try post("/__run", edit(0, "print(1 + 1)\n"))
        XCTAssertEqual(wrong.status, 200, wrong.body)
        let report = try JSONDecoder().decode(Practice.RunReport.self, from: Data(wrong.body.utf8))
        XCTAssertEqual(report.output, [.init(stream: "stdout", text: "2\n")])
        XCTAssertFalse(report.matches)
        XCTAssertTrue(report.diff.contains("-3") && report.diff.contains("+2"), report.diff)

        // An exercise runs in its solution's place and is compared with the solution's output.
        let exercise = try post("/__run", edit(1, "print(42)\n"))
        let exerciseReport = try JSONDecoder().decode(Practice.RunReport.self, from: Data(exercise.body.utf8))
        XCTAssertTrue(exerciseReport.matches, exercise.body)
        XCTAssertEqual(exerciseReport.outcome, "it ran to its end")
        XCTAssertTrue(try chapterText().contains("// Your code here"), "a run never writes the chapter")
    }
}
