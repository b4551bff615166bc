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
