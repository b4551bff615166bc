import Foundation
import SQLiteCore
import TestSupport
import Testing

/// Disk full and read-only files and folders: exit 74 with a clear message, nothing lost,
/// writable again once the fault goes.
@Suite struct FaultTests {
    let folder: TemporaryFolder
    let db: String

    init() throws {
        folder = try TemporaryFolder()
        db = folder.path("prefs.sqlite")
    }

    @Test func fileSizeLimitIsDiskFullThenWritableAgain() throws {
        #expect(try runPrefs(["--db", db, "set", "kept", "1"]).status == 0)
        let big = String(repeating: "x", count: 300_000)
        let bigFile = folder.path("big.txt")
        try big.write(toFile: bigFile, atomically: true, encoding: .utf8)
        let limited = try Reliability.shell(
            "ulimit -f 64; \"$PREFS\" --db \"$DB\" set big - < \"$BIG\"",
            environment: ["DB": db, "BIG": bigFile])
        #expect(limited.status == 74, "\(limited.stderr)")
        #expect(limited.stderr.hasPrefix("Error: "))
        #expect(try runPrefs(["--db", db, "get", "kept"]).stdout == "1\n")
        #expect(try runPrefs(["--db", db, "get", "big"]).status == 1)
        let unlimited = try runPrefs(["--db", db, "set", "big", "-"], stdin: big)
        #expect(unlimited.status == 0, "\(unlimited.stderr)")
        #expect(try Reliability.integrity(db) == "ok")
    }

    @Test func smallFileSystemFillsUpThenWorksAgain() throws {
        // A 512 KB tmpfs in a private mount namespace; skipped where namespaces are not allowed.
        let probe = try Reliability.shell("unshare -m --propagation private true")
        guard probe.status == 0 else {
            Reliability.report(
                "skipped: unshare -m is not allowed here (\(probe.stderr.trimmingCharacters(in: .whitespacesAndNewlines)))"
            )
            return
        }
        let mountPoint = folder.path("small")
        try FileManager.default.createDirectory(
            atPath: mountPoint, withIntermediateDirectories: true)
        let script = """
            set -u
            mount -t tmpfs -o size=512k tmpfs "$MNT" || exit 99
            DB="$MNT/prefs.sqlite"
            "$PREFS" --db "$DB" set kept 1 || exit 98
            i=0; rc=0
            while [ $i -lt 400 ]; do
              head -c 20000 /dev/zero | tr '\\0' 'x' | "$PREFS" --db "$DB" set "fill$i" - 2>"$MNT/../err"; rc=$?
              [ $rc != 0 ] && break
              i=$((i+1))
            done
            echo "rc=$rc after=$i"
            cat "$MNT/../err"
            "$PREFS" --db "$DB" get kept || exit 97
            "$PREFS" --db "$DB" delete fill0 >/dev/null 2>&1
            "$PREFS" --db "$DB" delete fill1 >/dev/null 2>&1
            rm -f "$MNT/spare" 2>/dev/null
            mount -o remount,size=4m "$MNT" || exit 96
            "$PREFS" --db "$DB" set again 2 || exit 95
            "$PREFS" --db "$DB" doctor >/dev/null || exit 94
            """
        let result = try Reliability.shell(
            "unshare -m --propagation private bash -c '\(script.replacingOccurrences(of: "'", with: "'\\''"))'",
            environment: ["MNT": mountPoint])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("rc=74"), "\(result.stdout)")
        #expect(
            result.stdout.contains("disk is full") || result.stdout.contains("Error: "),
            "\(result.stdout)")
        #expect(result.stdout.hasSuffix("1\n"), "\(result.stdout)")
    }

    /// Runs prefs as the unprivileged user `nobody` (CI runs as root, which ignores modes).
    func asNobody(_ arguments: [String]) throws -> ProcessOutput {
        try Reliability.shell(
            "setpriv --reuid=nobody --regid=nogroup --clear-groups \"$PREFS\" "
                + arguments.map { "'\($0)'" }.joined(separator: " "))
    }

    @Test(arguments: ["file", "folder", "both"])
    func readOnlyDatabaseAnswersReadsAndRefusesWrites(what: String) throws {
        guard getuid() == 0 else {
            Reliability.report("skipped: needs root to drop to nobody")
            return
        }
        let shared = folder.path("shared")
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        let path = shared + "/prefs.sqlite"
        #expect(try runPrefs(["--db", path, "set", "hasViewedWalkthrough", "true"]).status == 0)
        _ = try Reliability.shell("chmod 755 '\(folder.url.path)'")
        let fileMode = what == "folder" ? "666" : "644"
        let folderMode = what == "file" ? "777" : "555"
        _ = try Reliability.shell("chmod \(fileMode) '\(path)'; chmod \(folderMode) '\(shared)'")
        defer { _ = try? Reliability.shell("chmod 700 '\(shared)'") }
        let before = FileManager.default.contents(atPath: path)

        // Another user's file is refused unless sharing is allowed on purpose.
        let refused = try asNobody(["--db", path, "get", "hasViewedWalkthrough"])
        #expect(refused.status == 77, "\(what): \(refused.stderr)")
        #expect(
            refused.stderr.hasPrefix("Error: Refusing to open '\(path)': '\(path)' is not safe"))
        let read = try asNobody(["--allow-shared", "--db", path, "get", "hasViewedWalkthrough"])
        #expect(read.status == 0, "\(what): \(read.stderr)")
        #expect(read.stdout == "true\n")
        let write = try asNobody([
            "--allow-shared", "--db", path, "set", "hasViewedWalkthrough", "false",
        ])
        #expect(write.status == 74, "\(what): \(write.status) \(write.stderr)")
        #expect(
            write.stderr
                == "Error: '\(path)' is read-only; check the permissions of the file and its folder\n"
        )
        #expect(FileManager.default.contents(atPath: path) == before)
        // nobody may have left a -shm behind, which the owner too opens only on purpose.
        #expect(
            try runPrefs(["--allow-shared", "--db", path, "get", "hasViewedWalkthrough"]).stdout
                == "true\n")
    }
}
