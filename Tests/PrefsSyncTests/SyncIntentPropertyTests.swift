import Foundation
import PrefsHTTPSync
import PrefsPostgreSQL
import PrefsSync
import PrefsTestSupport
import TestSupport
import Testing

@testable import PrefsKit

/// Confirmed writes against a model of what the users did, not of what the devices pushed.
///
/// ``SyncPropertyTests`` feeds its model the changes each device pushes, so it agrees with
/// whatever the devices decide to stamp and send. This test's model knows only the writes:
/// every call that returned, on a device or through the server app, with the time it was
/// made. With every clock right, the rule of docs/sync.md says what each replica must end
/// with: for each preference, bookmark, title and tag, the newest write or removal. The
/// schedules draw what real devices do: writes before a device's first round (while others
/// delete unrelated keys, so the hub has removals to collect), late joiners, server writes
/// before any device synced, `leave` and rejoin, restores from an older copy of the file
/// (with its `-wal`), devices the hub expires and that come back, restarts, `prefs sync`
/// killed with SIGKILL in the middle of its round, every connection to the hub cut (the
/// pooler's `KILL`, or the server's backends ended), and hostile SQL from the account's own
/// login role: rows written into the hub's sync tables, server writes with forged session
/// settings, stamping turned off. And what lost updates before (docs/sync.md, "Stamping"):
/// writes that repeat the held value (every write counts, on a device or the server app)
/// racing an earlier different write elsewhere ("repeat"); writes before a device's first
/// round, that round run by `prefs` under faketime with the clock 60 s, 600 s or 3 h behind
/// ("clockback"); a tag put on by a device whose clock is behind by more than the bound,
/// after it pulled the bookmark removed and added again ("skewtag"); a restore with the
/// clock behind and a write of the same key before the next round ("skewrestore"); one
/// bookmark added on two sides with other tags ("sameadd"), which keeps both tag sets.
///
/// `PREFS_SYNC_INTENT_SCHEDULES` sets how many run (40 by default, 10,000 with
/// `Tests/reliability --long`), `PREFS_SYNC_SCHEDULES_FROM` which comes first (0 by default:
/// CI's passes through PgBouncer and `prefs-server` run schedules the first pass did not);
/// `PREFS_SYNC_INTENT_SEED` replays one (each failure names its seed).
@Suite(.serialized) struct SyncIntentPropertyTests {
    static var seeds: [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment["PREFS_SYNC_INTENT_SEED"].flatMap(UInt64.init) { return [seed] }
        let long = environment["PREFS_RELIABILITY_LONG"] == "1"
        let count =
            environment["PREFS_SYNC_INTENT_SCHEDULES"].flatMap(Int.init) ?? (long ? 10_000 : 40)
        let first = environment["PREFS_SYNC_SCHEDULES_FROM"].flatMap(UInt64.init) ?? 0
        return (0..<UInt64(count)).map { 5_000 + first + $0 }
    }

    /// The steps a schedule may draw besides writes and rounds, by the names
    /// `PREFS_SYNC_INTENT_STEPS` takes (a comma-separated list; every step when it is unset):
    /// to tell which of them a failure needs. "prejoin" (writes before a device's first
    /// round) and "serverfirst" (server writes before any device synced) are conditions of
    /// the write steps; off, the device syncs first, and the server does not write yet.
    static let optionalSteps = [
        12: "restore", 13: "restore", 14: "leave", 15: "expire", 16: "reopen", 17: "kill",
        18: "cut", 19: "hostile", 23: "repeat", 24: "clockback", 25: "skewtag",
        26: "skewrestore", 27: "sameadd",
    ]

    static let drawnSteps: Set<String>? = ProcessInfo.processInfo.environment[
        "PREFS_SYNC_INTENT_STEPS"
    ].map { Set($0.split(separator: ",").map(String.init)) }

    static func draws(_ step: String) -> Bool { drawnSteps?.contains(step) ?? true }

    /// How many failing schedules to report before stopping (`PREFS_SYNC_INTENT_FAILURES`).
    static var failuresShown: Int {
        ProcessInfo.processInfo.environment["PREFS_SYNC_INTENT_FAILURES"].flatMap(Int.init) ?? 5
    }

    /// What the users did: for each thing, the newest write (nil: removed) and when.
    struct Intent {
        /// "p KEY", "b ITEM" (exists), "t ITEM" (title), "g ITEM TAG" (tagged).
        var newest: [String: (value: String?, at: Int64)] = [:]
        /// The newest removal of each bookmark, by item.
        var removals: [String: Int64] = [:]

