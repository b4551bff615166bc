import Foundation
import TestSupport
import Testing

/// The `prefs` command against a PostgreSQL server: the same commands, `--account`, and the
/// server's refusals as exit 77.
@Suite struct PostgreSQLCommandTests {
    let server: PostgresServer
    let database: String

    init() throws {
        server = try PostgresServer.start()
        database = try server.makeDatabase()
    }

    var target: String { server.target(database: database) }

    @Test func setGetListAndBookmarksForAnAccount() throws {
        let first = try runPrefs([
            "--db", target, "--account", "alice", "set", "hasViewedWalkthrough", "true",
        ])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(
            try runPrefs(["--db", target, "--account", "alice", "get", "hasViewedWalkthrough"])
                .stdout == "true\n")
        // Another account has its own values: nothing stored for bob.
        let other = try runPrefs([
            "--db", target, "--account", "bob", "get", "hasViewedWalkthrough",
        ])
        #expect(other.status == 1)
        let added = try runPrefs([
            "--db", target, "--account", "alice", "bookmark", "add", "trip", "london", "--title",
            "London",
            "--tag", "uk",
        ])
        #expect(added.status == 0, "\(added.stderr)")
        let found = try runPrefs([
            "--db", target, "--account", "alice", "bookmark", "search", "lond*",
        ])
        #expect(found.stdout.contains("London"), "\(found.stdout)")
        let environment = try runPrefs(
            ["get", "hasViewedWalkthrough"],
            environment: ["PREFS_DB": target, "PREFS_ACCOUNT": "alice"])
        #expect(environment.stdout == "true\n")
    }

    /// Through PgBouncer in transaction pooling, said with `PREFS_POOLER=transaction`: two
    /// accounts of one role, one after the other, each read their own value.
    @Test(.enabled(if: PgBouncer.isInstalled, "PgBouncer is not installed"))
    func behindPgBouncerEachAccountReadsItsOwn() throws {
        let pooler = try PgBouncer.start()
        let through = pooler.target(database: database)
        let environment = ["PREFS_POOLER": "transaction"]
        for round in 0..<5 {
            for account in ["alice", "bob"] {
                let set = try runPrefs(
                    ["--db", through, "--account", account, "set", "owner", "\(account) \(round)"],
                    environment: environment)
                #expect(set.status == 0, "\(set.stderr)")
                let read = try runPrefs(
                    ["--db", through, "--account", account, "get", "owner"],
                    environment: environment)
                #expect(read.stdout == "\(account) \(round)\n", "\(read.stderr)")
            }
        }
    }

    /// `declare --device-local` reads back with its flag, on a server store as on a file.
    @Test func aDeviceLocalDeclarationReadsBackWithItsFlag() throws {
        let folder = try TemporaryFolder()
        for store in [["--db", target, "--account", "alice"], ["--db", folder.path("local.db")]] {
            let declared = try runPrefs(
                store + [
                    "declare", "windowWidth", "--type", "int", "--default", "800", "--device-local",
                ])
            #expect(declared.status == 0, "\(declared.stderr)")
            let described = try runPrefs(store + ["--json", "describe", "windowWidth"])
            #expect(described.stdout.contains("\"deviceLocal\": true"), "\(described.stdout)")
            let text = try runPrefs(store + ["describe", "windowWidth"])
            #expect(text.stdout.contains("device-local: yes"), "\(text.stdout)")
        }
    }

