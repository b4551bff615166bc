import Foundation
import PostgresCore
import PrefsPostgreSQL
import PrefsSync
import PrefsTestSupport
import Synchronization
import TestSupport
import Testing

@testable import PrefsKit

/// Devices (SQLite files) syncing one account through a real PostgreSQL hub: the cases that
/// other preference syncs get wrong, one by one.
@Suite struct SyncTests {
    let server: PostgresServer
    let hub: String
    let hubDatabase: String
    let folder: TemporaryFolder

    init() throws {
        server = try PostgresServer.start()
        hubDatabase = try server.makeDatabase()
        hub = try SyncHubRoute.target(server, database: hubDatabase)
        folder = try TemporaryFolder()
    }

    private func device(_ name: String) throws -> AppDatabase {
        try AppDatabase(path: folder.path(name + ".db"))
    }

    @discardableResult
    private func sync(_ database: AppDatabase, account: String = "alice") throws -> SyncReport {
        try DeviceSync(
            database: database, hub: hub, account: account, hubOptions: SyncHubRoute.options
        ).sync()
    }

    private func prefs(_ database: AppDatabase) -> PreferenceStore {
        PreferenceStore(database: database)
    }

    @Test func aNewDevicesDefaultNeverOverwritesAValueSetElsewhere() throws {
        let phone = try device("phone")
        try prefs(phone).set(true, for: .hasViewedWalkthrough)
        #expect(try sync(phone).pushed == 1)
        // A fresh install reads its default, and has nothing to send.
        let tablet = try device("tablet")
        #expect(prefs(tablet)[.hasViewedWalkthrough] == false)
        let report = try sync(tablet)
        #expect(report.pushed == 0)
        #expect(report.pulled == 1)
        #expect(prefs(tablet)[.hasViewedWalkthrough] == true)
        try sync(phone)
        #expect(prefs(phone)[.hasViewedWalkthrough] == true)
    }

    @Test func aDeleteRacingAnUpdateEndsTheSameOnBothDevices() throws {
        let first = try device("first")
        let second = try device("second")
        try prefs(first).set(1, for: .launchCount)
        try sync(first)
        try sync(second)
        #expect(prefs(second)[.launchCount] == 1)
        // Offline: the first removes the key, then the second sets it (a later clock).
        try prefs(first).setValue(nil, forKey: "launchCount")
        Thread.sleep(forTimeInterval: 0.005)
        try prefs(second).set(2, for: .launchCount)
        try sync(first)
        let report = try sync(second)
        try sync(first)
        #expect(prefs(first)[.launchCount] == 2)
        #expect(prefs(second)[.launchCount] == 2)
        #expect(report.conflicts == 1)
        // The removal lost on the second device, and was kept there.
        let conflicts = try DeviceSync.conflicts(of: second)
        #expect(conflicts.first?.lostPresent == false)
        #expect(conflicts.first?.subject == .preference(suite: "standard", key: "launchCount"))

        // The other way round: the later change is the removal.
        try prefs(second).set(3, for: .launchCount)
        Thread.sleep(forTimeInterval: 0.005)
        try prefs(first).setValue(nil, forKey: "launchCount")
        try sync(second)
        try sync(first)
        try sync(second)
        #expect(try prefs(first).storedValue(forKey: "launchCount") == nil)
        #expect(try prefs(second).storedValue(forKey: "launchCount") == nil)
        #expect(try DeviceSync.conflicts(of: first).first?.lostValue == .int(3))
    }

