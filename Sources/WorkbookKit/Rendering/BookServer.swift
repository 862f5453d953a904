#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A small HTTP/1.1 server for the rendered book, with live reload.
///
/// Files are served from `bookDirectory`; paths that try to leave it get 403. Pages poll
/// `/__reload?since=N`, which answers with the current book version; ``run()`` checks the
/// chapters' modification times every second, calls `rebuild` when one changed and bumps
/// the version, so open pages reload themselves.
public final class BookServer {
    /// The address to listen on, e.g. `127.0.0.1`.
    public let host: String
    /// The requested port; 0 picks a free one (see ``start()``).
    public let port: Int
    /// The rendered book.
    public let bookDirectory: URL
    /// Where the watched `*.md` chapters are; by default `Chapters/` beside the book directory.
    public var chaptersDirectory: URL

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
    }

    deinit { stop() }

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
        let files = StaticFiles(root: bookDirectory)
        let state = self.state
        let thread = Thread {
            while !state.isStopped {
                guard let client = Sockets.accept(fd, waitingUpTo: 250) else { continue }
                // One thread per connection: browsers keep idle connections open.
                Thread.detachNewThread { ConnectionHandler(files: files, state: state).handle(client) }
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
struct ConnectionHandler {
    let files: StaticFiles
    let state: ServerState

    func handle(_ client: Int32) {
        defer { Sockets.close(client) }
        guard let head = Sockets.readHead(client) else { return }
        guard let request = HTTPRequest(head: head) else {
            Sockets.sendAll(client, HTTPResponse.text(400, "bad request").serialized(includeBody: true))
            return
        }
        let response = respond(to: request)
        Sockets.sendAll(client, response.serialized(includeBody: request.method != "HEAD"))
    }

    func respond(to request: HTTPRequest) -> HTTPResponse {
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
            guard let body = try? Data(contentsOf: url) else { return HTTPResponse.text(500, "cannot read \(url.lastPathComponent)") }
            var response = HTTPResponse(status: 200, contentType: StaticFiles.contentType(for: url), body: body)
            response.extraHeaders = [("Cache-Control", "no-cache")]
            return response
        }
    }
}
