import Foundation

/// A throwaway PostgreSQL server for tests: `initdb` into a temporary folder, listening on a
/// Unix socket in that folder only (`listen_addresses=''`), trust authentication, stopped
/// when the test process ends (a watchdog stops it even after a crash).
///
/// One server per test process (``shared``); each test makes its own database in it.
public final class PostgresServer: @unchecked Sendable {
    /// The folder of the data directory and the socket.
    public let folder: String
    /// The superuser the tests connect as.
    public let superuser = "postgres"
    /// The server's programs (`initdb`, `pg_ctl`, `postgres`).
    public let binaries: String

    /// The server of this test process, started on first use; an error says why it cannot
    /// start (PostgreSQL not installed: which package to install).
    public static let shared: Result<PostgresServer, PostgresServerError> = {
        do throws(PostgresServerError) {
            return .success(try PostgresServer())
        } catch {
            return .failure(error)
        }
    }()

    /// The connection string of a database of the server, as the superuser.
    public func target(database: String, user: String? = nil) -> String {
        "host=\(folder) port=5432 dbname=\(database) user=\(user ?? superuser)"
    }

    /// The process id of the server's postmaster, from its pid file; nil when it is stopped.
    public var pid: pid_t? {
        (try? String(contentsOfFile: folder + "/data/postmaster.pid", encoding: .utf8))?
            .split(separator: "\n").first.flatMap { pid_t($0) }
    }

    /// The shared server, or a failure naming what is missing.
    public static func start() throws -> PostgresServer {
        try shared.get()
    }

    /// A server of the caller's own, for tests that stop and start it. `settings`: more
    /// server settings (`name=value`, as `postgres -c` takes them), such as the benchmarks'
    /// larger `shared_buffers`.
    public static func startPrivate(settings: [String] = []) throws -> PostgresServer {
        try PostgresServer(settings: settings)
    }

    /// Settings given at start beyond the defaults.
    private let settings: [String]

    /// Stops the server the way a crash would (`pg_ctl stop -m immediate`): no checkpoint,
    /// every connection cut.
    public func stopImmediately() throws {
        try run(binaries + "/pg_ctl", ["-D", folder + "/data", "-m", "immediate", "stop"])
    }

    /// Starts the stopped server again; it recovers from its write-ahead log first.
    public func startAgain() throws {
        try run(binaries + "/pg_ctl", startArguments, capturing: false)
    }

    private var startArguments: [String] {
        [
            "-D", folder + "/data", "-l", folder + "/server.log", "-w", "-o",
            "-c listen_addresses='' -k \(folder) -p 5432 -c fsync=off"
                + " -c max_connections=100 -c shared_buffers=32MB"
                + settings.map { " -c " + $0 }.joined(),
            "start",
        ]
    }

    private init(settings: [String] = []) throws(PostgresServerError) {
        self.settings = settings
        guard let binaries = Self.findBinaries() else {
            throw PostgresServerError(
                "PostgreSQL is not installed (no initdb): install the 'postgresql' package")
        }
        self.binaries = binaries
        folder = "/tmp/prefs-pg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let data = folder + "/data"
        do {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            // initdb refuses to run as root: the server then runs as nobody.
            if geteuid() == 0 {
                try FileManager.default.setAttributes(
                    [.ownerAccountID: 65534, .groupOwnerAccountID: 65534], ofItemAtPath: folder)
            }
            try run(
                binaries + "/initdb",
                ["-D", data, "-U", superuser, "--auth=trust", "-E", "UTF8", "--no-locale", "-N"])
            // The server outlives pg_ctl and would hold captured pipes open: no capture.
            try run(binaries + "/pg_ctl", startArguments, capturing: false)
        } catch {
            throw PostgresServerError("cannot start PostgreSQL: \(error)")
        }
        startWatchdog(data: data)
    }

    /// A shell that stops the server once this process is gone, however it ended.
    private func startWatchdog(data: String) {
        let stop = asServerUser(binaries + "/pg_ctl", ["-D", data, "-m", "immediate", "stop"])
        let script = """
            while kill -0 \(getpid()) 2>/dev/null; do sleep 0.5; done
            \(Self.stopScript(pidFile: data + "/postmaster.pid", program: "postgres", first: stop))
            rm -rf \(folder)
            """
        _ = Self.spawn(["/bin/sh", "-c", script])
    }

    /// Shell lines that stop the process of a pid file: `first` (a command that asks it to
    /// stop), else SIGTERM; after 2 s, SIGKILL. The pid is read before anything is asked, and
    /// killed only while its command is still `program`, so a number reused meanwhile is left
    /// alone.
    public static func stopScript(pidFile: String, program: String, first: [String]? = nil)
        -> String
    {
        let ask = first.map { $0.joined(separator: " ") + " >/dev/null 2>&1" } ?? "kill -TERM $p"
        return """
            p=$(head -n 1 \(pidFile) 2>/dev/null)
            if [ -n "$p" ]; then
                \(ask)
                i=0
                while kill -0 "$p" 2>/dev/null && [ $i -lt 40 ]; do sleep 0.05; i=$((i+1)); done
                case "$(ps -o args= -p "$p" 2>/dev/null)" in
                    *\(program)*) kill -KILL "$p" 2>/dev/null ;;
                esac
            fi
            """
    }

