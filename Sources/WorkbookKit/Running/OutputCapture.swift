#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// What a chapter program wrote, in the order it wrote it, with each write tagged by the
/// descriptor it came through.
struct CapturedOutput {
    /// Where a write came from: the program's standard output or error, or the marker
    /// descriptor the workbook runtime writes snippet boundaries to.
    enum Source: Equatable {
        case stdout
        case stderr
        case marker
    }

    var chunks: [(source: Source, bytes: [UInt8])] = []
    var termination: Termination
    var byteCount = 0
    /// Set when the program printed more than ``OutputCapture/maximumBytes``: it was
    /// stopped there, and what it printed past the limit is not in ``chunks``.
    var truncated = false
}

/// Runs a chapter program and captures standard output and standard error in the exact
/// order of the program's writes.
///
/// Two pipes cannot do that: when both have data, nothing tells which was written first.
/// Instead the child's descriptors 1 and 2, and 3 for the runtime's snippet markers, are
/// Unix datagram sockets connected to one receiving socket. The kernel queues datagrams in
/// the order they were sent and `recvfrom` names the sender, so the receiver sees the
/// program's writes in order and knows where each came from. Standard output is
/// line-buffered by the program's runtime prologue, as it is in a terminal. Markers come
/// on their own descriptor, so nothing a program prints can pass for one.
///
/// Only the child can write to the receiver: the sockets are bound in a fresh directory
/// that only the tool's user can enter (`mkdtemp`, mode 0700), and their names are
/// unlinked, with the directory, as soon as the senders are connected. A connected socket
/// needs no name to send, and a socket with no name cannot be reached by anyone else; the
/// receiver also drops any datagram whose sender is not one of its three.
///
/// One write must fit in one datagram; the send buffer is raised to 4 MiB where the system
/// allows it (it does for root and by default `net.core.wmem_max` permits it).
enum OutputCapture {
    /// A program that prints more than this is stopped.
    static let maximumBytes = 16 << 20
    /// The descriptor the runtime writes snippet markers to.
    static let markerDescriptor: Int32 = 3

    static func run(
        executable: String, arguments: [String] = [], environment: [String: String],
        directory: String, timeout: Double
    ) throws -> CapturedOutput {
        let sockets = try Sockets()
        defer { sockets.close() }
        var size: Int32 = 4 << 20
        for socket in [sockets.out, sockets.err, sockets.marks] {
            if setsockopt(socket, SOL_SOCKET, SO_SNDBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size)) != 0 {
                setsockopt(socket, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            }
        }
        if setsockopt(sockets.receiver, SOL_SOCKET, SO_RCVBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size)) != 0 {
            setsockopt(sockets.receiver, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }

        let pid = try Spawn.start(executable: executable, arguments: arguments, environment: environment,
                                  directory: directory, stdout: sockets.out, stderr: sockets.err,
                                  extra: [markerDescriptor: sockets.marks])
        var result = CapturedOutput(termination: .exited(0))
        var buffer = [UInt8](repeating: 0, count: 4 << 20)
        let deadline = Date(timeIntervalSinceNow: timeout)
        var finished: Termination?
        // Wake up as soon as the program ends, not at the next tick, where the system can say so.
        let exitDescriptor = GNU.pidfdOpen?(pid, 0) ?? -1
        defer { if exitDescriptor >= 0 { close(exitDescriptor) } }
        while finished == nil {
            var descriptors = [pollfd(fd: sockets.receiver, events: Int16(POLLIN), revents: 0)]
            if exitDescriptor >= 0 { descriptors.append(pollfd(fd: exitDescriptor, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&descriptors, nfds_t(descriptors.count), 10)
            if ready > 0 && descriptors[0].revents != 0 {
                receive(sockets, into: &result, buffer: &buffer, flags: 0)
                if result.truncated {
                    // Past the limit: stop the program where it is, like a timeout.
                    Spawn.kill(pid)
                    finished = .signalled(SIGKILL)
                    break
                }
            } else if let termination = Spawn.poll(pid) {
                finished = termination
                // Anything the program left running in the background goes with it.
                _ = kill(-pid, SIGKILL)
                break
            }
            if Date() > deadline {
                Spawn.kill(pid)
                finished = .timedOut
            }
        }
        // Everything the program sent before it ended is already queued.
        while !result.truncated && receive(sockets, into: &result, buffer: &buffer, flags: Int32(MSG_DONTWAIT)) {}
        result.termination = finished!
        return result
    }

    /// Receives one datagram; false when none was waiting.
    @discardableResult
    private static func receive(_ sockets: Sockets, into result: inout CapturedOutput, buffer: inout [UInt8], flags: Int32) -> Bool {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let count = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                recvfrom(sockets.receiver, &buffer, buffer.count, flags, $0, &length)
            }
        }
        guard count >= 0 else { return false }
        let nameLength = max(0, Int(length) - MemoryLayout<sa_family_t>.size)
        let sender: [UInt8] = withUnsafeBytes(of: address.sun_path) { raw in
            Array(raw.prefix(min(nameLength, raw.count)).prefix { $0 != 0 })
        }
        guard let source = sockets.source(named: sender) else { return true }
        if source == .marker {
            result.chunks.append((.marker, Array(buffer[0..<count])))
            return true
        }
        // A program that prints without end is cut off rather than filling memory.
        let room = maximumBytes - result.byteCount
        if count > room {
            result.truncated = true
            if room > 0 { result.chunks.append((source, Array(buffer[0..<room]))) }
            result.byteCount = maximumBytes
            return true
        }
        result.byteCount += count
        // Writes in a row from one stream make one chunk: 16 MiB of one-byte writes must
        // not become sixteen million arrays. (Appended in place, without copying the chunk.)
        if result.chunks.last?.source == source {
            result.chunks[result.chunks.count - 1].bytes.append(contentsOf: buffer[0..<count])
        } else {
            result.chunks.append((source, Array(buffer[0..<count])))
        }
        return true
    }

