#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// What a chapter program wrote, in the order it wrote it, with each write tagged by stream.
struct CapturedOutput {
    var chunks: [(stream: SnippetOutput.Stream, bytes: [UInt8])] = []
    var termination: Termination
    var byteCount = 0
    /// Set when output beyond ``OutputCapture/maximumBytes`` was dropped.
    var truncated = false
}

/// Runs a chapter program and captures standard output and standard error in the exact
/// order of the program's writes.
///
/// Two pipes cannot do that: when both have data, nothing tells which was written first.
/// Instead the child's descriptors 1 and 2 are two connected Unix datagram sockets, each
/// bound to its own abstract address, both sending to one receiving socket. The kernel
/// queues datagrams in the order they were sent and `recvfrom` names the sender, so the
/// receiver sees the program's writes in order and knows each one's stream. Standard
/// output is line-buffered by the program's runtime prologue, as it is in a terminal.
///
/// One write must fit in one datagram; the send buffer is raised to 4 MiB where the system
/// allows it (it does for root and by default `net.core.wmem_max` permits it).
enum OutputCapture {
    private static let counter = Counter()
    /// Output beyond this is dropped.
    static let maximumBytes = 16 << 20

    static func run(
        executable: String, arguments: [String] = [], environment: [String: String],
        directory: String, timeout: Double
    ) throws -> CapturedOutput {
        let base = "workbook-\(getpid())-\(counter.next())"
        let receiver = try datagramSocket(boundTo: base + "-r")
        defer { close(receiver) }
        let out = try datagramSocket(boundTo: base + "-o")
        defer { close(out) }
        let err = try datagramSocket(boundTo: base + "-e")
        defer { close(err) }
        try connect(out, to: base + "-r")
        try connect(err, to: base + "-r")
        var size: Int32 = 4 << 20
        for socket in [out, err] {
            if setsockopt(socket, SOL_SOCKET, SO_SNDBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size)) != 0 {
                setsockopt(socket, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            }
        }
        if setsockopt(receiver, SOL_SOCKET, SO_RCVBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size)) != 0 {
            setsockopt(receiver, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }

        let pid = try Spawn.start(executable: executable, arguments: arguments, environment: environment,
                                  directory: directory, stdout: out, stderr: err)
        var result = CapturedOutput(termination: .exited(0))
        var buffer = [UInt8](repeating: 0, count: 4 << 20)
        let deadline = Date(timeIntervalSinceNow: timeout)
        var finished: Termination?
        // Wake up as soon as the program ends, not at the next tick, where the system can say so.
        let exitDescriptor = GNU.pidfdOpen?(pid, 0) ?? -1
        defer { if exitDescriptor >= 0 { close(exitDescriptor) } }
        while finished == nil {
            var descriptors = [pollfd(fd: receiver, events: Int16(POLLIN), revents: 0)]
            if exitDescriptor >= 0 { descriptors.append(pollfd(fd: exitDescriptor, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&descriptors, nfds_t(descriptors.count), 10)
            if ready > 0 && descriptors[0].revents != 0 {
                receive(receiver, into: &result, buffer: &buffer, flags: 0)
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
        while receive(receiver, into: &result, buffer: &buffer, flags: Int32(MSG_DONTWAIT)) {}
        result.termination = finished!
        return result
    }

    /// Receives one datagram; false when none was waiting.
    @discardableResult
    private static func receive(_ socket: Int32, into result: inout CapturedOutput, buffer: inout [UInt8], flags: Int32) -> Bool {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let count = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                recvfrom(socket, &buffer, buffer.count, flags, $0, &length)
            }
        }
        guard count >= 0 else { return false }
        // A program that prints without end is cut off rather than filling memory; the
        // snippet markers still count, so output stays attributed to the right snippet.
        if result.byteCount >= maximumBytes {
            guard buffer[0..<count].starts(with: ChapterRunner.markerPrefix) else {
                result.truncated = true
                return true
            }
        } else {
            result.byteCount += count
        }
        // The sender's abstract name ends in "-o" or "-e".
        let nameLength = Int(length) - MemoryLayout<sa_family_t>.size
        let last: UInt8 = withUnsafeBytes(of: address.sun_path) { raw in
            nameLength > 0 && nameLength <= raw.count ? raw[nameLength - 1] : UInt8(ascii: "o")
        }
        let stream: SnippetOutput.Stream = last == UInt8(ascii: "e") ? .stderr : .stdout
        result.chunks.append((stream, Array(buffer[0..<count])))
        return true
    }

    private static func address(_ name: String) -> (sockaddr_un, socklen_t) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(name.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw[0] = 0 // abstract namespace: no file on disk
            for (offset, byte) in bytes.prefix(raw.count - 1).enumerated() { raw[offset + 1] = byte }
        }
        let length = MemoryLayout<sa_family_t>.size + 1 + min(bytes.count, 107)
        return (address, socklen_t(length))
    }

    private static func datagramSocket(boundTo name: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SpawnError(executable: "socket", reason: String(cString: strerror(errno))) }
        var (address, length) = address(name)
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

    private static func connect(_ fd: Int32, to name: String) throws {
        var (address, length) = address(name)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) }
        }
        guard connected == 0 else { throw SpawnError(executable: "connect", reason: String(cString: strerror(errno))) }
    }

    /// Unique socket names across threads of one process.
    private final class Counter: @unchecked Sendable {
        // Guarded by `lock`; a counter does not need an actor.
        private let lock = NSLock()
        private var value = 0
        func next() -> Int { lock.withLock { value += 1; return value } }
    }
}
