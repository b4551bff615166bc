import Dispatch
import Foundation
import PrefsKit
import PrefsPostgreSQL
import TestSupport
import Testing

/// A primary killed while a store writes to it, and its synchronous standby promoted: the
/// store finds the new primary by itself (libpq's multi-host string,
/// `target_session_attrs=read-write`), writes that failed in flight fail as "retry" (exit
/// 75), and every write confirmed to its caller is on the new primary. Once in CI; with
/// `Tests/reliability --long`, 100 failovers at random moments.
@Suite(.serialized) struct FailoverTests {
    /// One failover under a writer: how many writes were confirmed, and which are missing
    /// from the new primary.
    func failover(trial: Int, killAfter: Int) async throws -> (
        confirmed: Int, retried: Int, setConfirmed: Int, setRetried: Int, lost: [String]
    ) {
        let servers = try ReplicatedPostgres()
        defer { servers.stop() }
        #expect(try servers.psql("CREATE DATABASE prefs", on: servers.primarySocket).status == 0)
        var options = PostgreSQLOptions()
        options.account = "alice"
        options.watchesForChanges = false
        options.busyTimeoutMilliseconds = 2_000
        let store = PreferenceStore(
            database: try AppDatabase.postgreSQL(
                servers.target(database: "prefs"), options: options))
        // Another process's view: `prefs watch` on the same pair of servers, which must print
        // every confirmed write, those before the failover and after.
        let folder = try TemporaryFolder()
        let printed = folder.path("watch.out")
        #expect(FileManager.default.createFile(atPath: printed, contents: nil))
        let watcher = try ChildProcess(
            prefsExecutable().path,
            ["--db", servers.target(database: "prefs"), "--account", "alice", "watch"],
            stdout: .file(printed))
        defer {
            watcher.send(SIGTERM)
            watcher.wait()
        }
        // Two devices of another account, each a file synced by a `prefs sync --watch`
        // process; this process writes to the first one's file throughout.
        let target = servers.target(database: "prefs")
        let devices = [folder.path("phone.db"), folder.path("laptop.db")]
        var syncers: [ChildProcess] = []
        defer {
            for syncer in syncers {
                syncer.send(SIGTERM)
                syncer.wait()
            }
        }
        for device in devices {
            let first = try runPrefs(
                ["--db", device, "sync", "--hub", target, "--account", "carol"])
            #expect(first.status == 0, "failover \(trial): first round: \(first.stderr)")
            syncers.append(
                try ChildProcess(
                    prefsExecutable().path,
                    ["--db", device, "sync", "--hub", target, "--account", "carol", "--watch"]))
        }
        var deviceOptions = AppDatabase.Options()
        deviceOptions.watchesForChanges = false
        let phone = PreferenceStore(
            database: try AppDatabase(path: devices[0], options: deviceOptions))
        // `prefs set` processes of a third account, one after another, each write retried
        // while it exits 75 (and only then).
        let setter = SetterLoop(target: target, account: "bob")
        setter.start()
        usleep(500_000)  // listening before the first write
        let total = killAfter + 40
        var confirmed: [Int] = []
        var failures: [String] = []
        var retried = 0
        let killed = DispatchSemaphore(value: 0)
        for i in 0..<total {
            try phone.setValue(.int(i), forKey: "d\(i)")
            if i == killAfter {
                // Killed from another thread while this one goes on writing.
                DispatchQueue.global().async {
                    do {
                        try servers.killPrimary()
                        usleep(UInt32.random(in: 0...200_000))
                        try servers.promoteStandby()
                    } catch {
                        Issue.record("failover \(trial): \(error)")
                    }
                    killed.signal()
                }
            }
            // A write is retried until it is confirmed; each failure must say "retry".
            let deadline = Date().addingTimeInterval(30)
            while true {
                do {
                    try store.setValue(.int(i), forKey: "k\(i)")
                    confirmed.append(i)
                    break
                } catch let error as DatabaseError {
                    switch error.kind {
                    case .busy, .unavailable, .timedOut: retried += 1
                    default: failures.append("k\(i): \(error)")
                    }
                    guard Date() < deadline else {
                        failures.append("k\(i): no primary within 30 s: \(error)")
                        break
                    }
                    usleep(20_000)
                } catch {
                    failures.append("k\(i): \(error)")
                    break
                }
            }
        }
        killed.wait()
        let set = setter.stop()
        #expect(failures.isEmpty, "failover \(trial): \(failures.prefix(3))")
        #expect(
            set.failures.isEmpty, "failover \(trial): prefs set: \(set.failures.prefix(3))")
        #expect(set.confirmed.count > 0, "failover \(trial): no prefs set was confirmed")
        // What the new primary holds, read by psql on it alone.
        let rows = try servers.psql(
            "SELECT key || '=' || value FROM preference WHERE account = 'alice'",
            database: "prefs", on: servers.standbySocket)
        let held = Set(rows.stdout.split(separator: "\n").map(String.init))
        var lost = confirmed.filter { !held.contains("k\($0)=\($0)") }.map { "k\($0)" }
        let setRows = try servers.psql(
            "SELECT key || '=' || value FROM preference WHERE account = 'bob'",
            database: "prefs", on: servers.standbySocket)
        let setHeld = Set(setRows.stdout.split(separator: "\n").map(String.init))
        lost += set.confirmed.filter { !setHeld.contains("c\($0)=\($0)") }.map { "c\($0)" }
        // The devices' `sync --watch` processes carry on across the failover: every write
        // made on the phone reaches the new primary and the laptop.
        let written = (0..<total).map { "d\($0)=\($0)" }
        func onHub() throws -> Set<String> {
            let rows = try servers.psql(
                "SELECT key || '=' || value FROM preference WHERE account = 'carol'",
                database: "prefs", on: servers.standbySocket)
            return Set(rows.stdout.split(separator: "\n").map(String.init))
        }
        let laptop = PreferenceStore(
            database: try AppDatabase(path: devices[1], options: deviceOptions))
        func onLaptop() throws -> Set<String> {
            Set(
                try laptop.storedValues().compactMap { key, value in
                    value.coercedInteger.map { "\(key)=\($0)" }
                })
        }
        let devicesCaughtUp = try await waitUntil(upTo: 60) {
            let hub = try onHub()
            let laptop = try onLaptop()
            return written.allSatisfy { hub.contains($0) && laptop.contains($0) }
        }
        let missing = try written.filter { !(try onHub().contains($0)) }
        let notArrived = try written.filter { !(try onLaptop().contains($0)) }
        #expect(
            devicesCaughtUp,
            "failover \(trial): sync --watch: \(missing.count) of \(total) phone writes not on the hub, \(notArrived.count) not on the laptop"
        )
        // The watcher catches up from the history: every confirmed key printed. (A write
        // retried after its commit's answer was lost is printed twice, rightly.)
        let expected = confirmed.map { "k\($0)=\($0)" }
        func printedLines() -> Set<String> {
            Set(
                ((try? String(contentsOfFile: printed, encoding: .utf8)) ?? "")
                    .split(separator: "\n").map(String.init))
        }
        let caughtUp = await waitUntil(upTo: 60) {
            let lines = printedLines()
            return expected.allSatisfy { lines.contains($0) }
        }
        let lines = printedLines()
        let missed = expected.filter { !lines.contains($0) }
        #expect(
            caughtUp,
            "failover \(trial): prefs watch printed \(lines.count) lines, missed \(missed.count): \(missed.prefix(5))"
        )
        return (confirmed.count, retried, set.confirmed.count, set.retried, lost)
    }

    @Test func noConfirmedWriteIsLostAcrossAFailover() async throws {
        let trials = Reliability.isLong ? 100 : 1
        var confirmed = 0
        var retried = 0
        var setConfirmed = 0
        var setRetried = 0
        var lost: [String] = []
        for trial in 0..<trials {
            let result = try await failover(trial: trial, killAfter: Int.random(in: 5...60))
            confirmed += result.confirmed
            retried += result.retried
            setConfirmed += result.setConfirmed
            setRetried += result.setRetried
            lost += result.lost
        }
        Reliability.report(
            "PostgreSQL failover: \(trials) failovers; a library store: \(confirmed) writes"
                + " confirmed, \(retried) failed in flight and retried; prefs set processes:"
                + " \(setConfirmed) confirmed, \(setRetried) exited 75 and were run again;"
                + " \(lost.count) confirmed writes lost; two devices' sync --watch caught up"
                + " each time")
        // The writer did meet the failover: some write failed as "retry" and went through.
        #expect(retried > 0)
        #expect(confirmed > 0)
        #expect(lost.isEmpty, "lost: \(lost.prefix(10))")
    }
}

