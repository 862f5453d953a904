#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A small HTTP/1.1 server for the rendered book, with live reload and, when ``practice``
/// is set, running and saving a reader's edits from the page.
///
/// Files are served from `bookDirectory`; paths that try to leave it get 403. Pages poll
/// `/__reload?since=N`, which answers with the current book version; ``run()`` checks the
/// chapters' modification times every second, calls `rebuild` when one changed and bumps
/// the version, so open pages reload themselves.
///
/// Running code from a page is local code execution, so the server answers only requests
/// that come from its own pages: every request must name this server in `Host` (a page of
/// another site whose name was rebound to 127.0.0.1 names that site), and `POST /__run` and
/// `POST /__save` must also carry the per-run secret the server writes into the pages it
/// serves and an `Origin` that is this server.
public final class BookServer {
    /// The address to listen on, e.g. `127.0.0.1`.
    public let host: String
    /// The requested port; 0 picks a free one (see ``start()``).
    public let port: Int
    /// The rendered book.
    public let bookDirectory: URL
    /// Where the watched `*.md` chapters are; by default `Chapters/` beside the book directory.
    public var chaptersDirectory: URL

    /// Runs and saves readers' edits; nil serves the book read-only. Set it only for a
    /// loopback ``host`` (see ``isLoopback(_:)``): anyone who can load a page can use it.
    public var practice: Practice?
    /// The secret that pages must send with `/__run` and `/__save`, new for every server.
    public let secret: String

    private let rebuild: () -> Void
    private let state = ServerState()
    private var listener: Int32?

    /// Creates a server; nothing is opened until ``start()`` or ``run()``.
    public init(host: String, port: Int, bookDirectory: URL, rebuild: @escaping () -> Void) {
        self.host = host
        self.port = port
        self.bookDirectory = bookDirectory
        self.chaptersDirectory = bookDirectory.standardizedFileURL.deletingLastPathComponent()
            .appendingPathComponent("Chapters", isDirectory: true)
        self.rebuild = rebuild
        var generator = SystemRandomNumberGenerator()
        secret = (0..<4).map { _ in String(generator.next(), radix: 16) }.joined()
    }

    deinit { stop() }

    /// Whether `host` is an address only this machine can reach.
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// The book version pages compare against; it grows by one after each rebuild.
    public var version: Int { state.version }

    /// Starts serving on a background thread and returns the bound port.
    @discardableResult
    public func start() throws -> Int {
        if let listener { return try Self.boundPort(listener) }
        // A client that disconnects mid-response must not kill the process.
        signal(SIGPIPE, SIG_IGN)
        let (fd, boundPort) = try Sockets.listen(host: host, port: port)
        listener = fd
        let handler = ConnectionHandler(
            files: StaticFiles(root: bookDirectory), state: state,
            guardian: RequestGuard(host: host, port: boundPort, secret: secret), practice: practice)
        let state = self.state
        let thread = Thread {
            while !state.isStopped {
                guard let client = Sockets.accept(fd, waitingUpTo: 250) else { continue }
                // One thread per connection: browsers keep idle connections open.
                Thread.detachNewThread { handler.handle(client) }
            }
            Sockets.close(fd)
        }
        thread.name = "BookServer.accept"
        thread.start()
        return boundPort
    }

    /// Stops accepting connections; the listening socket closes within a quarter second.
    /// A stopped server is finished: make a new one to serve again.
    public func stop() {
        guard listener != nil else { return }
        state.stop()
        listener = nil
    }

    /// Serves until the process is killed, rebuilding when a chapter changes.
    public func run() throws {
        try start()
        watchChapters(every: 1) { true }
    }

    /// Checks the chapters every `interval` seconds while `keepGoing` holds and the server runs;
    /// after a change, rebuilds and bumps the version that pages poll.
    func watchChapters(every interval: TimeInterval, while keepGoing: () -> Bool) {
        var snapshot = ChapterSnapshot(directory: chaptersDirectory)
        while !state.isStopped && keepGoing() {
            Thread.sleep(forTimeInterval: interval)
            let current = ChapterSnapshot(directory: chaptersDirectory)
            if current != snapshot {
                snapshot = current
                rebuild()
                state.bumpVersion()
            }
        }
    }

    private static func boundPort(_ fd: Int32) throws -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Modification times of the `*.md` files in a directory, compared to notice edits.
struct ChapterSnapshot: Equatable {
    private var times: [String: Date] = [:]

    init(directory: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names where name.hasSuffix(".md") {
            let attributes = try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)
            times[name] = attributes?[.modificationDate] as? Date ?? .distantPast
        }
    }
}

/// State shared by the accept thread, connection threads and the rebuild loop.
///
/// `@unchecked Sendable` because every access goes through `lock`; the fields are tiny
/// and touched once per request, so a lock is simpler than an actor hop from C callbacks.
final class ServerState: @unchecked Sendable {
    private let lock = NSLock()
    private var currentVersion = 0
    private var stopped = false

    var version: Int { lock.withLock { currentVersion } }
    var isStopped: Bool { lock.withLock { stopped } }
    func bumpVersion() { lock.withLock { currentVersion += 1 } }
    func stop() { lock.withLock { stopped = true } }
}

/// Answers one request on one connection, then closes it.
struct ConnectionHandler: Sendable {
    let files: StaticFiles
    let state: ServerState
    let guardian: RequestGuard
    let practice: Practice?

    /// The largest edit a page may send: a chapter's snippet is a few kilobytes.
    static let bodyLimit = 256 * 1024

