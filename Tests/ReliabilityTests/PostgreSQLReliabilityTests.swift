import Foundation
import PrefsKit
import PrefsPostgreSQL
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Real processes writing through a real PostgreSQL server: many at once, and through a
/// crash of the server.
@Suite(.serialized) struct PostgreSQLReliabilityTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    /// The account the tests act for: the test server's superuser is a service role, which
    /// must name one.
    static let account = "reliability"

    /// A database acting for the account.
    func open(_ target: String) throws -> AppDatabase {
        var options = PostgreSQLOptions()
        options.account = Self.account
        return try AppDatabase.postgreSQL(target, options: options)
    }

    /// The values each writer of a run confirmed, read back through PrefsKit.
    func stored(_ target: String) throws -> [String: PreferenceValue] {
        try PreferenceStore(database: try open(target)).storedValues()
    }

    @Test func sixteenProcessesWriteAtOnceAndLoseNothing() throws {
        let server = try PostgresServer.start()
        let target = server.target(database: try server.makeDatabase())
        _ = try open(target)  // migrated once, before the writers race
        let writers = 16
        let count = Reliability.isLong ? 2_000 : 150
        var processes: [ChildProcess] = []
        for writer in 0..<writers {
            processes.append(
                try Reliability.start(
                    Reliability.stressExecutable, ["write", target, "w\(writer)-", String(count)],
                    environment: ["PREFS_ACCOUNT": Self.account]))
        }
        #expect(processes.allSatisfy { $0.wait() == 0 })
        let values = try stored(target)
        var lost = 0
        for writer in 0..<writers {
            for index in 0..<count where values["w\(writer)-\(index)"] != .int(index) { lost += 1 }
        }
        #expect(lost == 0, "\(lost) of \(writers * count) writes lost")
        Reliability.report(
            "PostgreSQL: \(writers) processes, \(writers * count) writes, \(lost) lost")
    }

    @Test func aServerCrashLosesNoConfirmedWriteAndTheWriterRecovers() throws {
        let server = try PostgresServer.startPrivate()
        let target = server.target(database: try server.makeDatabase())
        _ = try open(target)
        let confirm = folder.path("confirm")
        _ = FileManager.default.createFile(atPath: confirm, contents: nil)
        let count = 400
        let errors = folder.path("writer.stderr")
        let writer = try ChildProcess(
            Reliability.stressExecutable.path, ["write", target, "k", String(count), confirm],
            environment: ["PREFS_ACCOUNT": Self.account], stderr: .file(errors))
        // Wait for some confirmed writes, then stop the server as a crash would.
        #expect(waitUntilSync { Reliability.confirmed(confirm).count >= 50 })
        try server.stopImmediately()
        let beforeRestart = Reliability.confirmed(confirm).count
        try server.startAgain()
        let status = writer.wait()
        let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        #expect(status == 0, "the writer did not recover: \(said)")
        let confirmed = Reliability.confirmed(confirm)
        #expect(confirmed.count == count)
        let values = try stored(target)
        let lost = confirmed.filter { values["k\($0)"] != .int($0) }
        #expect(lost.isEmpty, "\(lost.count) of \(confirmed.count) confirmed writes lost")
        Reliability.report(
            "PostgreSQL crash: \(beforeRestart) writes confirmed before the stop, "
                + "\(confirmed.count) in all, \(lost.count) lost")
    }

    @Test func theCommandLineReportsAnOutageAs75AndWorksOnceTheServerIsBack() throws {
        let server = try PostgresServer.startPrivate()
        let target = server.target(database: try server.makeDatabase())
        #expect(
            try runPrefs(["--db", target, "--account", Self.account, "set", "a", "1"]).status == 0)
        try server.stopImmediately()
        let refused = try runPrefs(["--db", target, "--account", Self.account, "set", "a", "2"])
        #expect(refused.status == 75)
        #expect(refused.stderr.hasPrefix("Error: The server of '"), "\(refused.stderr)")
        #expect(refused.stderr.contains("' is unavailable ("), "\(refused.stderr)")
        try server.startAgain()
        #expect(
            try runPrefs(["--db", target, "--account", Self.account, "get", "a"]).stdout == "1\n")
        #expect(
            try runPrefs(["--db", target, "--account", Self.account, "set", "a", "2"]).status == 0)
    }

    @Test func anObserverReconnectsAfterACrashAndMissesNoChange() async throws {
        let server = try PostgresServer.startPrivate()
        let target = server.target(database: try server.makeDatabase())
        let observed = PreferenceStore(database: try open(target))
        let seen = Collected<Int>()
        let stream = observed.values(for: Prefs.Key("counter", default: 0))
        let task = Task { for await value in stream { seen.append(value) } }
        defer { task.cancel() }
        #expect(await seen.wait(upTo: 10) { $0 == [0] })
        try server.stopImmediately()
        try server.startAgain()
        // Written while the observer's connection is still the dead one.
        let writer = PreferenceStore(database: try open(target))
        try writer.set(1, for: Prefs.Key("counter", default: 0))
        try writer.set(2, for: Prefs.Key("counter", default: 0))
        #expect(await seen.wait(upTo: 20) { $0.last == 2 }, "heard \(seen.all)")
        #expect(observed[Prefs.Key("counter", default: 0)] == 2)
    }
}
