import Foundation

/// A primary and a streaming standby made with `pg_basebackup`, with synchronous
/// replication (`synchronous_standby_names = 'standby'`, `synchronous_commit = on`): a commit
/// is confirmed to its client once the standby has flushed it. Each listens on a Unix socket
/// in a folder of its own only; both are stopped when the test process ends.
///
/// ``target(database:)`` names both hosts with `target_session_attrs=read-write`, as clients
/// of such a pair do: libpq connects to whichever is the primary.
///
/// With ``Authentication/debian`` the pair is configured as Debian's `pg_createcluster`
/// configures a server: run by the system user `postgres`, peer authentication on the
/// socket, `scram-sha-256` on 127.0.0.1 (each server on a free port of its own there).
public final class ReplicatedPostgres: @unchecked Sendable {
    /// How clients log in.
    public enum Authentication: Sendable {
        /// Trust, on the sockets only (the tests' own servers).
        case trust
        /// Debian's default `pg_hba.conf`: peer on the socket (the superuser `postgres` only
        /// as the system user `postgres`), `scram-sha-256` on 127.0.0.1, for replication too.
        /// Needs root and the system user `postgres` (the `postgresql` package makes it).
        case debian
    }

    /// The folder holding both servers' data and sockets.
    public let folder: String
    let binaries: String
    public let authentication: Authentication
    /// The ports of the primary and the standby: 5432 on their sockets alone, or free ports
    /// of 127.0.0.1 with ``Authentication/debian``.
    public let primaryPort: Int
    public let standbyPort: Int
    /// The system user the servers run as: `postgres` with ``Authentication/debian``, else
    /// `nobody` when the tests run as root (initdb refuses root), else the tests' own.
    let serverUser: String?
    public var primarySocket: String { folder + "/primary" }
    public var standbySocket: String { folder + "/standby" }

    /// Both hosts, the primary first; libpq picks the one that takes writes.
    public func target(database: String) -> String {
        "host=\(primarySocket),\(standbySocket) port=\(primaryPort),\(standbyPort)"
            + " dbname=\(database) user=postgres target_session_attrs=read-write connect_timeout=2"
    }

    /// The standby alone (reads only, while it is one).
    public func standbyTarget(database: String) -> String {
        "host=\(standbySocket) port=\(standbyPort) dbname=\(database) user=postgres"
            + " connect_timeout=2"
    }

    /// Both hosts, the standby preferred (`target_session_attrs=prefer-standby`), as a
    /// client that reads where it can reaches them.
    public func preferStandbyTarget(database: String) -> String {
        "host=\(standbySocket),\(primarySocket) port=\(standbyPort),\(primaryPort)"
            + " dbname=\(database) user=postgres target_session_attrs=prefer-standby"
            + " connect_timeout=2"
    }

    /// Whether ``Authentication/debian`` can be set up here: root, and the system user
    /// `postgres`.
    public static var canRunAsDebian: Bool {
        geteuid() == 0 && getpwnam("postgres") != nil
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
    }

    /// Debian's default `pg_hba.conf` (PostgreSQL 15, as `pg_createcluster` writes it).
    static let debianHostBasedAuthentication = """
        local   all             postgres                                peer
        local   all             all                                     peer
        host    all             all             127.0.0.1/32            scram-sha-256
        host    all             all             ::1/128                 scram-sha-256
        local   replication     all                                     peer
        host    replication     all             127.0.0.1/32            scram-sha-256
        host    replication     all             ::1/128                 scram-sha-256

        """

    /// Stops the standby's replay: it still receives and flushes the primary's log (so
    /// synchronous commits go on), but shows none of it until ``resumeReplay()``, as a
    /// standby far behind does.
    public func pauseReplay() throws {
        try requireOK(psql("SELECT pg_wal_replay_pause()", on: standbySocket))
    }

    public func resumeReplay() throws {
        try requireOK(psql("SELECT pg_wal_replay_resume()", on: standbySocket))
    }

