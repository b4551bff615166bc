import Foundation
import PrefsKit
import TestSupport
import Testing

/// What people trying prefs on a fresh clone ran into, each fixed and held here.
@Suite struct WhatUsersRanIntoTests {
    /// `prefs export --format plist | prefs import -` turned JSON into a string and a float
    /// into a double without a word: property lists have neither type.
    @Test func aPropertyListExportThatWouldChangeTypesIsRefusedWithoutLossy() throws {
        let folder = try TemporaryFolder()
        let db = ["--db", folder.path("prefs.sqlite")]
        _ = try runPrefs(db + ["set", "ratio", "1.5", "--type", "float"])
        _ = try runPrefs(db + ["set", "layout", #"{"columns":3}"#, "--type", "json"])
        _ = try runPrefs(db + ["set", "home", "https://example.com", "--type", "url"])
        _ = try runPrefs(db + ["set", "count", "3"])

        let refused = try runPrefs(db + ["export", "--format", "plist"])
        #expect(refused.status == 65)
        #expect(refused.stdout == "")
        #expect(refused.stderr.contains("'ratio' (float) would become a double"))
        #expect(refused.stderr.contains("'layout' (json) would become a string"))
        #expect(refused.stderr.contains("'home' (url) would become a string"))
        #expect(refused.stderr.contains("--lossy"))
        #expect(!refused.stderr.contains("'count'"))

        let lossy = try runPrefs(db + ["export", "--format", "plist", "--lossy"])
        #expect(lossy.status == 0)
        #expect(lossy.stdout.contains("<key>ratio</key>"))
        #expect(lossy.stderr.hasPrefix("Warning: 'home' (url) would become a string"))

        // JSON keeps every type through a round trip.
        let json = try runPrefs(db + ["export"])
        let other = ["--db", folder.path("other.sqlite")]
        #expect(try runPrefs(other + ["import", "-"], stdin: json.stdout).status == 0)
        let described = try runPrefs(other + ["--json", "list"])
        for (key, type) in [("ratio", "float"), ("layout", "json"), ("home", "url")] {
            #expect(
                try runPrefs(other + ["get", "--raw", "--json", key]).stdout.contains(
                    "\"type\": \"\(type)\""), "\(key): \(described.stdout)")
        }
        // The flag belongs to property lists.
        #expect(try runPrefs(db + ["export", "--lossy"]).status == 64)
    }

    /// `prefs delete KEY` left the value in `prefs history`, and so in the file.
    @Test func deleteForgetLeavesNoValueInTheHistoryOrTheFile() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("prefs.sqlite")
        let db = ["--db", path]
        let secret = "hunter2-\(UUID().uuidString)"
        _ = try runPrefs(db + ["set", "token", secret])
        _ = try runPrefs(db + ["set", "token", secret + "-rotated"])
        _ = try runPrefs(db + ["set", "other", "kept"])
        #expect(try runPrefs(db + ["delete", "token"]).status == 0)
        // A plain delete keeps the history: what it keeps is documented.
        #expect(try runPrefs(db + ["history", "token"]).stdout.contains(secret))

        let forgotten = try runPrefs(db + ["--json", "delete", "--forget", "token"])
        #expect(forgotten.status == 0, "\(forgotten.stderr)")
        #expect(forgotten.stdout.contains("\"forgottenChanges\": 2"))
        let history = try runPrefs(db + ["history", "token"]).stdout
        #expect(!history.contains(secret))
        #expect(history.contains("(removed)"))
        #expect(try runPrefs(db + ["get", "other"]).stdout == "kept\n")
        for suffix in ["", "-wal"] {
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: path + suffix))) ?? Data()
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "the secret is in '\(suffix)'")
        }
        // A key that never had a value has nothing to forget.
        #expect(try runPrefs(db + ["delete", "--forget", "never"]).status == 1)
    }

    /// The library's form: the stored value and its history, in one transaction.
    @Test func forgetValueRemovesTheHistoryOfOneKeyOnly() throws {
        let folder = try TemporaryFolder()
        let database = try AppDatabase(path: folder.path("prefs.sqlite"))
        let store = PreferenceStore(database: database)
        try store.setValue(.string("a"), forKey: "token")
        try store.setValue(.string("b"), forKey: "token")
        try store.setValue(.string("c"), forKey: "kept")
        #expect(try store.forgetValue(forKey: "token") == 2)
        #expect(try store.storedValue(forKey: "token") == nil)
        let changes = try store.history(forKey: "token")
        #expect(changes.count == 1)
        #expect(changes.first?.value == nil && changes.first?.oldValue == nil)
        #expect(try store.history(forKey: "kept").count == 1)
    }

    /// `prefs bookmark toggle trip trip-2` on a bookmarked item asked for `--title`.
    @Test func toggleOffNeedsNoTitle() throws {
        let folder = try TemporaryFolder()
        let db = ["--db", folder.path("prefs.sqlite")]
        #expect(
            try runPrefs(db + ["bookmark", "toggle", "trip", "trip-2", "--title", "Rome"]).stdout
                == "bookmarked\n")
        let off = try runPrefs(db + ["bookmark", "toggle", "trip", "trip-2"])
        #expect(off.status == 0, "\(off.stderr)")
        #expect(off.stdout == "removed\n")
        // Adding still needs a title: said on one line, exit 64, nothing made.
        let on = try runPrefs(db + ["bookmark", "toggle", "trip", "trip-2"])
        #expect(on.status == 64)
        #expect(on.stderr.hasPrefix("Error: Missing expected option '--title <title>'"))
        #expect(try runPrefs(db + ["bookmark", "list"]).stdout == "")
    }

    /// `prefs doctor` said "5 preferences" where `prefs list --all` showed one: it counted
    /// every suite.
    @Test func doctorCountsPreferencesPerSuite() throws {
        let folder = try TemporaryFolder()
        let db = ["--db", folder.path("prefs.sqlite")]
        _ = try runPrefs(db + ["set", "a", "1"])
        for key in ["b", "c", "d", "e"] {
            _ = try runPrefs(db + ["--suite", "work", "set", key, "1"])
        }
        let doctor = try runPrefs(db + ["doctor"])
        #expect(doctor.stdout.contains("5 preferences (standard 1, work 4)"), "\(doctor.stdout)")
        let json = try runPrefs(db + ["--json", "doctor"]).stdout
        #expect(json.contains("\"standard\": 1"))
        #expect(json.contains("\"work\": 4"))
    }

    /// `prefs doctor` on a file in /tmp advised `chmod 700` on /tmp: a folder every user
    /// may write (sticky, like /tmp) is named as such, with the advice to move the file; a
    /// folder of the user's own that others can list still gets `chmod 700`.
    @Test func doctorInASharedFolderLikeTmpAdvisesNoChmodOfIt() throws {
        let folder = try TemporaryFolder()
        let shared = folder.path("tmp")
        #expect(mkdir(shared, 0o700) == 0 && chmod(shared, 0o1777) == 0)
        let db = ["--db", shared + "/prefs.sqlite"]
        #expect(try runPrefs(db + ["set", "a", "1"]).status == 0)
        let doctor = try runPrefs(db + ["doctor"]).stdout
        #expect(!doctor.contains("chmod 700"), "\(doctor)")
        #expect(doctor.contains("folder 1777 (a folder every user may write"), "\(doctor)")
        let own = folder.path("own")
        #expect(mkdir(own, 0o755) == 0 && chmod(own, 0o755) == 0)
        #expect(try runPrefs(["--db", own + "/prefs.sqlite", "set", "a", "1"]).status == 0)
        let listed = try runPrefs(["--db", own + "/prefs.sqlite", "doctor"]).stdout
        #expect(listed.contains("chmod 700 it unless it is shared"), "\(listed)")
    }

    /// The fully static build exited 64 (usage) for `sync` and `sync status`: a missing
    /// feature is 69, and the status reads the file alone.
    @Test func aBuildWithoutAServerEngineStillReadsItsDeviceState() throws {
        let folder = try TemporaryFolder()
        let db = ["--db", folder.path("prefs.sqlite")]
        _ = try runPrefs(db + ["set", "a", "1"])
        for what in ["status", "conflicts", "refused"] {
            let result = try runPrefs(db + ["sync", what])
            #expect(result.status != 64, "\(what): \(result.stderr)")
        }
        let status = try runPrefs(db + ["sync", "status"])
        #expect(status.status == 1)
        #expect(status.stderr.contains("never synced"))
        // It advises only what this build can run: the static build cannot sync at all.
        let hasServer = try Self.binaryHasServerEngine()
        #expect(status.stderr.contains("sync --hub") == hasServer, "\(status.stderr)")
        #expect(status.stderr.contains("cannot sync") == !hasServer, "\(status.stderr)")
        // A round needs a server engine: 69 where the build has none (the static install),
        // and where it has one, the unreachable hub's 75.
        let round = try runPrefs(db + ["sync", "--hub", "postgresql://127.0.0.1:1/none"])
        #expect(round.status == (try Self.binaryHasServerEngine() ? 75 : 69), "\(round.stderr)")
    }

    /// Whether the `prefs` under test links libpq (the static install does not).
    static func binaryHasServerEngine() throws -> Bool {
        let bytes = try Data(contentsOf: prefsExecutable())
        return bytes.range(of: Data("libpq.so".utf8)) != nil
    }

    /// The command added the new way (one file, one line in its group): it counts what
    /// `bookmark list` would list, and nothing is created when there is no file.
    @Test func bookmarkCountCountsWhatListWouldList() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("prefs.sqlite")
        let db = ["--db", path]
        #expect(try runPrefs(db + ["bookmark", "count"]).stdout == "0\n")
        #expect(!FileManager.default.fileExists(atPath: path))
        _ = try runPrefs(db + ["bookmark", "add", "trip", "a", "--title", "A", "--tag", "x"])
        _ = try runPrefs(db + ["bookmark", "add", "trip", "b", "--title", "B"])
        _ = try runPrefs(db + ["bookmark", "add", "movie", "c", "--title", "C", "--tag", "x"])
        #expect(try runPrefs(db + ["bookmark", "count"]).stdout == "3\n")
        #expect(
            try runPrefs(db + ["bookmark", "count", "--tag", "x", "--kind", "trip"]).stdout == "1\n"
        )
        #expect(
            try runPrefs(db + ["--json", "bookmark", "count", "--kind", "movie"]).stdout.contains(
                "\"count\": 1"))
        #expect(try runPrefs(db + ["--suite", "s", "bookmark", "count"]).status == 64)
    }
}

