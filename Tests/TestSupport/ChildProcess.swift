import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A program the tests start with `posix_spawn`, in place of Foundation's `Process`.
///
/// Swift 6.3.1's `Process.run` on Linux can crash the whole test process: it reads each
/// `/proc/self/fd` entry's name 256 bytes at a time, past the end of the directory buffer
/// (fixed upstream after that release). This type hands the child its three streams and
/// nothing else: every other descriptor is closed in the child (`closefrom` as a spawn
/// action), so a server that outlives a test never holds a test's pipe open. The child
/// starts with default signal handling and an empty signal mask.
public final class ChildProcess: @unchecked Sendable {
    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        /// `/dev/null`.
        case null
        /// A pipe to this process: `input`, `output` or `errors`.
        case pipe
        /// A file, opened for reading (stdin) or appending.
        case file(String)
        /// This process's own stream.
        case inherit
    }

    /// The child's process id.
    public let pid: pid_t
    /// What it was started with, after the program.
    public let arguments: [String]
    /// The write end of its stdin, when it is `.pipe` (close it to send end of file).
    public private(set) var input: Int32?
    /// The read end of its stdout, when it is `.pipe`.
    public let output: Int32?
    /// The read end of its stderr, when it is `.pipe`.
    public let errors: Int32?

    private let lock = NSLock()
    private var status: Int32?

    /// Starts `executable` with `arguments`; its environment is this process's plus
    /// `environment`. With `newProcessGroup`, it leads a process group of its own (its pid),
    /// so that it and every process it starts can be signalled at once.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        stdin: Stream = .null, stdout: Stream = .null, stderr: Stream = .null,
        newProcessGroup: Bool = false
    ) throws {
        _ = Self.ignoreBrokenPipes
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var ours: [Int32] = []
        var theirs: [Int32] = []
        defer { for descriptor in theirs { close(descriptor) } }
        var ends: [Int32?] = []
        do {
            for (target, stream) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
                switch stream {
                case .null:
                    posix_spawn_file_actions_addopen(
                        &actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
                    ends.append(nil)
                case .inherit:
                    ends.append(nil)
                case .file(let path):
                    posix_spawn_file_actions_addopen(
                        &actions, target, path,
                        target == 0 ? O_RDONLY : O_WRONLY | O_APPEND | O_CREAT, 0o644)
                    ends.append(nil)
                case .pipe:
                    let (read, write) = try Self.pipe()
                    let (mine, child) = target == 0 ? (write, read) : (read, write)
                    ours.append(mine)
                    theirs.append(child)
                    posix_spawn_file_actions_adddup2(&actions, child, target)
                    ends.append(mine)
                }
            }
        } catch {
            for descriptor in ours { close(descriptor) }
            throw error
        }
        Self.closeTheRest(&actions)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var everySignal = sigset_t()
        sigfillset(&everySignal)
        var noSignal = sigset_t()
        sigemptyset(&noSignal)
        posix_spawnattr_setsigdefault(&attributes, &everySignal)
        posix_spawnattr_setsigmask(&attributes, &noSignal)
        var flags = Int32(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)
        if newProcessGroup {
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        #if canImport(Darwin)
            flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #endif
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let merged = ProcessInfo.processInfo.environment.merging(Self.sandbox(for: environment)) {
            $1
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            for descriptor in ours { close(descriptor) }
            throw PostgresServerError(
                "cannot start \(executable): \(String(cString: strerror(result)))")
        }
        self.pid = pid
        self.arguments = arguments
        input = ends[0]
        output = ends[1]
        errors = ends[2]
    }

    /// Whether it has not ended yet (reaps it when it has).
    public var isRunning: Bool {
        lock.withLock {
            guard status == nil else { return false }
            var raw: Int32 = 0
            let found = waitpid(pid, &raw, WNOHANG)
            if found == pid { status = raw }
            return found == 0
        }
    }

    /// Waits for it to end; its exit status, or 128 plus the signal that ended it.
    @discardableResult
    public func wait() -> Int32 {
        lock.withLock {
            if status == nil {
                var raw: Int32 = 0
                while waitpid(pid, &raw, 0) < 0 {
                    if errno != EINTR {
                        raw = 0x7F00
                        break
                    }
                }
                status = raw
            }
            return Self.decode(status ?? 0)
        }
    }

    /// Its exit status (as `wait()`), or nil while it runs.
    public var exitStatus: Int32? {
        guard !isRunning else { return nil }
        return wait()
    }

    /// The signal that ended it, or nil (still running, or it exited).
    public var endingSignal: Int32? {
        guard !isRunning else { return nil }
        return lock.withLock {
            guard let status, status & 0x7F != 0, status & 0x7F != 0x7F else { return nil }
            return status & 0x7F
        }
    }

    /// Sends it a signal, unless it was already reaped (its pid may belong to another by
    /// then).
    public func send(_ signal: Int32) {
        lock.withLock {
            if status == nil { _ = kill(pid, signal) }
        }
    }

    /// Writes all of `bytes` to its stdin and closes it (end of file), ignoring a child that
    /// stopped reading.
    public func finishInput(_ bytes: [UInt8] = []) {
        guard let input else { return }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                write(input, $0.baseAddress, $0.count)
            }
            if written < 0 {
                if errno == EINTR { continue }
                break
            }
            offset += written
        }
        close(input)
        self.input = nil
    }

    /// Reads its stdout and stderr pipes to their ends, together (neither can fill up and
    /// stall the child), then closes them.
    public func readToEnd() -> (output: [UInt8], errors: [UInt8]) {
        var collected: [Int32: [UInt8]] = [:]
        var open = [output, errors].compactMap { $0 }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !open.isEmpty {
            var polled = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&polled, nfds_t(polled.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            for entry in polled where entry.revents != 0 {
                let count = buffer.withUnsafeMutableBytes {
                    read(entry.fd, $0.baseAddress, $0.count)
                }
                if count > 0 {
                    collected[entry.fd, default: []].append(contentsOf: buffer[..<count])
                } else if count == 0 || errno != EINTR {
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
        for descriptor in [output, errors].compactMap({ $0 }) { close(descriptor) }
        return (output.flatMap { collected[$0] } ?? [], errors.flatMap { collected[$0] } ?? [])
    }

    deinit {
        if let input { close(input) }
        if status == nil {
            var raw: Int32 = 0
            if waitpid(pid, &raw, WNOHANG) == 0 {
                kill(pid, SIGKILL)
                while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
            }
        }
    }

    private static func decode(_ raw: Int32) -> Int32 {
        (raw & 0x7F) == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
    }

    /// A pipe whose ends close on exec (the child gets its copy through dup2, which clears
    /// that). Between `pipe` and `fcntl` another thread's spawn could see the ends, but every
    /// spawn here closes what it was not handed.
    private static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        #if canImport(Glibc)
            let made = Glibc.pipe(&ends)
        #else
            let made = Darwin.pipe(&ends)
        #endif
        guard made == 0 else {
            throw PostgresServerError("pipe: \(String(cString: strerror(errno)))")
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// Closes, in the child, every descriptor above 2: glibc 2.34's `closefrom` spawn
    /// action, found at run time (Swift's Glibc module does not declare it). Darwin does
    /// the same with `POSIX_SPAWN_CLOEXEC_DEFAULT`.
    private static func closeTheRest(_ actions: inout posix_spawn_file_actions_t) {
        #if canImport(Glibc)
            typealias CloseFrom =
                @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else {
                return
            }
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        #endif
    }

    /// A child that stops reading its stdin must not end the test process with SIGPIPE;
    /// the write fails with EPIPE instead. (Children get the default back.)
    private static let ignoreBrokenPipes: Void = {
        signal(SIGPIPE, SIG_IGN)
    }()
}

extension ChildProcess {
    /// Where the programs the tests start keep their data and settings (fish its history,
    /// `prefs` its default files), unless a test names a home of its own: a folder of this
    /// test process under the temporary folder, not the user's `~/.local/share` and
    /// `~/.config`.
    static let sandboxHome: String = {
        let folder = NSTemporaryDirectory() + "prefs-tests-home-\(getpid())"
        try? FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true)
        return folder
    }()

    /// `environment`, with the sandbox's XDG folders when it names no home of its own.
    static func sandbox(for environment: [String: String]) -> [String: String] {
        let own = ["HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"]
        guard !own.contains(where: { environment[$0] != nil }) else { return environment }
        return environment.merging([
            "XDG_DATA_HOME": sandboxHome + "/data", "XDG_CONFIG_HOME": sandboxHome + "/config",
        ]) { given, _ in given }
    }
}