    /// Two devices that gave a field the same value lost nothing to each other: no conflict
    /// is counted or listed, whichever wrote last and whichever pushed first. A different
    /// value still is one.
    @Test func theSameValueWrittenOnTwoDevicesIsNoConflict() throws {
        let first = try device("first")
        let second = try device("second")
        try sync(first)
        try sync(second)
        // The later write pushed second: it overwrites the hub's equal value.
        try prefs(first).setValue(.string("dark"), forKey: "theme")
        Thread.sleep(forTimeInterval: 0.005)
        try prefs(second).setValue(.string("dark"), forKey: "theme")
        #expect(try sync(first).conflicts == 0)
        #expect(try sync(second).conflicts == 0)
        // The earlier write pushed second: it loses to the hub's equal value.
        try prefs(first).setValue(.int(5), forKey: "launchCount")
        Thread.sleep(forTimeInterval: 0.005)
        try prefs(second).setValue(.int(5), forKey: "launchCount")
        #expect(try sync(second).conflicts == 0)
        #expect(try sync(first).conflicts == 0)
        // A removal on both.
        try prefs(first).setValue(nil, forKey: "theme")
        try prefs(second).setValue(nil, forKey: "theme")
        #expect(try sync(first).conflicts == 0)
        #expect(try sync(second).conflicts == 0)
        #expect(try DeviceSync.conflicts(of: first).isEmpty)
        #expect(try DeviceSync.conflicts(of: second).isEmpty)
        // Different values are a conflict, kept where the loser was.
        try prefs(first).setValue(.int(6), forKey: "launchCount")
        Thread.sleep(forTimeInterval: 0.005)
        try prefs(second).setValue(.int(7), forKey: "launchCount")
        try sync(first)
        #expect(try sync(second).conflicts == 1)
        #expect(try DeviceSync.conflicts(of: second).first?.lostValue == .int(6))
    }

