import Foundation
import PrefsSync
import PrefsTestSupport
import Synchronization
import TestSupport
import Testing

@testable import PrefsKit
@testable import PrefsPostgreSQL

/// Three devices and a hub under seeded random schedules, held against a reference model.
///
/// A schedule mixes writes, removals, bookmark and tag edits, moves, syncs, restarts,
/// devices that leave and come back with old data (late joiners), tombstone collection,
/// clocks wrong within the hub's bound and far beyond it (ahead and behind: a device behind
/// tags what it just pulled; one restored with its clock behind writes the key it had pushed
/// from its lost future), and malformed pushes from a hostile device. Directly, through
/// PgBouncer, or through `prefs-server` with a device token (`SyncHubRoute`). The model is a plain in-memory hub: last writer wins per field by clock, with the
/// clock bound, the rules and cursors (nothing is collected), fed the changes each device
/// pushes. After every round the real hub must hold exactly the model's rows; after a quiet
/// round every device must show what the model's rows say, and all devices must be equal.
///
/// `PREFS_SYNC_SCHEDULES` sets how many schedules run (40 by default, 10,000 with
/// `Tests/reliability --long`), `PREFS_SYNC_SCHEDULES_FROM` which comes first (0 by
/// default), `PREFS_SYNC_SEED` one seed to replay (each failure names
/// its seed); with `PREFS_DEBUG_SYNC=1` a device that is not the model prints its sync fields
/// and the model's rows.
@Suite(.serialized) struct SyncPropertyTests {
    static var seeds: [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment["PREFS_SYNC_SEED"].flatMap(UInt64.init) { return [seed] }
        let long = environment["PREFS_RELIABILITY_LONG"] == "1"
        let count = environment["PREFS_SYNC_SCHEDULES"].flatMap(Int.init) ?? (long ? 10_000 : 40)
        let first = environment["PREFS_SYNC_SCHEDULES_FROM"].flatMap(UInt64.init) ?? 0
        return (0..<UInt64(count)).map { 1_000 + first + $0 }
    }

    /// The reference: the hub as a dictionary.
    final class ModelHub: @unchecked Sendable {
        struct Row: Equatable {
            var clock: String
            var present: Bool
            var value: PreferenceValue?
            var sequence: Int64
        }

        var rows: [SyncAddress: Row] = [:]
        var sequence: Int64 = 0
        var cursors: [String: Int64] = [:]
        let bound: Int64 = SyncValidation.defaultClockBoundMilliseconds
        /// The devices this model follows (others, in other tests, push too). The push tap
        /// is the process's, so another test's push reads this from its own thread while
        /// this test adds devices: behind a lock (unlocked, that race once crashed CI).
        private let devices = Mutex<Set<String>>([])

        func follow(_ device: String) { devices.withLock { _ = $0.insert(device) } }

        func follows(_ device: String) -> Bool { devices.withLock { $0.contains(device) } }
        /// What the schedule exercised, for the report.
        var tally = Tally()

        struct Tally {
            var accepted = 0, lostToNewer = 0, clockAhead = 0, malformed = 0
            var serverStamps = 0

            static func + (left: Tally, right: Tally) -> Tally {
                Tally(
                    accepted: left.accepted + right.accepted,
                    lostToNewer: left.lostToNewer + right.lostToNewer,
                    clockAhead: left.clockAhead + right.clockAhead,
                    malformed: left.malformed + right.malformed,
                    serverStamps: left.serverStamps + right.serverStamps)
            }
        }

        func push(device: String, _ changes: [SyncChange]) {
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            if cursors[device] == nil { cursors[device] = 0 }
            let first = sequence
            sequence += Int64(changes.count)
            for (index, change) in changes.enumerated() {
                guard SyncValidation.problem(with: change) == nil,
                    let clock = HybridClock(change.clock)
                else {
                    tally.malformed += 1
                    continue
                }
                guard clock.milliseconds <= now + bound else {
                    tally.clockAhead += 1
                    continue
                }
                let existing = rows[change.address]
                if let existing, existing.clock >= change.clock {
                    if existing.clock > change.clock { tally.lostToNewer += 1 }
                    continue
                }
                tally.accepted += 1
                rows[change.address] = Row(
                    clock: change.clock, present: change.present, value: change.value,
                    sequence: first + Int64(index) + 1)
            }
        }

