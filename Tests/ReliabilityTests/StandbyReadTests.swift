import Dispatch
import Foundation
import PrefsKit
import PrefsPostgreSQL
import PrefsSync
import TestSupport
import Testing

/// Pulls and read-only stores served by a streaming standby of the hub
/// (``AppDatabase/Options/standbyTarget``), with the standby's replay paused and resumed
/// (`pg_wal_replay_pause()`) so that it lags as far as a test wants. The rules: a pull never
/// moves the device's cursor past what the answering server holds, and a device that just
/// pushed never reads a state older than its push.
@Suite(.serialized) struct StandbyReadTests {
    let servers: ReplicatedPostgres
    let folder: TemporaryFolder
    let database = "prefs"

    init() throws {
        servers = try ReplicatedPostgres()
        folder = try TemporaryFolder()
        let made = try servers.psql("CREATE DATABASE \(database)", on: servers.primarySocket)
        guard made.status == 0 else { throw PostgresServerError(made.stderr) }
        var owner = PostgreSQLOptions()
        owner.account = "admin"
        owner.watchesForChanges = false
        _ = try AppDatabase.postgreSQL(servers.target(database: database), options: owner)
        try servers.waitForReplay()
    }

    func device(_ name: String) throws -> AppDatabase {
        var options = AppDatabase.Options()
        options.synchronous = .off
        options.watchesForChanges = false
        return try AppDatabase(path: folder.path(name + ".db"), options: options)
    }

    @discardableResult
    func sync(_ device: AppDatabase, standbyWait: Int? = nil) throws -> SyncReport {
        var options = PostgreSQLOptions()
        if let standbyWait {
            options.standbyTarget = servers.standbyTarget(database: database)
            options.standbyWaitMilliseconds = standbyWait
        }
        return try DeviceSync(
            database: device, hub: servers.target(database: database), account: "alice",
            hubOptions: options
        ).sync()
    }

    /// The number of each preference's latest change on the primary.
    func sequences() throws -> [String: Int64] {
        let output = try servers.psql(
            "SELECT key || '=' || sequence FROM sync_change"
                + " WHERE account = 'alice' AND entity = 'preference'",
            database: database, on: servers.primarySocket)
        return Dictionary(
            output.stdout.split(separator: "\n").compactMap { line in
                let parts = line.split(separator: "=")
                guard parts.count == 2, let number = Int64(parts[1]) else { return nil }
                return (String(parts[0]), number)
            }, uniquingKeysWith: max)
    }