    /// The receiving socket and the three the child writes to, connected to it.
    private struct Sockets {
        let receiver: Int32
        let out: Int32
        let err: Int32
        let marks: Int32
        /// The names the three senders were bound to (unlinked once connected).
        let names: [(name: [UInt8], source: CapturedOutput.Source)]

        init() throws {
            let directory = try Self.privateDirectory()
            var opened: [Int32] = []
            var bound: [String] = []
            defer {
                // The names are needed only to connect: remove them at once.
                bound.forEach { unlink($0) }
                rmdir(directory)
            }
            do {
                func make(_ name: String) throws -> Int32 {
                    let path = directory + "/" + name
                    let fd = try OutputCapture.datagramSocket(boundTo: path)
                    opened.append(fd)
                    bound.append(path)
                    return fd
                }
                receiver = try make("r")
                out = try make("o")
                err = try make("e")
                marks = try make("m")
                for socket in [out, err, marks] { try OutputCapture.connect(socket, to: directory + "/r") }
            } catch {
                opened.forEach { Glibc.close($0) }
                throw error
            }
            names = [(Array((directory + "/o").utf8), .stdout), (Array((directory + "/e").utf8), .stderr),
                     (Array((directory + "/m").utf8), .marker)]
        }

        func source(named name: [UInt8]) -> CapturedOutput.Source? {
            names.first { $0.name == name }?.source
        }

        func close() {
            [receiver, out, err, marks].forEach { Glibc.close($0) }
        }

        /// A new directory only this user can enter, with a path short enough for socket names.
        private static func privateDirectory() throws -> String {
            var base = FileManager.default.temporaryDirectory.path
            if base.hasSuffix("/") { base.removeLast() }
            // A socket's name holds at most 107 bytes; "/workbook-capture-XXXXXX/r" takes 26.
            if base.utf8.count + 26 > 107 { base = "/tmp" }
            var template = Array((base + "/workbook-capture-XXXXXX").utf8CString)
            guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!).map { String(cString: $0) } }) else {
                throw SpawnError(executable: "mkdtemp", reason: String(cString: strerror(errno)))
            }
            return made
        }
    }

    private static func address(_ path: String) -> (sockaddr_un, socklen_t) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (offset, byte) in bytes.prefix(raw.count - 1).enumerated() { raw[offset] = byte }
        }
        let length = MemoryLayout<sa_family_t>.size + min(bytes.count, 107) + 1
        return (address, socklen_t(length))
    }

    fileprivate static func datagramSocket(boundTo path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SpawnError(executable: "socket", reason: String(cString: strerror(errno))) }
        var (address, length) = address(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw SpawnError(executable: "bind", reason: reason)
        }
        return fd
    }

    fileprivate static func connect(_ fd: Int32, to path: String) throws {
        var (address, length) = address(path)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) }
        }
        guard connected == 0 else { throw SpawnError(executable: "connect", reason: String(cString: strerror(errno))) }
    }
}
