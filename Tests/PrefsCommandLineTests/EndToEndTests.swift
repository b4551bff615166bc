import Foundation
import PrefsKit
import SQLiteCore
import TestSupport
import Testing

/// Runs the built `prefs` binary and compares stdout, stderr and the exit code exactly.
@Suite struct EndToEndTests {
    let folder: TemporaryFolder
    let db: String

    init() throws {
        folder = try TemporaryFolder()
        db = folder.path("prefs.sqlite")
    }

    @discardableResult
    func prefs(_ arguments: String..., stdin: String? = nil) throws -> ProcessOutput {
        try runPrefs(["--db", db] + arguments, stdin: stdin)
    }

    func expect(
        _ arguments: [String], stdout: String = "", stderr: String = "", status: Int32 = 0,
        stdin: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let result = try runPrefs(["--db", db] + arguments, stdin: stdin)
        #expect(result.stdout == stdout, sourceLocation: sourceLocation)
        #expect(result.stderr == stderr, sourceLocation: sourceLocation)
        #expect(result.status == status, sourceLocation: sourceLocation)
    }

    func status(page: Int, viewed: Bool) -> String {
        "hasViewedWalkthrough=\(viewed)\nshouldShow=\(!viewed)\ncurrentPage=\(page)\npageCount=3\n"
    }

    @Test func fullOnboardingSession() throws {
        try expect(["onboarding", "status"], stdout: status(page: 0, viewed: false))
        #expect(!FileManager.default.fileExists(atPath: db), "status must not create the database")
        try expect(["onboarding", "next"], stdout: status(page: 1, viewed: false))
        try expect(["onboarding", "next"], stdout: status(page: 2, viewed: false))
        try expect(["onboarding", "next"], stdout: status(page: 2, viewed: true))
        try expect(["get", "hasViewedWalkthrough"], stdout: "true\n")
        try expect(
            ["onboarding", "--json"],
            stdout: """
                {
                  "hasViewedWalkthrough": true,
                  "shouldShow": false,
                  "currentPage": 2,
                  "pageCount": 3
                }

                """)
        try expect(["onboarding", "reset"], stdout: status(page: 0, viewed: false))
        try expect(["onboarding", "skip"], stdout: status(page: 0, viewed: true))
    }

    @Test func carouselClampsAtTheEnd() throws {
        try expect(["selection", "set", "carousel", "2", "--count", "13"], stdout: "2\n")
        for expected in [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 12, 12] {
            try expect(["selection", "next", "carousel"], stdout: "\(expected)\n")
        }
        try expect(
            ["selection", "get", "carousel", "--json"],
            stdout: """
                {
                  "name": "carousel",
                  "index": 12,
                  "count": 13,
                  "policy": "clamp",
                  "itemID": null
                }

                """)
        try expect(
            ["selection", "set", "carousel", "13"],
            stderr: "Error: Index 13 is out of range for 'carousel' (valid: 0...12)\n",
            status: 65)
    }

    @Test func featuredPagerWraps() throws {
        try expect(
            ["selection", "set", "featured", "0", "--count", "4", "--policy", "wrap"], stdout: "0\n"
        )
        try expect(["selection", "previous", "featured"], stdout: "3\n")
        try expect(["selection", "next", "featured"], stdout: "0\n")
        try expect(
            ["selection", "set", "articles", "1", "--count", "5", "--policy", "optional"],
            stdout: "1\n")
        try expect(["selection", "clear", "articles"], stdout: "none\n")
        try expect(
            ["selection", "list"], stdout: "articles\tnone\t5\toptional\nfeatured\t0\t4\twrap\n")
    }

