import Foundation

/// An HTTP/1.1 request: its request line, headers and body.
struct HTTPRequest: Equatable {
    var method: String
    /// The path without the query, still percent-encoded.
    var path: String
    var query: [String: String]
    /// Header values by lower-cased name (the last one wins when a name repeats).
    var headers: [String: String] = [:]
    var body = Data()

    /// Parses the request head; nil when it is not a well-formed request line.
    init?(head: String, body: Data = Data()) {
        let headLines = head.components(separatedBy: "\r\n")
        for line in headLines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        self.body = body
        guard let line = head.split(separator: "\r\n", maxSplits: 1, omittingEmptySubsequences: false).first else { return nil }
        let parts = line.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else { return nil }
        method = String(parts[0])
        let target = parts[1]
        if let mark = target.firstIndex(of: "?") {
            path = String(target[..<mark])
            var query: [String: String] = [:]
            for pair in target[target.index(after: mark)...].split(separator: "&") {
                let keyValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                query[String(keyValue[0])] = keyValue.count > 1 ? String(keyValue[1]) : ""
            }
            self.query = query
        } else {
            path = String(target)
            query = [:]
        }
    }
}

/// A complete response, serialized with `Connection: close` (one request per connection).
struct HTTPResponse {
    var status: Int
    var contentType: String
    var body: Data
    var extraHeaders: [(String, String)] = []

    static func text(_ status: Int, _ message: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Data((message + "\n").utf8))
    }

    /// A JSON body, never cached.
    static func json(_ status: Int, _ object: some Encodable) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let body = (try? encoder.encode(object)) ?? Data("{}".utf8)
        var response = HTTPResponse(status: status, contentType: "application/json; charset=utf-8", body: body)
        response.extraHeaders = [("Cache-Control", "no-store")]
        return response
    }

    /// The bytes to send; `includeBody` is false for HEAD.
    func serialized(includeBody: Bool) -> Data {
        var head = "HTTP/1.1 \(status) \(HTTPResponse.reason(status))\r\n"
        head += "Content-Type: \(contentType)\r\n"
        head += "Content-Length: \(body.count)\r\n"
        head += "Connection: close\r\n"
        // No other site may frame the book's pages (they can hold the editing secret) or
        // make the browser guess a type.
        head += "X-Frame-Options: DENY\r\nContent-Security-Policy: frame-ancestors 'none'\r\nX-Content-Type-Options: nosniff\r\n"
        for (name, value) in extraHeaders { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        var data = Data(head.utf8)
        if includeBody { data.append(body) }
        return data
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 500: "Internal Server Error"
        default: "Status"
        }
    }
}