    @Test func aTagAddedOnOneDeviceAndAnotherRemovedOnASecondBothHold() throws {
        let first = try device("first")
        let second = try device("second")
        try BookmarkStore(database: first).add(
            BookmarkDraft(kind: "movie", itemID: "m1", title: "Heat", tags: ["crime", "drama"]))
        try sync(first)
        try sync(second)
        #expect(
            try BookmarkStore(database: second).bookmark(kind: "movie", itemID: "m1")?.tags
                == ["crime", "drama"])
        try BookmarkStore(database: first).add(
            BookmarkDraft(
                kind: "movie", itemID: "m1", title: "Heat", tags: ["crime", "drama", "favorite"]))
        try BookmarkStore(database: second).add(
            BookmarkDraft(kind: "movie", itemID: "m1", title: "Heat", tags: ["crime"]))
        try sync(first)
        try sync(second)
        try sync(first)
        for database in [first, second] {
            let bookmark = try BookmarkStore(database: database).bookmark(
                kind: "movie", itemID: "m1")
            #expect(bookmark?.tags == ["crime", "favorite"])
            #expect(bookmark?.title == "Heat")
        }
    }

    @Test func theSameItemBookmarkedOnTwoDevicesBecomesOneBookmark() throws {
        let first = try device("first")
        let second = try device("second")
        try BookmarkStore(database: first).add(
            BookmarkDraft(kind: "movie", itemID: "m1", title: "Heat (1995)", tags: ["crime"]))
        Thread.sleep(forTimeInterval: 0.005)
        try BookmarkStore(database: second).add(
            BookmarkDraft(kind: "movie", itemID: "m1", title: "Heat", tags: ["classic"]))
        try BookmarkStore(database: second).add(
            BookmarkDraft(kind: "movie", itemID: "m2", title: "Ronin"))
        try sync(first)
        try sync(second)
        try sync(first)
        for database in [first, second] {
            let bookmarks = try BookmarkStore(database: database).list(BookmarkQuery(kind: "movie"))
            #expect(bookmarks.map(\.itemID).sorted() == ["m1", "m2"])
            #expect(bookmarks.first { $0.itemID == "m1" }?.title == "Heat")  // the later title
            // Both additions' tags: tags are an add/remove set, and nobody removed either
            // (docs/sync.md, "Tags").
            #expect(bookmarks.first { $0.itemID == "m1" }?.tags == ["classic", "crime"])
            #expect(bookmarks.map(\.position).sorted() == [0, 1])
        }
        let orders = try [first, second].map {
            try BookmarkStore(database: $0).list(BookmarkQuery(kind: "movie")).map(\.itemID)
        }
        #expect(orders[0] == orders[1])
    }

    /// A bookmark deleted and added again has none of the tags from before its removal: a
    /// tag another device added before the deletion (it syncs later) stays gone, on every
    /// replica and in the server app's tables alike.
    @Test func aBookmarkAddedAgainHasNoneOfTheTagsFromBeforeItsRemoval() throws {
        let first = try device("first")
        let second = try device("second")
        try BookmarkStore(database: first).add(
            BookmarkDraft(kind: "movie", itemID: "m1", title: "Heat", tags: ["crime"]))
        for database in [first, second] { try sync(database) }
        // The second device tags it, and syncs only after the deletion.
        try BookmarkStore(database: second).add(
            BookmarkDraft(kind: "movie", itemID: "m1", title: "Heat", tags: ["crime", "red"]))
        Thread.sleep(forTimeInterval: 0.005)
        try BookmarkStore(database: first).remove(kind: "movie", itemID: "m1")
        try sync(first)
        Thread.sleep(forTimeInterval: 0.005)
        try BookmarkStore(database: first).add(
            BookmarkDraft(kind: "movie", itemID: "m1", title: "Heat", tags: ["classic"]))
        for _ in 0..<2 {
            for database in [first, second] { try sync(database) }
        }
        for database in [first, second, try serverApp()] {
            let bookmark = try BookmarkStore(database: database).bookmark(
                kind: "movie", itemID: "m1")
            #expect(bookmark?.tags == ["classic"])
        }
    }

    /// A tag put on a bookmark after another device removed it, by a device that had not seen
    /// the removal, counts: it is after the newest removal. Added again, the bookmark has it
    /// beside the tags it was added with.
    @Test func aTagAddedAfterTheRemovalElsewhereCounts() throws {
        try tagAddedAfterTheRemovalElsewhere(syncsTheTagFirst: false) { first in
            try BookmarkStore(database: first).add(
                BookmarkDraft(kind: "movie", itemID: "m1", title: "Heat", tags: ["classic"]))
        }
    }

    /// The same through a bulk add, which asks once whether sync holds any tag: on a device
    /// that synced one, the bookmark added again still takes the tag put on after its
    /// removal, at once.
    @Test func aTagAddedAfterTheRemovalElsewhereCountsInABulkAddToo() throws {
        try tagAddedAfterTheRemovalElsewhere(syncsTheTagFirst: true) { first in
            try BookmarkStore(database: first).add(contentsOf: [
                BookmarkDraft(kind: "movie", itemID: "m1", title: "Heat", tags: ["classic"]),
                BookmarkDraft(kind: "movie", itemID: "m2", title: "Ronin"),
            ])
            #expect(
                try BookmarkStore(database: first).bookmark(kind: "movie", itemID: "m1")?.tags
                    == ["classic", "red"])
        }
    }

    /// The first device removes a bookmark; the second, which has not seen the removal, tags
    /// it "red" (synced before the first adds it again when `syncsTheTagFirst`); `addAgain`
    /// adds it again on the first with the tag "classic". Every replica ends with both.
    private func tagAddedAfterTheRemovalElsewhere(
        syncsTheTagFirst: Bool, addAgain: (AppDatabase) throws -> Void
    ) throws {
        let first = try device("first")
        let second = try device("second")
        try BookmarkStore(database: first).add(
            BookmarkDraft(kind: "movie", itemID: "m1", title: "Heat", tags: ["crime"]))
        for database in [first, second] { try sync(database) }
        try BookmarkStore(database: first).remove(kind: "movie", itemID: "m1")
        try sync(first)
        Thread.sleep(forTimeInterval: 0.005)
        try BookmarkStore(database: second).update(kind: "movie", itemID: "m1") {
            $0.tags.append("red")
        }
        if syncsTheTagFirst {
            try sync(second)
            try sync(first)
        }
        Thread.sleep(forTimeInterval: 0.005)
        try addAgain(first)
        for _ in 0..<2 {
            for database in [first, second] { try sync(database) }
        }
        for database in [first, second, try serverApp()] {
            let bookmark = try BookmarkStore(database: database).bookmark(
                kind: "movie", itemID: "m1")
            #expect(bookmark?.tags == ["classic", "red"])
        }
    }

    /// The server app's store of the test's account.
    private func serverApp() throws -> AppDatabase {
        var options = PostgreSQLOptions()
        options.account = "alice"
        return try AppDatabase.postgreSQL(server.target(database: hubDatabase), options: options)
    }

    /// A string holding a NUL character (which PostgreSQL's text cannot hold) is refused
    /// alone, reported, and stays on its device; the device's other changes go on, and the
    /// next rounds do not fail for it.
    @Test func aValueWithANULIsRefusedAloneAndTheRestGoOn() throws {
        let phone = try device("phone")
        let laptop = try device("laptop")
        try prefs(phone).setValue(.string("a\u{0}b"), forKey: "bad")
        try prefs(phone).setValue(.int(1), forKey: "good")
        try BookmarkStore(database: phone).add(
            BookmarkDraft(kind: "movie", itemID: "m1", title: "Heat", note: "x\u{0}y"))
        let report = try sync(phone)
        #expect(report.refused == 2)
        #expect(report.pending == 0)
        #expect(try sync(phone).refused == 0)
        try sync(laptop)
        #expect(try prefs(laptop).value(forKey: "good") == .int(1))
        #expect(try prefs(laptop).value(forKey: "bad") == nil)
        #expect(try prefs(phone).value(forKey: "bad") == .string("a\u{0}b"))
        #expect(try DeviceSync.refusals(of: phone).count == 2)
        #expect(try DeviceSync.refusals(of: phone).allSatisfy { $0.reason.contains("NUL") })
    }

    /// A device restored from an older copy of its file (with its -wal: a backup, a VM
    /// snapshot) keeps its device id and an old cursor. The hub knows the newest clock it took
    /// from the device, finds the file older, says so, and the round brings back everything,
    /// the device's own pushes since the copy included.
    @Test func aDeviceRestoredFromAnOlderCopyGetsBackWhatItPushedSince() throws {
        let path = folder.path("phone.db")
        var phone = try AppDatabase(path: path)
        try prefs(phone).set(1, for: .launchCount)
        try sync(phone)
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.copyItem(
                atPath: path + suffix, toPath: folder.path("copy.db") + suffix)
        }
        try prefs(phone).set(2, for: .launchCount)
        try BookmarkStore(database: phone).add(
            BookmarkDraft(kind: "movie", itemID: "heat", title: "Heat"))
        #expect(try sync(phone).restored == false)
        phone = try AppDatabase(path: folder.path("copy.db"))
        #expect(prefs(phone)[.launchCount] == 1)
        let report = try sync(phone)
        #expect(report.restored)
        #expect(prefs(phone)[.launchCount] == 2)
        #expect(try bookmarks(phone) == ["heat"])
        #expect(try sync(phone).restored == false)
    }

    /// A clock off from the hub's beyond the tolerance, either way, is reported to its device
    /// in the round's result and in `sync status`; back in step, the report goes.
    @Test func aClockOffEitherWayIsReportedToItsDevice() throws {
        let phone = try device("phone")
        let sync = try DeviceSync(
            database: phone, hub: hub, account: "alice", hubOptions: SyncHubRoute.options)
        #expect(try sync.sync().clockOffsetMilliseconds == nil)
        for skew: Int64 in [-120_000, 60_000] {
            try sync.setClockSkew(milliseconds: skew)
            let offset = try sync.sync().clockOffsetMilliseconds
            #expect(offset.map { abs($0 - skew) < 5_000 } == true, "\(String(describing: offset))")
            #expect(try DeviceSync.status(of: phone)?.clockOffsetMilliseconds == offset)
        }
        try sync.setClockSkew(milliseconds: 0)
        #expect(try sync.sync().clockOffsetMilliseconds == nil)
        #expect(try DeviceSync.status(of: phone)?.clockOffsetMilliseconds == nil)
    }

    @Test func aBookmarksFolderPathFollowsIt() throws {
        let first = try device("first")
        let second = try device("second")
        let bookmarks = BookmarkStore(database: first)
        try bookmarks.add(
            BookmarkDraft(
                kind: "link", itemID: "https://swift.org", title: "Swift", category: "Work",
                folder: ["Bookmarks bar", "Work"]))
        try bookmarks.add(BookmarkDraft(kind: "link", itemID: "https://a.example", title: "A"))
        try sync(first)
        try sync(second)
        func folders(_ database: AppDatabase) throws -> [[String]] {
            try BookmarkStore(database: database).list(BookmarkQuery(kind: "link")).map(\.folder)
        }
        #expect(try folders(second) == [["Bookmarks bar", "Work"], []])
        // Moved to another folder on the first device, it moves on the second.
        try bookmarks.add(
            BookmarkDraft(
                kind: "link", itemID: "https://swift.org", title: "Swift", category: "Home",
                folder: ["Bookmarks bar", "Home"]))
        try sync(first)
        try sync(second)
        #expect(try folders(second) == [["Bookmarks bar", "Home"], []])
        #expect(try folders(first) == folders(second))
    }

    /// What a write replaced in a bookmark is kept where the write was made or pulled to:
    /// the device that retitled it and the device that pulled the retitle keep the old
    /// title; the hub keeps what the server app replaced, not what devices pushed (a device
    /// pushing retitles without end would make it keep ten times the account's bookmarks,
    /// outside the account's bound).
    @Test func aRetitlePushedByADeviceIsKeptOnDevicesAndTheServerAppsOwnOnTheHub() throws {
        let phone = try device("phone")
        let laptop = try device("laptop")
        let item = "https://swift.org"
        let added = try BookmarkStore(database: phone).add(
            BookmarkDraft(kind: "link", itemID: item, title: "Swift"))
        try sync(phone)
        try sync(laptop)
        try BookmarkStore(database: phone).update(kind: "link", itemID: item) {
            $0.title = "Swift.org"
        }
        try sync(phone)
        try sync(laptop)
        let app = BookmarkStore(database: try serverApp())
        let onHub = try #require(try app.bookmark(kind: "link", itemID: item))
        #expect(onHub.title == "Swift.org")
        #expect(try app.history(id: onHub.id).isEmpty)
        #expect(try BookmarkStore(database: phone).history(id: added.id).map(\.title) == ["Swift"])
        let onLaptop = try #require(
            try BookmarkStore(database: laptop).bookmark(kind: "link", itemID: item))
        #expect(
            try BookmarkStore(database: laptop).history(id: onLaptop.id).map(\.title) == ["Swift"])
        try app.update(kind: "link", itemID: item) { $0.title = "The Swift site" }
        #expect(try app.history(id: onHub.id).map(\.title) == ["Swift.org"])
    }

    @Test func anotherAccountsChangesAreNeverPulled() throws {
        let alices = try device("alice")
        try prefs(alices).set(7, for: .launchCount)
        try sync(alices, account: "alice")
        let bobs = try device("bob")
        let report = try sync(bobs, account: "bob")
        #expect(report.pulled == 0)
        #expect(try prefs(bobs).storedValue(forKey: "launchCount") == nil)
        // A device of one account refuses another, and changes nothing.
        #expect(throws: SyncError.otherAccount(device: "alice", requested: "bob")) {
            try DeviceSync(
                database: alices, hub: hub, account: "bob", hubOptions: SyncHubRoute.options)
        }
        #expect(try DeviceSync.status(of: alices)?.account == "alice")
    }

    /// Clocks wrong by less than the hub's bound (5 minutes) are taken; the hybrid clock
    /// orders the writes as they were seen.
    @Test func devicesMinutesAheadAndBehindConverge() throws {
        let ahead = try device("ahead")
        let behind = try device("behind")
        let honest = try device("honest")
        for database in [ahead, behind, honest] { try sync(database) }
        let twoMinutes: Int64 = 2 * 60_000
        try DeviceSync(
            database: ahead, hub: hub, account: "alice", hubOptions: SyncHubRoute.options
        )
        .setClockSkew(milliseconds: twoMinutes)
        try DeviceSync(
            database: behind, hub: hub, account: "alice", hubOptions: SyncHubRoute.options
        )
        .setClockSkew(milliseconds: -twoMinutes)
        try prefs(ahead).set(1, for: .launchCount)
        try sync(ahead)
        // The device behind writes after it has seen the one ahead: its clock moved past it,
        // so its later write wins, though its wall clock is four minutes behind.
        try sync(behind)
        #expect(prefs(behind)[.launchCount] == 1)
        try prefs(behind).set(2, for: .launchCount)
        try sync(behind)
        try sync(honest)
        try sync(ahead)
        #expect([ahead, behind, honest].map { prefs($0)[.launchCount] } == [2, 2, 2])
        // And the honest device, seen both, wins over both with its next write.
        try prefs(honest).set(3, for: .launchCount)
        try sync(honest)
        try sync(ahead)
        try sync(behind)
        #expect([ahead, behind, honest].map { prefs($0)[.launchCount] } == [3, 3, 3])
        // Without having seen the one ahead, a write of the one behind loses (deterministically).
        try prefs(ahead).set(10, for: .launchCount)
        try prefs(behind).set(20, for: .launchCount)
        for database in [behind, ahead, honest, behind] { try sync(database) }
        #expect([ahead, behind, honest].map { prefs($0)[.launchCount] } == [10, 10, 10])
    }

    /// A device whose clock is a century ahead would win every later write of every other
    /// device. The hub refuses its changes (they stay pending), the device says so, and once
    /// its clock is right they are stamped again and go.
    @Test func aDeviceACenturyAheadIsToldAndWinsNothing() throws {
        let ahead = try device("ahead")
        let honest = try device("honest")
        for database in [ahead, honest] { try sync(database) }
        let century: Int64 = 100 * 365 * 86_400_000
        try DeviceSync(
            database: ahead, hub: hub, account: "alice", hubOptions: SyncHubRoute.options
        )
        .setClockSkew(milliseconds: century)
        try prefs(ahead).set(1, for: .launchCount)
        let refused = try sync(ahead)
        #expect(refused.pushed == 0)
        #expect(refused.waitingForClock == 1)
        #expect(refused.pending == 1)
        #expect((refused.clockAheadMilliseconds ?? 0) > century - 60_000)
        let status = try DeviceSync.status(of: ahead)
        #expect((status?.clockAheadMilliseconds ?? 0) > century - 60_000)
        #expect(status?.pending == 1)
        // The others never see it, and their writes are not beaten by it.
        try sync(honest)
        #expect(try prefs(honest).storedValue(forKey: "launchCount") == nil)
        try prefs(honest).set(2, for: .launchCount)
        try sync(honest)
        // The clock is put right: the change is stamped again, now, and goes.
        try DeviceSync(
            database: ahead, hub: hub, account: "alice", hubOptions: SyncHubRoute.options
        ).setClockSkew(milliseconds: 0)
        let fixed = try sync(ahead)
        #expect(fixed.waitingForClock == 0)
        #expect(fixed.clockAheadMilliseconds == nil)
        #expect(fixed.pending == 0)
        #expect(try DeviceSync.status(of: ahead)?.clockAheadMilliseconds == nil)
        try sync(honest)
        #expect([ahead, honest].map { prefs($0)[.launchCount] } == [1, 1])
        // No clock on the hub is past the bound.
        let furthest = try server.psql(
            """
            SELECT max(split_part(clock, '-', 1)::bigint)
                - (extract(epoch FROM now()) * 1000)::bigint FROM sync_change
            """, database: hubDatabase)
        let lead = Int64(furthest.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect((lead ?? .max) < 300_000)
    }

    @Test func deviceLocalKeysAndSelectionsStayOnTheirDevice() throws {
        let first = try device("first")
        let second = try device("second")
        try prefs(first).declare(
            PreferenceDeclaration(key: "windowWidth", type: .int, isDeviceLocal: true))
        try prefs(first).setValue(.int(1280), forKey: "windowWidth")
        try prefs(first).set(true, for: .hasViewedWalkthrough)
        try SelectionStore(database: first).define("carousel", count: 5, policy: .clamp)
        try SelectionStore(database: first).select(3, in: "carousel")
        #expect(try sync(first).pushed == 1)
        try sync(second)
        #expect(try prefs(second).storedValue(forKey: "windowWidth") == nil)
        #expect(prefs(second)[.hasViewedWalkthrough] == true)
        #expect(try SelectionStore(database: second).selection(named: "carousel") == nil)
    }

    @Test func aPushReplayedAfterACrashChangesNothing() throws {
        let first = try device("first")
        try prefs(first).set(5, for: .launchCount)
        try sync(first)
        // As if the device died after the hub committed and before it cleared its outbox.
        try first.state.withLock { state in
            let skipsRows = { false }
            _ = try state.engine.writeTransaction(
                readingChangesAfter: 0, countingRows: false, skipsRows: skipsRows
            ) {
                guard let engine = state.engine as? SQLiteEngine else { return }
                try engine.connection.execute(sql: "UPDATE sync_field SET pending = 1")
            }
        }
        let report = try sync(first)
        #expect(report.pushed == 0)
        #expect(report.conflicts == 0)
        #expect(report.pending == 0)
        let second = try device("second")
        try sync(second)
        #expect(prefs(second)[.launchCount] == 5)
    }

    /// The hub's rows of the account, as a pull from the start gets them.
    private func hubRows(account: String = "alice") throws -> [SyncChange] {
        var options = PostgreSQLOptions()
        options.account = account
        let database = try AppDatabase.postgreSQL(
            server.target(database: hubDatabase), options: options)
        return try database.state.withLock { state in
            try (state.engine as? SyncHub)?.pull(after: 0, limit: Int.max).map(\.change) ?? []
        }
    }

    /// A removal's tombstone is kept for good (a field's identity and clock, no payload):
    /// collecting it could not tell "deleted" from "never there" for a device that comes
    /// later with an older write (docs/sync.md, "The merge rule").
    @Test func aTombstoneStaysAfterEveryDeviceHasPulledIt() throws {
        let first = try device("first")
        let second = try device("second")
        try prefs(first).set(1, for: .launchCount)
        try sync(first)
        try sync(second)
        try prefs(first).setValue(nil, forKey: "launchCount")
        try sync(first)
        // The second device has not pulled the removal: the hub keeps it.
        #expect(try hubRows().map(\.present) == [false])
        try sync(second)
        #expect(try prefs(second).storedValue(forKey: "launchCount") == nil)
        // Both have pulled past it; it stays.
        try sync(first)
        #expect(try hubRows().map(\.present) == [false])
    }

    @Test func valuesThatWereThereBeforeSyncKeepTheTimeTheyWereWritten() throws {
        let old = try device("old")
        try prefs(old).set(1, for: .launchCount)
        Thread.sleep(forTimeInterval: 0.01)
        let recent = try device("recent")
        try prefs(recent).set(2, for: .launchCount)
        // Sync is turned on for the newer value first, the older later: the newer still wins.
        try sync(recent)
        try sync(old)
        try sync(recent)
        #expect(prefs(old)[.launchCount] == 2)
        #expect(prefs(recent)[.launchCount] == 2)
    }

    private func bookmarks(_ database: AppDatabase) throws -> [String] {
        try BookmarkStore(database: database).list(BookmarkQuery(kind: "movie")).map(\.itemID)
    }

    /// A device that left with an old copy of a bookmark and a key that the others have since
    /// deleted comes back: its copies keep the clocks they came with, lose to the tombstones
    /// the hub kept, and nobody gets them back.
    @Test func aLateJoinerWithAnOldCopyLosesToTheKeptTombstones() throws {
        let first = try device("first")
        let second = try device("second")
        let late = try device("late")
        try BookmarkStore(database: first).add(
            BookmarkDraft(kind: "movie", itemID: "heat", title: "Heat"))
        try prefs(first).set(1, for: .launchCount)
        for database in [first, second, late] { try sync(database) }
        #expect(try bookmarks(late) == ["heat"])
        try DeviceSync(
            database: late, hub: hub, account: "alice", hubOptions: SyncHubRoute.options
        ).leave()
        Thread.sleep(forTimeInterval: 0.01)
        try BookmarkStore(database: first).remove(kind: "movie", itemID: "heat")
        try prefs(first).setValue(nil, forKey: "launchCount")
        for _ in 0..<2 {
            for database in [first, second] { try sync(database) }
        }
        #expect(try hubRows().filter { !$0.present }.count >= 2)
        // The late device joins again, as a new device, with its old copies.
        #expect(try bookmarks(late) == ["heat"])
        let report = try sync(late)
        #expect(report.pushed == 0)
        for _ in 0..<2 {
            for database in [first, second, late] { try sync(database) }
        }
        for database in [first, second, late] {
            #expect(try bookmarks(database).isEmpty)
            #expect(try prefs(database).storedValue(forKey: "launchCount") == nil)
        }
    }

    /// A device the hub forgot still gets every removal made meanwhile: the tombstones are
    /// kept, whoever has pulled them.
    @Test func aDeviceTheHubForgotGetsEveryRemoval() throws {
        let first = try device("first")
        let stale = try device("stale")
        try BookmarkStore(database: first).add(
            BookmarkDraft(kind: "movie", itemID: "heat", title: "Heat"))
        try prefs(first).set(1, for: .launchCount)
        for database in [first, stale] { try sync(database) }
        let keep = try #require(try DeviceSync.status(of: first)?.deviceID)
        let forgotten = try server.psql(
            "DELETE FROM sync_device WHERE device <> '\(keep)'", database: hubDatabase)
        #expect(forgotten.status == 0, "\(forgotten.stderr)")
        try BookmarkStore(database: first).remove(kind: "movie", itemID: "heat")
        try prefs(first).setValue(nil, forKey: "launchCount")
        try prefs(first).set(true, for: .hasViewedWalkthrough)
        for _ in 0..<2 { try sync(first) }
        try sync(stale)
        #expect(try bookmarks(stale).isEmpty)
        #expect(try prefs(stale).storedValue(forKey: "launchCount") == nil)
        #expect(prefs(stale)[.hasViewedWalkthrough])
    }

    /// A device not seen for longer than the hub's expiry (90 days by default) comes back and
    /// gets the removals made meanwhile.
    @Test func anExpiredDeviceComesBackAndGetsTheRemovals() throws {
        let phone = try device("phone")
        let lost = try device("lost")
        try BookmarkStore(database: phone).add(
            BookmarkDraft(kind: "movie", itemID: "heat", title: "Heat"))
        for database in [phone, lost] { try sync(database) }
        let lostID = try #require(try DeviceSync.status(of: lost)?.deviceID)
        let aged = try server.psql(
            "UPDATE sync_device SET seen_at = seen_at - 100 * 86400 WHERE device = '\(lostID)'",
            database: hubDatabase)
        #expect(aged.status == 0, "\(aged.stderr)")
        try BookmarkStore(database: phone).remove(kind: "movie", itemID: "heat")
        for _ in 0..<2 { try sync(phone) }
        #expect(try hubRows().contains { !$0.present })
        #expect(try bookmarks(lost) == ["heat"])
        try sync(lost)
        #expect(try bookmarks(lost).isEmpty)
    }

    /// Changes are numbered from a sequence, with no counter row; an account's pushes still
    /// number and commit one after another (so a pull from a cursor never skips one that
    /// committed late): a push waits while another of the same account is in flight, and
    /// one of another account does not.
    @Test func pushesOfOneAccountNumberInTurnWithoutARow() throws {
        let laptop = try device("laptop")
        let other = try device("other")
        for (database, account) in [(laptop, "alice"), (other, "bob")] {
            try sync(database, account: account)
        }
        // Another push of alice's, in flight: it holds the account's lock.
        let inFlight = try PGConnection(server.target(database: hubDatabase))
        _ = try inFlight.execute("BEGIN")
        _ = try inFlight.execute(
            "SELECT pg_advisory_xact_lock(prefs_sync_lock_key('alice'))")
        try prefs(laptop).set(1, for: .launchCount)
        try prefs(other).set(2, for: .launchCount)
        let done = Atomic<Bool>(false)
        let waiting = Thread {
            _ = try? DeviceSync(
                database: laptop, hub: hub, account: "alice", hubOptions: SyncHubRoute.options
            ).sync()
            done.store(true, ordering: .releasing)
        }
        waiting.start()
        // Bob's push goes through meanwhile.
        #expect(try sync(other, account: "bob").pushed == 1)
        Thread.sleep(forTimeInterval: 0.3)
        let finishedEarly = done.load(ordering: .acquiring)
        #expect(!finishedEarly)
        _ = try inFlight.execute("COMMIT")
        let deadline = Date().addingTimeInterval(10)
        while !done.load(ordering: .acquiring) && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        let finished = done.load(ordering: .acquiring)
        #expect(finished)
        #expect(try DeviceSync.status(of: laptop)?.pending == 0)
        // No counter row is left to update.
        let columns = try server.psql(
            """
            SELECT count(*) FROM information_schema.columns
            WHERE table_name = 'prefs_account_state' AND column_name = 'sync_sequence'
            """, database: hubDatabase)
        #expect(columns.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }

    /// A device whose clock ran a day ahead, then came right, stamps its waiting change again
    /// below nothing it has seen: a change it made after pulling another (stamped ahead,
    /// within the bound) still wins over it, on every device.
    @Test func aChangeMadeAfterSeeingAnotherWinsAfterTheClockCameBack() throws {
        let phone = try device("phone")
        let laptop = try device("laptop")
        try sync(phone)
        try sync(laptop)
        try DeviceSync(
            database: laptop, hub: hub, account: "alice", hubOptions: SyncHubRoute.options
        )
        .setClockSkew(milliseconds: 120_000)
        try prefs(laptop).setValue(.string("laptop"), forKey: "theme")
        try sync(laptop)
        try sync(phone)
        #expect(try prefs(phone).value(forKey: "theme") == .string("laptop"))
        let phoneSync = try DeviceSync(
            database: phone, hub: hub, account: "alice", hubOptions: SyncHubRoute.options)
        try phoneSync.setClockSkew(milliseconds: 86_400_000)
        try prefs(phone).setValue(.string("phone"), forKey: "theme")
        #expect(try sync(phone).waitingForClock == 1)
        try phoneSync.setClockSkew(milliseconds: 0)
        let report = try sync(phone)
        #expect(report.pending == 0)
        #expect(report.conflicts == 0)
        try sync(laptop)
        #expect(try prefs(phone).value(forKey: "theme") == .string("phone"))
        #expect(try prefs(laptop).value(forKey: "theme") == .string("phone"))
    }
}