    func handle(_ client: Int32) {
        defer { Sockets.close(client) }
        guard let received = Sockets.readRequest(client, bodyLimit: Self.bodyLimit) else { return }
        guard let request = HTTPRequest(head: received.head, body: received.body) else {
            Sockets.sendAll(client, HTTPResponse.text(400, "bad request").serialized(includeBody: true))
            return
        }
        if let refusal = received.refusal {
            Sockets.sendAll(client, HTTPResponse.text(refusal.status, refusal.message).serialized(includeBody: true))
            // The unread body would make closing reset the connection before the answer is read.
            Sockets.drain(client, limit: 4 << 20)
            return
        }
        Sockets.sendAll(client, respond(to: request).serialized(includeBody: request.method != "HEAD"))
    }

    func respond(to request: HTTPRequest) -> HTTPResponse {
        // Pages that hold the secret go only to requests that name this server.
        if practice != nil, let refusal = guardian.checkHost(request) { return HTTPResponse.text(403, refusal) }
        if request.method == "POST", request.path == "/__run" || request.path == "/__save" {
            return practiceResponse(to: request)
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return HTTPResponse.text(405, "only GET and HEAD are supported")
        }
        if request.path == "/__reload" {
            var response = HTTPResponse.text(200, String(state.version))
            response.extraHeaders = [("Cache-Control", "no-store")]
            return response
        }
        switch files.resolve(request.path) {
        case .forbidden:
            return HTTPResponse.text(403, "forbidden")
        case .notFound:
            return HTTPResponse.text(404, "not found: \(request.path)")
        case .file(let url):
            guard var body = try? Data(contentsOf: url) else { return HTTPResponse.text(500, "cannot read \(url.lastPathComponent)") }
            let contentType = StaticFiles.contentType(for: url)
            if practice != nil, contentType.hasPrefix("text/html") { body = guardian.addingSecret(to: body) }
            var response = HTTPResponse(status: 200, contentType: contentType, body: body)
            response.extraHeaders = [("Cache-Control", "no-cache")]
            return response
        }
    }

    /// `POST /__run` and `POST /__save`: a JSON ``Practice/Edit`` from one of this server's pages.
    private func practiceResponse(to request: HTTPRequest) -> HTTPResponse {
        guard let practice else { return HTTPResponse.text(404, "this server does not run code (started without a workbook)") }
        if let refusal = guardian.checkPageRequest(request) { return HTTPResponse.text(403, refusal) }
        guard request.headers["content-type"]?.lowercased().hasPrefix("application/json") == true else {
            return HTTPResponse.text(415, "send the edit as application/json")
        }
        let edit: Practice.Edit
        do {
            edit = try JSONDecoder().decode(Practice.Edit.self, from: request.body)
        } catch {
            return HTTPResponse.text(400, "the edit is not the JSON the page sends: \(error)")
        }
        do {
            if request.path == "/__run" { return HTTPResponse.json(200, try practice.run(edit)) }
            try practice.save(edit)
            return HTTPResponse.json(200, ["saved": edit.chapter])
        } catch let refusal as Practice.Refusal {
            return HTTPResponse.text(refusal.status, refusal.message)
        } catch {
            return HTTPResponse.text(500, "\(error)")
        }
    }
}

/// The checks that keep other sites from using the server: the `Host` a request names,
/// and for code-running requests the page secret and `Origin`.
struct RequestGuard: Sendable {
    let host: String
    let port: Int
    let secret: String

    /// The names a browser uses for this server: the address it listens on, and
    /// `localhost` when that is a loopback address.
    private var acceptedHosts: Set<String> {
        var names = [host]
        if BookServer.isLoopback(host) { names += ["127.0.0.1", "localhost", "[::1]"] }
        return Set(names.flatMap { [$0, "\($0):\(port)"] })
    }

    /// Why the request is refused, or nil. A request without `Host` (HTTP/1.0 tools) is
    /// served read-only pages, never code runs (see ``checkPageRequest(_:)``).
    func checkHost(_ request: HTTPRequest) -> String? {
        guard let named = request.headers["host"] else { return nil }
        return acceptedHosts.contains(named.lowercased()) ? nil
            : "refused: Host \(named) is not this server (\(host):\(port)); open the book at http://\(host):\(port)/"
    }

    /// Why a run or save is refused, or nil: it must name this server, come from one of
    /// its pages (`Origin`) and carry the secret those pages hold.
    func checkPageRequest(_ request: HTTPRequest) -> String? {
        guard let named = request.headers["host"], acceptedHosts.contains(named.lowercased()) else {
            return "refused: a run or save must name this server in Host"
        }
        guard let origin = request.headers["origin"], origin.lowercased() == "http://" + named.lowercased() else {
            return "refused: a run or save must come from this server's pages (Origin \(request.headers["origin"] ?? "missing"))"
        }
        guard let sent = request.headers["x-workbook-secret"], Self.constantTimeEqual(sent, secret) else {
            return "refused: the page's secret is missing or wrong; reload the page (the server was restarted?)"
        }
        return nil
    }

    /// The page with the secret in a `<meta>` element its script reads.
    func addingSecret(to page: Data) -> Data {
        let text = String(decoding: page, as: UTF8.self)
        guard let head = text.range(of: "<head>") else { return page }
        var edited = text
        edited.insert(contentsOf: "\n<meta name=\"workbook-secret\" content=\"\(secret)\">", at: head.upperBound)
        return Data(edited.utf8)
    }

    private static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