extension WhatUsersRanIntoTests {
    /// `get` with `--db` in a folder that does not exist said "No value" (exit 1), as if the
    /// store were empty; docs/cli.md says 66. Nothing is made on the way.
    @Test func aReadWithDbInAFolderThatDoesNotExistIs66() throws {
        let folder = try TemporaryFolder()
        let missing = folder.path("no-such-folder/prefs.sqlite")
        for arguments in [["get", "a"], ["list"], ["bookmark", "remove", "trip", "x"]] {
            let output = try runPrefs(["--db", missing] + arguments)
            #expect(output.status == 66, "\(arguments): \(output.stderr)")
            #expect(
                output.stderr
                    == "Error: The folder of '\(missing)' does not exist; create it first\n")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path("no-such-folder")))
        // A file not yet made in a folder that exists is an empty store, as before.
        #expect(try runPrefs(["--db", folder.path("prefs.sqlite"), "get", "a"]).status == 1)
    }
}

extension WhatUsersRanIntoTests {
    /// `set flag maybe --type bool` was refused (65) but left a whole new database file
    /// behind: a refused write makes nothing.
    @Test func aRefusedSetMakesNoFile() throws {
        let folder = try TemporaryFolder()
        let db = folder.path("prefs.sqlite")
        let refused = try runPrefs(["--db", db, "set", "flag", "maybe", "--type", "bool"])
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(
            refused.stderr
                == "Error: 'maybe' is not a valid bool for 'flag' (expected true or false; yes, no, 1 and 0 are read too)\n"
        )
        #expect(!FileManager.default.fileExists(atPath: db))
    }
}