    /// The command line that runs a program as the server's user.
    private func asServerUser(_ program: String, _ arguments: [String]) -> [String] {
        let command = [program] + arguments
        return geteuid() == 0 ? ["/usr/sbin/runuser", "-u", "nobody", "--"] + command : command
    }

    private func run(_ program: String, _ arguments: [String], capturing: Bool = true) throws {
        let command = asServerUser(program, arguments)
        guard capturing else {
            let status = Self.spawnAndWait(command)
            guard status == 0 else {
                let log =
                    (try? String(contentsOfFile: folder + "/server.log", encoding: .utf8)) ?? ""
                throw PostgresServerError(
                    "pg_ctl exited \(status): "
                        + log.split(separator: "\n").suffix(3).joined(separator: " "))
            }
            return
        }
        let output = try runProcess(URL(fileURLWithPath: command[0]), Array(command.dropFirst()))
        guard output.status == 0 else {
            throw PostgresServerError(
                "\(URL(fileURLWithPath: program).lastPathComponent) exited \(output.status): "
                    + output.stderr.split(separator: "\n").suffix(3).joined(separator: " "))
        }
    }

    /// Runs a program with its output thrown away and waits for it with `waitpid`. (Not
    /// Foundation's Process: it learns of the end from a descriptor the child inherits, which
    /// a server that the program leaves running keeps open.)
    static func spawnAndWait(_ command: [String]) -> Int32 {
        guard let pid = spawn(command) else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }

    /// Starts a program with /dev/null as its standard streams and no other descriptor of
    /// this process: a server or watchdog that outlives the test must not hold a test's pipe
    /// open (a reader waiting for its end, or a writer for EPIPE, would wait forever).
    static func spawn(_ command: [String]) -> pid_t? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(
                &actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        // bash (dash takes only one-digit descriptors) closes every other descriptor, then
        // becomes the program.
        let closing = """
            for fd in $(ls /proc/$$/fd 2>/dev/null); do
                [ "$fd" -gt 2 ] 2>/dev/null && eval "exec $fd>&-"
            done
            exec "$@"
            """
        let wrapped = ["/bin/bash", "-c", closing, "bash"] + command
        let arguments = wrapped.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, wrapped[0], &actions, nil, arguments, environ) == 0 else {
            return nil
        }
        return pid
    }

    /// Runs SQL as the superuser through psql, for set-up; returns what it printed.
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres", user: String? = nil) throws
        -> ProcessOutput
    {
        try runProcess(
            URL(fileURLWithPath: Self.psqlPath(binaries)),
            [
                "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d",
                target(database: database, user: user), "-c", sql,
            ])
    }

    /// Makes login roles, each in its group role (`prefs_account` or `prefs_service`). Roles
    /// belong to the server, so a role that exists already (another test made it) is kept.
    public func makeLoginRoles(_ roles: [(name: String, group: String)]) throws {
        let statements = roles.map { role in
            """
                BEGIN CREATE ROLE \(role.name) LOGIN IN ROLE \(role.group);
                EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END;
            """
        }
        let output = try psql("DO $$ BEGIN\n" + statements.joined(separator: "\n") + "\nEND $$")
        guard output.status == 0 else { throw PostgresServerError(output.stderr) }
    }

    /// Makes a new, empty database and returns its name. `locale`: its collation and
    /// character classes (the server's, C, by default), as production databases have
    /// `en_US.UTF-8` or `C.UTF-8`.
    public func makeDatabase(locale: String? = nil) throws -> String {
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let output = try psql(
            "CREATE DATABASE \(name)"
                + (locale.map { " TEMPLATE template0 LOCALE '\($0)'" } ?? ""))
        guard output.status == 0 else { throw PostgresServerError(output.stderr) }
        return name
    }

    static func psqlPath(_ binaries: String) -> String {
        FileManager.default.isExecutableFile(atPath: binaries + "/psql")
            ? binaries + "/psql" : "/usr/bin/psql"
    }

    /// `pg_config --bindir`, else the newest `/usr/lib/postgresql/*/bin` with `initdb`.
    public static func findBinaries() -> String? {
        if let output = try? runProcess(URL(fileURLWithPath: "/usr/bin/pg_config"), ["--bindir"]),
            output.status == 0
        {
            let folder = output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            if FileManager.default.isExecutableFile(atPath: folder + "/initdb") { return folder }
        }
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }.map { root + "/\($0)/bin" }
            .first { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") }
    }
}

/// Why the test server cannot run, in one line.
public struct PostgresServerError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
