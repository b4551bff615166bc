import Foundation

/// PgBouncer in front of a test server, in transaction pooling (each transaction may run on
/// another server connection), listening on a Unix socket in a folder of its own only, with
/// trust authentication for the roles it is told of; stopped when the test process ends.
///
/// One per test process (``shared``), in front of ``PostgresServer/shared``.
public final class PgBouncer: @unchecked Sendable {
    /// The folder of its configuration, log and (unless told otherwise) socket.
    public let folder: String
    /// The folder of its socket: ``folder``, or the one it was told.
    public let socketFolder: String
    /// Server connections per database and user: few, so that transactions of different
    /// clients share them.
    public static let defaultPoolSize = 3
    /// The server connections this pooler opens per database and user.
    public let poolSize: Int

    /// The pooler of this test process, started on first use; an error says why it cannot
    /// start (PgBouncer or PostgreSQL not installed).
    public static let shared: Result<PgBouncer, PostgresServerError> = {
        do {
            return .success(try PgBouncer(server: try PostgresServer.start()))
        } catch let error as PostgresServerError {
            return .failure(error)
        } catch {
            return .failure(PostgresServerError("\(error)"))
        }
    }()

    /// The shared pooler, or a failure naming what is missing.
    public static func start() throws -> PgBouncer {
        try shared.get()
    }

    /// The pooler's process id, read from its pid file; nil when it is not running.
    public var pid: pid_t? {
        (try? String(contentsOfFile: folder + "/pgbouncer.pid", encoding: .utf8))
            .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// Whether PgBouncer is installed.
    public static var isInstalled: Bool { executable != nil }

    private static var executable: String? {
        ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// The connection string of a server database through the pooler.
    public func target(database: String, user: String? = nil) -> String {
        "host=\(socketFolder) port=6432 dbname=\(database) user=\(user ?? "postgres")"
    }

    /// Roles the pooler lets in (trust authentication still asks that a user be listed).
    public static let users = ["postgres", "alice", "bob", "carol", "dave", "service"]

    /// A pooler of the caller's own in front of `server` (the benchmarks' load test):
    /// `poolSize` server connections per database and user, at most `maxClients` clients.
    public convenience init(
        server: PostgresServer, poolSize: Int = PgBouncer.defaultPoolSize, maxClients: Int = 500
    ) throws {
        try self.init(serverSocket: server.folder, poolSize: poolSize, maxClients: maxClients)
    }

    /// A pooler in front of the server whose socket is in `serverSocket` (port 5432), letting
    /// in `users`; its own socket goes in `socketFolder` when given (beside a server's, as a
    /// pooler on the server's machine listens), else in its own folder.
    ///
    /// With `passwords` (role: password), as beside a server configured as Debian's is:
    /// clients log in with `scram-sha-256` on 127.0.0.1 (`listen_addr`) and on the socket,
    /// and the pooler logs in to the server at `serverHost` and `serverPort` with the same
    /// passwords.
    public init(
        serverSocket: String, socketFolder: String? = nil, users: [String] = PgBouncer.users,
        poolSize: Int = PgBouncer.defaultPoolSize, maxClients: Int = 500,
        passwords: [String: String]? = nil, serverHost: String? = nil, serverPort: Int = 5432
    ) throws {
        guard let executable = Self.executable else {
            throw PostgresServerError("PgBouncer is not installed: install the 'pgbouncer' package")
        }
        self.poolSize = poolSize
        folder = "/tmp/prefs-pgb-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        self.socketFolder = socketFolder ?? folder
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let configuration = """
            [databases]
            * = host=\(serverHost ?? serverSocket) port=\(serverPort)

            [pgbouncer]
            listen_addr = \(passwords == nil ? "" : "127.0.0.1")
            listen_port = 6432
            unix_socket_dir = \(self.socketFolder)
            auth_type = \(passwords == nil ? "trust" : "scram-sha-256")
            auth_file = \(folder)/users.txt
            pool_mode = transaction
            default_pool_size = \(poolSize)
            max_client_conn = \(maxClients)
            max_db_connections = \(poolSize * 4)
            ignore_startup_parameters = extra_float_digits
            logfile = \(folder)/pgbouncer.log
            pidfile = \(folder)/pgbouncer.pid
            admin_users = postgres

            """
        try configuration.write(
            toFile: folder + "/pgbouncer.ini", atomically: true, encoding: .utf8)
        let entries = passwords.map { $0.sorted { $0.key < $1.key } } ?? users.map { ($0, "") }
        try entries.map { "\"\($0.0)\" \"\($0.1)\"\n" }.joined()
            .write(toFile: folder + "/users.txt", atomically: true, encoding: .utf8)
        // PgBouncer refuses to run as root: as the server, as nobody.
        var command = [executable, "-d", folder + "/pgbouncer.ini"]
        if geteuid() == 0 {
            try FileManager.default.setAttributes(
                [.ownerAccountID: 65534, .groupOwnerAccountID: 65534], ofItemAtPath: folder)
            for file in ["pgbouncer.ini", "users.txt"] {
                try FileManager.default.setAttributes(
                    [.ownerAccountID: 65534, .groupOwnerAccountID: 65534],
                    ofItemAtPath: folder + "/" + file)
            }
            command = ["/usr/sbin/runuser", "-u", "nobody", "--"] + command
        }
        // Not Foundation's Process: the daemon it forks would hold a captured pipe open.
        let status = PostgresServer.spawnAndWait(command)
        guard status == 0 else {
            let log =
                (try? String(contentsOfFile: folder + "/pgbouncer.log", encoding: .utf8)) ?? ""
            throw PostgresServerError("pgbouncer exited \(status): \(log.suffix(300))")
        }
        // -d returns once it forked; the socket appears when it listens.
        let socket = self.socketFolder + "/.s.PGSQL.6432"
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: socket) {
            guard Date() < deadline else {
                let log =
                    (try? String(contentsOfFile: folder + "/pgbouncer.log", encoding: .utf8)) ?? ""
                throw PostgresServerError("pgbouncer did not listen: \(log.suffix(300))")
            }
            usleep(20_000)
        }
        // Stopped with this process, however it ends: asked first, then killed, so that a
        // pooler that ignores SIGTERM does not outlive its folder.
        let watchdog = """
            while kill -0 \(getpid()) 2>/dev/null; do sleep 0.5; done
            \(PostgresServer.stopScript(pidFile: folder + "/pgbouncer.pid", program: "pgbouncer"))
            rm -rf \(folder)
            """
        _ = PostgresServer.spawn(["/bin/sh", "-c", watchdog])
    }
}