        /// Every write counts, also one that repeats the held value: it is the user's latest
        /// decision (docs/sync.md, "Stamping").
        mutating func wrote(_ thing: String, _ value: String?, at time: Int64) {
            newest[thing] = (value, time)
        }

        /// A bookmark removed: it has none of the tags written before (docs/sync.md, "Tags").
        mutating func removed(_ item: String, at time: Int64) {
            newest["b \(item)"] = (nil, time)
            removals[item] = max(removals[item] ?? time, time)
        }

        /// What every replica must show: preferences, and bookmarks with their tags (those
        /// tagged after the bookmark's newest removal).
        var view: SyncPropertyTests.View {
            var preferences: [String: PreferenceValue] = [:]
            var bookmarks: [String: String] = [:]
            for (thing, write) in newest {
                guard let value = write.value else { continue }
                let parts = thing.split(separator: " ").map(String.init)
                if parts[0] == "p", let number = Int(value) {
                    preferences[parts[1]] = .int(number)
                } else if parts[0] == "b" {
                    let item = parts[1]
                    let title = newest["t \(item)"]?.value ?? item
                    let removal = removals[item] ?? Int64.min
                    let tags = newest.filter {
                        $0.key.hasPrefix("g \(item) ") && $0.value.value != nil
                            && $0.value.at > removal
                    }
                    .map { String($0.key.split(separator: " ")[2]) }.sorted()
                    bookmarks[item] = "\(title) [\(tags.joined(separator: ","))]"
                }
            }
            return SyncPropertyTests.View(preferences: preferences, bookmarks: bookmarks)
        }
    }

    /// The first conflict a device lists that contradicts what its replica ended with: each
    /// one's losing change must be older than its winner, and its winner no newer than the
    /// change the replica holds now (a later write may have replaced the winner, never an
    /// older one). A listing that names what ended on every replica as the loser (finding 4
    /// of the issue that brought this test) breaks the second rule.
    static func untrueConflict(in database: AppDatabase, checked: inout Int) throws -> String? {
        try database.read { state in
            guard let connection = (state.engine as? SQLiteEngine)?.connection else { return nil }
            let rows = try connection.rows(
                sql: """
                    SELECT c.entity, c.ident, c.field, c.lost_clock, c.won_clock, f.clock
                    FROM sync_conflict AS c LEFT JOIN sync_field AS f
                        ON f.entity = c.entity AND f.ident = c.ident AND f.field = c.field
                    """)
            checked += rows.count
            for row in rows {
                let subject =
                    "\(row.get(0, as: String.self) ?? "") "
                    + "\(SyncIdent.parts(row.get(1, as: String.self) ?? "") ?? []) "
                    + "\(row.get(2, as: String.self) ?? "")"
                guard let lost = row.get(3, as: String.self).flatMap(HybridClock.init),
                    let won = row.get(4, as: String.self).flatMap(HybridClock.init)
                else { return "\(subject): unreadable clocks" }
                if !(lost < won) {
                    return "\(subject): lost \(lost.text) is not older than won \(won.text)"
                }
                guard let held = row.get(5, as: String.self).flatMap(HybridClock.init) else {
                    continue
                }
                if held < won {
                    return
                        "\(subject): won \(won.text) but the replica holds the older \(held.text)"
                }
            }
            return nil
        }
    }

