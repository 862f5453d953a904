#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import XCTest

/// Talks raw HTTP to a server on 127.0.0.1, so a request reaches it exactly as written (no
/// client-side `..` normalization, any Host or Origin a test wants to try).
enum RawHTTPClient {
    struct Reply {
        var status: Int
        var headers: String
        var body: String
    }

    /// A connected socket, or -1 after recording a test failure.
    static func connect(port: Int) -> Int32 {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                #if canImport(Glibc)
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #else
                Darwin.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #endif
            }
        }
        XCTAssertEqual(connected, 0, "cannot connect to the server")
        return fd
    }

    /// Sends `raw` and reads the whole response (the server closes the connection).
    static func send(_ raw: Data, port: Int) -> Reply {
        let fd = connect(port: port)
        defer { close(fd) }
        let sent = raw.withUnsafeBytes {
            #if canImport(Glibc)
            Glibc.send(fd, $0.baseAddress, raw.count, 0)
            #else
            Darwin.send(fd, $0.baseAddress, raw.count, 0)
            #endif
        }
        XCTAssertEqual(sent, raw.count)
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
        return Reply(status: status, headers: parts[0], body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }
}