    /// Waits until the standby has replayed everything the primary wrote so far.
    public func waitForReplay(timeout: TimeInterval = 30) throws {
        let position = try psql("SELECT pg_current_wal_lsn()", on: primarySocket).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let caught = try psql(
                "SELECT pg_last_wal_replay_lsn() >= '\(position)'::pg_lsn", on: standbySocket)
            if caught.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "t" { return }
            usleep(20_000)
        }
        throw PostgresServerError("the standby did not replay \(position) within \(timeout) s")
    }

    private func requireOK(_ output: ProcessOutput) throws {
        guard output.status == 0 else { throw PostgresServerError(output.stderr) }
    }

    public init(authentication: Authentication = .trust) throws {
        guard let binaries = PostgresServer.findBinaries() else {
            throw PostgresServerError(
                "PostgreSQL is not installed (no initdb): install the 'postgresql' package")
        }
        self.binaries = binaries
        self.authentication = authentication
        folder = "/tmp/prefs-repl-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        switch authentication {
        case .trust:
            (primaryPort, standbyPort) = (5432, 5432)
            serverUser = geteuid() == 0 ? "nobody" : nil
        case .debian:
            guard Self.canRunAsDebian else {
                throw PostgresServerError(
                    "Debian's authentication needs root and the system user 'postgres'")
            }
            guard let primary = NginxProxy.freePort(), let standby = NginxProxy.freePort(),
                primary != standby
            else { throw PostgresServerError("no free port on 127.0.0.1") }
            (primaryPort, standbyPort) = (primary, standby)
            serverUser = "postgres"
        }
        let owner = serverUser.flatMap { getpwnam($0)?.pointee }
        for path in [folder, primarySocket, standbySocket] {
            // Debian's socket folder is open to every user (peer says who may log in).
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true,
                attributes: [.posixPermissions: authentication == .debian ? 0o755 : 0o700])
            if let owner {
                try FileManager.default.setAttributes(
                    [.ownerAccountID: owner.pw_uid, .groupOwnerAccountID: owner.pw_gid],
                    ofItemAtPath: path)
            }
        }
        try run(
            "initdb",
            [
                "-D", primarySocket + "/data", "-U", "postgres", "--auth=trust", "-E", "UTF8",
                "--no-locale", "-N",
            ])
        if authentication == .debian {
            try asServer([
                "/bin/sh", "-c",
                "printf '%s' \"$0\" > \(primarySocket)/data/pg_hba.conf",
                Self.debianHostBasedAuthentication,
            ])
        }
        try start("primary", extra: "-c synchronous_standby_names=standby -c synchronous_commit=on")
        try run(
            "pg_basebackup",
            [
                "-D", standbySocket + "/data", "-h", primarySocket, "-p", "\(primaryPort)", "-U",
                "postgres", "-X", "stream", "-c", "fast",
            ])
        // A standby of the primary, named for synchronous replication; once promoted it waits
        // for no standby of its own.
        let standbyData = standbySocket + "/data"
        try asServer([
            "/bin/sh", "-c",
            "touch \(standbyData)/standby.signal && echo \"primary_conninfo = 'host=\(primarySocket) port=\(primaryPort) user=postgres application_name=standby'\" >> \(standbyData)/postgresql.auto.conf",
        ])
        try start("standby", extra: "-c synchronous_standby_names=")
        try waitUntilSynchronous()
        startWatchdog()
    }

    private func start(_ name: String, extra: String) throws {
        let socket = folder + "/" + name
        let port = name == "primary" ? primaryPort : standbyPort
        let addresses = authentication == .debian ? "127.0.0.1" : ""
        try run(
            "pg_ctl",
            [
                "-D", socket + "/data", "-l", socket + "/server.log", "-w", "-o",
                "-c listen_addresses='\(addresses)' -k \(socket) -p \(port) -c fsync=off"
                    + " -c wal_level=replica -c max_wal_senders=5 -c hot_standby=on"
                    + " -c max_connections=50 \(extra)",
                "start",
            ], capturing: false)
    }

    /// Stops the primary the way a crash would: no checkpoint, every connection cut.
    public func killPrimary() throws {
        try run("pg_ctl", ["-D", primarySocket + "/data", "-m", "immediate", "stop"])
    }

    /// Makes the standby the primary, and waits until it takes writes.
    public func promoteStandby() throws {
        try run("pg_ctl", ["-D", standbySocket + "/data", "-w", "promote"])
    }

    /// Stops both servers (whichever still run) and removes their folder.
    public func stop() {
        for socket in [primarySocket, standbySocket] {
            _ = PostgresServer.spawnAndWait(
                asServerCommand([
                    binaries + "/pg_ctl", "-D", socket + "/data", "-m", "immediate", "stop",
                ]))
        }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Runs SQL through psql on one server (`socket`: ``primarySocket`` or
    /// ``standbySocket``).
    /// With ``Authentication/debian``, psql runs as the system user `postgres`, as peer
    /// authentication asks.
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres", on socket: String) throws
        -> ProcessOutput
    {
        let port = socket == primarySocket ? primaryPort : standbyPort
        var command = [
            PostgresServer.psqlPath(binaries), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
            "-d", "host=\(socket) port=\(port) dbname=\(database) user=postgres", "-c", sql,
        ]
        if authentication == .debian { command = asServerCommand(command) }
        return try runProcess(URL(fileURLWithPath: command[0]), Array(command.dropFirst()))
    }

    private func waitUntilSynchronous() throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let state = try psql(
                "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'standby'",
                on: primarySocket)
            if state.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "sync" { return }
            usleep(100_000)
        }
        throw PostgresServerError("the standby did not become synchronous within 30 s")
    }

    private func startWatchdog() {
        let stops = [primarySocket, standbySocket].map { socket in
            PostgresServer.stopScript(
                pidFile: socket + "/data/postmaster.pid", program: "postgres",
                first: asServerCommand([
                    binaries + "/pg_ctl", "-D", socket + "/data", "-m", "immediate", "stop",
                ]))
        }
        let script = """
            while kill -0 \(getpid()) 2>/dev/null; do sleep 0.5; done
            \(stops.joined(separator: "\n"))
            rm -rf \(folder)
            """
        _ = PostgresServer.spawn(["/bin/sh", "-c", script])
    }

    private func asServerCommand(_ command: [String]) -> [String] {
        serverUser.map { ["/usr/sbin/runuser", "-u", $0, "--"] + command } ?? command
    }

    private func asServer(_ command: [String]) throws {
        let status = PostgresServer.spawnAndWait(asServerCommand(command))
        guard status == 0 else { throw PostgresServerError("\(command[0]) exited \(status)") }
    }

    private func run(_ program: String, _ arguments: [String], capturing: Bool = true) throws {
        let command = asServerCommand([binaries + "/" + program] + arguments)
        guard capturing else {
            let status = PostgresServer.spawnAndWait(command)
            guard status == 0 else {
                throw PostgresServerError("\(program) exited \(status)")
            }
            return
        }
        let output = try runProcess(URL(fileURLWithPath: command[0]), Array(command.dropFirst()))
        guard output.status == 0 else {
            throw PostgresServerError(
                "\(program) exited \(output.status): "
                    + output.stderr.split(separator: "\n").suffix(3).joined(separator: " "))
        }
    }
}
