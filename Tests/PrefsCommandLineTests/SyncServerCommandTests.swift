import Foundation
import TestSupport
import Testing

/// `prefs sync` through `prefs-server` with a device token, as the README's Sync section
/// shows it: the binaries alone, a real hub.
@Suite(.serialized) struct SyncServerCommandTests {
    let postgres: PostgresServer
    let database: String
    let server: SyncServerProcess
    let folder: TemporaryFolder

    init() throws {
        postgres = try PostgresServer.start()
        database = try postgres.makeDatabase()
        folder = try TemporaryFolder()
        // The first token migrates the hub (the superuser acts for any account).
        let first = try runProcess(
            SyncServerProcess.executable,
            ["token", "issue", "--account", "setup", "--name", "setup"],
            environment: ["PREFS_HUB": postgres.target(database: database)])
        guard first.status == 0 else { throw PostgresServerError(first.stderr) }
        try postgres.makeLoginRoles([("sync_service", "prefs_service")])
        server = try SyncServerProcess(
            hub: postgres.target(database: database, user: "sync_service"))
    }

    /// `prefs-server token ...` as the server's operator runs it.
    private func tokenCommand(_ arguments: [String]) throws -> ProcessOutput {
        try runProcess(
            SyncServerProcess.executable, ["token"] + arguments,
            environment: ["PREFS_HUB": postgres.target(database: database, user: "sync_service")])
    }

    /// A token issued for the account, in a file only its owner reads.
    private func tokenFile(_ account: String, _ name: String) throws -> String {
        try issuedTokenFile(account, name).path
    }

    private func issuedTokenFile(_ account: String, _ name: String) throws -> (
        path: String, id: String
    ) {
        let issued = try tokenCommand(["issue", "--account", account, "--name", name])
        #expect(issued.status == 0, "\(issued.stderr)")
        let path = folder.path(name + ".token")
        _ = FileManager.default.createFile(
            atPath: path, contents: Data(issued.stdout.utf8), attributes: [.posixPermissions: 0o600]
        )
        let id = issued.stderr.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        return (path, id)
    }