    /// Milliseconds since 1970 now; writes are spaced so that no two share one.
    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1_000) }

    static func pause() { usleep(3_000) }

    /// Minutes of schedules, on a thread of their own (`onItsOwnThread`).
    @Test func confirmedWritesSurviveEverySchedule() async throws {
        try await onItsOwnThread { try surviveEverySchedule() }
    }

    private func surviveEverySchedule() throws {
        let server = try PostgresServer.start()
        let hubDatabase = try server.makeDatabase()
        let hub = try SyncHubRoute.target(server, database: hubDatabase)
        // Through prefs-server: it acts for every account as the superuser, a service role.
        let syncServer =
            SyncHubRoute.isThroughServer
            ? try SyncServerProcess(hub: server.target(database: hubDatabase)) : nil
        let start = ContinuousClock.now
        var failed: [UInt64] = []
        var tally = Tally()
        for seed in Self.seeds {
            // A step that throws (a write or a round that failed where it must not) fails its
            // schedule, named by its seed, and the next one runs.
            let passed: Bool
            do {
                passed = try run(
                    seed: seed, hub: hub, hubDatabase: hubDatabase, server: server,
                    syncServer: syncServer, tally: &tally)
            } catch {
                Issue.record("seed \(seed): \(error)")
                passed = false
            }
            if !passed {
                failed.append(seed)
                if failed.count >= Self.failuresShown { break }
            }
        }
        print(
            "sync intent\(syncServer == nil ? "" : " through prefs-server"):"
                + " \(Self.seeds.count) schedules in \(ContinuousClock.now - start);"
                + " writes \(tally.writes), pre-join \(tally.preJoin), server before any device"
                + " \(tally.serverFirst), restores \(tally.restores), rejoins \(tally.rejoins),"
                + " expiries \(tally.expiries), kills \(tally.kills), cuts \(tally.cuts),"
                + " hostile \(tally.hostile), conflicts listed \(tally.conflicts); repeats"
                + " \(tally.repeats), first rounds with the clock back \(tally.clockBacks)"
                + "\(Installed.faketime ? "" : " (faketime missing: skipped)"), tags behind"
                + " \(tally.skewedTags), restores behind \(tally.skewedRestores), same"
                + " additions \(tally.sameAdds); failing seeds:"
                + " \(failed.isEmpty ? "none" : failed.map(String.init).joined(separator: ", "))")
        #expect(failed.isEmpty, "failing seeds: \(failed)")
    }

    /// Cuts every connection to the hub's database: through the pooler, its console's `KILL`
    /// (then `RESUME`); directly, the server's backends of the database ended.
    static func cutConnections(server: PostgresServer, database: String) throws {
        if SyncHubRoute.isThroughPooler {
            let pooler = try PgBouncer.start()
            for command in ["KILL \(database)", "RESUME \(database)"] {
                let output = try runProcess(
                    URL(fileURLWithPath: "/usr/bin/psql"),
                    ["-X", "-q", "-d", pooler.target(database: "pgbouncer"), "-c", command])
                #expect(output.status == 0, "\(command): \(output.stderr)")
            }
        } else {
            let output = try server.psql(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                    + " WHERE datname = '\(database)' AND pid <> pg_backend_pid()")
            #expect(output.status == 0, "\(output.stderr)")
        }
    }

    struct Tally {
        var writes = 0, preJoin = 0, serverFirst = 0, restores = 0, rejoins = 0, expiries = 0
        var kills = 0, cuts = 0, hostile = 0, conflicts = 0
        var repeats = 0, clockBacks = 0, skewedTags = 0, skewedRestores = 0, sameAdds = 0
    }

    // The schedule's steps, one switch.
    // swiftlint:disable:next function_body_length
    private func run(
        seed: UInt64, hub: String, hubDatabase: String, server: PostgresServer,
        syncServer: SyncServerProcess?, tally: inout Tally
    ) throws -> Bool {
        let account = "i\(seed)"
        let folder = try TemporaryFolder()
        var random = SeededGenerator(seed: seed)
        let deviceCount = Int.random(in: 3...4, using: &random)
        var paths = (0..<deviceCount).map { folder.path("device\($0).db") }
        var options = AppDatabase.Options()
        options.watchesForChanges = false
        var devices = try paths.map { try AppDatabase(path: $0, options: options) }
        var syncs: [DeviceSync?] = Array(repeating: nil, count: deviceCount)
        var backups: [String?] = Array(repeating: nil, count: deviceCount)
        var copies = 0
        let keys = (0..<4).map { "key\($0)" }
        let items = (0..<3).map { "item\($0)" }
        let tags = ["red", "green", "blue"]
        var intent = Intent()
        var anyDeviceSynced = false
        var log: [String] = []
        let hubView = try SyncPropertyTests.hubEngine(
            hub: server.target(database: hubDatabase), account: account)

        // Through prefs-server, one device token for the account, in a file for `prefs`.
        let token = try syncServer.map { _ in
            try SyncHubRoute.deviceToken(server, database: hubDatabase, account: account)
        }
        let tokenFile = folder.path("device.token")
        if let token {
            _ = FileManager.default.createFile(
                atPath: tokenFile, contents: Data(token.utf8),
                attributes: [.posixPermissions: 0o600])
        }

        func deviceSync(_ index: Int) throws -> DeviceSync {
            if let sync = syncs[index] { return sync }
            let sync =
                if let syncServer, let token {
                    try DeviceSync(database: devices[index], server: syncServer.url, token: token)
                } else {
                    try DeviceSync(
                        database: devices[index], hub: hub, account: account,
                        hubOptions: SyncHubRoute.options)
                }
            // Pages of two changes: the schedules' pulls go page by page.
            sync.pullLimit.withLock { $0 = SyncPullLimit(changes: 2, bytes: 1 << 20) }
            syncs[index] = sync
            return sync
        }
        func sync(_ index: Int) throws {
            try deviceSync(index).sync()
            anyDeviceSynced = true
        }
        func joined(_ index: Int) throws -> Bool {
            try DeviceSync.status(of: devices[index]) != nil
        }
        func reopen(_ index: Int) throws {
            syncs[index] = nil
            devices[index] = try AppDatabase(path: paths[index], options: options)
        }

        // A write through a store of `database` (a device's, or the server app's), recorded
        // as the users' intent, also when it repeats the held value (docs/sync.md,
        // "Stamping"). `given`: the value to write (.some(nil) removes); nil draws one.
        func setPreference(
            _ database: AppDatabase, _ who: String, key chosen: String? = nil,
            value given: Int?? = nil
        ) throws {
            let key = chosen ?? keys.randomElement(using: &random) ?? "key0"
            let store = PreferenceStore(database: database)
            let value: Int? =
                given
                ?? (Int.random(in: 0..<4, using: &random) == 0
                    ? nil : Int.random(in: 0..<1_000, using: &random))
            // A read first: after every connection to the hub was cut (step 18), it reconnects
            // the server app's store, as the app's next request would after a failed one (a
            // write on a lost connection fails with 75: it may have committed).
            _ = try store.storedValues()
            let at = Self.now()
            try store.setValue(value.map { .int($0) }, forKey: key)
            intent.wrote("p \(key)", value.map(String.init), at: at)
            log.append("\(at) \(who) \(key) = \(value.map(String.init) ?? "removed")")
        }
        // The value `database` holds for `key`, written again (a removal when it has none).
        func restatePreference(_ database: AppDatabase, _ who: String, key: String) throws {
            let held = try PreferenceStore(database: database).storedValues()[key]
            let number: Int? = if case .int(let number)? = held { number } else { nil }
            try setPreference(database, who + " again", key: key, value: .some(number))
        }
        // An add states its whole draft: an item held here already gets the title and exactly
        // these tags (each written again where it has it); one not held here is added (again)
        // with them, and keeps the tags other writers gave it after its newest removal.
        func addBookmark(
            _ database: AppDatabase, _ who: String, item: String, title: String,
            tags chosen: [String]
        ) throws {
            let store = BookmarkStore(database: database)
            let existing = try store.bookmark(kind: "movie", itemID: item)
            let at = Self.now()
            _ = try store.add(
                BookmarkDraft(kind: "movie", itemID: item, title: title, tags: chosen))
            if let existing {
                intent.wrote("t \(item)", title, at: at)
                for tag in tags where chosen.contains(tag) || existing.tags.contains(tag) {
                    intent.wrote("g \(item) \(tag)", chosen.contains(tag) ? "1" : nil, at: at)
                }
            } else {
                intent.wrote("b \(item)", "1", at: at)
                intent.wrote("t \(item)", title, at: at)
                for tag in chosen { intent.wrote("g \(item) \(tag)", "1", at: at) }
            }
            log.append("\(at) \(who) adds \(item) \(title) \(chosen)")
        }
        // A tag put on or taken off by an edit, which changes that tag only.
        func toggleTag(_ database: AppDatabase, _ who: String, item: String, tag: String) throws {
            let store = BookmarkStore(database: database)
            guard let existing = try store.bookmark(kind: "movie", itemID: item) else { return }
            let had = existing.tags.contains(tag)
            let at = Self.now()
            _ = try store.update(kind: "movie", itemID: item) { draft in
                if had { draft.tags.removeAll { $0 == tag } } else { draft.tags.append(tag) }
            }
            intent.wrote("g \(item) \(tag)", had ? nil : "1", at: at)
            log.append("\(at) \(who) \(had ? "untags" : "tags") \(item) \(tag)")
        }
        func editBookmark(_ database: AppDatabase, _ who: String) throws {
            let item = items.randomElement(using: &random) ?? "item0"
            let store = BookmarkStore(database: database)
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                guard let existing = try store.bookmark(kind: "movie", itemID: item) else { return }
                let at = Self.now()
                _ = try store.remove(kind: "movie", itemID: item)
                intent.removed(item, at: at)
                for tag in existing.tags { intent.wrote("g \(item) \(tag)", nil, at: at) }
                log.append("\(at) \(who) removes \(item)")
            case 1:
                try toggleTag(
                    database, who, item: item, tag: tags.randomElement(using: &random) ?? "red")
            default:
                try addBookmark(
                    database, who, item: item,
                    title: "T\(Int.random(in: 0..<100, using: &random))",
                    tags: tags.filter { _ in Bool.random(using: &random) })
            }
        }

        // A copy of the file as a backup takes it, with its -wal: by another process, as
        // backup tools are (a copy opened and closed in this process would release the POSIX
        // locks SQLite holds here on the file).
        func backUp(_ index: Int) throws -> String {
            copies += 1
            let backup = folder.path("backup\(copies).db")
            for suffix in ["", "-wal"]
            where FileManager.default.fileExists(atPath: paths[index] + suffix) {
                let copied = try runProcess(
                    URL(fileURLWithPath: "/bin/cp"), [paths[index] + suffix, backup + suffix])
                #expect(copied.status == 0, "\(copied.stderr)")
            }
            log.append("\(Self.now()) device\(index) backed up")
            return backup
        }
        // The device's file replaced by a copy of a backup of it.
        func restore(_ index: Int, from backup: String) throws {
            copies += 1
            let restored = folder.path("restored\(copies).db")
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: backup + suffix)
            {
                try FileManager.default.copyItem(atPath: backup + suffix, toPath: restored + suffix)
            }
            paths[index] = restored
            try reopen(index)
            tally.restores += 1
            log.append("\(Self.now()) device\(index) restored")
        }
        // `prefs sync` of a device, by the command line, with `prefix` before it (faketime).
        func syncArguments(_ index: Int) -> [String] {
            if let syncServer {
                [
                    "--db", paths[index], "sync", "--hub", syncServer.url.absoluteString,
                    "--token-file", tokenFile,
                ]
            } else {
                ["--db", paths[index], "sync", "--hub", hub, "--account", account]
            }
        }
        func commandLineSync(_ index: Int, prefix: [String] = []) throws -> ProcessOutput {
            let command = prefix + [prefsExecutable().path] + syncArguments(index)
            return try runProcess(
                URL(fileURLWithPath: command[0]), Array(command.dropFirst()),
                environment: SyncHubRoute.isThroughPooler ? ["PREFS_POOLER": "transaction"] : [:])
        }
        // Another device than `index`, and whether the server app writes in its place (now and
        // then, once it may); both joined first when writes before a first round are off.
        func secondWriter(_ index: Int) throws -> (other: Int, server: Bool) {
            let other = otherDevice(index)
            let server =
                Int.random(in: 0..<3, using: &random) == 0
                && (anyDeviceSynced || Self.draws("serverfirst"))
            if !Self.draws("prejoin") {
                for device in [index, other] where try !joined(device) { try sync(device) }
            }
            return (other, server)
        }
        func otherDevice(_ index: Int) -> Int {
            (index + 1 + Int.random(in: 0..<(deviceCount - 1), using: &random)) % deviceCount
        }
        // Every device's round (the quiet before a step that needs nothing in flight).
        func syncEveryDevice() throws {
            for other in devices.indices { try sync(other) }
        }

        // The account's own login role, for the hostile steps (made on first use).
        var hasRole = false
        defer {
            if hasRole { _ = try? server.psql("DROP ROLE IF EXISTS \(account)") }
        }

        // One schedule in four opens as an account whose first contact comes late: the server
        // app writes, then every device writes before anything syncs (the phone set up after
        // the web app was used; the laptop used offline first), so that writes made on both
        // sides before the first round meet in it.
        if Int.random(in: 0..<4, using: &random) == 0, Self.draws("serverfirst") {
            for _ in 0..<2 {
                tally.serverFirst += 1
                tally.writes += 1
                try setPreference(hubView.database, "server")
                Self.pause()
            }
            if Self.draws("prejoin") {
                for index in devices.indices {
                    tally.preJoin += 1
                    tally.writes += 1
                    try setPreference(devices[index], "device\(index)")
                    Self.pause()
                }
            }
        }

        for _ in 0..<40 {
            let index = Int.random(in: 0..<deviceCount, using: &random)
            let database = devices[index]
            let name = "device\(index)"
            var step = Int.random(in: 0..<28, using: &random)
            if let kind = Self.optionalSteps[step], !Self.draws(kind) { step = 22 }
            if step < 6, !Self.draws("prejoin"), try !joined(index) { try sync(index) }
            if step == 10 || step == 11, !anyDeviceSynced, !Self.draws("serverfirst") {
                step = 22
            }
            if ProcessInfo.processInfo.environment["PREFS_DEBUG_STEPS"] != nil {
                print("step \(step) device \(index)")
            }
            switch step {
            case 0, 1, 2, 3:
                if try !joined(index) { tally.preJoin += 1 }
                tally.writes += 1
                try setPreference(database, name)
            case 4, 5:
                if try !joined(index) { tally.preJoin += 1 }
                tally.writes += 1
                try editBookmark(database, name)
            case 6, 7, 8, 9:
                try sync(index)
                log.append("\(Self.now()) \(name) syncs")
            case 10, 11:
                // The server app writes; before any device synced, now and then.
                if !anyDeviceSynced { tally.serverFirst += 1 }
                tally.writes += 1
                if Bool.random(using: &random) {
                    try setPreference(hubView.database, "server")
                } else {
                    try editBookmark(hubView.database, "server")
                }
            case 12:
                backups[index] = try backUp(index)
            case 13:
                // Restored from its backup, just after a round (so that every write of its
                // own since the copy reached the hub, and must come back).
                guard let backup = backups[index] else { continue }
                try sync(index)
                try restore(index, from: backup)
            case 14:
                // Leaves, keeping its data; syncs again later as a rejoin.
                guard try joined(index) else { continue }
                try deviceSync(index).leave()
                syncs[index] = nil
                tally.rejoins += 1
                log.append("\(Self.now()) \(name) leaves")
            case 15:
                // The hub expires the device (it has not pulled for longer than the hub keeps
                // devices); it comes back later.
                guard let status = try DeviceSync.status(of: database) else { continue }
                let output = try server.psql(
                    "UPDATE sync_device SET seen_at = seen_at - 86400 * 400"
                        + " WHERE account = '\(account)' AND device = '\(status.deviceID)'",
                    database: hubDatabase)
                #expect(output.status == 0, "\(output.stderr)")
                tally.expiries += 1
                log.append("\(Self.now()) \(name) expired")
            case 16:
                try reopen(index)
            case 17:
                // `prefs sync` of this device, killed somewhere in its round: nothing it did
                // was confirmed, and the next round must finish the job.
                let process = try ChildProcess(
                    prefsExecutable().path, syncArguments(index),
                    environment: SyncHubRoute.isThroughPooler
                        ? ["PREFS_POOLER": "transaction"] : [:])
                usleep(UInt32.random(in: 0...80_000, using: &random))
                process.send(SIGKILL)
                process.wait()
                try reopen(index)
                tally.kills += 1
                log.append("\(Self.now()) \(name) sync killed")
            case 18:
                // Every connection to the hub's database cut: the pooler's (a restart, as its
                // clients see it), or the server's backends.
                try Self.cutConnections(server: server, database: hubDatabase)
                tally.cuts += 1
                log.append("\(Self.now()) connections cut")
            case 19:
                // The account's own login role, by psql: what it may do is a server write, and
                // nothing else it tries may change what any replica ends with.
                if !hasRole {
                    try server.makeLoginRoles([(account, "prefs_account")])
                    hasRole = true
                }
                tally.hostile += 1
                let key = keys.randomElement(using: &random) ?? "key0"
                let value = Int.random(in: 0..<1_000, using: &random)
                let item = items.randomElement(using: &random) ?? "item0"
                let at = Self.now()
                let attacks = [
                    // A forged title straight into the hub's sync table, numbered low.
                    """
                    INSERT INTO sync_change (entity, ident, field, clock, device, present, type,
                        value, sequence)
                    VALUES ('bookmark', upper(encode('movie', 'hex')) || '.'
                        || upper(encode('\(item)', 'hex')), 'title',
                        lpad(\(at)::text, 15, '0') || '-000000-evil', 'evil', true, 'string',
                        'EVIL', 1)
                    """,
                    // Stamping of the account turned off.
                    "UPDATE prefs_account_state SET sync_on = false",
                    // A server write claiming to be a push applying, with a low number.
                    """
                    BEGIN;
                    SELECT set_config('prefs.sync_applying', 'on', true),
                        set_config('prefs.sync_number', '1 \(account)', true);
                    INSERT INTO preference (suite, key, type, value, updated_at)
                    VALUES ('standard', '\(key)', 'int', '\(value)',
                        extract(epoch FROM now()) - 978307200)
                    ON CONFLICT (account, suite, key) DO UPDATE SET type = excluded.type,
                        value = excluded.value, bytes = NULL, updated_at = excluded.updated_at;
                    COMMIT;
                    """,
                ]
                let attack = Int.random(in: 0..<attacks.count, using: &random)
                let output = try server.psql(
                    attacks[attack], database: hubDatabase, user: account)
                if attack == 2, output.status == 0 {
                    intent.wrote("p \(key)", String(value), at: at)
                }
                log.append("\(at) own role attack \(attack): exit \(output.status)")
            case 23:
                // A write here, then one of the value another side holds (a device's, or the
                // server app's): the repeat is the later decision, and must win.
                let (other, server) = try secondWriter(index)
                let (second, who) =
                    server ? (hubView.database, "server") : (devices[other], "device\(other)")
                tally.repeats += 1
                tally.writes += 2
                let item = items.randomElement(using: &random) ?? "item0"
                let theirs = try BookmarkStore(database: second).bookmark(
                    kind: "movie", itemID: item)
                switch (Int.random(in: 0..<3, using: &random), theirs) {
                case (1, let theirs?):
                    // A title set here; the other side's title set again.
                    try addBookmark(
                        database, name, item: item,
                        title: "T\(Int.random(in: 0..<100, using: &random))",
                        tags: theirs.tags)
                    Self.pause()
                    try addBookmark(
                        second, who + " again", item: item, title: theirs.title, tags: theirs.tags)
                case (2, let theirs?) where !theirs.tags.isEmpty:
                    // A tag it has taken off here; added again there, where it has it.
                    let tag = theirs.tags.randomElement(using: &random) ?? "red"
                    if try BookmarkStore(database: database).bookmark(kind: "movie", itemID: item)?
                        .tags.contains(tag) == true
                    {
                        try toggleTag(database, name, item: item, tag: tag)
                        Self.pause()
                    }
                    try addBookmark(
                        second, who + " again", item: item, title: theirs.title, tags: theirs.tags)
                default:
                    let key = keys.randomElement(using: &random) ?? "key0"
                    try setPreference(database, name, key: key)
                    Self.pause()
                    try restatePreference(second, who, key: key)
                }
            case 24:
                // Writes before this device's first round (the server app's, then its own, of
                // one key), then that round run by `prefs` with the clock set back: the value
                // keeps the time it was made.
                guard Installed.faketime, try !joined(index) else { continue }
                let key = keys.randomElement(using: &random) ?? "key0"
                if anyDeviceSynced || Self.draws("serverfirst") {
                    tally.writes += 1
                    try setPreference(hubView.database, "server", key: key)
                    Self.pause()
                }
                tally.writes += 1
                tally.preJoin += 1
                try setPreference(
                    database, name, key: key,
                    value: .some(Int.random(in: 0..<1_000, using: &random)))
                Self.pause()
                let back = ["-60s", "-600s", "-3h"].randomElement(using: &random) ?? "-600s"
                let output = try commandLineSync(index, prefix: ["/usr/bin/faketime", "-f", back])
                try reopen(index)
                #expect(
                    output.status == 0, "seed \(seed): a first round at \(back): \(output.stderr)")
                anyDeviceSynced = true
                tally.clockBacks += 1
                log.append("\(Self.now()) \(name) first round with the clock \(back)")
            case 25:
                // A bookmark removed and added again elsewhere; this device, its clock behind by
                // more than the bound, pulls it and tags it: the tag is after the removal.
                try syncEveryDevice()
                let other = otherDevice(index)
                let item = items.randomElement(using: &random) ?? "item0"
                let elsewhere = devices[other]
                if try BookmarkStore(database: elsewhere).bookmark(kind: "movie", itemID: item)
                    != nil
                {
                    let at = Self.now()
                    _ = try BookmarkStore(database: elsewhere).remove(kind: "movie", itemID: item)
                    intent.removed(item, at: at)
                    log.append("\(at) device\(other) removes \(item)")
                    Self.pause()
                }
                try addBookmark(
                    elsewhere, "device\(other)", item: item,
                    title: "T\(Int.random(in: 0..<100, using: &random))", tags: [])
                try sync(other)
                let behind: Int64 =
                    [-600_000, -10_800_000].randomElement(using: &random) ?? -600_000
                try deviceSync(index).setClockSkew(milliseconds: behind)
                try sync(index)
                Self.pause()
                try toggleTag(
                    database, name, item: item, tag: tags.randomElement(using: &random) ?? "red")
                try sync(index)
                try deviceSync(index).setClockSkew(milliseconds: 0)
                tally.writes += 3
                tally.skewedTags += 1
            case 26:
                // Restored, its clock behind by more than the bound, after a write it pushed;
                // then a write of the same key before the next round: one clock, one change.
                try syncEveryDevice()
                let behind: Int64 =
                    [-600_000, -10_800_000].randomElement(using: &random) ?? -600_000
                try deviceSync(index).setClockSkew(milliseconds: behind)
                try sync(index)
                // Its own copy: one with the clock behind is restored here only.
                let backup = try backUp(index)
                let key = keys.randomElement(using: &random) ?? "key0"
                try setPreference(
                    database, name, key: key, value: .some(Int.random(in: 0..<500, using: &random)))
                try sync(index)
                try restore(index, from: backup)
                Self.pause()
                try setPreference(
                    devices[index], name, key: key,
                    value: .some(Int.random(in: 500..<1_000, using: &random)))
                try sync(index)
                try deviceSync(index).setClockSkew(milliseconds: 0)
                tally.writes += 2
                tally.skewedRestores += 1
            case 27:
                // One bookmark added on two sides before either saw the other's, with other
                // tags: it has both tag sets.
                let (other, server) = try secondWriter(index)
                let item = items.randomElement(using: &random) ?? "item0"
                let first = tags.filter { _ in Bool.random(using: &random) }
                let second = tags.filter { _ in Bool.random(using: &random) }
                try addBookmark(
                    database, name, item: item,
                    title: "A\(Int.random(in: 0..<100, using: &random))", tags: first)
                Self.pause()
                try addBookmark(
                    server ? hubView.database : devices[other],
                    server ? "server" : "device\(other)",
                    item: item, title: "B\(Int.random(in: 0..<100, using: &random))", tags: second)
                tally.writes += 2
                tally.sameAdds += 1
            default:
                // Another device syncs: rounds are the commonest thing a device does.
                let other = Int.random(in: 0..<deviceCount, using: &random)
                try sync(other)
                log.append("\(Self.now()) device\(other) syncs")
            }
            Self.pause()
        }
        // The quiet rounds: every device (joined again if it left) pushes and pulls.
        for _ in 0..<3 {
            for index in devices.indices { try sync(index) }
        }
        let expected = intent.view
        var ok = true
        var seen: [SyncPropertyTests.Contents] = []
        for index in devices.indices {
            let state = try SyncPropertyTests.contents(of: devices[index])
            seen.append(state)
            if state.view != expected {
                let schedule = log.joined(separator: "\n    ")
                let message: String =
                    "seed \(seed): device \(index) lost a confirmed write:\n  shows  \(state.view)"
                    + "\n  wrote  \(expected)\n  schedule:\n    \(schedule)"
                Issue.record(Comment(rawValue: message))
                ok = false
                break
            }
            if let status = try DeviceSync.status(of: devices[index]), status.pending != 0 {
                Issue.record("seed \(seed): device \(index) has \(status.pending) pending")
                ok = false
            }
            if let wrong = try Self.untrueConflict(in: devices[index], checked: &tally.conflicts) {
                let schedule = log.joined(separator: "\n    ")
                Issue.record(
                    Comment(
                        rawValue: "seed \(seed): device \(index) lists a conflict that did not"
                            + " happen so: \(wrong)\n  schedule:\n    \(schedule)"))
                ok = false
                break
            }
        }
        if !ok, ProcessInfo.processInfo.environment["PREFS_DEBUG_SYNC"] != nil {
            let fields = try devices[0].read { state in
                try (state.engine as? SQLiteEngine)?.connection.rows(
                    sql: "SELECT ident, field, clock, present, pending FROM sync_field"
                        + " WHERE entity <> 'preference'"
                ).map { row in
                    "device0 \(SyncIdent.parts(row.get(0, as: String.self) ?? "") ?? [])"
                        + " \(row.get(1, as: String.self) ?? "") \(row.get(2, as: String.self) ?? "")"
                        + " \(row.get(3, as: Int.self) ?? -1) \(row.get(4, as: Int.self) ?? -1)"
                } ?? []
            }
            print(fields.sorted().joined(separator: "\n"))
            for refusal in try DeviceSync.refusals(of: devices[0]) {
                print("device0 refused \(refusal.subject) \(refusal.clock) \(refusal.reason)")
            }
            let rows = try SyncPropertyTests.hubRows(hubView).filter {
                $0.key.entity != .preference
            }
            print(
                rows.map { address, row in
                    "hub \(SyncIdent.parts(address.ident) ?? []) \(address.field) \(row.0) \(row.1)"
                        + " \(String(describing: row.2))"
                }.sorted().joined(separator: "\n"))
        }
        let serverState = try SyncPropertyTests.contents(of: hubView.database)
        if ok, serverState.view != expected {
            let schedule = log.joined(separator: "\n    ")
            let message: String =
                "seed \(seed): the server app's store lost a confirmed write:\n  shows  "
                + "\(serverState.view)\n  wrote  \(expected)\n  schedule:\n    \(schedule)"
            Issue.record(Comment(rawValue: message))
            ok = false
        }
        if ok, Set(seen.map(\.order)).count > 1 {
            Issue.record("seed \(seed): the devices order their bookmarks differently: \(seen)")
            ok = false
        }
        return ok
    }
}
