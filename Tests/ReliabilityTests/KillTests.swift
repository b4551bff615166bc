import Foundation
import SQLiteCore
import TestSupport
import Testing

/// kill -9 at random moments: no confirmed write is lost, the file is never corrupt, and the
/// next writer gets the lock at once.
@Suite(.serialized) struct KillTests {
    @Test func killNineDuringWritesLosesNothingConfirmed() async throws {
        let kills = Reliability.isLong ? 1_000 : 100
        let folder = try TemporaryFolder()
        let db = folder.path("prefs.sqlite")
        #expect(try runPrefs(["--db", db, "set", "start", "1"]).status == 0)
        var generator = SystemRandomNumberGenerator()
        var totalConfirmed = 0
        var totalLost = 0
        var slowestNextWriter = 0.0
        for trial in 0..<kills {
            let confirm = folder.path("t\(trial).confirm")
            _ = FileManager.default.createFile(atPath: confirm, contents: nil)
            let writer = try Reliability.start(
                Reliability.stressExecutable, ["write", db, "t\(trial)-", "1000000", confirm])
            try await Task.sleep(for: .milliseconds(Int.random(in: 5...60, using: &generator)))
            writer.send(SIGKILL)
            writer.wait()
            #expect(writer.endingSignal != nil)

            let started = Date()
            let next = try runPrefs(["--db", db, "set", "after-kill", "\(trial)", "--type", "int"])
            slowestNextWriter = max(slowestNextWriter, Date().timeIntervalSince(started))
            #expect(next.status == 0, "\(next.stderr)")

            let confirmed = Reliability.confirmed(confirm)
            totalConfirmed += confirmed.count
            let stored = try Reliability.storedIntegers(db, prefix: "t\(trial)-")
            let lost = confirmed.filter { stored["t\(trial)-\($0)"] != $0 }
            totalLost += lost.count
            #expect(
                lost.isEmpty,
                "trial \(trial): \(lost.count) of \(confirmed.count) confirmed writes lost")
            if trial % 25 == 24 || trial == kills - 1 {
                #expect(try Reliability.integrity(db) == "ok", "after trial \(trial)")
            }
        }
        #expect(totalConfirmed > 0)
        Reliability.report(
            "kill -9: \(kills) kills, \(totalConfirmed) confirmed writes, \(totalLost) lost,"
                + " slowest next writer \(Int(slowestNextWriter * 1000)) ms")
    }

    @Test func killNineDuringCommandLineWrites() async throws {
        let kills = Reliability.isLong ? 200 : 30
        let folder = try TemporaryFolder()
        let db = folder.path("prefs.sqlite")
        var generator = SystemRandomNumberGenerator()
        var confirmedCount = 0
        var lostCount = 0
        for trial in 0..<kills {
            let confirm = folder.path("c\(trial).confirm")
            let script = """
                for i in $(seq 0 100000); do
                  "$PREFS" --db "$DB" set "c\(trial)-$i" "$i" --type int && echo "$i" >> "$CONFIRM"
                done
                """
            // (bash reports each killed child on its stderr: not for the test log.) The loop
            // leads a process group, so that one signal ends it and the prefs it runs: killing
            // them one by one let the loop start another prefs in between, which then held
            // the file while it was read.
            let loop = try ChildProcess(
                "/bin/bash", ["-c", script],
                environment: ["PREFS": prefsExecutable().path, "DB": db, "CONFIRM": confirm],
                newProcessGroup: true)
            try await Task.sleep(for: .milliseconds(Int.random(in: 30...150, using: &generator)))
            // Kill the loop and whatever prefs process it is running, mid-write or not.
            kill(-loop.pid, SIGKILL)
            loop.wait()
            let confirmed = Reliability.confirmed(confirm)
            confirmedCount += confirmed.count
            // The first kill may land while the first prefs is still creating the file: with
            // nothing confirmed there is nothing to look for, and the schema may not exist yet.
            guard !confirmed.isEmpty else { continue }
            let stored = try Reliability.storedIntegers(db, prefix: "c\(trial)-")
            let lost = confirmed.filter { stored["c\(trial)-\($0)"] != $0 }
            lostCount += lost.count
            #expect(
                lost.isEmpty,
                "trial \(trial): \(lost.count) of \(confirmed.count) confirmed writes lost")
        }
        // Whatever moment the last kill hit, the next writer finishes the job and the file is sound.
        let after = try runPrefs(["--db", db, "set", "after-kills", "1", "--type", "int"])
        #expect(after.status == 0, "\(after.stderr)")
        #expect(try Reliability.integrity(db) == "ok")
        Reliability.report(
            "kill -9 of prefs: \(kills) kills, \(confirmedCount) confirmed writes, \(lostCount) lost"
        )
    }

    @Test func killNineDuringMigrationNeverLeavesAHalfMigratedFile() async throws {
        let trials = Reliability.isLong ? 300 : 60
        var generator = SystemRandomNumberGenerator()
        var versions: [Int: Int] = [:]
        for trial in 0..<trials {
            let folder = try TemporaryFolder()
            let db = folder.path("fresh-\(trial).sqlite")
            let process = try Reliability.start(prefsExecutable(), ["--db", db, "set", "a", "1"])
            usleep(UInt32.random(in: 0...25_000, using: &generator))
            process.send(SIGKILL)
            process.wait()
            guard FileManager.default.fileExists(atPath: db) else { continue }
            // Read-write: opening may have to recover the killed writer's journal first.
            let connection = try Connection(path: db, mode: .readWrite)
            let version = try connection.scalar(Int.self, sql: "PRAGMA user_version") ?? -1
            versions[version, default: 0] += 1
            let tables = Set(
                try connection.rows(sql: "SELECT name FROM sqlite_schema WHERE type = 'table'")
                    .compactMap { $0.get(0, as: String.self) })
            let expected: [Int: Set<String>] = [
                0: [],
                1: [
                    "setting", "preference", "preference_declaration", "preference_history",
                    "sqlite_sequence", "schema_migration",
                ],
            ]
            if version == 0 { #expect(tables.isEmpty, "version 0 with tables \(tables)") }
            if version >= 1 { #expect(expected[1]!.isSubset(of: tables)) }
            #expect(
                tables.contains("selection") == (version >= 2),
                "version \(version): \(tables.sorted())")
            #expect(
                tables.contains("bookmark") == (version >= 3),
                "version \(version): \(tables.sorted())")
            let applied =
                try connection.scalar(
                    Int.self,
                    sql: "SELECT count(*) FROM sqlite_schema WHERE name = 'schema_migration'") == 1
                ? try connection.scalar(Int.self, sql: "SELECT count(*) FROM schema_migration")
                    ?? -1 : 0
            #expect(applied == version)
            #expect(try connection.scalar(String.self, sql: "PRAGMA integrity_check") == "ok")
            // And the next writer finishes the job.
            #expect(try runPrefs(["--db", db, "set", "b", "2"]).status == 0)
        }
        let found = versions.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value))" }.joined(
            separator: ", ")
        Reliability.report(
            "kill -9 during migration: \(trials) trials, files found at schema \(found)")
    }
}
