import Foundation

/// Maps request paths to files inside the book directory, refusing anything outside it.
struct StaticFiles: Sendable {
    /// What a request path resolved to.
    enum Resolution: Equatable {
        case file(URL)
        case notFound
        /// The path tried to leave the book directory or was malformed.
        case forbidden
    }

    let root: URL

    init(root: URL) {
        self.root = root.standardizedFileURL.resolvingSymlinksInPath()
    }

    /// Resolves the path part of a request target (already stripped of its query).
    func resolve(_ path: String) -> Resolution {
        guard path.hasPrefix("/"), let decoded = path.removingPercentEncoding else { return .forbidden }
        let segments = decoded.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        // Refuse rather than normalize: a request for `..` is never a link the book made.
        for segment in segments where segment == ".." || segment == "." || segment.contains("\0") || segment.contains("\\") {
            return .forbidden
        }
        var url = segments.reduce(root) { $0.appendingPathComponent($1) }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            url = url.appendingPathComponent("index.html")
        }
        // A symbolic link inside the book must not lead outside it either.
        let resolved = url.resolvingSymlinksInPath()
        guard resolved.path == root.path || resolved.path.hasPrefix(root.path + "/") else { return .forbidden }
        guard FileManager.default.fileExists(atPath: resolved.path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            return .notFound
        }
        return .file(resolved)
    }

    /// The Content-Type for a file, by extension.
    static func contentType(for url: URL) -> String {
        switch url.pathExtension.lowercased() {
        case "html", "htm": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "json": "application/json"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "gif": "image/gif"
        case "ico": "image/x-icon"
        case "woff2": "font/woff2"
        case "txt", "md", "swift": "text/plain; charset=utf-8"
        case "xml": "application/xml"
        default: "application/octet-stream"
        }
    }
}
