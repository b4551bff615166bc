import Foundation
import TestSupport
import Testing

@testable import PrefsKit

/// Three devices and a hub under seeded random schedules of writes, removals, bookmark edits,
/// syncs and restarts; after a quiet round every device and the hub hold the same data, and
/// every preference holds the value of its newest write. `PREFS_SYNC_SCHEDULES` sets how many
/// schedules run (50 by default, 1,000 with `Tests/reliability --long`), `PREFS_SYNC_SEED` one
/// seed to replay (each failure names its seed).
@Suite struct SyncPropertyTests {
    /// A small seeded generator (SplitMix64), so a failing schedule can be replayed.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static var seeds: [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment["PREFS_SYNC_SEED"].flatMap(UInt64.init) { return [seed] }
        let long = environment["PREFS_RELIABILITY_LONG"] == "1"
        let count = environment["PREFS_SYNC_SCHEDULES"].flatMap(Int.init) ?? (long ? 1_000 : 50)
        return (0..<UInt64(count)).map { 1_000 + $0 }
    }

    @Test func randomSchedulesConverge() throws {
        let server = try PostgresServer.start()
        for seed in Self.seeds {
            try run(seed: seed, server: server)
        }
    }

    private func run(seed: UInt64, server: PostgresServer) throws {
        let hub = server.target(database: try server.makeDatabase())
        let folder = try TemporaryFolder()
        var random = Generator(state: seed)
        let paths = (0..<3).map { folder.path("device\($0).db") }
        var devices = try paths.map { try AppDatabase(path: $0) }
        let keys = (0..<4).map { "key\($0)" }
        let items = (0..<4).map { "item\($0)" }
        let tags = ["red", "green", "blue"]
        // The newest write of each key by clock: the value every device must end with.
        var newest: [String: (clock: String, value: PreferenceValue?)] = [:]
        func clock(of key: String, on database: AppDatabase) throws -> String? {
            try database.read { state in
                try state.engine.sync?.field(
                    SyncAddress(
                        entity: .preference, ident: SyncIdent.make(["standard", key]),
                        field: "value")
                )?.change.clock
            }
        }
        func note(_ key: String, _ value: PreferenceValue?, on database: AppDatabase) throws {
            guard let stamp = try clock(of: key, on: database) else { return }
            if let known = newest[key], known.clock >= stamp { return }
            newest[key] = (stamp, value)
        }
        for database in devices {
            try DeviceSync(database: database, hub: hub, account: "p").sync()
        }
        for _ in 0..<40 {
            let index = Int.random(in: 0..<3, using: &random)
            let database = devices[index]
            let store = PreferenceStore(database: database)
            let bookmarks = BookmarkStore(database: database)
            switch Int.random(in: 0..<10, using: &random) {
            case 0, 1, 2:
                let key = keys.randomElement(using: &random) ?? "key0"
                let value = PreferenceValue.int(Int.random(in: 0..<1_000, using: &random))
                let before = try store.value(forKey: key)
                try store.setValue(value, forKey: key)
                if before != value { try note(key, value, on: database) }
            case 3:
                let key = keys.randomElement(using: &random) ?? "key0"
                if try store.value(forKey: key) != nil {
                    try store.setValue(nil, forKey: key)
                    try note(key, nil, on: database)
                }
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
            case 7, 8:
                try DeviceSync(database: database, hub: hub, account: "p").sync()
            default:
                // A restart: the file is opened again.
                devices[index] = try AppDatabase(path: paths[index])
            }
            Thread.sleep(forTimeInterval: 0.001)
        }
        // The quiet round: everyone pushes, then everyone pulls everything.
        for _ in 0..<2 {
            for database in devices {
                try DeviceSync(database: database, hub: hub, account: "p").sync()
            }
        }
        let states = try devices.map { try Self.contents(of: $0) }
        #expect(states[0] == states[1], "seed \(seed): device 0 and 1 differ")
        #expect(states[1] == states[2], "seed \(seed): device 1 and 2 differ")
        for (key, write) in newest {
            #expect(
                states[0].preferences[key] == write.value,
                "seed \(seed): \(key) is not its newest write")
        }
        // The hub holds what the devices hold.
        let hubPreferences = try Self.hubPreferences(server: server, hub: hub)
        #expect(hubPreferences == states[0].preferences, "seed \(seed): the hub differs")
        for database in devices {
            #expect(try DeviceSync.status(of: database)?.pending == 0, "seed \(seed)")
        }
    }

    struct Contents: Equatable {
        var preferences: [String: PreferenceValue]
        var bookmarks: [String]
    }

    static func contents(of database: AppDatabase) throws -> Contents {
        let bookmarks = try BookmarkStore(database: database).list(BookmarkQuery(kind: "movie"))
        return Contents(
            preferences: try PreferenceStore(database: database).storedValues(),
            bookmarks: bookmarks.map {
                "\($0.position) \($0.itemID) \($0.title) \($0.tags.joined(separator: ","))"
            })
    }

    static func hubPreferences(server: PostgresServer, hub: String) throws
        -> [String: PreferenceValue]
    {
        var options = AppDatabase.Options()
        options.account = "p"
        let database = try AppDatabase(path: hub, options: options)
        let rows = try database.state.withLock { state in
            try (state.engine as? SyncHub)?.pull(after: 0, limit: 100_000) ?? []
        }
        var values: [String: PreferenceValue] = [:]
        for (change, _) in rows where change.entity == .preference && change.present {
            if let parts = SyncIdent.parts(change.ident), parts.count == 2, let value = change.value
            {
                values[parts[1]] = value
            }
        }
        return values
    }
}