/// `prefs set` processes run one after another on another thread until stopped: each write
/// is run again while it exits 75, and counted confirmed when it exits 0.
final class SetterLoop: @unchecked Sendable {
    let target: String
    let account: String
    private let lock = NSLock()
    private var isStopped = false
    private var confirmed: [Int] = []
    private var retried = 0
    private var failures: [String] = []
    private let done = DispatchSemaphore(value: 0)

    init(target: String, account: String) {
        self.target = target
        self.account = account
    }

    func start() {
        Thread.detachNewThread { [self] in
            var i = 0
            while !lock.withLock({ isStopped }) {
                do {
                    let output = try runPrefs(
                        ["--db", target, "--account", account, "set", "c\(i)", "\(i)"])
                    lock.withLock {
                        switch output.status {
                        case 0:
                            confirmed.append(i)
                            i += 1
                        case 75: retried += 1
                        default:
                            failures.append("c\(i): exit \(output.status): \(output.stderr)")
                            i += 1
                        }
                    }
                    if output.status == 75 { usleep(20_000) }
                } catch {
                    lock.withLock { failures.append("c\(i): \(error)") }
                    break
                }
            }
            done.signal()
        }
    }

    func stop() -> (confirmed: [Int], retried: Int, failures: [String]) {
        lock.withLock { isStopped = true }
        done.wait()
        return lock.withLock { (confirmed, retried, failures) }
    }
}