        /// A pull and the report after it: the cursor moves to the last row pulled. Nothing
        /// is collected (docs/sync.md, "The merge rule").
        func pullAndReport(device: String, cursor: Int64) -> Int64 {
            let last = rows.values.map(\.sequence).filter { $0 > cursor }.max()
            let moved = max(cursor, last ?? cursor)
            cursors[device] = max(cursors[device] ?? 0, moved)
            return moved
        }

        func forget(device: String) { cursors[device] = nil }

        /// A server app wrote through the engine: every field whose hub row changed must be
        /// stamped by the hub's clock past what the hub had, and none
        /// may vanish; the model takes the new rows. What the server changed without a stamp
        /// shows at the end, when its view and the devices' differ from the model's.
        func serverWrote(_ real: [SyncAddress: (String, Bool, PreferenceValue?)]) -> [String] {
            sequence += 1
            var problems: [String] = []
            for (address, row) in real where rows[address]?.clock != row.0 {
                let old = rows[address]?.clock ?? ""
                let edge = old
                guard row.0.hasSuffix("-hub"), row.0 > edge else {
                    problems.append("\(address) stamped \(row.0), not past \(edge)")
                    continue
                }
                tally.serverStamps += 1
                rows[address] = Row(
                    clock: row.0, present: row.1, value: row.2, sequence: sequence)
            }
            for address in rows.keys where real[address] == nil {
                problems.append("\(address) vanished from the hub")
            }
            return problems
        }
    }

    /// Minutes of schedules, on a thread of their own (`onItsOwnThread`).
    @Test func randomSchedulesConvergeToTheModel() async throws {
        try await onItsOwnThread { try convergeToTheModel() }
    }

    private func convergeToTheModel() throws {
        let server = try PostgresServer.start()
        let hubDatabase = try server.makeDatabase()
        let hub = try SyncHubRoute.target(server, database: hubDatabase)
        // Through prefs-server: it acts for every account as the superuser, a service role.
        let syncServer =
            SyncHubRoute.isThroughServer
            ? try SyncServerProcess(hub: server.target(database: hubDatabase)) : nil
        let model = Mutex<ModelHub?>(nil)
        DeviceSync.pushTap.withLock { tap in
            tap = { device, changes in
                model.withLock { model in
                    guard let model, model.follows(device) else { return }
                    model.push(device: device, changes)
                }
            }
        }
        defer { DeviceSync.pushTap.withLock { $0 = nil } }
        let start = ContinuousClock.now
        var failed: [UInt64] = []
        var tally = ModelHub.Tally()
        for seed in Self.seeds {
            let reference = ModelHub()
            model.withLock { $0 = reference }
            if try !run(
                seed: seed, hub: hub, hubDatabase: hubDatabase, server: server,
                syncServer: syncServer, model: reference)
            {
                failed.append(seed)
                if failed.count >= 3 { break }
            }
            tally = tally + reference.tally
        }
        let elapsed = ContinuousClock.now - start
        print(
            "sync\(syncServer == nil ? "" : " through prefs-server"): \(Self.seeds.count)"
                + " schedules against the model in \(elapsed);"
                + " changes taken \(tally.accepted), lost to newer \(tally.lostToNewer), refused for"
                + " the clock \(tally.clockAhead), malformed \(tally.malformed); server writes"
                + " stamped \(tally.serverStamps);"
                + " failing seeds:"
                + " \(failed.isEmpty ? "none" : failed.map(String.init).joined(separator: ", "))")
        #expect(failed.isEmpty, "failing seeds: \(failed)")
    }