extension WhatUsersRanIntoTests {
    /// `set big -` with 1.1 GB on stdin ended in exit 70 "Internal error: SQLite error 18":
    /// a value past the limit is bad data (65), said in one line, and makes no file.
    @Test func aValueLargerThanTheLimitOnStdinIs65() throws {
        let folder = try TemporaryFolder()
        let db = folder.path("prefs.sqlite")
        let bytes = PreferenceValue.maximumBytes + 100_000_000
        let output = try runProcess(
            URL(fileURLWithPath: "/bin/sh"),
            [
                "-c", "head -c \(bytes) /dev/zero | tr '\\0' x | \"$0\" --db \"$1\" set big -",
                prefsExecutable().path, db,
            ])
        #expect(output.status == 65, "\(output.stderr)")
        #expect(output.stderr.hasPrefix("Error: "), "\(output.stderr)")
        #expect(output.stderr.contains("more than the \(PreferenceValue.maximumBytes)"))
        #expect(output.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: db))
    }
}

extension WhatUsersRanIntoTests {
    /// The XML property-list export wrote `…12:00:00.25Z` as `…12:00:00Z` with exit 0: it
    /// refuses, naming the key, unless told `--lossy`; the binary form keeps the fraction.
    @Test func theWalkthroughsOwnKeysExportToAnXMLPropertyList() throws {
        let folder = try TemporaryFolder()
        let db = ["--db", folder.path("prefs.sqlite")]
        #expect(try runPrefs(db + ["onboarding", "skip"]).status == 0)
        // Its time is kept to the second: the export, whose dates have none, loses nothing.
        let exported = try runPrefs(db + ["export", "--format", "plist"])
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stdout.contains("<key>walkthroughEndedAt</key>"))
    }

    @Test func aDateAloneIsTakenAsItsFirstInstantInUTC() throws {
        let folder = try TemporaryFolder()
        let db = ["--db", folder.path("prefs.sqlite")]
        let set = try runPrefs(db + ["set", "trialEnds", "2026-01-31", "--type", "date"])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(
            try runPrefs(db + ["get", "trialEnds"]).stdout == "2026-01-31T00:00:00.000000000Z\n")
        // Not a day: refused, and the message shows both forms.
        for wrong in ["2026-02-30", "2026-1-31", "31.01.2026"] {
            let refused = try runPrefs(db + ["set", "trialEnds", wrong, "--type", "date"])
            #expect(refused.status == 65, "\(wrong)")
            #expect(refused.stderr.contains("2026-01-31 (midnight UTC)"), "\(refused.stderr)")
        }
    }

    @Test func anXMLPropertyListExportRefusesToDropAFractionOfASecond() throws {
        let folder = try TemporaryFolder()
        let db = ["--db", folder.path("prefs.sqlite")]
        let set = try runPrefs(db + ["set", "seen", "2026-01-02T12:00:00.25Z", "--type", "date"])
        #expect(set.status == 0, "\(set.stderr)")
        let refused = try runPrefs(db + ["export", "--format", "plist"])
        #expect(refused.status == 65)
        #expect(refused.stdout == "")
        #expect(
            refused.stderr.contains("'seen' (date) would become a date without its fraction"),
            "\(refused.stderr)")
        let file = folder.path("seen.plist")
        let binary = try runPrefs(db + ["export", "--format", "binary-plist", file])
        #expect(binary.status == 0, "\(binary.stderr)")
        let other = ["--db", folder.path("other.sqlite")]
        #expect(try runPrefs(other + ["import", file]).status == 0)
        let back = try runPrefs(other + ["get", "seen"])
        #expect(back.stdout == "2026-01-02T12:00:00.250000000Z\n", "\(back.stdout)")
    }
}

