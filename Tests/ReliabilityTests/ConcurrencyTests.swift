import Foundation
import TestSupport
import Testing

/// Several processes, the `prefs` command and library writers, write at once.
@Suite(.serialized) struct ConcurrencyTests {
    @Test func mixedProcessesLoseNoConfirmedWrite() async throws {
        let repetitions = Reliability.isLong ? 5 : 1
        let writes = 250
        for repetition in 0..<repetitions {
            let folder = try TemporaryFolder()
            let db = folder.path("prefs.sqlite")
            #expect(try runPrefs(["--db", db, "set", "start", "\(repetition)"]).status == 0)
            var processes: [ChildProcess] = []
            // Four command-line writers: a write counts once `prefs set` exits 0; 75 (busy)
            // is retried; anything else is recorded as an error.
            for writer in 0..<4 {
                let script = """
                    for i in $(seq 0 \(writes - 1)); do
                      while true; do
                        "$PREFS" --db "$DB" set "cli\(writer)-$i" "$i" --type int 2>>"$ERRORS"; rc=$?
                        if [ $rc = 0 ]; then echo "$i" >> "$CONFIRM"; break; fi
                        if [ $rc != 75 ]; then echo "exit $rc" >> "$ERRORS"; break; fi
                      done
                    done
                    """
                let process = try ChildProcess(
                    "/bin/bash", ["-c", script],
                    environment: [
                        "PREFS": prefsExecutable().path, "DB": db,
                        "CONFIRM": folder.path("cli\(writer).confirm"),
                        "ERRORS": folder.path("cli\(writer).errors"),
                    ], stdout: .inherit, stderr: .inherit)
                processes.append(process)
            }
            for writer in 0..<4 {
                _ = FileManager.default.createFile(
                    atPath: folder.path("lib\(writer).confirm"), contents: nil)
                processes.append(
                    try Reliability.start(
                        Reliability.stressExecutable,
                        [
                            "write", db, "lib\(writer)-", "\(writes)",
                            folder.path("lib\(writer).confirm"),
                        ]))
            }
            // Readers alongside: library reads checking values, and `prefs list`.
            let readers = [
                try Reliability.start(
                    Reliability.stressExecutable, ["read", db, "lib0-", "\(writes)"]),
                try Reliability.start(
                    URL(fileURLWithPath: "/bin/bash"),
                    [
                        "-c",
                        "for i in $(seq 1 40); do \"\(prefsExecutable().path)\" --db \"\(db)\" list >/dev/null || exit 1; done",
                    ]),
            ]
            for process in processes + readers {
                #expect(process.wait() == 0, "\(process.arguments)")
            }
            for writer in 0..<4 {
                let errors =
                    (try? String(
                        contentsOfFile: folder.path("cli\(writer).errors"), encoding: .utf8)) ?? ""
                #expect(!errors.contains("exit "), "cli writer \(writer): \(errors)")
                for kind in ["cli", "lib"] {
                    let prefix = "\(kind)\(writer)-"
                    let confirmed = Reliability.confirmed(folder.path("\(kind)\(writer).confirm"))
                    #expect(confirmed.count == writes, "\(prefix) confirmed \(confirmed.count)")
                    let stored = try Reliability.storedIntegers(db, prefix: prefix)
                    let lost = confirmed.filter { stored["\(prefix)\($0)"] != $0 }
                    #expect(lost.isEmpty, "\(prefix) lost \(lost.count) confirmed writes")
                }
            }
            #expect(try Reliability.integrity(db) == "ok")
        }
    }
}

/// Processes that meet a new file at once: each of them migrates it or waits for the one
/// that does, and none mistakes a migration committed by another for damage.
@Suite(.serialized) struct NewFileRaceTests {
    /// Six `prefs set` and two readers started together on an empty file, twenty times. The
    /// migrator read the schema version and its record of migrations in two transactions,
    /// and a migration another process committed between them made the file look damaged
    /// ("its schema version (10) is not the one its migrations record (12)").
    @Test func processesMeetingAnEmptyFileAtOnceAllMigrateOrReadIt() throws {
        let rounds = Reliability.isLong ? 200 : 20
        let folder = try TemporaryFolder()
        let script = """
            for round in $(seq 1 \(rounds)); do
              db="$FOLDER/r$round.sqlite"
              : > "$db"; chmod 600 "$db"
              for writer in 1 2 3 4 5 6; do
                ( "$PREFS" --db "$db" set "w$writer" "$round" --type int 2>>"$ERRORS"
                  echo "set $?" >> "$CODES" ) &
              done
              for reader in 1 2; do
                ( "$PREFS" --db "$db" list >/dev/null 2>>"$ERRORS"; echo "list $?" >> "$CODES" ) &
              done
              wait
            done
            """
        let codes = folder.path("codes")
        let errors = folder.path("errors")
        let result = try runProcess(
            URL(fileURLWithPath: "/bin/bash"), ["-c", script],
            environment: [
                "PREFS": prefsExecutable().path, "FOLDER": folder.url.path, "CODES": codes,
                "ERRORS": errors, "NO_COLOR": "1",
            ])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = ((try? String(contentsOfFile: codes, encoding: .utf8)) ?? "")
            .split(separator: "\n")
        let failures = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        #expect(lines.count == rounds * 8)
        // A write waits for the lock (exit 0); a list of a file with no schema yet reads
        // nothing (exit 0); 75 would be a lock held past the busy timeout, not damage.
        let unexpected = lines.filter { $0 != "set 0" && $0 != "list 0" }
        #expect(unexpected.isEmpty, "\(unexpected.count) of \(lines.count): \(failures)")
        #expect(!failures.contains("corrupt"), "\(failures)")
    }
}
