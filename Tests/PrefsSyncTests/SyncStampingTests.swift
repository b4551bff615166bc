import Foundation
import PrefsPostgreSQL
import PrefsSync
import PrefsTestSupport
import TestSupport
import Testing

@testable import PrefsKit

/// Stamping is about intent, not about change (docs/sync.md, "Stamping"): each of the lost
/// updates an outside sync checker found, as the schedule that lost it. Every write is
/// stamped when it is made, also one that repeats the held value; a device's clock never goes
/// below a clock it has seen; a restored file never stamps new content with a clock it
/// already pushed.
@Suite struct SyncStampingTests {
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

    private func deviceSync(_ database: AppDatabase) throws -> DeviceSync {
        try DeviceSync(
            database: database, hub: hub, account: "alice", hubOptions: SyncHubRoute.options)
    }

    @discardableResult
    private func sync(_ database: AppDatabase) throws -> SyncReport {
        try deviceSync(database).sync()
    }

    private func serverApp() throws -> AppDatabase {
        var options = PostgreSQLOptions()
        options.account = "alice"
        return try AppDatabase.postgreSQL(server.target(database: hubDatabase), options: options)
    }

    /// Long enough for the next clock reading to be a later millisecond.
    private func tick() { Thread.sleep(forTimeInterval: 0.005) }