    @Test func movieBookmarksRoundTripThroughExportAndImport() throws {
        let movies =
            try JSONSerialization.jsonObject(
                with: Data(
                    contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                        .deletingLastPathComponent().appendingPathComponent("Fixtures/movies.json"))
            ) as? [[String: Any]] ?? []
        #expect(movies.count == 12)
        for movie in movies {
            let id = "\(movie["id"] ?? "")"
            var arguments = [
                "bookmark", "add", "movie", id, "--title", "\(movie["title"] ?? "")",
                "--category", "\(movie["catagory"] ?? "")", "--url",
                "\(movie["trailerLink"] ?? "")",
                "--note", "\(movie["description"] ?? "")",
            ]
            if movie["isFeaturedMovie"] as? Bool == true { arguments += ["--tag", "featured"] }
            try expect(arguments, stdout: "\(id)\n")
        }
        let grouped = try prefs("bookmark", "list", "--group-by", "category", "--json")
        #expect(grouped.status == 0)
        let groups =
            try JSONSerialization.jsonObject(with: Data(grouped.stdout.utf8))
            as? [String: [[String: Any]]] ?? [:]
        #expect(groups.mapValues(\.count) == ["DC": 4, "Marvel": 4, "Action and adventure": 4])
        #expect(groups["DC"]?.first?["title"] as? String == "Aquaman")

        try expect(
            ["bookmark", "search", "thanos"],
            stdout: "5\tmovie\t5\tAvengers: Infinity War\tMarvel\n")
        try expect(
            ["bookmark", "search", "aveng*", "--limit", "1"],
            stdout: "2\tmovie\t2\tThe Avengers\tMarvel\n")
        try expect(
            ["bookmark", "toggle", "movie", "5", "--title", "Avengers: Infinity War"],
            stdout: "removed\n")
        try expect(
            ["bookmark", "toggle", "trip", "london", "--title", "London"], stdout: "bookmarked\n")

        let export = folder.path("bookmarks.json")
        try expect(
            ["bookmark", "export", export], stderr: "Exported 12 bookmarks to '\(export)'\n")
        let other = folder.path("other.sqlite")
        let imported = try runPrefs(["--db", other, "bookmark", "import", export])
        #expect(imported.status == 0)
        #expect(
            imported.stderr == "Added 12, updated 0, unchanged 0, merged 0 duplicates, skipped 0\n")
        let original = try prefs("bookmark", "list", "--json")
        let copy = try runPrefs(["--db", other, "bookmark", "list", "--json"])
        #expect(copy.stdout == original.stdout)
        let single = folder.path("single.sqlite")
        #expect(
            try runPrefs(["--db", single, "bookmark", "add", "trip", "rome", "--title", "Rome"])
                .status == 0)
        let one = try runPrefs(["--db", single, "bookmark", "export", folder.path("one.json")])
        #expect(one.stderr == "Exported 1 bookmark to '\(folder.path("one.json"))'\n")

        let html = folder.path("bookmarks.html")
        try expect(
            ["bookmark", "export", "--format", "html", html],
            stderr: "Exported 12 bookmarks to '\(html)'\n")
        let fromHTML = try runPrefs([
            "--db", folder.path("third.sqlite"), "bookmark", "import", html,
        ])
        #expect(fromHTML.status == 0)
        let htmlList = try runPrefs(["--db", folder.path("third.sqlite"), "bookmark", "list"])
        let originalList = try prefs("bookmark", "list")
        // Folders group the HTML file by category, so compare the same bookmarks, not the order.
        func withoutIDs(_ text: String) -> [String] {
            text.split(separator: "\n").map { line -> String in
                line.split(separator: "\t").dropFirst().joined(separator: "\t")
            }.sorted()
        }
        #expect(withoutIDs(htmlList.stdout) == withoutIDs(originalList.stdout))
    }

    @Test func preferencesOfEveryTypeWithJSON() throws {
        let cases: [(type: String, input: String, json: String)] = [
            ("bool", "true", "true"), ("int", "-42", "-42"), ("double", "2", "2.0"),
            ("string", "héllo \"q\"", "\"héllo \\\"q\\\"\""),
            ("url", "https://example.com/a?b=1", "\"https://example.com/a?b=1\""),
            ("date", "2026-01-31T12:00:00.250Z", "\"2026-01-31T12:00:00.250000000Z\""),
            ("data", "AAEC/w==", "\"AAEC/w==\""),
            ("json", "{\"b\":[1,2],\"a\":null}", "{\"b\": [1, 2], \"a\": null}"),
            ("array", "[1,\"x\",2.5]", "[1, \"x\", 2.5]"),
            ("dictionary", "{\"k\":true}", "{\"k\": true}"),
        ]
        for item in cases {
            try expect(["set", "k-\(item.type)", item.input, "--type", item.type])
            try expect(
                ["get", "k-\(item.type)", "--json"],
                stdout:
                    "{\n  \"suite\": \"standard\",\n  \"key\": \"k-\(item.type)\",\n  \"type\": \"\(item.type)\",\n"
                    + "  \"value\": \(prettyValue(item.json)),\n  \"isDefault\": false\n}\n")
        }
        try expect(["set", "inferred", "0.5"])
        try expect(
            ["get", "inferred", "--json"],
            stdout:
                "{\n  \"suite\": \"standard\",\n  \"key\": \"inferred\",\n  \"type\": \"double\",\n  \"value\": 0.5,\n  \"isDefault\": false\n}\n"
        )
        try expect(["set", "big", "-"], stdin: String(repeating: "x", count: 1_000_000) + "\n")
        #expect(try prefs("get", "big").stdout.count == 1_000_001)
    }

    /// The pretty layout of a compact JSON value nested one level deep in an object.
    func prettyValue(_ json: String) -> String {
        switch json {
        case "{\"b\": [1, 2], \"a\": null}":
            "{\n    \"b\": [\n      1,\n      2\n    ],\n    \"a\": null\n  }"
        case "[1, \"x\", 2.5]": "[\n    1,\n    \"x\",\n    2.5\n  ]"
        case "{\"k\": true}": "{\n    \"k\": true\n  }"
        default: json
        }
    }

    @Test func watchSeesAWriteFromAnotherProcess() async throws {
        try prefs("set", "volume", "0.8")
        let watcher = try ChildProcess(
            prefsExecutable().path, ["--db", db, "watch", "volume", "--json"], stdout: .pipe)
        let output = watcher.output
        defer { watcher.send(SIGTERM) }
        // Until the watcher prints, it may still be starting: write until it hears a write.
        let last = try handshake(with: output) { try prefs("set", "volume", $0) }
        try prefs("set", "other", "1")
        try prefs("set", "volume", "0.5")
        // The change of `other` would come first: this line being volume's shows it was left out.
        let line = readLine(from: output, timeout: 20) ?? ""
        watcher.send(SIGTERM)
        waitForExit(watcher)
        #expect(watcher.endingSignal == nil)
        #expect(watcher.exitStatus == 0)
        let rest = watcher.readToEnd().output
        #expect(rest.isEmpty)
        #expect(
            line.hasPrefix(
                #"{"suite": "standard", "key": "volume", "type": "double", "value": 0.5, "oldValue": "#
                    + last + #", "changedAt": ""#), "\(line)")
    }

    /// Writes values 0.801, 0.802... through `write` until the watcher on `pipe` prints a
    /// line, then reads what else it printed; returns the last value written.
    func handshake(with pipe: Int32?, _ write: (String) throws -> Void) throws -> String {
        var value = ""
        for step in 1...200 {
            value = "0.\(800 + step)"
            try write(value)
            if readLine(from: pipe, timeout: 0.2) != nil { break }
        }
        while readLine(from: pipe, timeout: 0.3) != nil {}
        return value
    }

    /// Starts `prefs watch` with its stdout on a pipe, and waits until it has the database
    /// open (it may still be setting up its observer: see ``handshake(with:_:)``).
    func startWatching(_ arguments: [String]) throws -> (ChildProcess, Int32?) {
        let watcher = try ChildProcess(
            prefsExecutable().path, ["--db", db, "watch"] + arguments, stdout: .pipe)
        #expect(waitUntilSync { process(watcher.pid, hasOpened: db) })
        return (watcher, watcher.output)
    }

    /// Waits up to 5 s for a process to end, then kills it.
    func waitForExit(_ process: ChildProcess) {
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        process.send(SIGKILL)
        process.wait()
    }

    @Test func watchPrintsEachChangeAndEndsOnInterrupt() throws {
        try prefs("set", "volume", "0.8")
        let (watcher, output) = try startWatching(["volume"])
        defer { watcher.send(SIGKILL) }
        // Reads below block until watch prints; if it never does, end it (and the read).
        let watchdog = DispatchWorkItem { watcher.send(SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 20, execute: watchdog)
        defer { watchdog.cancel() }
        // How fast a change is printed is measured by the benchmark; here, that each is.
        let store = PreferenceStore(database: try AppDatabase(path: db))
        _ = try handshake(with: output) {
            try store.setValue(.double(Double($0) ?? 0), forKey: "volume")
        }
        for step in 1...5 {
            try store.setValue(.double(Double(step) / 10), forKey: "volume")
            #expect(readLine(from: output, timeout: 20) == "volume=0.\(step)\n")
        }
        watcher.send(SIGINT)
        waitForExit(watcher)
        #expect(watcher.endingSignal == nil)
        #expect(watcher.exitStatus == 0)
    }

    @Test func watchEndsWhenItsOutputIsClosed() throws {
        try prefs("set", "volume", "0.8")
        let (watcher, output) = try startWatching([])
        defer { watcher.send(SIGKILL) }
        _ = try handshake(with: output) { try prefs("set", "volume", $0) }
        if let output { close(output) }  // like `prefs watch | head -1` after its line
        try prefs("set", "volume", "0.5")
        try prefs("set", "volume", "0.6")
        waitForExit(watcher)
        #expect(watcher.endingSignal == nil)
        #expect(watcher.exitStatus == 0)
    }

    /// `watch` went deaf once its database was deleted and made again: it now follows the
    /// file at the path, telling what the new file holds and every change after.
    @Test func watchFollowsADatabaseDeletedAndMadeAgain() throws {
        try prefs("set", "volume", "0.8")
        let (watcher, output) = try startWatching([])
        defer { watcher.send(SIGKILL) }
        let watchdog = DispatchWorkItem { watcher.send(SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: watchdog)
        defer { watchdog.cancel() }
        _ = try handshake(with: output) { try prefs("set", "volume", $0) }
        for file in [db, db + "-wal", db + "-shm"] {
            try? FileManager.default.removeItem(atPath: file)
        }
        try prefs("set", "theme", "dark")
        #expect(readLine(from: output, timeout: 20) == "theme=dark\n")
        try prefs("set", "theme", "light")
        #expect(readLine(from: output, timeout: 20) == "theme=light\n")
        watcher.send(SIGINT)
        waitForExit(watcher)
        #expect(watcher.exitStatus == 0)
    }

    /// A file at the path that its maker has not written yet (made, with its first commit
    /// to come): `watch` waits for the schema instead of watching a connection opened on no
    /// tables, which heard nothing after (the race behind a missed first write to a
    /// database deleted and made again, seen under load).
    @Test func watchOfAFileMadeButNotYetWrittenHearsItsFirstWrite() throws {
        #expect(
            FileManager.default.createFile(
                atPath: db, contents: nil, attributes: [.posixPermissions: 0o600]))
        // Its errors: a file made while `set` migrated it once read as damaged, and `watch`
        // ended with that line.
        let errors = db + ".watch-errors"
        let watcher = try ChildProcess(
            prefsExecutable().path, ["--db", db, "watch"], stdout: .pipe, stderr: .file(errors))
        defer { watcher.send(SIGKILL) }
        let output = watcher.output
        let watchdog = DispatchWorkItem { watcher.send(SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: watchdog)
        defer { watchdog.cancel() }
        usleep(300_000)
        try prefs("set", "theme", "dark")
        let said = { (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "" }
        #expect(readLine(from: output, timeout: 20) == "theme=dark\n", "\(said())")
        try prefs("set", "theme", "light")
        #expect(readLine(from: output, timeout: 20) == "theme=light\n", "\(said())")
        watcher.send(SIGINT)
        waitForExit(watcher)
    }

    /// Under `ulimit -n 8` the first task of `watch` could not make its eventfd, and the
    /// process died of SIGILL: it ends with one line and exit 71 (the system refused).
    @Test func watchWithTooFewFileDescriptorsEndsWith71() throws {
        try prefs("set", "volume", "0.8")
        for limit in [6, 8] {
            let result = try runProcess(
                URL(fileURLWithPath: "/bin/sh"),
                [
                    "-c", "ulimit -n \(limit) && exec \"$0\" --db \"$1\" watch",
                    prefsExecutable().path, db,
                ],
                environment: ["NO_COLOR": "1"])
            #expect(result.status == 71, "ulimit -n \(limit): \(result.stderr)")
            #expect(result.stderr.hasPrefix("Error: Cannot watch: Too many open files"))
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        }
    }

    // MARK: - Exit codes from real bad input

    @Test func exitCode1ForMissingThings() throws {
        try expect(
            ["get", "nothing"],
            stderr:
                "Error: No value for 'nothing' in suite 'standard'; set one with 'prefs set nothing VALUE'\n",
            status: 1)
        try expect(
            ["selection", "next", "nope"], stderr: "Error: No selection named 'nope'\n", status: 1)
        try expect(
            ["bookmark", "remove", "--id", "7"], stderr: "Error: No bookmark with id 7\n", status: 1
        )
    }

    @Test func exitCode64ForUsageErrors() throws {
        try expect(
            ["frobnicate"],
            stderr:
                "Error: Unknown command 'frobnicate'\nUsage: prefs <subcommand>\n  See 'prefs --help' for more information.\n",
            status: 64)
        try expect(["set", "", "x"], stderr: "Error: The key cannot be empty\n", status: 64)
        try expect(["reset"], stderr: "Nothing to reset: no database at '\(db)'\n")
        #expect(!FileManager.default.fileExists(atPath: db))
        try prefs("set", "a", "1")
        try expect(
            ["reset"],
            stderr:
                "Error: Remove every preference of suite 'standard' needs --force when standard input is not a terminal\n",
            status: 64)
        try expect(["get", "a"], stdout: "1\n")
    }

    @Test func exitCode65ForBadData() throws {
        try expect(
            ["set", "flag", "maybe", "--type", "bool"],
            stderr:
                "Error: 'maybe' is not a valid bool for 'flag' (expected true or false; yes, no, 1 and 0 are read too)\n",
            status: 65)
        try expect(
            ["set", "n", "99999999999999999999", "--type", "int"],
            stderr:
                "Error: '99999999999999999999' is not a valid int for 'n' (expected an integer from -9223372036854775808 to 9223372036854775807)\n",
            status: 65)
        try expect(
            ["set", "x", "0x1p3", "--type", "double"],
            stderr:
                "Error: '0x1p3' is not a valid double for 'x' (expected a number such as 0.5, or nan, inf, -inf)\n",
            status: 65)
        let notADatabase = folder.path("notes.txt")
        try String(repeating: "just text\n", count: 100).write(
            toFile: notADatabase, atomically: true, encoding: .utf8)
        let before = try Data(contentsOf: URL(fileURLWithPath: notADatabase))
        let result = try runPrefs(["--db", notADatabase, "set", "a", "1"])
        #expect(result.status == 65)
        #expect(
            result.stderr
                == "Error: '\(notADatabase)' is not a prefs database or is corrupt (file is not a database); it was left unchanged\n"
        )
        #expect(try Data(contentsOf: URL(fileURLWithPath: notADatabase)) == before)
        let badImport = folder.path("bad.json")
        try "{\"preferences\": [".write(toFile: badImport, atomically: true, encoding: .utf8)
        try expect(
            ["import", badImport],
            stderr:
                "Error: Malformed import: invalid JSON: unexpected end of input at line 1, column 18 in '\(badImport)'; nothing was imported\n",
            status: 65)
    }

    @Test func doctorFindsAndRepairsAStaleSearchIndexAndOpenPermissions() throws {
        try expect(["bookmark", "add", "trip", "london", "--title", "London"], stdout: "1\n")
        try expect(["bookmark", "add", "trip", "paris", "--title", "Paris"], stdout: "2\n")
        #expect(try runPrefs(["--db", db, "doctor"]).status == 0)
        // The sqlite3 shell renames a bookmark and opens the file to everyone.
        let shell = try Connection(path: db, mode: .readWrite)
        try shell.execute(sql: "UPDATE bookmark SET title = 'Londinium' WHERE item_id = 'london'")
        #expect(chmod(db, 0o644) == 0)
        #expect(chmod(folder.url.path, 0o755) == 0)

        let checked = try runPrefs(["--db", db, "doctor"])
        #expect(checked.status == 65)
        #expect(
            checked.stderr
                == "Error: The bookmark search index of '\(db)' is out of step; run 'prefs doctor --repair'\n"
        )
        #expect(
            checked.stdout.contains(
                "Search index: 2 rows, 1 out of step with the bookmarks (run 'prefs doctor --repair')\n"
            ))
        #expect(
            checked.stdout.contains(
                "Permissions:  file 0644, folder 0755 (others can open the file; run 'prefs doctor --repair')\n"
            ))
        // The stale index does not know the new title.
        try expect(["bookmark", "search", "londinium"])

        let repaired = try runPrefs(["--db", db, "doctor", "--repair"])
        #expect(repaired.status == 0, "\(repaired.stderr)")
        #expect(
            repaired.stderr.hasPrefix(
                """
                Repaired: rebuilt the search index (1 row was out of step)
                Repaired: made '\(db)' private (mode 0644 -> 0600)

                """))
        #expect(repaired.stdout.contains("Status:       healthy\n"))
        var status = stat()
        #expect(stat(db, &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect(
            try runPrefs(["--db", db, "bookmark", "search", "londinium"]).stdout.hasPrefix(
                "1\ttrip\tlondon\tLondinium"))
        let again = try runPrefs(["--db", db, "--json", "doctor", "--repair"])
        #expect(again.status == 0)
        #expect(again.stderr == "")
        #expect(again.stdout.contains("\"searchIndexMismatches\": 0,\n"))
        #expect(again.stdout.contains("\"repaired\": []\n}"))
        #if os(Linux)
            // How other processes' commits would reach observers.
            #expect(again.stdout.contains("\"changeDetection\": \"file events (inotify) on '"))
            #expect(repaired.stdout.contains("Changes:      file events (inotify) on '"))
        #endif
    }

    @Test(
        .enabled(
            if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")))
    func doctorRepairLeavesAnotherUsersFileModeAlone() throws {
        try expect(["bookmark", "add", "trip", "london", "--title", "London"], stdout: "1\n")
        #expect(chmod(db, 0o666) == 0 && chmod(folder.url.path, 0o777) == 0)
        let result = try runProcess(
            URL(fileURLWithPath: "/usr/bin/setpriv"),
            [
                "--reuid=nobody", "--regid=nogroup", "--clear-groups", prefsExecutable().path,
                "--db", db, "--allow-shared", "doctor", "--repair",
            ],
            environment: ["NO_COLOR": "1"])
        // Opened on purpose, another user's file is still never called healthy.
        #expect(result.status == 77, "\(result.stderr)")
        #expect(
            result.stderr
                == "Error: '\(db)' belongs to another user or may be written by others; whoever"
                + " controls it controls what prefs reads\n")
        #expect(result.stdout.contains("(another user owns or may write '\(db)', "))
        #expect(result.stdout.contains("Status:       PROBLEMS FOUND"))
        var status = stat()
        #expect(stat(db, &status) == 0 && status.st_mode & 0o777 == 0o666 && status.st_uid == 0)
    }

    @Test func exitCode66ForMissingInput() throws {
        let missing = folder.path("missing.json")
        try expect(
            ["import", missing],
            stderr: "Error: Cannot read '\(missing)': No such file or directory\n", status: 66)
        try expect(["doctor"], stderr: "Error: No database at '\(db)'\n", status: 66)
    }

    @Test func exitCode73WhenTheDatabaseCannotBeCreated() throws {
        let file = folder.path("plain-file")
        try "x".write(toFile: file, atomically: true, encoding: .utf8)
        let result = try runPrefs(["--db", file + "/prefs.sqlite", "set", "a", "1"])
        #expect(result.status == 73)
        #expect(result.stderr == "Error: Cannot create '\(file)/prefs.sqlite': Not a directory\n")
        try expect(
            ["export", folder.path("no/such/dir/out.json")],
            stderr:
                "Error: Cannot create '\(folder.path("no/such/dir/out.json"))': No such file or directory\n",
            status: 73)
    }

    @Test func exitCode74WhenTheFileCannotGrow() throws {
        try prefs("set", "a", "1")
        let result = try runProcess(
            URL(fileURLWithPath: "/bin/sh"),
            ["-c", "ulimit -f 0; exec \"$0\" --db \"$1\" set big -", prefsExecutable().path, db],
            stdin: String(repeating: "a", count: 200_000))
        let stderr = result.stderr
        #expect(result.status == 74, "\(stderr)")
        #expect(stderr.hasPrefix("Error: "))
        try expect(["get", "a"], stdout: "1\n")
        try expect(
            ["get", "big"],
            stderr:
                "Error: No value for 'big' in suite 'standard'; set one with 'prefs set big VALUE'\n",
            status: 1)
    }

    @Test func exitCode75WhenAnotherProcessHoldsTheLock() throws {
        try prefs("set", "a", "1")
        let holder = try Connection(path: db)
        try holder.execute(sql: "BEGIN IMMEDIATE")
        try holder.execute(sql: "UPDATE preference SET value = 2 WHERE key = 'a'")
        let result = try prefs("set", "a", "3")
        try holder.execute(sql: "ROLLBACK")
        #expect(result.status == 75)
        #expect(result.stderr == "Error: '\(db)' is locked by another process; retry in a moment\n")
        try expect(["get", "a"], stdout: "1\n")
    }

    @Test func helpAndVersion() throws {
        let help = try prefs("--help")
        #expect(help.status == 0)
        #expect(
            help.stdout.hasPrefix(
                "OVERVIEW: Read and write an app's preferences, selections and bookmarks.\n"))
        #expect(help.stdout.contains("\nSUBCOMMANDS:\n"))
        try expect(["--version"], stdout: "prefs 0.1.0\n")
        try expect(
            ["bookmark", "add", "--help"], stdout: try prefs("help", "bookmark", "add").stdout)
    }

    @Test func bashCompletionCompletesCommandsAndChoices() throws {
        let script = try prefs("completion", "bash").stdout
        let scriptFile = folder.path("prefs.bash")
        try script.write(toFile: scriptFile, atomically: true, encoding: .utf8)
        func complete(_ words: [String]) throws -> String {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            return try runProcess(
                URL(fileURLWithPath: "/bin/bash"),
                [
                    "-c",
                    "source '\(scriptFile)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _prefs; echo \"${COMPREPLY[*]}\"",
                ]
            ).stdout
        }
        #expect(try complete(["prefs", "sel"]) == "selection\n")
        #expect(try complete(["prefs", "selection", "n"]) == "next\n")
        #expect(
            try complete(["prefs", "set", "k", "v", "--type", "d"])
                == "double date data dictionary\n")
        #expect(try complete(["prefs", "--suite", "x", "bookmark", "list", "--so"]) == "--sort\n")
        // Each command's own values: the formats that command accepts, shells, help topics.
        #expect(try complete(["prefs", "export", "--format", ""]) == "json plist binary-plist\n")
        #expect(try complete(["prefs", "bookmark", "export", "--format", ""]) == "json html\n")
        #expect(
            try complete(["prefs", "bookmark", "import", "--format", ""])
                == "json html chromium firefox safari\n")
        #expect(try complete(["prefs", "completion", "f"]) == "fish\n")
        #expect(try complete(["prefs", "help", "ren"]) == "rename\n")
        #expect(try complete(["prefs", "help", "bookmark", "im"]) == "import\n")
    }

    /// The same cases through the real zsh (bashcompinit) and fish, where installed
    /// (`.ci/run` installs both).
    @Test(.enabled(if: Installed.zsh, "zsh is not installed"))
    func zshCompletesTheSameWay() throws { try completesTheSameWay(shell: "zsh") }

    @Test(.enabled(if: Installed.fish, "fish is not installed"))
    func fishCompletesTheSameWay() throws { try completesTheSameWay(shell: "fish") }

    func completesTheSameWay(shell: String) throws {
        let executable = "/usr/bin/\(shell)"
        let scriptFile = folder.path("prefs.\(shell)")
        try prefs("completion", shell).stdout.write(
            toFile: scriptFile, atomically: true, encoding: .utf8)
        func complete(_ words: [String]) throws -> [String] {
            let arguments: [String]
            if shell == "zsh" {
                let quoted = words.map { "'\($0)'" }.joined(separator: " ")
                arguments = [
                    "-f", "-c",
                    "source '\(scriptFile)'; setopt ksharrays; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1);"
                        + " _prefs; print -rl -- \"${COMPREPLY[@]}\"",
                ]
            } else {
                arguments = [
                    "-c", "source '\(scriptFile)'; complete -C'\(words.joined(separator: " "))'",
                ]
            }
            let result = try runProcess(URL(fileURLWithPath: executable), arguments)
            #expect(result.stderr == "", "\(shell): \(result.stderr)")
            let candidates = result.stdout.split(separator: "\n").map {
                String($0.split(separator: "\t").first ?? "")
            }
            // zsh matches the candidates against the word itself (its compgen offers them all).
            let typed = words.last ?? ""
            return candidates.filter { $0.hasPrefix(typed) }.sorted()
        }
        #expect(
            try complete(["prefs", "export", "--format", ""]) == ["binary-plist", "json", "plist"])
        #expect(try complete(["prefs", "bookmark", "export", "--format", ""]) == ["html", "json"])
        #expect(
            try complete(["prefs", "bookmark", "import", "--format", ""]) == [
                "chromium", "firefox", "html", "json", "safari",
            ])
        #expect(try complete(["prefs", "completion", "f"]) == ["fish"])
        #expect(try complete(["prefs", "sel"]) == ["selection"])
        #expect(try complete(["prefs", "selection", "n"]) == ["next"])
        #expect(
            try complete(["prefs", "set", "k", "v", "--type", "d"]) == [
                "data", "date", "dictionary", "double",
            ])
        #expect(try complete(["prefs", "--db", "x", "bookmark", "list", "--so"]) == ["--sort"])
    }

    /// Where a key goes, every shell offers the keys of the database the command line names
    /// (stored and declared, through `prefs list --names --all`), and nothing where a value
    /// goes.
    @Test(.enabled(if: Installed.bash, "bash is not installed"))
    func bashCompletesKeyNamesFromTheDatabase() throws {
        try keyNamesCompleteFromTheDatabase(shell: "bash")
    }

    @Test(.enabled(if: Installed.zsh, "zsh is not installed"))
    func zshCompletesKeyNamesFromTheDatabase() throws {
        try keyNamesCompleteFromTheDatabase(shell: "zsh")
    }

    @Test(.enabled(if: Installed.fish, "fish is not installed"))
    func fishCompletesKeyNamesFromTheDatabase() throws {
        try keyNamesCompleteFromTheDatabase(shell: "fish")
    }

    func keyNamesCompleteFromTheDatabase(shell: String) throws {
        let executable = shell == "bash" ? "/bin/bash" : "/usr/bin/\(shell)"
        try expect(["set", "hasViewedWalkthrough", "true"], stdout: "")
        try expect(["--suite", "widget", "set", "widgetColor", "red"], stdout: "")
        try expect(["declare", "launchCount", "--type", "int", "--default", "0"], stdout: "")
        #expect(
            try prefs("list", "--names", "--all").stdout == "hasViewedWalkthrough\nlaunchCount\n")
        #expect(try prefs("list", "--names").stdout == "hasViewedWalkthrough\n")
        let scriptFile = folder.path("keys.\(shell)")
        try prefs("completion", shell).stdout.write(
            toFile: scriptFile, atomically: true, encoding: .utf8)
        let path =
            prefsExecutable().deletingLastPathComponent().path + ":"
            + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        func complete(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let arguments: [String]
            switch shell {
            case "bash":
                arguments = [
                    "-c",
                    "source '\(scriptFile)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _prefs; printf '%s\\n' \"${COMPREPLY[@]}\"",
                ]
            case "zsh":
                arguments = [
                    "-f", "-c",
                    "source '\(scriptFile)'; setopt ksharrays; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1);"
                        + " _prefs; print -rl -- \"${COMPREPLY[@]}\"",
                ]
            default:
                arguments = [
                    "-c", "source '\(scriptFile)'; complete -C'\(words.joined(separator: " "))'",
                ]
            }
            let result = try runProcess(
                URL(fileURLWithPath: executable), arguments, environment: ["PATH": path])
            #expect(result.stderr == "", "\(shell): \(result.stderr)")
            let typed = words.last ?? ""
            return result.stdout.split(separator: "\n").map {
                String($0.split(separator: "\t").first ?? "")
            }.filter { $0.hasPrefix(typed) && !$0.hasPrefix("-") }.sorted()
        }
        #expect(
            try complete(["prefs", "--db", db, "get", ""]) == [
                "hasViewedWalkthrough", "launchCount",
            ])
        #expect(try complete(["prefs", "--db", db, "describe", "la"]) == ["launchCount"])
        #expect(try complete(["prefs", "--db", db, "rename", "has"]) == ["hasViewedWalkthrough"])
        #expect(try complete(["prefs", "--db", db, "watch", "a", ""]).count == 2)
        #expect(
            try complete(["prefs", "--db", db, "--suite", "widget", "delete", ""]) == [
                "widgetColor"
            ])
        // Where the value goes, no key names.
        #expect(try complete(["prefs", "--db", db, "set", "hasViewedWalkthrough", ""]) == [])
        #expect(try complete(["prefs", "--db", db, "rename", "launchCount", ""]) == [])
        // No database there: nothing offered, no error printed.
        #expect(try complete(["prefs", "--db", folder.path("none.sqlite"), "get", ""]) == [])
    }
}