extension WhatUsersRanIntoTests {
    /// `--db /proc/self/mem` said "Cannot create" (73) on a read: a file of the kernel is
    /// input that cannot be a database (66), said in one line.
    @Test func aKernelFileAsTheDatabaseIs66NotCannotCreate() throws {
        #if os(Linux)
            for command in [["get", "x"], ["set", "x", "1"], ["list"]] {
                let output = try runPrefs(["--db", "/proc/self/mem"] + command)
                #expect(output.status == 66, "\(command): \(output.stderr)")
                #expect(
                    output.stderr
                        == "Error: '/proc/self/mem' is a file of the kernel (procfs), not a prefs database\n"
                )
            }
        #endif
    }

    /// A database in a folder reached through a symbolic link (a home folder on another
    /// disk) could not be opened at all: SQLite's no-follow open refused the link in the
    /// folder. The folder may be a link; only the file itself may not.
    @Test func aDatabaseReachedThroughALinkedFolderOpens() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(
            atPath: folder.path("real"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: folder.path("linked"), withDestinationPath: folder.path("real"))
        let db = ["--db", folder.path("linked/prefs.sqlite")]
        let set = try runPrefs(db + ["set", "theme", "dark"])
        #expect(set.status == 0, "\(set.stderr)")
        let read = try runPrefs(db + ["get", "theme"])
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout == "dark\n")
        #expect(FileManager.default.fileExists(atPath: folder.path("real/prefs.sqlite")))
        // The file itself as a link stays refused.
        try FileManager.default.createSymbolicLink(
            atPath: folder.path("link.sqlite"),
            withDestinationPath: folder.path("real/prefs.sqlite"))
        let linked = try runPrefs(["--db", folder.path("link.sqlite"), "get", "theme"])
        #expect(linked.status == 65, "\(linked.stderr)")
    }
}