    /// P1: the phone, offline, sets `light`; then the laptop sets `dark`, the value it holds.
    /// The laptop's write is the later decision: every replica ends `dark`.
    @Test func aWriteOfTheHeldValueWinsOverAnEarlierWriteElsewhere() throws {
        let laptop = try device("laptop")
        let phone = try device("phone")
        try PreferenceStore(database: laptop).setValue(.string("dark"), forKey: "theme")
        try sync(laptop)
        try sync(phone)
        try PreferenceStore(database: phone).setValue(.string("light"), forKey: "theme")
        tick()
        try PreferenceStore(database: laptop).setValue(.string("dark"), forKey: "theme")
        // Locally it changed nothing: no history row.
        #expect(try PreferenceStore(database: laptop).history(forKey: "theme").count == 1)
        try sync(phone)
        try sync(laptop)
        try sync(phone)
        for database in [laptop, phone, try serverApp()] {
            #expect(
                try PreferenceStore(database: database).value(forKey: "theme") == .string("dark"))
        }
    }

    /// P1 through the server app: its write of the value the hub holds wins over a device's
    /// earlier one, and so does its removal of a key it does not have.
    @Test func theServerAppsRepeatedWriteAndRemovalWin() throws {
        let phone = try device("phone")
        let app = try serverApp()
        try PreferenceStore(database: app).setValue(.string("dark"), forKey: "theme")
        try sync(phone)
        try PreferenceStore(database: phone).setValue(.string("light"), forKey: "theme")
        try PreferenceStore(database: phone).setValue(.int(3), forKey: "launchCount")
        tick()
        try PreferenceStore(database: app).setValue(.string("dark"), forKey: "theme")
        try PreferenceStore(database: app).setValue(nil, forKey: "launchCount")
        try sync(phone)
        for database in [phone, app] {
            let store = PreferenceStore(database: database)
            #expect(try store.value(forKey: "theme") == .string("dark"))
            #expect(try store.value(forKey: "launchCount") == nil)
        }
    }

    /// P1 for bookmarks: a title set to the title it has, and a tag added that it has, win
    /// over an earlier retitle and untag elsewhere.
    @Test func aTitleAndATagGivenAgainWinOverEarlierEditsElsewhere() throws {
        let laptop = try device("laptop")
        let phone = try device("phone")
        let draft = BookmarkDraft(kind: "movie", itemID: "i3", title: "Heat", tags: ["crime"])
        try BookmarkStore(database: laptop).add(draft)
        try sync(laptop)
        try sync(phone)
        try BookmarkStore(database: phone).update(kind: "movie", itemID: "i3") {
            $0.title = "Heat (1995)"
            $0.tags = []
        }
        tick()
        try BookmarkStore(database: laptop).add(draft)
        try sync(phone)
        try sync(laptop)
        try sync(phone)
        for database in [laptop, phone, try serverApp()] {
            let bookmark = try BookmarkStore(database: database).bookmark(
                kind: "movie", itemID: "i3")
            #expect(bookmark?.title == "Heat")
            #expect(bookmark?.tags == ["crime"])
        }
    }

    /// P3: the laptop removes and adds a bookmark again; the phone, its clock ten minutes
    /// behind (past the bound), pulls it and tags it. Its clock follows what it pulled, so the
    /// tag is after the removal: every replica has it, and nothing stays pending.
    @Test func aTagPutOnByADeviceBehindAfterItPulledTheBookmarkCounts() throws {
        let laptop = try device("laptop")
        let phone = try device("phone")
        let bookmarks = BookmarkStore(database: laptop)
        try bookmarks.add(BookmarkDraft(kind: "movie", itemID: "i3", title: "Heat"))
        try sync(laptop)
        try sync(phone)
        try bookmarks.remove(kind: "movie", itemID: "i3")
        tick()
        try bookmarks.add(BookmarkDraft(kind: "movie", itemID: "i3", title: "Heat"))
        try sync(laptop)
        try deviceSync(phone).setClockSkew(milliseconds: -600_000)
        try sync(phone)
        try BookmarkStore(database: phone).update(kind: "movie", itemID: "i3") {
            $0.tags.append("t2")
        }
        try sync(phone)
        try deviceSync(phone).setClockSkew(milliseconds: 0)
        try sync(laptop)
        for database in [laptop, phone, try serverApp()] {
            let bookmark = try BookmarkStore(database: database).bookmark(
                kind: "movie", itemID: "i3")
            #expect(bookmark?.tags == ["t2"])
        }
        #expect(try DeviceSync.status(of: phone)?.pending == 0)
    }

    /// A pulled clock is followed however far behind the wall clock is, up to the hub's clock
    /// and its bound; one past that (a hub whose rows were written by hand, or a hostile one)
    /// drags nobody along.
    @Test func aDeviceFollowsThePulledClocksUpToTheHubsBound() throws {
        let laptop = try device("laptop")
        let phone = try device("phone")
        try PreferenceStore(database: laptop).setValue(.int(1), forKey: "k")
        try sync(laptop)
        try deviceSync(phone).sync()
        try deviceSync(phone).setClockSkew(milliseconds: -10_800_000)
        try PreferenceStore(database: laptop).setValue(.int(2), forKey: "k")
        try sync(laptop)
        try sync(phone)
        try PreferenceStore(database: phone).setValue(.int(3), forKey: "k")
        let clocks = try [laptop, phone].map { database in
            try #require(
                try database.read { state in
                    try state.engine.sync?.field(
                        SyncAddress(
                            entity: .preference, ident: SyncIdent.make(["standard", "k"]),
                            field: "value"))
                }?.change.clock)
        }
        #expect(clocks[1] > clocks[0], "the phone wrote at \(clocks[1]), before \(clocks[0])")
        let ceiling = SyncValidation.clockCeiling(
            hubMilliseconds: 1_000, bound: 1_000_000_000_000_000, wall: 0)
        #expect(ceiling == 1_000 + SyncValidation.deviceClockBoundMilliseconds)
        let liar = SyncValidation.clockCeiling(
            hubMilliseconds: 1_000_000_000_000_000, bound: 300_000, wall: 0)
        #expect(liar == SyncValidation.maximumClockLagMilliseconds + 300_000)
    }

    /// A hub that says its bound is 31 years (hostile, or set so by hand) takes changes
    /// stamped 50 minutes and 31 years ahead; a device that pulls them keeps its own bound
    /// (5 minutes; it took up to an hour from a hub before): its next write is
    /// stamped within 5 minutes of the hub's clock, and a hub with the usual bound takes it
    /// at once, after the device left the first and joined it.
    @Test func aHubThatSaysItsBoundIsThirtyYearsMovesNoDevicesClockByThem() throws {
        let rogue = try device("rogue")
        try sync(rogue)
        let set = try server.psql(
            "UPDATE prefs_sync_config SET clock_bound_ms = 1000000000000000",
            database: hubDatabase)
        #expect(set.status == 0, "\(set.stderr)")
        // 50 minutes ahead (within the hour devices took from a hub before), and 31 years.
        for (skew, key) in [(Int64(3_000_000), "k"), (31 * 365 * 86_400_000, "far")] {
            try deviceSync(rogue).setClockSkew(milliseconds: skew)
            try PreferenceStore(database: rogue).setValue(.int(1), forKey: key)
            #expect(try sync(rogue).refused == 0)
        }
        let phone = try device("phone")
        try sync(phone)
        #expect(try PreferenceStore(database: phone).value(forKey: "k") == .int(1))
        #expect(try PreferenceStore(database: phone).value(forKey: "far") == .int(1))
        try PreferenceStore(database: phone).setValue(.int(2), forKey: "mine")
        let stamped = try #require(
            try phone.read { state in
                try state.engine.sync?.field(
                    SyncAddress(
                        entity: .preference, ident: SyncIdent.make(["standard", "mine"]),
                        field: "value"))
            }?.change.clock)
        let milliseconds = try #require(HybridClock(stamped)).milliseconds
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        #expect(
            milliseconds <= now + SyncValidation.deviceClockBoundMilliseconds + 60_000,
            "stamped \(milliseconds - now) ms ahead")
        // Another hub, with the usual bound, takes the next write in one round.
        _ = try deviceSync(phone).leave()
        let sane = try server.makeDatabase()
        let other = try DeviceSync(
            database: phone, hub: try SyncHubRoute.target(server, database: sane),
            account: "alice", hubOptions: SyncHubRoute.options)
        try PreferenceStore(database: phone).setValue(.int(3), forKey: "mine")
        let round = try other.sync()
        #expect(round.waitingForClock == 0 && round.pending == 0, "\(round)")
    }

    /// P4: a device whose clock is behind writes and pushes; its file is then restored from a
    /// copy made before, and it writes the same key again before the next round. The restored
    /// clock would give that write the clock of the one it pushed: the hub says so, the device
    /// stamps it again above, and every replica ends with the later value. The same with the
    /// clock right.
    @Test(arguments: [Int64(-600_000), 0])
    func aRestoredFileNeverStampsNewContentWithAClockItPushed(skew: Int64) throws {
        let path = folder.path("phone.db")
        let laptop = try device("laptop")
        var phone = try AppDatabase(path: path)
        try PreferenceStore(database: laptop).setValue(.int(1), forKey: "k")
        try sync(laptop)
        try deviceSync(phone).sync()
        try deviceSync(phone).setClockSkew(milliseconds: skew)
        try sync(phone)
        let backup = folder.path("backup.db")
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: path + suffix) {
            let copied = try runProcess(
                URL(fileURLWithPath: "/bin/cp"), [path + suffix, backup + suffix])
            #expect(copied.status == 0)
        }
        try PreferenceStore(database: phone).setValue(.int(2), forKey: "k")
        try sync(phone)
        phone = try AppDatabase(path: folder.path("unused.db"))
        for suffix in ["", "-wal"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
            if FileManager.default.fileExists(atPath: backup + suffix) {
                try FileManager.default.copyItem(atPath: backup + suffix, toPath: path + suffix)
            }
        }
        phone = try AppDatabase(path: path)
        try PreferenceStore(database: phone).setValue(.int(3), forKey: "k")
        let report = try sync(phone)
        // Behind, its write took the clock of the lost one: the hub told it. With the clock
        // right, the write is stamped past it, and the round has nothing to say.
        #expect(report.restored == (skew < 0))
        try deviceSync(phone).setClockSkew(milliseconds: 0)
        try sync(laptop)
        for database in [laptop, phone, try serverApp()] {
            #expect(try PreferenceStore(database: database).value(forKey: "k") == .int(3))
        }
        #expect(try DeviceSync.status(of: phone)?.pending == 0)
    }
}
