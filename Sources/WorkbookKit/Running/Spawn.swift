#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// How a child process ended.
public enum Termination: Sendable, Equatable {
    case exited(Int32)
    case signalled(Int32)
    /// Killed by the tool because the time limit ran out.
    case timedOut

    init(waitStatus status: Int32) {
        let signal = status & 0x7F
        self = signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signal)
    }
}

/// Why a process could not be started.
public struct SpawnError: Error, CustomStringConvertible, Sendable {
    public var executable: String
    public var reason: String
    public var description: String { "cannot run \(executable): \(reason)" }
}

/// `posix_spawn` with the set-up every child of the tool needs: its own process group (so a
/// timeout kills everything it started), default signal handling (the book server ignores
/// SIGPIPE, and ignored signals survive exec), standard input from /dev/null, a working
/// directory, and the given descriptors as its standard output and error (and `extra`, each
/// as the child's descriptor of the key's number).
enum Spawn {
    static func start(
        executable: String, arguments: [String], environment: [String: String],
        directory: String?, stdout: Int32, stderr: Int32, extra: [Int32: Int32] = [:]
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        for (number, descriptor) in extra.sorted(by: { $0.key < $1.key }) {
            posix_spawn_file_actions_adddup2(&actions, descriptor, number)
        }
        if let directory {
            guard let addChdir = GNU.addChdir else {
                throw SpawnError(executable: executable, reason: "this C library has no posix_spawn_file_actions_addchdir_np")
            }
            _ = addChdir(&actions, directory)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var noMask = sigset_t()
        sigemptyset(&noMask)
        posix_spawnattr_setsigmask(&attributes, &noMask)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw SpawnError(executable: executable, reason: String(cString: strerror(result)))
        }
        return pid
    }

    /// Waits for `pid` without blocking; nil while it runs.
    static func poll(_ pid: pid_t) -> Termination? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid { return Termination(waitStatus: status) }
        if result < 0 && errno != EINTR { return .exited(-1) }
        return nil
    }

    /// Kills the child's whole process group and reaps the child.
    static func kill(_ pid: pid_t) {
        _ = Glibc.kill(-pid, SIGKILL)
        _ = Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    /// A pipe whose ends are closed on exec, so concurrent spawns never inherit each other's pipes.
    static func pipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard let pipe2 = GNU.pipe2, pipe2(&fds, O_CLOEXEC) == 0 else {
            throw SpawnError(executable: "pipe", reason: String(cString: strerror(errno)))
        }
        return (fds[0], fds[1])
    }

    /// Finds an executable on `PATH`, or returns the name when it contains a slash.
    static func which(_ name: String, path: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
        if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
        for directory in (path ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}

/// GNU extensions that Swift's Glibc module does not import (they need `_GNU_SOURCE`),
/// looked up once in the C library that is already loaded.
enum GNU {
    typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32

    static let addChdir: AddChdir? = symbol("posix_spawn_file_actions_addchdir_np")
    static let pipe2: Pipe2? = symbol("pipe2")
    typealias PidfdOpen = @convention(c) (pid_t, UInt32) -> Int32
    /// A descriptor that becomes readable when the process ends (Linux 5.3, glibc 2.36).
    static let pidfdOpen: PidfdOpen? = symbol("pidfd_open")

    private static func symbol<T>(_ name: String) -> T? {
        guard let handle = dlopen(nil, RTLD_NOW), let address = dlsym(handle, name) else { return nil }
        return unsafeBitCast(address, to: T.self)
    }
}

/// Runs a tool such as `swiftc` and collects its standard output and error through pipes.
enum Subprocess {
    struct Result {
        var termination: Termination
        var stdout: Data
        var stderr: Data
        var succeeded: Bool { termination == .exited(0) }
    }

    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        directory: String? = nil, timeout: Double = 600
    ) throws -> Result {
        let out = try Spawn.pipe()
        let err = try Spawn.pipe()
        let pid: pid_t
        do {
            pid = try Spawn.start(executable: executable, arguments: arguments, environment: environment,
                                  directory: directory, stdout: out.write, stderr: err.write)
        } catch {
            [out.read, out.write, err.read, err.write].forEach { close($0) }
            throw error
        }
        close(out.write)
        close(err.write)
        defer {
            close(out.read)
            close(err.read)
        }
        var stdout = Data()
        var stderr = Data()
        var open: [Int32] = [out.read, err.read]
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Date(timeIntervalSinceNow: timeout)
        while !open.isEmpty {
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = Glibc.poll(&fds, nfds_t(fds.count), 100)
            if ready < 0 && errno != EINTR { break }
            if Date() > deadline {
                Spawn.kill(pid)
                return Result(termination: .timedOut, stdout: stdout, stderr: stderr)
            }
            for entry in fds where entry.revents != 0 {
                let count = read(entry.fd, &buffer, buffer.count)
                if count > 0 {
                    if entry.fd == out.read { stdout.append(contentsOf: buffer[0..<count]) } else { stderr.append(contentsOf: buffer[0..<count]) }
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return Result(termination: Termination(waitStatus: status), stdout: stdout, stderr: stderr)
    }
}