    /// A writer device syncs through the primary while a reader pulls from the standby,
    /// whose replay is paused and resumed at random: after every one of the reader's rounds,
    /// every change numbered up to its cursor is on the reader (the cursor never passed a
    /// change it did not get), and once the standby caught up the reader equals the writer.
    @Test(arguments: [UInt64(1), 2, 3])
    func aPullFromALaggingStandbyNeverMovesTheCursorPastWhatItHolds(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let writer = try device("writer\(seed)")
        let reader = try device("reader\(seed)")
        let writes = PreferenceStore(database: writer)
        let reads = PreferenceStore(database: reader)
        try sync(writer)
        try sync(reader)  // a first round reads the hub
        var latest: [String: Int] = [:]
        var paused = false
        var fromStandby = 0
        var behind = 0
        defer { if paused { try? servers.resumeReplay() } }
        for step in 0..<40 {
            switch random.next() % 4 {
            case 0:
                if paused { try servers.resumeReplay() } else { try servers.pauseReplay() }
                paused.toggle()
            case 1, 2:
                let key = "k\(random.next() % 8)"
                try writes.setValue(.int(step), forKey: key)
                latest[key] = step
                try sync(writer)
            default:
                let report = try sync(reader, standbyWait: 0)
                if report.pulledFromStandby { fromStandby += 1 }
                let cursor = try #require(try DeviceSync.status(of: reader)).cursor
                let numbers = try sequences()
                if numbers.values.contains(where: { $0 > cursor }) { behind += 1 }
                for (key, number) in numbers where number <= cursor {
                    // The key's latest change is numbered up to the cursor: the reader has it.
                    let held = try reads.value(forKey: key)?.coercedInteger
                    #expect(
                        held == latest[key],
                        "seed \(seed), step \(step): \(key) #\(number) <= cursor \(cursor)")
                }
            }
        }
        if paused { try servers.resumeReplay() }
        paused = false
        try servers.waitForReplay()
        try sync(reader, standbyWait: 5_000)
        for (key, value) in latest {
            #expect(try reads.value(forKey: key)?.coercedInteger == value, "seed \(seed): \(key)")
        }
        // The standby answered, and while it lagged: the rule was exercised.
        #expect(fromStandby > 0, "seed \(seed): the standby never answered")
        #expect(behind > 0, "seed \(seed): the reader was never behind the primary")
    }

    /// A device pushes while the standby's replay is paused: its pull may not read the
    /// standby (which lacks the push) and reads the hub once the wait is over; with replay
    /// resumed during a longer wait, it reads the standby once that holds the push. Either
    /// way its cursor reaches its own push.
    @Test func aDeviceThatJustPushedReadsItsOwnWrites() throws {
        let phone = try device("phone")
        let store = PreferenceStore(database: phone)
        try sync(phone)
        try servers.pauseReplay()
        var resumed = false
        defer { if !resumed { try? servers.resumeReplay() } }
        try store.setValue(.bool(true), forKey: "hasViewedWalkthrough")
        let waited = try sync(phone, standbyWait: 300)
        #expect(!waited.pulledFromStandby, "the standby lacks the push: the hub must answer")
        let pushed = try #require(try sequences().values.max())
        #expect(try #require(try DeviceSync.status(of: phone)).cursor >= pushed)

        try store.setValue(.int(2), forKey: "launchCount")
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) {
            try? servers.resumeReplay()
        }
        resumed = true
        let caughtUp = try sync(phone, standbyWait: 10_000)
        #expect(caughtUp.pulledFromStandby, "the standby caught up within the wait")
        let pushedAgain = try #require(try sequences().values.max())
        #expect(pushedAgain > pushed)
        #expect(try #require(try DeviceSync.status(of: phone)).cursor >= pushedAgain)
    }

    /// A read-only store on the standby, reached through a multi-host string that prefers
    /// standbys: it reads what the primary wrote once replayed, and a write through it is
    /// refused, changing nothing.
    @Test func aReadOnlyStoreReadsTheStandby() throws {
        var options = PostgreSQLOptions()
        options.account = "alice"
        options.watchesForChanges = false
        options.cachesValues = false
        let primary = PreferenceStore(
            database: try AppDatabase.postgreSQL(
                servers.target(database: database), options: options))
        try primary.setValue(.string("from the primary"), forKey: "motto")
        try servers.waitForReplay()
        options.isReadOnly = true
        let standby = PreferenceStore(
            database: try AppDatabase.postgreSQL(
                servers.preferStandbyTarget(database: database), options: options))
        #expect(try standby.value(forKey: "motto") == .string("from the primary"))
        #expect(throws: DatabaseError.self) { try standby.setValue(.int(1), forKey: "motto") }
        let onStandby = try servers.psql(
            "SELECT pg_is_in_recovery()", database: database, on: servers.standbySocket)
        #expect(onStandby.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "t")
        #expect(try primary.value(forKey: "motto") == .string("from the primary"))
    }

    /// `prefs sync` pulls from the standby that `PREFS_STANDBY_DB` names, and says so.
    @Test func theCommandLinePullsFromTheStandbyItIsGiven() throws {
        let hub = servers.target(database: database)
        let writer = folder.path("cli-writer.db")
        let reader = folder.path("cli-reader.db")
        for path in [writer, reader] {
            let first = try runPrefs(["--db", path, "sync", "--hub", hub, "--account", "dora"])
            #expect(first.status == 0, "\(first.stderr)")
        }
        #expect(try runPrefs(["--db", writer, "set", "motto", "hello"]).status == 0)
        #expect(try runPrefs(["--db", writer, "sync"]).status == 0)
        try servers.waitForReplay()
        let round = try runPrefs(
            ["--db", reader, "--json", "sync"],
            environment: ["PREFS_STANDBY_DB": servers.standbyTarget(database: database)])
        #expect(round.status == 0, "\(round.stderr)")
        let report =
            try JSONSerialization.jsonObject(with: Data(round.stdout.utf8)) as? [String: Any]
        #expect(report?["pulledFromStandby"] as? Bool == true, "\(round.stdout)")
        #expect(report?["pulled"] as? Int == 1)
        #expect(try runPrefs(["--db", reader, "get", "motto"]).stdout == "hello\n")
    }

    /// A "standby" that is another database (a mistyped string, another service's hub),
    /// further ahead for the same account: its changes must not reach the device, which
    /// reads the hub instead.
    @Test func aStandbyThatIsAnotherDatabaseIsNotRead() throws {
        let other = "elsewhere"
        #expect(try servers.psql("CREATE DATABASE \(other)", on: servers.primarySocket).status == 0)
        let stranger = try device("stranger")
        let strangerStore = PreferenceStore(database: stranger)
        let strangerSync = try DeviceSync(
            database: stranger, hub: servers.target(database: other), account: "alice")
        // A push a number: its numbers run past the hub's.
        for index in 0..<20 {
            try strangerStore.setValue(.int(index), forKey: "foreign\(index)")
            try strangerSync.sync()
        }
        let phone = try device("phone-elsewhere")
        try PreferenceStore(database: phone).setValue(.string("mine"), forKey: "motto")
        try sync(phone)
        var options = PostgreSQLOptions()
        options.standbyTarget = servers.target(database: other)
        options.standbyWaitMilliseconds = 0
        let round = try DeviceSync(
            database: phone, hub: servers.target(database: database), account: "alice",
            hubOptions: options
        ).sync()
        #expect(!round.pulledFromStandby)
        #expect(try PreferenceStore(database: phone).value(forKey: "foreign0") == nil)
        #expect(try PreferenceStore(database: phone).value(forKey: "motto") == .string("mine"))
    }

    /// A standby that is a path (a typo, or a file meant as a hub) is refused before
    /// anything is opened: one line naming it, exit 64, no file made there, and the device
    /// file not made either.
    @Test func aStandbyThatIsAFileIsRefused() throws {
        let device = folder.path("refused.db")
        let mistaken = folder.path("not-a-server.db")
        let round = try runPrefs(
            [
                "--db", device, "sync", "--hub", servers.target(database: database), "--account",
                "erin",
            ],
            environment: ["PREFS_STANDBY_DB": mistaken])
        #expect(round.status == 64)
        #expect(
            round.stderr
                == "Error: the standby (PREFS_STANDBY_DB) must be a PostgreSQL"
                + " connection string, not '\(mistaken)'\n")
        #expect(!FileManager.default.fileExists(atPath: mistaken))
        #expect(!FileManager.default.fileExists(atPath: device))
    }
}
