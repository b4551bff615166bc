import Foundation

/// A primary and a streaming standby made with `pg_basebackup`, with synchronous
/// replication (`synchronous_standby_names = 'standby'`, `synchronous_commit = on`): a commit
/// is confirmed to its client once the standby has flushed it. Each listens on a Unix socket
/// in a folder of its own only; both are stopped when the test process ends.
///
/// ``target(database:)`` names both hosts with `target_session_attrs=read-write`, as clients
/// of such a pair do: libpq connects to whichever is the primary.
public final class ReplicatedPostgres: @unchecked Sendable {
    /// The folder holding both servers' data and sockets.
    public let folder: String
    let binaries: String
    public var primarySocket: String { folder + "/primary" }
    public var standbySocket: String { folder + "/standby" }

    /// Both hosts, the primary first; libpq picks the one that takes writes.
    public func target(database: String) -> String {
        "host=\(primarySocket),\(standbySocket) port=5432,5432 dbname=\(database) user=postgres"
            + " target_session_attrs=read-write connect_timeout=2"
    }

    /// The standby alone (reads only, while it is one).
    public func standbyTarget(database: String) -> String {
        "host=\(standbySocket) port=5432 dbname=\(database) user=postgres connect_timeout=2"
    }

    /// Both hosts, the standby preferred (`target_session_attrs=prefer-standby`), as a
    /// client that reads where it can reaches them.
    public func preferStandbyTarget(database: String) -> String {
        "host=\(standbySocket),\(primarySocket) port=5432,5432 dbname=\(database) user=postgres"
            + " target_session_attrs=prefer-standby connect_timeout=2"
    }

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

    public init() throws {
        guard let binaries = PostgresServer.findBinaries() else {
            throw PostgresServerError(
                "PostgreSQL is not installed (no initdb): install the 'postgresql' package")
        }
        self.binaries = binaries
        folder = "/tmp/prefs-repl-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        for path in [folder, primarySocket, standbySocket] {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            if geteuid() == 0 {
                try FileManager.default.setAttributes(
                    [.ownerAccountID: 65534, .groupOwnerAccountID: 65534], ofItemAtPath: path)
            }
        }
        try run(
            "initdb",
            [
                "-D", primarySocket + "/data", "-U", "postgres", "--auth=trust", "-E", "UTF8",
                "--no-locale", "-N",
            ])
        try start("primary", extra: "-c synchronous_standby_names=standby -c synchronous_commit=on")
        try run(
            "pg_basebackup",
            [
                "-D", standbySocket + "/data", "-h", primarySocket, "-p", "5432", "-U", "postgres",
                "-X", "stream", "-c", "fast",
            ])
        // A standby of the primary, named for synchronous replication; once promoted it waits
        // for no standby of its own.
        let standbyData = standbySocket + "/data"
        try asServer([
            "/bin/sh", "-c",
            "touch \(standbyData)/standby.signal && echo \"primary_conninfo = 'host=\(primarySocket) port=5432 user=postgres application_name=standby'\" >> \(standbyData)/postgresql.auto.conf",
        ])
        try start("standby", extra: "-c synchronous_standby_names=")
        try waitUntilSynchronous()
        startWatchdog()
    }

    private func start(_ name: String, extra: String) throws {
        let socket = folder + "/" + name
        try run(
            "pg_ctl",
            [
                "-D", socket + "/data", "-l", socket + "/server.log", "-w", "-o",
                "-c listen_addresses='' -k \(socket) -p 5432 -c fsync=off -c wal_level=replica"
                    + " -c max_wal_senders=5 -c hot_standby=on -c max_connections=50 \(extra)",
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
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres", on socket: String) throws
        -> ProcessOutput
    {
        try runProcess(
            URL(fileURLWithPath: PostgresServer.psqlPath(binaries)),
            [
                "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d",
                "host=\(socket) port=5432 dbname=\(database) user=postgres", "-c", sql,
            ])
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
        geteuid() == 0 ? ["/usr/sbin/runuser", "-u", "nobody", "--"] + command : command
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