    /// One schedule; false when the devices or the hub left the model.
    private func run(
        seed: UInt64, hub: String, hubDatabase: String, server: PostgresServer,
        syncServer: SyncServerProcess?, model: ModelHub
    ) throws -> Bool {
        let account = "s\(seed)"
        let folder = try TemporaryFolder()
        var random = SeededGenerator(seed: seed)
        var paths = (0..<3).map { folder.path("device\($0).db") }
        var devices = try paths.map { try AppDatabase(path: $0) }
        let keys = (0..<4).map { "key\($0)" }
        let items = (0..<4).map { "item\($0)" }
        let tags = ["red", "green", "blue"]
        var cursors: [String: Int64] = [:]
        var ok = true
        // The model's view of the hub: straight to the server, however the devices reach it.
        let hubView = try Self.hubEngine(
            hub: server.target(database: hubDatabase), account: account)
        // One DeviceSync per device while its file and its sync state stay (a hub
        // connection each).
        var syncs: [DeviceSync?] = [nil, nil, nil]
        var copies = 0
        // Through prefs-server, one device token for the account.
        let token = try syncServer.map { _ in
            try SyncHubRoute.deviceToken(server, database: hubDatabase, account: account)
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
            model.follow(sync.deviceID)
            // Pages of two changes: every schedule's pulls go page by page, restores and
            // kills between pages included.
            sync.pullLimit.withLock { $0 = SyncPullLimit(changes: 2, bytes: 1 << 20) }
            syncs[index] = sync
            return sync
        }
        // A toggle of one tag of a bookmark the device holds.
        func toggleTag(_ bookmarks: BookmarkStore, item: String) throws {
            guard let bookmark = try bookmarks.bookmark(kind: "movie", itemID: item) else { return }
            let tag = tags.randomElement(using: &random) ?? "red"
            var draft = BookmarkDraft(
                kind: "movie", itemID: item, title: bookmark.title, tags: bookmark.tags)
            if draft.tags.contains(tag) {
                draft.tags.removeAll { $0 == tag }
            } else {
                draft.tags.append(tag)
            }
            _ = try bookmarks.add(draft)
        }

        func sync(_ index: Int) throws {
            let database = devices[index]
            try deviceSync(index).sync()
            guard let status = try DeviceSync.status(of: database) else { return }
            cursors[status.deviceID] = model.pullAndReport(
                device: status.deviceID, cursor: cursors[status.deviceID] ?? 0)
            let real = try Self.hubRows(hubView)
            let expected = model.rows.mapValues { ($0.clock, $0.present, $0.value) }
            if !Self.same(real, expected) {
                Issue.record(
                    Comment(
                        rawValue: "seed \(seed): the hub left the model after a round of device"
                            + " \(index): \(Self.difference(real, expected))"))
                ok = false
            }
        }

        func serverWrote() throws {
            let problems = model.serverWrote(try Self.hubRows(hubView))
            if !problems.isEmpty {
                Issue.record("seed \(seed): a server write: \(problems.joined(separator: "; "))")
                ok = false
            }
        }

        for index in devices.indices { try sync(index) }
        for _ in 0..<30 where ok {
            let index = Int.random(in: 0..<3, using: &random)
            let database = devices[index]
            let store = PreferenceStore(database: database)
            let bookmarks = BookmarkStore(database: database)
            switch Int.random(in: 0..<20, using: &random) {
            case 0, 1, 2:
                let key = keys.randomElement(using: &random) ?? "key0"
                try store.setValue(
                    .int(Int.random(in: 0..<1_000, using: &random)), forKey: key)
            case 3:
                let key = keys.randomElement(using: &random) ?? "key0"
                try store.setValue(nil, forKey: key)
            case 4:
                let item = items.randomElement(using: &random) ?? "item0"
                let chosen = tags.filter { _ in Bool.random(using: &random) }
                try bookmarks.add(
                    BookmarkDraft(
                        kind: "movie", itemID: item,
                        title: "Title \(Int.random(in: 0..<100, using: &random))", tags: chosen))
            case 5:
                let item = items.randomElement(using: &random) ?? "item0"
                try bookmarks.remove(kind: "movie", itemID: item)
            case 6:
                let list = try bookmarks.list(BookmarkQuery(kind: "movie"))
                if let bookmark = list.randomElement(using: &random) {
                    _ = try bookmarks.move(
                        id: bookmark.id, to: Int.random(in: 0..<list.count, using: &random))
                }
            case 7, 8, 9:
                try sync(index)
            case 10:
                // A restart: the file is opened again.
                devices[index] = try AppDatabase(path: paths[index])
                syncs[index] = nil
            case 11:
                // A clock wrong within the bound, far beyond it, or right again.
                // Behind by more than the bound too: its clock still follows what it pulls.
                let skews: [Int64] = [0, 0, 120_000, -120_000, -600_000, -10_800_000, 86_400_000]
                try deviceSync(index).setClockSkew(
                    milliseconds: skews.randomElement(using: &random) ?? 0)
            case 12:
                // The device leaves (the hub forgets it) and keeps its data: when it syncs
                // again it is a late joiner with old copies.
                if let status = try DeviceSync.status(of: database) {
                    try deviceSync(index).leave()
                    model.forget(device: status.deviceID)
                    cursors[status.deviceID] = nil
                    syncs[index] = nil
                }
            case 13:
                // A hostile device of the account pushes malformed changes.
                let hostile = hubView
                let bad = SyncRulesTests.malformed.shuffled(using: &random).prefix(3).map(\.1)
                model.follow("hostile")
                model.push(device: "hostile", bad)
                let outcome = try hostile.database.state.withLock { _ in
                    try hostile.engine.push(bad, device: "hostile", cursor: 0)
                }
                if outcome.accepted != 0 || outcome.refused.count != bad.count {
                    Issue.record("seed \(seed): a malformed push was taken: \(outcome.accepted)")
                    ok = false
                }
                // A device that never pulls holds tombstones back for ever; the hostile one is
                // forgotten, as an operator forgets a device (prefs sync leave does it too).
                try hostile.database.state.withLock { _ in
                    try hostile.engine.forget(device: "hostile")
                }
                model.forget(device: "hostile")
            case 16:
                // A server app of the account sets or removes a preference on the hub; half
                // the time just after a device whose clock runs two minutes ahead (within the
                // bound) wrote it and pushed: the server's write is later, so it must win.
                let key = keys.randomElement(using: &random) ?? "key0"
                if Bool.random(using: &random), try DeviceSync.status(of: database) != nil {
                    try deviceSync(index).setClockSkew(milliseconds: 120_000)
                    try store.setValue(.int(Int.random(in: 0..<1_000, using: &random)), forKey: key)
                    try sync(index)
                }
                let value: PreferenceValue? =
                    Bool.random(using: &random)
                    ? .int(Int.random(in: 0..<1_000, using: &random)) : nil
                try PreferenceStore(database: hubView.database).setValue(value, forKey: key)
                try serverWrote()
            case 17:
                // A server app adds a bookmark (or changes its title and tags), or deletes one.
                let item = items.randomElement(using: &random) ?? "item0"
                let server = BookmarkStore(database: hubView.database)
                if Int.random(in: 0..<3, using: &random) == 0 {
                    try server.remove(kind: "movie", itemID: item)
                } else {
                    try server.add(
                        BookmarkDraft(
                            kind: "movie", itemID: item,
                            title: "Server \(Int.random(in: 0..<100, using: &random))",
                            tags: tags.filter { _ in Bool.random(using: &random) }))
                }
                try serverWrote()
            case 18:
                // Its clock behind by more than the bound, the device pulls (a bookmark another
                // device removed and added again, say) and tags what it holds: the tag must be
                // stamped past every clock it pulled, or the hub drops it and this device keeps it.
                guard try DeviceSync.status(of: database) != nil else { continue }
                try deviceSync(index).setClockSkew(
                    milliseconds: [-600_000, -10_800_000].randomElement(using: &random) ?? -600_000)
                try sync(index)
                try toggleTag(bookmarks, item: items.randomElement(using: &random) ?? "item0")
                try sync(index)
            case 19:
                // Restored, its clock behind: a write pushed from the file's lost future and
                // one made after the restore must not share a clock.
                guard try DeviceSync.status(of: database) != nil else { continue }
                try deviceSync(index).setClockSkew(milliseconds: -600_000)
                try sync(index)
                copies += 1
                let backup = folder.path("backup\(copies).db")
                for suffix in ["", "-wal"]
                where FileManager.default.fileExists(atPath: paths[index] + suffix) {
                    let copied = try runProcess(
                        URL(fileURLWithPath: "/bin/cp"), [paths[index] + suffix, backup + suffix])
                    #expect(copied.status == 0, "\(copied.stderr)")
                }
                let key = keys.randomElement(using: &random) ?? "key0"
                try store.setValue(.int(Int.random(in: 0..<500, using: &random)), forKey: key)
                try sync(index)
                let restored = folder.path("restored\(copies).db")
                for suffix in ["", "-wal"]
                where FileManager.default.fileExists(atPath: backup + suffix) {
                    try FileManager.default.copyItem(
                        atPath: backup + suffix, toPath: restored + suffix)
                }
                paths[index] = restored
                devices[index] = try AppDatabase(path: restored)
                syncs[index] = nil
                try PreferenceStore(database: devices[index]).setValue(
                    .int(Int.random(in: 500..<1_000, using: &random)), forKey: key)
                try sync(index)
            default:
                // Tags edited alone.
                try toggleTag(bookmarks, item: items.randomElement(using: &random) ?? "item0")
            }
        }
        guard ok else { return false }
        // The quiet round: every clock right, everyone pushes, then everyone pulls everything.
        for index in devices.indices where try DeviceSync.status(of: devices[index]) != nil {
            try deviceSync(index).setClockSkew(milliseconds: 0)
        }
        for _ in 0..<3 {
            for index in devices.indices { try sync(index) }
        }
        guard ok else { return false }
        let states = try devices.map { try Self.contents(of: $0) }
        let expected = Self.contents(of: model)
        for (index, state) in states.enumerated() {
            if state.view != expected {
                if ProcessInfo.processInfo.environment["PREFS_DEBUG_SYNC"] != nil {
                    let fields = try devices[index].read { state in
                        try (state.engine as? SQLiteEngine)?.connection.rows(
                            sql:
                                "SELECT entity, ident, field, clock, present, pending FROM sync_field WHERE entity <> 'preference'"
                        ).map { row in
                            "\(row.get(0, as: String.self) ?? "") \(SyncIdent.parts(row.get(1, as: String.self) ?? "") ?? []) \(row.get(2, as: String.self) ?? "") \(row.get(3, as: String.self) ?? "") \(row.get(4, as: Int.self) ?? -1) \(row.get(5, as: Int.self) ?? -1)"
                        } ?? []
                    }
                    print("device \(index) fields:\n" + fields.joined(separator: "\n"))
                    print(
                        "model rows:\n"
                            + model.rows.filter { $0.key.entity != .preference }.map {
                                "\($0.key.entity) \(SyncIdent.parts($0.key.ident) ?? []) \($0.key.field) \($0.value.clock) \($0.value.present)"
                            }.sorted().joined(separator: "\n"))
                }
                Issue.record(
                    "seed \(seed): device \(index) is not the model:\n\(state.view)\n\(expected)")
                ok = false
            }
            if let pending = try DeviceSync.status(of: devices[index])?.pending, pending != 0 {
                let status = try DeviceSync.status(of: devices[index])
                let waiting = try devices[index].read { state in
                    try state.engine.sync?.pendingChanges(limit: 20) ?? []
                }
                Issue.record(
                    "seed \(seed): device \(index) has \(pending) changes pending: \(String(describing: status)) \(waiting.map { "\($0.entity) \(SyncIdent.parts($0.ident) ?? []) \($0.field) \($0.clock)" })"
                )
                ok = false
            }
        }
        // The server app's view of the account is the model's too, in the devices' order.
        let serverState = try Self.contents(of: hubView.database)
        if serverState != states[0] {
            Issue.record(
                "seed \(seed): the server's view is not the devices':\n\(serverState)\n\(states[0])"
            )
            ok = false
        }
        if states[0] != states[1] || states[1] != states[2] {
            Issue.record("seed \(seed): the devices differ:\n\(states)")
            ok = false
        }
        return ok
    }