    @Test func aRefusalByTheServerExits77() throws {
        // The schema (and the roles it makes) exists once an administrator (here the
        // superuser) opened the database.
        #expect(try runPrefs(["--db", target, "--account", "admin", "get", "x"]).status == 1)
        try server.makeLoginRoles([("carol", "prefs_account")])
        let carol = server.target(database: database, user: "carol")
        let refused = try runPrefs(["--db", carol, "--account", "dave", "set", "x", "1"])
        #expect(refused.status == 77)
        #expect(refused.stderr.hasPrefix("Error: Permission denied by '"))
        #expect(
            refused.stderr.hasSuffix(
                "the role 'carol' may act only for its own account, not 'dave'\n"))
        // Reads too: not "no value".
        let read = try runPrefs(["--db", carol, "--account", "dave", "get", "x"])
        #expect(read.status == 77, "\(read.stderr)")
        #expect(try runPrefs(["--db", carol, "set", "x", "1"]).status == 0)
    }

    /// A login the server refuses: libpq frames the server's words ("connection to server
    /// ... failed: FATAL:  role ... does not exist"), and prefs' own words once read as part of
    /// PostgreSQL's FATAL line. They are now set apart: what the server said, then the account.
    @Test func aRefusedLoginSaysWhatTheServerSaidApartFromPrefsOwnWords() throws {
        let refused = try runPrefs([
            "--db", server.target(database: database, user: "nosuch_role"), "--account", "alice",
            "get", "x",
        ])
        #expect(refused.status == 77, "\(refused.stderr)")
        #expect(!refused.stderr.contains("FATAL"), "\(refused.stderr)")
        #expect(
            refused.stderr.hasSuffix(
                ": the server said: role \"nosuch_role\" does not exist; this login acts for"
                    + " account 'alice'\n"), "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1)
    }

    /// A role the server asks a password of, given none: libpq says "no password
    /// supplied", and that is a refusal to log in (77), not a server to retry (75).
    @Test func aLoginWithoutItsPasswordExits77() throws {
        let role = "pw\(UInt32.random(in: 0...UInt32.max))"
        // The store made first (its group roles with it).
        #expect(try runPrefs(["--db", target, "--account", "alice", "get", "x"]).status == 1)
        try server.makeLoginRoles([(role, "prefs_account")])
        #expect(
            try server.psql("ALTER ROLE \(role) PASSWORD 'not-given'", database: database).status
                == 0)
        // This role alone logs in by password (the line before the others wins).
        let hba = server.folder + "/data/pg_hba.conf"
        let lines = try String(contentsOfFile: hba, encoding: .utf8)
        try ("local all \(role) scram-sha-256\n" + lines).write(
            toFile: hba, atomically: false, encoding: .utf8)
        #expect(try server.psql("SELECT pg_reload_conf()").status == 0)
        let refused = try runPrefs(
            ["--db", server.target(database: database, user: role), "get", "theme"],
            environment: ["PGPASSWORD": "", "PGPASSFILE": server.folder + "/no-such-pgpass"])
        #expect(refused.status == 77, "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
    }

    @Test func aPasswordIsNeverPrinted() throws {
        let target = "postgresql://alice:pa55word@/\(database)?host=/nonexistent-folder"
        let result = try runPrefs(["--db", target, "get", "x"])
        #expect(result.status == 75)
        #expect(!result.stderr.contains("pa55word"))
        #expect(result.stderr.contains("user=alice password=***"), "\(result.stderr)")
        let json = try runPrefs(["--db", target, "--json", "get", "x"])
        #expect(!json.stderr.contains("pa55word") && !json.stdout.contains("pa55word"))
    }

    @Test func anotherApplicationsDatabaseIsLeftUnchanged() throws {
        let other = try server.makeDatabase()
        #expect(try server.psql("CREATE TABLE orders (id integer)", database: other).status == 0)
        let target = server.target(database: other)
        let refused = try runPrefs(["--db", target, "--account", "alice", "set", "a", "1"])
        #expect(refused.status == 65)
        #expect(refused.stderr.hasPrefix("Error: '"), "\(refused.stderr)")
        #expect(refused.stderr.contains(" dbname=\(other) "), "\(refused.stderr)")
        #expect(
            refused.stderr.hasSuffix(
                "' is another application's database; it was left unchanged\n"))
        let tables = try server.psql(
            "SELECT string_agg(tablename, ',') FROM pg_tables WHERE schemaname = 'public'",
            database: other)
        #expect(tables.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "orders")
    }

    @Test func doctorReportsTheIsolation() throws {
        #expect(try runPrefs(["--db", target, "--account", "alice", "set", "a", "1"]).status == 0)
        let report = try runPrefs(["--db", target, "--account", "alice", "doctor"])
        #expect(report.status == 0, "\(report.stderr)")
        #expect(
            report.stdout.contains(
                "Isolation:    row-level security enabled and forced on 12 of 12 tables; role"
                    + " 'postgres' acting for account 'alice'\n"))
        #expect(report.stdout.hasSuffix("Status:       healthy\n"))
    }

    @Test func watchPrintsAChangeOfItsAccountOnly() throws {
        #expect(
            try runPrefs(["--db", target, "--account", "alice", "set", "volume", "0.5"]).status == 0
        )
        let watcher = try ChildProcess(
            prefsExecutable().path, ["--db", target, "--account", "alice", "watch", "volume"],
            stdout: .pipe)
        defer { watcher.send(SIGKILL) }
        let watchdog = DispatchWorkItem { watcher.send(SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 20, execute: watchdog)
        defer { watchdog.cancel() }
        // The watcher listens from its first statements on; once its session is idle on the
        // server, it has read the current value and waits for changes.
        #expect(
            waitUntilSync {
                let sessions = try? server.psql(
                    """
                    SELECT count(*) FROM pg_stat_activity
                    WHERE datname = current_database() AND pid <> pg_backend_pid()
                        AND backend_type = 'client backend' AND state = 'idle'
                    """, database: database)
                return sessions?.stdout == "1\n"
            })
        #expect(
            try runPrefs(["--db", target, "--account", "bob", "set", "volume", "0.9"]).status == 0)
        #expect(
            try runPrefs(["--db", target, "--account", "alice", "set", "volume", "0.7"]).status == 0
        )
        let line = readLine(from: watcher.output, timeout: 20)
        #expect(line == "volume=0.7\n")
        watcher.send(SIGINT)
        #expect(watcher.wait() == 0)
    }
}

/// A value libpq refuses in a connection string is the user's mistake, not a server that
/// will come back: exit 64 with one line naming it, never 75 "retry in a moment".
@Suite struct PostgreSQLConnectionStringTests {
    @Test(arguments: [
        "host=/tmp/prefs-no-server dbname=x sslmode=bogus",
        "postgresql:///x?host=/tmp/prefs-no-server&target_session_attrs=nonsense",
        "host=/tmp/prefs-no-server dbname=x port=abc",
    ])
    func aBadOptionValueIsAUsageErrorNotARetry(target: String) throws {
        let read = try runPrefs(["--db", target, "--account", "a", "get", "x"])
        #expect(read.status == 64, "\(read.stderr)")
        #expect(read.stderr.hasPrefix("Error: Invalid connection string '"), "\(read.stderr)")
        #expect(read.stderr.split(separator: "\n").count == 1, "\(read.stderr)")
        let folder = try TemporaryFolder()
        let device = folder.path("device.db")
        #expect(try runPrefs(["--db", device, "set", "a", "1"]).status == 0)
        let round = try runPrefs(["--db", device, "sync", "--hub", target, "--account", "a"])
        #expect(round.status == 64, "\(round.stderr)")
    }
}