extension WhatUsersRanIntoTests {
    /// `prefs doctor` said "healthy" and `Journal: delete` for a WAL file in a folder its
    /// user could not write, where every write failed with 74. It reads the journal mode
    /// from the file's header, says the database cannot be written and why, and exits 74.
    /// As root, the commands run as nobody, for whom the folder's mode counts.
    @Test func doctorOnADatabaseWhoseWritesFailSaysSoAndExits74() throws {
        let folder = try TemporaryFolder()
        let store = folder.path("store")
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        let db = store + "/prefs.sqlite"
        #expect(try runPrefs(["--db", db, "set", "theme", "dark"]).status == 0)
        let asUser: [String]
        if geteuid() == 0 {
            for path in [folder.url.path, store, db, db + "-wal", db + "-shm"]
            where FileManager.default.fileExists(atPath: path) {
                try FileManager.default.setAttributes(
                    [.ownerAccountID: 65534, .groupOwnerAccountID: 65534], ofItemAtPath: path)
            }
            asUser = ["/usr/sbin/runuser", "-u", "nobody", "--", prefsExecutable().path]
        } else {
            asUser = [prefsExecutable().path]
        }
        // No -wal or -shm left, and a folder the user cannot write: a read-only open.
        for companion in [db + "-wal", db + "-shm"] {
            try? FileManager.default.removeItem(atPath: companion)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: store)
        defer {
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: store)
        }
        func prefs(_ arguments: [String]) throws -> ProcessOutput {
            try runProcess(
                URL(fileURLWithPath: asUser[0]),
                Array(asUser.dropFirst()) + ["--db", db] + arguments,
                environment: ["NO_COLOR": "1"])
        }
        let write = try prefs(["set", "theme", "light"])
        #expect(write.status == 74, "\(write.stderr)")
        let doctor = try prefs(["doctor"])
        #expect(doctor.status == 74, "\(doctor.stdout)\(doctor.stderr)")
        #expect(doctor.stdout.contains("Journal:      wal,"), "\(doctor.stdout)")
        #expect(doctor.stdout.contains("Writable:     no: this user may not write the folder"))
        #expect(doctor.stdout.contains("Status:       PROBLEMS FOUND"))
        #expect(doctor.stderr.contains("cannot be written"), "\(doctor.stderr)")
        #expect(try prefs(["get", "theme"]).stdout == "dark\n")
    }
}

extension WhatUsersRanIntoTests {
    /// Every app shared one file and its `standard` suite. The command line names the app
    /// (`--app`, `PREFS_APP`), `prefs apps` lists them, the shared file of old is still
    /// found, and `prefs doctor` gives the command that moves it.
    @Test func eachAppHasItsOwnFileAndTheSharedOneIsStillFound() throws {
        let folder = try TemporaryFolder()
        let home = folder.path("home")
        let environment = ["HOME": home, "PREFS_DB": "", "XDG_DATA_HOME": ""]
        func prefs(_ arguments: [String], _ extra: [String: String] = [:]) throws -> ProcessOutput {
            try runPrefs(arguments, environment: environment.merging(extra) { $1 })
        }
        // The file every app shared, made as an older prefs made it.
        let shared = home + "/.local/share/prefs/prefs.sqlite"
        try FileManager.default.createDirectory(
            atPath: home + "/.local/share/prefs", withIntermediateDirectories: true)
        #expect(try prefs(["--db", shared, "set", "theme", "dark"]).status == 0)
        #expect(try prefs(["get", "theme"]).stdout == "dark\n")
        #expect(try prefs(["--app", "com.example.notes", "get", "theme"]).stdout == "dark\n")
        let doctor = try prefs(["doctor"])
        let line = doctor.stdout.split(separator: "\n").first { $0.hasPrefix("Location:") } ?? ""
        #expect(line.contains("every app shared"), "\(doctor.stdout)")
        // The command it gives, run as given.
        let move = String(line[line.range(of: "running: ")!.upperBound...])
        let moved = try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", move])
        #expect(moved.status == 0, "\(move): \(moved.stderr)")
        #expect(try prefs(["get", "theme"]).stdout == "dark\n")
        #expect(
            FileManager.default.fileExists(atPath: home + "/.local/share/prefs/prefs/prefs.sqlite"))
        // Two apps now keep their own values of one key.
        #expect(try prefs(["--app", "com.example.notes", "set", "theme", "light"]).status == 0)
        #expect(
            try prefs(["get", "theme"], ["PREFS_APP": "com.example.notes"]).stdout == "light\n")
        #expect(try prefs(["get", "theme"]).stdout == "dark\n")
        let apps = try prefs(["apps"])
        #expect(
            apps.stdout
                == "com.example.notes\t\(home)/.local/share/prefs/com.example.notes/prefs.sqlite\n"
                + "prefs\t\(home)/.local/share/prefs/prefs/prefs.sqlite\n", "\(apps.stdout)")
        let hostile = try prefs(["--app", "../../etc", "get", "theme"])
        #expect(hostile.status == 64)
        #expect(
            hostile.stderr
                == "Error: Invalid app identifier '../../etc': it must begin with a letter or a digit\n"
        )
    }
}