    /// What a device shows: its preferences, and its bookmarks with their tags; and in
    /// which order (positions), which the model does not say but all devices must share.
    struct Contents: Equatable {
        var view: View
        var order: [String]
    }

    struct View: Equatable, CustomStringConvertible {
        var preferences: [String: PreferenceValue]
        var bookmarks: [String: String]

        var description: String {
            "preferences \(preferences.sorted { $0.key < $1.key }), bookmarks \(bookmarks.sorted { $0.key < $1.key })"
        }
    }

    static func contents(of database: AppDatabase) throws -> Contents {
        let bookmarks = try BookmarkStore(database: database).list(BookmarkQuery(kind: "movie"))
        var shown: [String: String] = [:]
        for bookmark in bookmarks {
            shown[bookmark.itemID] =
                "\(bookmark.title) [\(bookmark.tags.sorted().joined(separator: ","))]"
        }
        return Contents(
            view: View(
                preferences: try PreferenceStore(database: database).storedValues(),
                bookmarks: shown),
            order: bookmarks.map(\.itemID))
    }

    /// What the model's rows say a device shows.
    static func contents(of model: ModelHub) -> View {
        var preferences: [String: PreferenceValue] = [:]
        var titles: [String: String] = [:]
        var existing: Set<String> = []
        var tags: [String: [String]] = [:]
        // A bookmark has the tags stamped at or after its newest removal (docs/sync.md,
        // "Tags").
        var since: [String: String] = [:]
        for (address, row) in model.rows
        where address.entity == .bookmark
            && address.field == SyncFields.bookmarkRemoved
        {
            if let parts = SyncIdent.parts(address.ident) { since[parts[1]] = row.clock }
        }
        for (address, row) in model.rows where row.present {
            guard let parts = SyncIdent.parts(address.ident) else { continue }
            switch (address.entity, address.field) {
            case (.preference, _):
                if let value = row.value { preferences[parts[1]] = value }
            case (.bookmark, "exists"):
                existing.insert(parts[1])
            case (.bookmark, "title"):
                if case .string(let title)? = row.value { titles[parts[1]] = title }
            case (.tag, _):
                if row.clock >= since[parts[1]] ?? "" {
                    tags[parts[1], default: []].append(parts[2])
                }
            default:
                break
            }
        }
        var bookmarks: [String: String] = [:]
        for item in existing {
            bookmarks[item] =
                "\(titles[item] ?? item) [\((tags[item] ?? []).sorted().joined(separator: ","))]"
        }
        return View(preferences: preferences, bookmarks: bookmarks)
    }