    @Test func twoDevicesThenAServerWriteReachBothThenARevokedTokenIsRefused() throws {
        let url = server.url.absoluteString
        let laptop = try issuedTokenFile("alice", "laptop")
        let phone = try issuedTokenFile("alice", "phone")
        let onLaptop = ["--db", folder.path("laptop.db")]
        let onPhone = ["--db", folder.path("phone.db")]
        #expect(try runPrefs(onLaptop + ["set", "theme", "dark"]).status == 0)
        let first = try runPrefs(onLaptop + ["sync", "--hub", url, "--token-file", laptop.path])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("Pushed 1, pulled 0"), "\(first.stdout)")
        let second = try runPrefs(onPhone + ["sync", "--hub", url, "--token-file", phone.path])
        #expect(second.stdout.contains("pulled 1"), "\(second.stdout) \(second.stderr)")
        #expect(try runPrefs(onPhone + ["get", "theme"]).stdout == "dark\n")
        // The server app writes; the next rounds (the hub remembered) bring it to both.
        let app = try runPrefs(
            [
                "--db", postgres.target(database: database), "--account", "alice", "set",
                "launches", "5",
            ])
        #expect(app.status == 0, "\(app.stderr)")
        for (device, token) in [(onLaptop, laptop.path), (onPhone, phone.path)] {
            let round = try runPrefs(device + ["sync", "--token-file", token])
            #expect(round.stdout.contains("pulled 1"), "\(round.stdout) \(round.stderr)")
            #expect(try runPrefs(device + ["get", "launches"]).stdout == "5\n")
        }
        let status = try runPrefs(onPhone + ["sync", "status"])
        #expect(status.stdout.contains(url), "\(status.stdout)")
        #expect(!status.stdout.contains("prefs_"))
        // Revoked: the phone's next round exits 77; the laptop goes on.
        let listed = try tokenCommand(["list", "--account", "alice"])
        #expect(listed.stdout.contains("phone"), "\(listed.stdout)")
        #expect(try tokenCommand(["revoke", phone.id, "--account", "alice"]).status == 0)
        let refused = try runPrefs(onPhone + ["sync", "--token-file", phone.path])
        #expect(refused.status == 77, "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        // With --json, the error carries the server's status and stable code.
        let json = try runPrefs(onPhone + ["sync", "--token-file", phone.path, "--json"])
        #expect(json.status == 77, "\(json.stderr)")
        let parsed =
            try JSONSerialization.jsonObject(with: Data(json.stderr.utf8)) as? [String: Any]
        let error = parsed?["error"] as? [String: Any]
        #expect(error?["engineCode"] as? String == "HTTP 401 bad_token", "\(json.stderr)")
        #expect((error?["cause"] as? String)?.contains("bad_token") == true, "\(json.stderr)")
        // sync status says why, when, and with which exit code, until a round completes.
        let refusedStatus = try runPrefs(onPhone + ["sync", "status", "--json"])
        let state =
            try JSONSerialization.jsonObject(with: Data(refusedStatus.stdout.utf8))
            as? [String: Any]
        #expect(state?["lastErrorExitCode"] as? Int == 77, "\(refusedStatus.stdout)")
        #expect(
            (state?["lastErrorAt"] as? String)?.hasPrefix("20") == true, "\(refusedStatus.stdout)")
        #expect(
            (state?["lastError"] as? String)?.contains("not valid") == true,
            "\(refusedStatus.stdout)")
        let text = try runPrefs(onPhone + ["sync", "status"]).stdout
        #expect(text.contains(", exit 77)"), "\(text)")
        #expect(try runPrefs(onLaptop + ["sync", "--token-file", laptop.path]).status == 0)
        let cleared = try runPrefs(onLaptop + ["sync", "status"]).stdout
        #expect(cleared.contains("Last error: none"), "\(cleared)")
    }

    @Test func aLargePushGoesCompressedAndComesBackWhole() throws {
        let laptop = try tokenFile("erin", "erin-laptop")
        let phone = try tokenFile("erin", "erin-phone")
        let value = (0..<2000).map { "line \($0)" }.joined(separator: ",")
        let onLaptop = ["--db", folder.path("erin-laptop.db")]
        #expect(try runPrefs(onLaptop + ["set", "notes", value]).status == 0)
        let url = server.url.absoluteString
        #expect(
            try runPrefs(onLaptop + ["sync", "--hub", url, "--token-file", laptop]).status == 0)
        let rounds = server.log.split(separator: "\n").filter { $0.contains("POST /v1/round 200") }
        #expect(rounds.last?.hasSuffix(" gzip") == true, "\(rounds)")
        let onPhone = ["--db", folder.path("erin-phone.db")]
        #expect(try runPrefs(onPhone + ["sync", "--hub", url, "--token-file", phone]).status == 0)
        #expect(try runPrefs(onPhone + ["get", "notes"]).stdout == value + "\n")
        // The phone's round brought the value in its pull, and its answer went compressed
        // (curl asks for gzip).
        let answered = server.log.split(separator: "\n").filter {
            $0.contains("POST /v1/round 200")
        }
        let size = answered.last.flatMap { line in
            line.split(separator: " ").first { $0.hasSuffix("B") && !$0.hasPrefix("in=") }
                .flatMap { Int($0.dropLast()) }
        }
        #expect(answered.count == rounds.count + 1, "\(answered)")
        #expect(size.map { $0 > 0 && $0 < value.utf8.count / 2 } == true, "\(answered)")
    }

    @Test func prefsServersBadInputExitsWithItsCodeAndOneLine() throws {
        for (arguments, environment, code) in [
            (["serve"], [String: String](), Int32(64)),
            (["--hub", "not a connection string"], [:], 64),
            (["--hub", "postgresql:///x", "--pool-size", "0"], [:], 64),
            (["--hub", "postgresql:///x"], ["PREFS_SERVER_POOL_SIZE": "many"], 64),
            (["--hub", "postgresql:///x", "--listen", "nowhere"], [:], 64),
            (["token", "issue", "--account", "a"], ["PREFS_HUB": "postgresql:///x"], 64),
            (
                ["token", "shred", "--account", "a"],
                ["PREFS_HUB": postgres.target(database: database)], 64
            ),
            (["launch"], [:], 64),
            (["--hub", "postgresql:///x", "--pool-sise", "3"], [:], 64),
            (["--hub", "postgresql:///x", "--pool-size", "3", "--pool-size", "4"], [:], 64),
        ] {
            let output = try runProcess(
                SyncServerProcess.executable, arguments,
                environment: environment.merging(["PREFS_HUB": ""]) { first, _ in first })
            #expect(output.status == code, "\(arguments): \(output.stderr)")
            #expect(output.stderr.hasPrefix("prefs-server: "), "\(arguments): \(output.stderr)")
            #expect(
                output.stderr.split(separator: "\n").count == 1, "\(arguments): \(output.stderr)")
        }
        // A hub that cannot be reached: the server does not start, and says why.
        let away = try runProcess(
            SyncServerProcess.executable,
            ["--hub", "host=\(folder.path("nowhere")) dbname=x", "--listen", "127.0.0.1:0"])
        // The code `prefs` gives a hub it cannot reach: try again later.
        #expect(away.status == 75, "\(away.stderr)")
        #expect(away.stderr.split(separator: "\n").count == 1, "\(away.stderr)")
    }

    /// The real binary warns, after doing what it was told, of a password on its command
    /// line (where `ps` shows it) and of running as root; the same hub in PREFS_HUB draws
    /// no word of it.
    @Test func prefsServerWarnsOfAPasswordOnItsCommandLineAndOfRoot() throws {
        let hub = postgres.target(database: database) + " password=not-read-by-trust"
        let listed = try runProcess(
            SyncServerProcess.executable, ["token", "list", "--account", "alice", "--hub", hub])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stderr.contains("prefs-server: warning: the password in --hub"))
        #expect(!listed.stderr.contains("not-read-by-trust"), "\(listed.stderr)")
        let quiet = try runProcess(
            SyncServerProcess.executable, ["token", "list", "--account", "alice"],
            environment: ["PREFS_HUB": hub])
        #expect(quiet.status == 0, "\(quiet.stderr)")
        #expect(!quiet.stderr.contains("password"), "\(quiet.stderr)")
        #expect(quiet.stderr.contains("running as root") == (geteuid() == 0), "\(quiet.stderr)")
        #expect(server.log.contains("warning: running as root") == (geteuid() == 0))
    }

    /// The account a server names is kept in the device file and shown by `sync status`:
    /// a name holding escape sequences and a newline is shown escaped, never acted on by
    /// the terminal.
    @Test func anAccountNameWithEscapeSequencesIsShownEscapedBySyncStatus() throws {
        let token = try tokenFile("alice", "escaped")
        let file = folder.path("escaped.db")
        #expect(
            try runPrefs([
                "--db", file, "sync", "--hub", server.url.absoluteString, "--token-file", token,
            ]).status == 0)
        let tampered = try runProcess(
            URL(fileURLWithPath: "/usr/bin/sqlite3"),
            [
                file,
                "UPDATE sync_state SET account = 'a' || char(27) || ']0;owned' || char(7) || char(10) || 'Pending: 0'",
            ])
        #expect(tampered.status == 0, "\(tampered.stderr)")
        let status = try runPrefs(["--db", file, "sync", "status"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(!status.stdout.contains("\u{1b}") && !status.stdout.contains("\u{7}"))
        #expect(
            status.stdout.contains("(account a\\u{1b}]0;owned\\u{7}\\nPending: 0)"),
            "\(status.stdout)")
    }

    @Test func leavingTellsTheServerWithTheTokenFile() throws {
        let token = try tokenFile("frank", "frank-phone")
        let device = ["--db", folder.path("frank.db")]
        let url = server.url.absoluteString
        #expect(try runPrefs(device + ["sync", "--hub", url, "--token-file", token]).status == 0)
        let left = try runPrefs(device + ["sync", "leave", "--token-file", token])
        #expect(left.status == 0, "\(left.stderr)")
        #expect(!left.stdout.contains("could not be told"), "\(left.stdout)")
        #expect(server.log.contains("POST /v1/forget 200"))
        let status = try runPrefs(device + ["sync", "status"])
        #expect(status.stderr.contains("never synced"), "\(status.stdout) \(status.stderr)")
    }

    @Test func aTokenOnTheCommandLineIsRefused() throws {
        let path = folder.path("device.db")
        let refused = try runPrefs(
            ["--db", path, "sync", "--hub", server.url.absoluteString, "--token", "prefs_abc"])
        #expect(refused.status == 64, "\(refused.stderr)")
        #expect(refused.stderr.contains("--token-file"))
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aTokenFileOthersCanReadIsRefused() throws {
        let token = try tokenFile("alice", "shared")
        chmod(token, 0o644)
        let refused = try runPrefs(
            [
                "--db", folder.path("device.db"), "sync", "--hub", server.url.absoluteString,
                "--token-file", token,
            ])
        #expect(refused.status == 77, "\(refused.stderr)")
    }

    @Test func plainHTTPToAnotherHostIsRefusedBeforeTheTokenLeaves() throws {
        let token = try tokenFile("alice", "travel")
        let path = folder.path("device.db")
        let refused = try runPrefs(
            ["--db", path, "sync", "--hub", "http://sync.example:8080", "--token-file", token])
        #expect(refused.status == 64, "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// A device told "no" stops: its token revoked, `prefs sync --watch` with a change
    /// pending exits 77 with one line, after one refused push, not hundreds.
    @Test func aRevokedTokenStopsWatchWith77() throws {
        let token = try issuedTokenFile("alice", "watcher")
        let device = ["--db", folder.path("watcher.db")]
        #expect(
            try runPrefs(
                device + ["sync", "--hub", server.url.absoluteString, "--token-file", token.path]
            ).status == 0)
        #expect(try runPrefs(device + ["set", "theme", "light"]).status == 0)
        #expect(try tokenCommand(["revoke", token.id, "--account", "alice"]).status == 0)
        let before = server.log.split(separator: "\n").count
        let start = Date()
        let watch = try runPrefs(device + ["sync", "--watch", "--token-file", token.path])
        let seconds = Date().timeIntervalSince(start)
        #expect(watch.status == 77, "\(watch.stderr)")
        #expect(seconds < 10, "\(seconds) s")
        #expect(watch.stderr.split(separator: "\n").count == 1, "\(watch.stderr)")
        let requests = server.log.split(separator: "\n").count - before
        #expect(requests <= 3, "\(requests) requests: \(server.log)")
    }

    /// A server that fails every round (down) is not hammered: `sync --watch` waits longer
    /// after each failure in a row. 20 s of it, counted by the failures it reports.
    @Test func aFailingServerIsRetriedWithGrowingWaits() throws {
        let token = try tokenFile("alice", "patient")
        let device = ["--db", folder.path("patient.db")]
        #expect(
            try runPrefs(
                device + ["sync", "--hub", server.url.absoluteString, "--token-file", token]
            ).status == 0)
        let watch = try ChildProcess(
            prefsExecutable().path, device + ["sync", "--watch", "--token-file", token],
            stderr: .pipe)
        sleep(1)
        // Gone at once (its long poll in flight would hold a SIGTERM back).
        server.process.send(SIGKILL)
        server.process.wait()
        #expect(try runPrefs(device + ["set", "theme", "light"]).status == 0)
        sleep(20)
        watch.send(SIGTERM)
        let (_, errors) = watch.readToEnd()
        watch.wait()
        let failures = String(decoding: errors, as: UTF8.self).split(separator: "\n")
            .filter { $0.contains("trying again") }.count
        // Waits of 0.1 s, 0.2 s, 0.4 s ... (the upper half drawn at random) to a minute: at
        // most 10 rounds in 20 s; the old loop made hundreds.
        #expect((1...10).contains(failures), "\(failures) failed rounds in 20 s")
    }

    /// http:// (to this machine only) never goes through a proxy the environment names,
    /// which would read the token in clear: a proxy on a port where nothing listens changes
    /// nothing.
    @Test func aProxyInTheEnvironmentNeverSeesThePlainHTTPToken() throws {
        let token = try tokenFile("alice", "proxied")
        let device = ["--db", folder.path("proxied.db")]
        for variable in ["http_proxy", "HTTP_PROXY", "ALL_PROXY", "all_proxy"] {
            let round = try runPrefs(
                device + ["sync", "--hub", server.url.absoluteString, "--token-file", token],
                environment: [variable: "http://127.0.0.1:9"])
            #expect(round.status == 0, "\(variable): \(round.stderr)")
        }
    }

    @Test func aServerThatIsDownExits75AndTheChangesWait() throws {
        let token = try tokenFile("alice", "offline")
        let device = ["--db", folder.path("offline.db")]
        #expect(
            try runPrefs(
                device + ["sync", "--hub", server.url.absoluteString, "--token-file", token]
            ).status == 0)
        #expect(try runPrefs(device + ["set", "theme", "light"]).status == 0)
        #expect(server.terminate() == 0)
        let down = try runPrefs(device + ["sync", "--token-file", token])
        #expect(down.status == 75, "\(down.stderr)")
        let status = try runPrefs(device + ["sync", "status"]).stdout
        #expect(status.contains("Pending:    1"), "\(status)")
        // The failed round is what the status says, until a round completes.
        #expect(!status.contains("Last error: none"), "\(status)")
        #expect(status.contains("unavailable"), "\(status)")
    }
}
