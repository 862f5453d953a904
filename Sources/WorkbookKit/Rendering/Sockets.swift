#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Why the book server could not start.
public enum BookServerError: Error, Equatable, CustomStringConvertible {
    /// The host is not a numeric IPv4 address such as `127.0.0.1`.
    case invalidHost(String)
    /// A socket call failed, e.g. because the port is in use.
    case socketFailed(call: String, host: String, port: Int, reason: String)

    public var description: String {
        switch self {
        case .invalidHost(let host):
            "cannot serve on \(host): give a numeric IPv4 address such as 127.0.0.1"
        case .socketFailed(let call, let host, let port, let reason):
            "cannot serve on \(host):\(port): \(call) failed: \(reason)"
        }
    }
}

/// Thin wrappers over the POSIX socket calls the server uses, hiding Linux/Darwin differences.
enum Sockets {
    /// Opens a listening TCP socket and returns it with the port actually bound (useful for port 0).
    static func listen(host: String, port: Int) throws -> (fd: Int32, port: Int) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        guard (0...65535).contains(port) else {
            throw BookServerError.socketFailed(call: "bind", host: host, port: port, reason: "port out of range")
        }
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw BookServerError.invalidHost(host) }
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        func failure(_ call: String) -> BookServerError {
            let reason = String(cString: strerror(errno))
            if fd >= 0 { close(fd) }
            return .socketFailed(call: call, host: host, port: port, reason: reason)
        }
        guard fd >= 0 else { throw failure("socket") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw failure("bind") }
        guard posixListen(fd, 64) == 0 else { throw failure("listen") }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw failure("getsockname") }
        return (fd, Int(UInt16(bigEndian: actual.sin_port)))
    }

    /// Waits up to `milliseconds` for a connection; nil on timeout or a transient error.
    static func accept(_ listener: Int32, waitingUpTo milliseconds: Int32) -> Int32? {
        var descriptor = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, milliseconds) > 0 else { return nil }
        let client = posixAccept(listener, nil, nil)
        guard client >= 0 else { return nil }
        #if canImport(Darwin)
        var yes: Int32 = 1
        setsockopt(client, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
        // A client that connects and never sends must not hold its thread forever.
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return client
    }

    /// A request as read from the socket: its head, and its body or why it was not read.
    struct ReceivedRequest {
        var head: String
        var body = Data()
        /// Set when the body was not read: the status and message to answer with.
        var refusal: (status: Int, message: String)?
    }

    /// Reads a request's head and, when it declares a `Content-Length` of at most
    /// `bodyLimit` bytes, its body. A longer body, a length that is not one number, or a
    /// chunked body is not read; `refusal` says what to answer.
    static func readRequest(_ fd: Int32, headLimit: Int = 64 * 1024, bodyLimit: Int) -> ReceivedRequest? {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        let terminator = Data("\r\n\r\n".utf8)
        var headEnd: Range<Data.Index>?
        while data.count < headLimit {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            data.append(contentsOf: buffer[0..<count])
            headEnd = data.range(of: terminator)
            if headEnd != nil { break }
        }
        guard !data.isEmpty else { return nil }
        guard let headEnd else { return ReceivedRequest(head: String(decoding: data, as: UTF8.self)) }
        let head = String(decoding: data[..<headEnd.lowerBound], as: UTF8.self)
        var fields: [(name: String, value: String)] = []
        for line in head.components(separatedBy: "\r\n").dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            fields.append((parts[0].trimmingCharacters(in: .whitespaces).lowercased(), parts[1].trimmingCharacters(in: .whitespaces)))
        }
        if fields.contains(where: { $0.name == "transfer-encoding" }) {
            return ReceivedRequest(head: head, refusal: (400, "chunked request bodies are not supported; send a Content-Length"))
        }
        let lengths = Set(fields.filter { $0.name == "content-length" }.map(\.value))
        guard lengths.count <= 1 else { return ReceivedRequest(head: head, refusal: (400, "conflicting Content-Length headers")) }
        // Digits only: no sign, so a negative length cannot slip past the limit.
        let text = lengths.first ?? "0"
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }), let length = Int(text) else {
            return ReceivedRequest(head: head, refusal: (400, "Content-Length is not a number"))
        }
        guard length <= bodyLimit else {
            return ReceivedRequest(head: head, refusal: (413, "the request body is larger than \(bodyLimit / 1024) KiB"))
        }
        var body = Data(data[headEnd.upperBound...])
        while body.count < length {
            let count = recv(fd, &buffer, min(buffer.count, length - body.count), 0)
            guard count > 0 else { break }
            body.append(contentsOf: buffer[0..<count])
        }
        return ReceivedRequest(head: head, body: body.prefix(length))
    }

    /// Reads and drops what the peer still sends, up to `limit` bytes, so that closing the
    /// socket after an early answer (413) does not reset the connection before the client
    /// has read the answer.
    static func drain(_ fd: Int32, limit: Int) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var total = 0
        while total < limit {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            total += count
        }
    }

    /// Sends everything, giving up quietly if the client went away.
    static func sendAll(_ fd: Int32, _ data: Data) {
        #if canImport(Glibc)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        let flags: Int32 = 0
        #endif
        data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var sent = 0
            while sent < raw.count {
                let count = send(fd, base + sent, raw.count - sent, flags)
                if count <= 0 { return }
                sent += count
            }
        }
    }

    static func close(_ fd: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(fd)
        #else
        _ = Darwin.close(fd)
        #endif
    }
}

// The POSIX names clash with the wrappers above inside `Sockets`; these reach the C functions.
#if canImport(Glibc)
private func posixListen(_ fd: Int32, _ backlog: Int32) -> Int32 { Glibc.listen(fd, backlog) }
private func posixAccept(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: UnsafeMutablePointer<socklen_t>?) -> Int32 {
    Glibc.accept(fd, address, length)
}
#else
private func posixListen(_ fd: Int32, _ backlog: Int32) -> Int32 { Darwin.listen(fd, backlog) }
private func posixAccept(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: UnsafeMutablePointer<socklen_t>?) -> Int32 {
    Darwin.accept(fd, address, length)
}
#endif