    static func hubEngine(hub: String, account: String) throws -> (
        database: AppDatabase, engine: PostgreSQLEngine
    ) {
        var options = PostgreSQLOptions()
        options.account = account
        options.watchesForChanges = false
        let database = try AppDatabase.postgreSQL(hub, options: options)
        let engine = try #require(database.state.withLock { $0.engine as? PostgreSQLEngine })
        return (database, engine)
    }

    /// The hub's rows of an account that keep the rules (a malformed one planted by hand is
    /// no row of the model's).
    static func hubRows(_ hub: (database: AppDatabase, engine: PostgreSQLEngine)) throws
        -> [SyncAddress: (String, Bool, PreferenceValue?)]
    {
        let (database, engine) = hub
        let rows = try database.state.withLock { _ in try engine.pull(after: 0, limit: 1_000_000) }
        var found: [SyncAddress: (String, Bool, PreferenceValue?)] = [:]
        for (change, _) in rows where SyncValidation.problem(with: change) == nil {
            found[change.address] = (change.clock, change.present, change.value)
        }
        return found
    }

    static func same(
        _ real: [SyncAddress: (String, Bool, PreferenceValue?)],
        _ expected: [SyncAddress: (String, Bool, PreferenceValue?)]
    ) -> Bool {
        guard real.count == expected.count else { return false }
        for (address, row) in real {
            guard let other = expected[address], other.0 == row.0, other.1 == row.1,
                other.2 == row.2
            else { return false }
        }
        return true
    }

    static func difference(
        _ real: [SyncAddress: (String, Bool, PreferenceValue?)],
        _ expected: [SyncAddress: (String, Bool, PreferenceValue?)]
    ) -> String {
        var lines: [String] = []
        for address in Set(real.keys).union(expected.keys) {
            let left = real[address].map { "\($0.0) \($0.1) \(String(describing: $0.2))" } ?? "none"
            let right =
                expected[address].map { "\($0.0) \($0.1) \(String(describing: $0.2))" } ?? "none"
            if left != right {
                lines.append(
                    "\(address.entity) \(SyncIdent.parts(address.ident) ?? []) \(address.field):"
                        + " hub \(left), model \(right)")
            }
        }
        return lines.sorted().joined(separator: "; ")
    }
}
