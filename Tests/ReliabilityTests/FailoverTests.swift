import Dispatch
import Foundation
import PrefsKit
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
        confirmed: Int, retried: Int, lost: [Int]
    ) {
        let servers = try ReplicatedPostgres()
        defer { servers.stop() }
        #expect(try servers.psql("CREATE DATABASE prefs", on: servers.primarySocket).status == 0)
        var options = AppDatabase.Options()
        options.account = "alice"
        options.watchesForChanges = false
        options.busyTimeoutMilliseconds = 2_000
        let store = PreferenceStore(
            database: try AppDatabase(path: servers.target(database: "prefs"), options: options))
        // Another process's view: `prefs watch` on the same pair of servers, which must print
        // every confirmed write, those before the failover and after.
        let folder = try TemporaryFolder()
        let printed = folder.path("watch.out")
        FileManager.default.createFile(atPath: printed, contents: nil)
        let watcher = Process()
        watcher.executableURL = prefsExecutable()
        watcher.arguments = [
            "--db", servers.target(database: "prefs"), "--account", "alice", "watch",
        ]
        watcher.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: printed))
        watcher.standardError = FileHandle.nullDevice
        try watcher.run()
        defer {
            watcher.terminate()
            watcher.waitUntilExit()
        }
        usleep(500_000)  // listening before the first write
        let total = killAfter + 40
        var confirmed: [Int] = []
        var failures: [String] = []
        var retried = 0
        let killed = DispatchSemaphore(value: 0)
        for i in 0..<total {
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
                    switch error {
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
        #expect(failures.isEmpty, "failover \(trial): \(failures.prefix(3))")
        // What the new primary holds, read by psql on it alone.
        let rows = try servers.psql(
            "SELECT key || '=' || value FROM preference WHERE account = 'alice'",
            database: "prefs", on: servers.standbySocket)
        let held = Set(rows.stdout.split(separator: "\n").map(String.init))
        let lost = confirmed.filter { !held.contains("k\($0)=\($0)") }
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
        return (confirmed.count, retried, lost)
    }

    @Test func noConfirmedWriteIsLostAcrossAFailover() async throws {
        let trials = Reliability.isLong ? 100 : 1
        var confirmed = 0
        var retried = 0
        var lost: [Int] = []
        for trial in 0..<trials {
            let result = try await failover(trial: trial, killAfter: Int.random(in: 5...60))
            confirmed += result.confirmed
            retried += result.retried
            lost += result.lost
        }
        Reliability.report(
            "PostgreSQL failover: \(trials) failovers, \(confirmed) writes confirmed,"
                + " \(retried) failed in flight and retried (exit 75), \(lost.count) lost")
        // The writer did meet the failover: some write failed as "retry" and went through.
        #expect(retried > 0)
        #expect(confirmed > 0)
        #expect(lost.isEmpty, "lost: \(lost.prefix(10))")
    }
}
