import Foundation
import TestSupport
import Testing

/// `prefs sync` between two device files and a real PostgreSQL hub, with the binary alone.
@Suite struct SyncCommandTests {
    let server: PostgresServer
    let database: String
    let hub: String
    let folder: TemporaryFolder

    init() throws {
        server = try PostgresServer.start()
        database = try server.makeDatabase()
        hub = server.target(database: database)
        folder = try TemporaryFolder()
    }

    /// Devices in conflict listings were random hex ids with no way to name them: `sync
    /// name` names a device, the hub keeps the names of the account's devices, and every
    /// device's listing shows them beside the ids.
    @Test func namedDevicesAreNamedInConflictListings() throws {
        let laptop = ["--db", folder.path("laptop.db")]
        let phone = ["--db", folder.path("phone.db")]
        let never = folder.path("never.db")
        let refused = try runPrefs(["--db", never, "sync", "name", "Nobody"])
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: never))
        for device in [laptop, phone] {
            #expect(try runPrefs(device + ["sync", "--hub", hub, "--account", "dana"]).status == 0)
        }
        #expect(try runPrefs(laptop + ["sync", "name", "Anna's laptop"]).status == 0)
        #expect(try runPrefs(phone + ["sync", "name", "Phone"]).status == 0)
        #expect(try runPrefs(laptop + ["sync", "name"]).stdout == "Anna's laptop\n")
        // 64 characters to Swift but 128 code points, as the hub counts: refused here, not
        // at every later round.
        let combining = String(repeating: "e\u{301}", count: 64)
        for name in ["bell\u{7}", String(repeating: "x", count: 65), "", combining] {
            let bad = try runPrefs(laptop + ["sync", "name", name])
            #expect(bad.status == 65, "\(name): \(bad.stderr)")
        }
        #expect(try runPrefs(laptop + ["sync"]).status == 0)
        // The phone's change is older than the laptop's: it loses on the phone's round.
        #expect(try runPrefs(phone + ["set", "theme", "light"]).status == 0)
        usleep(20_000)
        #expect(try runPrefs(laptop + ["set", "theme", "dark"]).status == 0)
        #expect(try runPrefs(laptop + ["sync"]).status == 0)
        let round = try runPrefs(phone + ["sync"])
        #expect(round.status == 0, "\(round.stderr)")
        let listing = try runPrefs(phone + ["sync", "conflicts"])
        #expect(listing.stdout.contains("from Phone ("), "\(listing.stdout)")
        #expect(listing.stdout.contains("won by Anna's laptop ("), "\(listing.stdout)")
        let json = try runPrefs(phone + ["--json", "sync", "conflicts"])
        #expect(json.stdout.contains("\"wonDeviceName\": \"Anna's laptop\""), "\(json.stdout)")
        // Taken away: the listings show the id alone after the next rounds.
        #expect(try runPrefs(laptop + ["sync", "name", "--clear"]).status == 0)
        #expect(try runPrefs(laptop + ["sync"]).status == 0)
        #expect(try runPrefs(phone + ["sync"]).status == 0)
        #expect(!(try runPrefs(phone + ["sync", "conflicts"])).stdout.contains("Anna"))
    }

    @Test func aWriteOnOneDeviceReachesTheOtherThroughTheCommandLine() throws {
        let laptop = folder.path("laptop.db")
        let phone = folder.path("phone.db")
        #expect(try runPrefs(["--db", laptop, "set", "hasViewedWalkthrough", "true"]).status == 0)
        #expect(
            try runPrefs([
                "--db", laptop, "bookmark", "add", "movie", "m1", "--title", "Heat", "--tag",
                "crime",
            ]).status == 0)
        let first = try runPrefs([
            "--db", laptop, "--json", "sync", "--hub", hub, "--account", "carol",
        ])
        #expect(first.status == 0, "\(first.stderr)")
        let pushed =
            try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any]
        // One preference, one bookmark (its 7 fields count once) and one tag.
        #expect(pushed?["pushed"] as? Int == 3)
        #expect(pushed?["pending"] as? Int == 0)
        #expect(pushed?["refused"] as? Int == 0)
        #expect(pushed?["clockAheadMilliseconds"] is NSNull)
        #expect(
            pushed?.keys.sorted() == [
                "clockAheadMilliseconds", "clockOffsetMilliseconds", "conflicts", "pending",
                "pulled", "pulledFromStandby", "pushed", "refused", "restored", "waitingForClock",
            ])
        #expect(pushed?["restored"] as? Bool == false)
        #expect(pushed?["clockOffsetMilliseconds"] is NSNull)
        let second = try runPrefs(["--db", phone, "sync", "--hub", hub, "--account", "carol"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout == "Pushed 0, pulled 3, conflicts 0, pending 0\n")
        #expect(try runPrefs(["--db", phone, "get", "hasViewedWalkthrough"]).stdout == "true\n")
        let listed = try runPrefs(["--db", phone, "bookmark", "list", "--json"])
        #expect(listed.stdout.contains("\"Heat\""), "\(listed.stdout)")
        // The hub and account are remembered: a later round names neither.
        #expect(try runPrefs(["--db", phone, "set", "volume", "0.25"]).status == 0)
        #expect(try runPrefs(["--db", phone, "sync"]).status == 0)
        #expect(try runPrefs(["--db", laptop, "sync"]).status == 0)
        #expect(try runPrefs(["--db", laptop, "get", "volume"]).stdout == "0.25\n")
        let status = try runPrefs(["--db", laptop, "--json", "sync", "status"])
        let fields =
            try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        #expect(fields?["account"] as? String == "carol")
        #expect(fields?["pending"] as? Int == 0)
        #expect(fields?["lastError"] is NSNull)
    }

    /// The README's server-side write: the hub's account read and written with the command
    /// line (`--db` the hub, `--account`), reaching both devices.
    @Test func aServerSideWriteReachesBothDevices() throws {
        let laptop = folder.path("laptop.db")
        let phone = folder.path("phone.db")
        #expect(try runPrefs(["--db", laptop, "set", "hasViewedWalkthrough", "true"]).status == 0)
        for path in [laptop, phone] {
            #expect(
                try runPrefs(["--db", path, "sync", "--hub", hub, "--account", "gina"]).status
                    == 0)
        }
        let read = try runPrefs(["--db", hub, "--account", "gina", "get", "hasViewedWalkthrough"])
        #expect(read.stdout == "true\n", "\(read.stderr)")
        #expect(
            try runPrefs(["--db", hub, "--account", "gina", "set", "theme", "dark"]).status == 0)
        #expect(
            try runPrefs([
                "--db", hub, "--account", "gina", "bookmark", "add", "movie", "m1", "--title",
                "Heat",
            ]).status == 0)
        for path in [laptop, phone] {
            let round = try runPrefs(["--db", path, "sync"])
            #expect(round.stdout.hasPrefix("Pushed 0, pulled 2,"), "\(round.stdout)")
            #expect(try runPrefs(["--db", path, "get", "theme"]).stdout == "dark\n")
            #expect(
                try runPrefs(["--db", path, "bookmark", "list"]).stdout.contains("Heat"))
        }
    }

    /// `prefs sync leave` turns sync off and keeps the data; the device can then sync
    /// another account, as a new device. A first round that fails binds nothing.
    @Test func leavingKeepsTheDataAndUnbindsTheAccount() throws {
        let laptop = folder.path("laptop.db")
        #expect(try runPrefs(["--db", laptop, "set", "volume", "0.5"]).status == 0)
        #expect(
            try runPrefs(["--db", laptop, "sync", "--hub", hub, "--account", "dave"]).status == 0)
        let refused = try runPrefs(["--db", laptop, "sync", "--account", "erin"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("'dave'"), "\(refused.stderr)")
        let left = try runPrefs(["--db", laptop, "sync", "leave"])
        #expect(left.status == 0, "\(left.stderr)")
        #expect(left.stdout == "This device no longer syncs; its data stays.\n")
        #expect(try runPrefs(["--db", laptop, "get", "volume"]).stdout == "0.5\n")
        let status = try runPrefs(["--db", laptop, "sync", "status"])
        #expect(status.status == 1)
        #expect(try runPrefs(["--db", laptop, "sync", "leave"]).status == 1)
        let nowhere = folder.path("nowhere.db")
        #expect(try runPrefs(["--db", nowhere, "sync", "leave"]).status == 1)
        #expect(!FileManager.default.fileExists(atPath: nowhere))
        // Free again: another account, and what the device holds goes to it.
        let again = try runPrefs(["--db", laptop, "sync", "--hub", hub, "--account", "erin"])
        #expect(again.status == 0, "\(again.stderr)")
        let phone = folder.path("phone.db")
        #expect(
            try runPrefs(["--db", phone, "sync", "--hub", hub, "--account", "erin"]).status == 0)
        #expect(try runPrefs(["--db", phone, "get", "volume"]).stdout == "0.5\n")
    }

    /// The README's device whose clock is a day ahead: told so by the round and by
    /// `sync status`; its change waits, and goes once the clock is right.
    @Test func aDeviceWithAWrongClockIsToldSo() throws {
        let tablet = folder.path("tablet.db")
        let phone = folder.path("phone.db")
        #expect(
            try runPrefs(["--db", phone, "sync", "--hub", hub, "--account", "frank"]).status == 0)
        #expect(
            try runPrefs(["--db", tablet, "sync", "--hub", hub, "--account", "frank"]).status == 0)
        // The device's clock, a day ahead (tests set the skew the clock reads with).
        let skew = try runProcess(
            URL(fileURLWithPath: "/usr/bin/sqlite3"),
            [tablet, "UPDATE sync_state SET clock_skew_ms = 86400000"])
        try #require(skew.status == 0, "\(skew.stderr)")
        #expect(try runPrefs(["--db", tablet, "set", "launchCount", "3"]).status == 0)
        let round = try runPrefs(["--db", tablet, "sync"])
        #expect(round.status == 0, "\(round.stderr)")
        #expect(
            round.stdout
                == "Pushed 0, pulled 0, conflicts 0, pending 1\nThis device's clock is 24 hours"
                + " ahead of the hub's: 1 change waits until it is right\n")
        // Nothing was refused for a rule: the list is empty.
        #expect(try runPrefs(["--db", tablet, "sync", "refused"]).stdout == "")
        #expect(try runPrefs(["--db", tablet, "--json", "sync", "refused"]).stdout == "[]\n")
        #expect(try runPrefs(["--db", tablet, "sync", "status", "--limit", "3"]).status == 64)
        let status = try runPrefs(["--db", tablet, "sync", "status"])
        #expect(
            status.stdout.contains(
                "Clock:      24 hours ahead of the hub's: changes wait until it is right"),
            "\(status.stdout)")
        #expect(try runPrefs(["--db", phone, "sync"]).status == 0)
        #expect(try runPrefs(["--db", phone, "get", "launchCount"]).status != 0)
        // The clock put right: the change is stamped again and reaches the other device.
        _ = try runProcess(
            URL(fileURLWithPath: "/usr/bin/sqlite3"),
            [tablet, "UPDATE sync_state SET clock_skew_ms = 0"])
        #expect(try runPrefs(["--db", tablet, "sync"]).stdout.hasPrefix("Pushed 1,"))
        #expect(try runPrefs(["--db", phone, "sync"]).status == 0)
        #expect(try runPrefs(["--db", phone, "get", "launchCount"]).stdout == "3\n")
        #expect(
            try runPrefs(["--db", tablet, "sync", "status"]).stdout.contains(
                "Clock:      in step with the hub"))
    }

    /// A lost update an outside checker found with the command alone: the phone, offline,
    /// sets `light`, retitles a bookmark and takes a tag off; then the laptop sets `dark`,
    /// the title and the tag it holds. Each repeat is the later decision, and wins.
    @Test func aRepeatedSetTitleAndTagOnTheCommandLineWin() throws {
        let laptop = ["--db", folder.path("laptop.db")]
        let phone = ["--db", folder.path("phone.db")]
        #expect(try runPrefs(laptop + ["set", "theme", "dark"]).status == 0)
        #expect(
            try runPrefs(
                laptop + ["bookmark", "add", "movie", "i3", "--title", "Heat", "--tag", "t2"]
            )
            .status == 0)
        for device in [laptop, phone] {
            #expect(try runPrefs(device + ["sync", "--hub", hub, "--account", "hana"]).status == 0)
        }
        #expect(try runPrefs(phone + ["set", "theme", "light"]).status == 0)
        #expect(
            try runPrefs(phone + ["bookmark", "edit", "movie", "i3", "--title", "Heat (1995)"])
                .status == 0)
        #expect(try runPrefs(phone + ["bookmark", "untag", "movie", "i3", "t2"]).status == 0)
        usleep(20_000)
        #expect(try runPrefs(laptop + ["set", "theme", "dark"]).status == 0)
        #expect(
            try runPrefs(laptop + ["bookmark", "edit", "movie", "i3", "--title", "Heat"]).status
                == 0)
        #expect(try runPrefs(laptop + ["bookmark", "tag", "movie", "i3", "t2"]).status == 0)
        for device in [phone, laptop, phone] {
            #expect(try runPrefs(device + ["sync"]).status == 0)
        }
        for device in [laptop, phone, ["--db", hub, "--account", "hana"]] {
            #expect(try runPrefs(device + ["get", "theme"]).stdout == "dark\n")
            let bookmarks = try runPrefs(device + ["--json", "bookmark", "list"]).stdout
            #expect(bookmarks.contains("\"title\": \"Heat\""), "\(bookmarks)")
            #expect(bookmarks.contains("\"t2\""), "\(bookmarks)")
        }
    }

    /// A new phone sets a value after the server app's, then runs its first round with its
    /// clock set back (faketime): the value keeps the time it was made, and wins.
    @Test(
        .enabled(if: Installed.faketime, "faketime is not installed"),
        arguments: ["-60s", "-600s", "-3h"])
    func aValueWrittenBeforeTheFirstRoundKeepsItsTimeWithTheClockBack(back: String) throws {
        let account = "ivy\(back.filter(\.isNumber))"
        let phone = folder.path("phone\(account).db")
        #expect(
            try runPrefs(["--db", hub, "--account", account, "set", "theme", "dark"]).status == 0)
        #expect(
            try runPrefs(["--db", hub, "--account", account, "set", "seen", "true"]).status == 0)
        // Stamping starts at the account's first contact: a device that pulls.
        let other = folder.path("other\(account).db")
        #expect(
            try runPrefs(["--db", other, "sync", "--hub", hub, "--account", account]).status == 0)
        usleep(20_000)
        #expect(try runPrefs(["--db", phone, "set", "theme", "light"]).status == 0)
        #expect(try runPrefs(["--db", phone, "set", "seen", "true"]).status == 0)
        usleep(20_000)
        // Elsewhere, later: `seen` false; then the phone sets the value it holds again. Its
        // time is the repeat's.
        #expect(try runPrefs(["--db", other, "set", "seen", "false"]).status == 0)
        #expect(try runPrefs(["--db", other, "sync"]).status == 0)
        usleep(20_000)
        #expect(try runPrefs(["--db", phone, "set", "seen", "true"]).status == 0)
        let round = try runProcess(
            URL(fileURLWithPath: "/usr/bin/faketime"),
            [
                "-f", back, prefsExecutable().path, "--db", phone, "sync", "--hub", hub,
                "--account", account,
            ])
        #expect(round.status == 0, "\(round.stderr)")
        #expect(try runPrefs(["--db", other, "sync"]).status == 0)
        for device in [["--db", phone], ["--db", other], ["--db", hub, "--account", account]] {
            #expect(try runPrefs(device + ["get", "theme"]).stdout == "light\n", "\(device)")
            #expect(try runPrefs(device + ["get", "seen"]).stdout == "true\n", "\(device)")
        }
    }

    @Test func watchPullsWhatAnotherDevicePushes() async throws {
        let laptop = folder.path("laptop.db")
        let phone = folder.path("phone.db")
        for path in [laptop, phone] {
            #expect(
                try runPrefs(["--db", path, "sync", "--hub", hub, "--account", "hank"]).status == 0)
        }
        let watcher = try ChildProcess(
            prefsExecutable().path, ["--db", phone, "--json", "sync", "--watch"], stdout: .pipe)
        let output = watcher.output
        defer {
            watcher.send(SIGTERM)
            watcher.wait()
        }
        #expect(try runPrefs(["--db", laptop, "set", "launchCount", "9"]).status == 0)
        #expect(try runPrefs(["--db", laptop, "sync"]).status == 0)
        // The watcher prints a line for the round that pulled it.
        let line = readLine(from: output, timeout: 10)
        #expect(line?.contains("\"pulled\": 1") == true, "\(line ?? "nothing")")
        #expect(try runPrefs(["--db", phone, "get", "launchCount"]).stdout == "9\n")
    }

    /// A server-side write wakes `prefs sync --watch` through the hub's notification: the
    /// round comes at once, not with the idle round (every 5 s).
    @Test func aServerSideWriteWakesWatch() throws {
        let phone = folder.path("phone.db")
        #expect(
            try runPrefs(["--db", phone, "sync", "--hub", hub, "--account", "iris"]).status == 0)
        let watcher = try ChildProcess(
            prefsExecutable().path, ["--db", phone, "--json", "sync", "--watch"], stdout: .pipe)
        let output = watcher.output
        defer {
            watcher.send(SIGTERM)
            watcher.wait()
        }
        Thread.sleep(forTimeInterval: 0.5)
        let written = Date()
        #expect(
            try runPrefs(["--db", hub, "--account", "iris", "set", "answer", "42"]).status == 0)
        let line = readLine(from: output, timeout: 10)
        let delay = Date().timeIntervalSince(written)
        #expect(line?.contains("\"pulled\": 1") == true, "\(line ?? "nothing")")
        #expect(delay < 3, "the round came \(delay) s after the write")
        #expect(try runPrefs(["--db", phone, "get", "answer"]).stdout == "42\n")
    }

    @Test func aKeyDeclaredDeviceLocalStaysOnItsDevice() throws {
        let laptop = folder.path("laptop.db")
        let phone = folder.path("phone.db")
        let declared = try runPrefs([
            "--db", laptop, "declare", "windowWidth", "--type", "int", "--device-local",
        ])
        #expect(declared.status == 0, "\(declared.stderr)")
        #expect(try runPrefs(["--db", laptop, "set", "windowWidth", "1280"]).status == 0)
        #expect(try runPrefs(["--db", laptop, "set", "theme", "dark"]).status == 0)
        for path in [laptop, phone] {
            #expect(
                try runPrefs(["--db", path, "sync", "--hub", hub, "--account", "gina"]).status == 0)
        }
        #expect(try runPrefs(["--db", phone, "get", "theme"]).stdout == "dark\n")
        #expect(try runPrefs(["--db", phone, "get", "windowWidth"]).status == 1)
    }

    @Test func anUnreachableHubExits75AndKeepsTheChanges() throws {
        let laptop = folder.path("laptop.db")
        #expect(try runPrefs(["--db", laptop, "set", "launchCount", "3"]).status == 0)
        let gone = "host=\(folder.path("nowhere")) dbname=prefs"
        let failed = try runPrefs(["--db", laptop, "sync", "--hub", gone, "--account", "dave"])
        #expect(failed.status == 75, "\(failed.stderr)")
        #expect(failed.stderr.hasPrefix("Error: "))
        #expect(failed.stderr.split(separator: "\n").count == 1)
        // Nothing was turned on, nothing lost: the next round with a hub sends the change.
        let round = try runPrefs([
            "--db", laptop, "--json", "sync", "--hub", hub, "--account", "dave",
        ])
        let report =
            try JSONSerialization.jsonObject(with: Data(round.stdout.utf8)) as? [String: Any]
        #expect(report?["pushed"] as? Int == 1, "\(round.stdout)")
    }

    @Test func aHubOfANewerSchemaIsRefusedAndNothingIsTurnedOn() throws {
        let laptop = folder.path("laptop.db")
        #expect(try runPrefs(["--db", laptop, "set", "launchCount", "3"]).status == 0)
        // The hub's schema, then a version this prefs does not know.
        #expect(try runPrefs(["--db", hub, "--account", "ivy", "get", "x"]).status == 1)
        let future = try server.psql(
            "INSERT INTO prefs_schema_migration (version, name) VALUES (99, 'future')",
            database: database)
        #expect(future.status == 0, "\(future.stderr)")
        let refused = try runPrefs(["--db", laptop, "sync", "--hub", hub, "--account", "ivy"])
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("99"), "\(refused.stderr)")
        #expect(try runPrefs(["--db", laptop, "sync", "status"]).status == 1)
        #expect(try runPrefs(["--db", laptop, "get", "launchCount"]).stdout == "3\n")
    }

    @Test func anotherAccountOrNoHubIsAClearError() throws {
        let laptop = folder.path("laptop.db")
        #expect(
            try runPrefs(["--db", laptop, "sync", "--hub", hub, "--account", "erin"]).status == 0)
        let other = try runPrefs(["--db", laptop, "sync", "--hub", hub, "--account", "frank"])
        #expect(other.status == 65)
        #expect(other.stderr == "Error: this device syncs the account 'erin', not 'frank'\n")
        // A path is not a hub, and none is made there.
        let notAHub = folder.path("hub.db")
        let file = try runPrefs(["--db", laptop, "sync", "--hub", notAHub])
        #expect(file.status == 64)
        #expect(
            file.stderr
                == "Error: the hub must be a PostgreSQL connection string, not '\(notAHub)'\n")
        #expect(!FileManager.default.fileExists(atPath: notAHub))
        // Nor is a device file made for a round refused so.
        let untouched = folder.path("untouched.db")
        #expect(try runPrefs(["--db", untouched, "sync", "--hub", notAHub]).status == 64)
        #expect(!FileManager.default.fileExists(atPath: untouched))
        // An option of another form is refused, not ignored.
        let misplaced = try runPrefs(["--db", laptop, "sync", "status", "--watch"])
        #expect(misplaced.status == 64)
        #expect(
            misplaced.stderr.hasPrefix("Error: '--watch' does not apply to 'prefs sync status'\n"))
        #expect(try runPrefs(["--db", laptop, "sync", "--limit", "3"]).status == 64)
        #expect(try runPrefs(["--db", laptop, "sync", "conflicts", "--limit", "3"]).status == 0)
        let fresh = folder.path("fresh.db")
        let never = try runPrefs(["--db", fresh, "sync"])
        #expect(never.status == 64)
        #expect(never.stderr.contains("--hub"))
    }
}
