import CRawLibPQ
import Foundation
import PrefsKit
import PrefsPostgreSQL
import PrefsSync
import TestSupport

/// The preference and bookmark workloads through PrefsKit's PostgreSQL engine, next to raw
/// libpq calls sending the same statements (prepared) on the same schema, against a
/// throwaway server started for the run (`initdb` into a temporary folder, a Unix socket).
/// In the table, "raw C" is `Benchmarks/CRawLibPQ`.
struct PostgresWorkloads {
    let server: PostgresServer
    let quick: Bool
    var rounds: Int { quick ? 3 : 7 }
    static let account = "bench"

    init(quick: Bool) throws {
        server = try PostgresServer.startPrivate()
        self.quick = quick
    }

    /// A fresh database migrated by PrefsKit, and its connection string.
    func freshDatabase(options: PostgreSQLOptions = .init()) throws -> (AppDatabase, String) {
        let target = server.target(database: try server.makeDatabase())
        var options = options
        options.account = Self.account
        return (try AppDatabase.postgreSQL(target, options: options), target)
    }

    func raw(_ target: String) throws -> OpaquePointer {
        guard let raw = raw_pg_open(target, Self.account) else {
            throw BenchmarkError(description: "raw_pg_open failed")
        }
        return raw
    }

    func cachedGet(keys: Int) throws -> WorkloadResult {
        let (database, _) = try freshDatabase()
        let store = PreferenceStore(database: database)
        let typed = (0..<keys).map { Prefs.Key("key\($0)", default: 0) }
        try store.transaction { edit in
            for (i, key) in typed.enumerated() { try edit.set(i, for: key) }
        }
        var sink = 0
        for key in typed { sink &+= store[key] }
        let result = try measure(
            "PostgreSQL: get, cached (\(keys) keys)", target: "<= 100 ns (as on SQLite)",
            rounds: rounds, iterations: quick ? 200_000 : 1_000_000,
            [
                Contender(name: "PrefsKit") { n in
                    for i in 0..<n { sink &+= store[typed[i % keys]] }
                }
            ])
        blackHole(sink)
        return result
    }

    func uncachedGet(keys: Int) throws -> WorkloadResult {
        var options = PostgreSQLOptions()
        options.cachesValues = false
        let (database, target) = try freshDatabase(options: options)
        let store = PreferenceStore(database: database)
        let names = (0..<keys).map { "key\($0)" }
        let typed = names.map { Prefs.Key($0, default: 0) }
        try store.transaction { edit in
            for (i, key) in typed.enumerated() { try edit.set(i, for: key) }
        }
        let raw = try raw(target)
        defer { raw_pg_close(raw) }
        let cNames = names.map { strdup($0) }
        defer { for name in cNames { free(name) } }
        var sink = 0
        let result = try measure(
            "PostgreSQL: get, uncached (\(keys) keys)", target: "<= 1.3x raw libpq",
            rounds: rounds, iterations: quick ? 2_000 : 10_000,
            [
                Contender(name: "PrefsKit") { n in
                    for i in 0..<n { sink &+= store[typed[i % keys]] }
                },
                Contender(name: "raw C") { n in
                    var value: Int64 = 0
                    for i in 0..<n {
                        guard raw_pg_get_int(raw, "standard", cNames[i % keys], &value) >= 0 else {
                            throw BenchmarkError(description: "raw_pg_get_int failed")
                        }
                        sink &+= Int(value)
                    }
                },
            ])
        blackHole(sink)
        return result
    }

    func setOwnCommit(keys: Int) throws -> WorkloadResult {
        let (database, _) = try freshDatabase()
        let store = PreferenceStore(database: database)
        // The others write to databases of their own. On the store's, each of their
        // commits would notify the store's session (the same account), which takes them up
        // at its next set: thousands of other writers' changes read once a round, a cost of
        // sharing the account, not of a set, that the floor does not pay.
        let floorTarget = try freshDatabase().1
        let pooledTarget = try freshDatabase().1
        // The same engine as behind a transaction pooler (every statement unnamed, the
        // account set in every transaction), straight to the server: what that mode costs.
        var pooledOptions = PostgreSQLOptions()
        pooledOptions.account = Self.account
        pooledOptions.isBehindTransactionPooler = true
        let pooled = PreferenceStore(
            database: try AppDatabase.postgreSQL(pooledTarget, options: pooledOptions),
            suite: "pooled")
        let typed = (0..<keys).map { Prefs.Key("key\($0)", default: 0) }
        let raw = try raw(floorTarget)
        defer { raw_pg_close(raw) }
        let cNames = (0..<keys).map { strdup("raw\($0)") }
        defer { for name in cNames { free(name) } }
        var value = 0
        return try measure(
            "PostgreSQL: set, own commit (\(keys) keys)",
            target: "<= 1.3x raw C (one autocommit upsert, the floor)",
            rounds: rounds, iterations: quick ? 300 : 2_000,
            [
                Contender(name: "PrefsKit") { n in
                    for i in 0..<n {
                        value += 1
                        try store.set(value, for: typed[i % keys])
                    }
                },
                Contender(name: "raw C") { n in
                    for i in 0..<n {
                        value += 1
                        let now = Date().timeIntervalSinceReferenceDate
                        guard
                            raw_pg_set_int_floor(
                                raw, "standard", cNames[i % keys], Int64(value), now) == 0
                        else { throw BenchmarkError(description: "raw_pg_set_int_floor failed") }
                    }
                },
                Contender(name: "PrefsKit, pooler mode") { n in
                    for i in 0..<n {
                        value += 1
                        try pooled.set(value, for: typed[i % keys])
                    }
                },
                // The statements PrefsKit sent before it pipelined them: four round trips.
                Contender(name: "C, 4 round trips") { n in
                    for i in 0..<n {
                        value += 1
                        let now = Date().timeIntervalSinceReferenceDate
                        guard
                            raw_pg_set_int(raw, "standard", cNames[i % keys], Int64(value), now)
                                == 0
                        else { throw BenchmarkError(description: "raw_pg_set_int failed") }
                    }
                },
            ])
    }

    func bookmarkInsert(count: Int) throws -> WorkloadResult {
        let (database, target) = try freshDatabase()
        let bookmarks = BookmarkStore(database: database)
        let raw = try raw(target)
        defer { raw_pg_close(raw) }
        var round = 0
        let drafts = (1...(quick ? 3 : 6)).map { round in
            (0..<count).map { i in
                BookmarkDraft(
                    kind: "movie", itemID: "p\(round)-\(i)", title: "Movie \(i)",
                    url: URL(string: "https://example.com/movies/\(i)"),
                    category: "category\(i % 10)", tags: ["featured", "marvel"])
            }
        }
        var rawRound = 0
        return try measure(
            "PostgreSQL: bookmark insert, \(count) in one transaction", unit: "ns/op",
            target: ">= 0.7x raw libpq rows/s", rounds: quick ? 2 : 5, iterations: count,
            [
                Contender(name: "PrefsKit") { n in
                    round += 1
                    try bookmarks.add(contentsOf: drafts[round - 1].prefix(n))
                },
                Contender(name: "raw C") { n in
                    rawRound += 1
                    let now = Date().timeIntervalSinceReferenceDate
                    guard raw_pg_insert_bookmarks(raw, "r\(rawRound)-", Int32(n), now) == 0 else {
                        throw BenchmarkError(description: "raw_pg_insert_bookmarks failed")
                    }
                },
            ])
    }

    /// How long a commit by another connection takes to reach an observer through NOTIFY:
    /// the median of the delays, in milliseconds.
    func observationDelay(samples: Int) async throws -> (median: Double, all: [Double]) {
        let (observed, target) = try freshDatabase()
        var options = PostgreSQLOptions()
        options.account = Self.account
        let writer = PreferenceStore(database: try AppDatabase.postgreSQL(target, options: options))
        let store = PreferenceStore(database: observed)
        let key = Prefs.Key("observed", default: -1)
        let arrivals = Arrivals()
        let stream = store.values(for: key)
        let task = Task { for await value in stream { arrivals.record(value) } }
        defer { task.cancel() }
        var delays: [Double] = []
        for sample in 0..<samples {
            let started = ObservationWorkloads.monotonicNanoseconds()
            try writer.set(sample, for: key)
            while arrivals.time(of: sample) == nil {
                try await Task.sleep(for: .microseconds(200))
                if ObservationWorkloads.monotonicNanoseconds() - started > 5_000_000_000 {
                    throw BenchmarkError(description: "an observer never heard of a commit")
                }
            }
            if let arrived = arrivals.time(of: sample) {
                delays.append(Double(arrived - started) / 1_000_000)
            }
            // Spread the writes over the polling period, as commits come when they come.
            try await Task.sleep(for: .milliseconds(Int.random(in: 1...25)))
        }
        let sorted = delays.sorted()
        return (sorted[sorted.count / 2], delays)
    }
}

extension PostgresWorkloads {
    /// One sync round of a device with `pending` changes (set in one transaction before sync
    /// was turned on): the push of all of them in batches and the pull of their echo; each
    /// sample a fresh device and hub, times in milliseconds.
    func syncRound(pending: Int, samples: Int) throws -> [Double] {
        var times: [Double] = []
        let folder = try TemporaryFolder()
        for sample in 0..<samples {
            let hub = server.target(database: try server.makeDatabase())
            let device = try AppDatabase(path: folder.path("device\(sample).db"))
            try device.transaction {
                let store = PreferenceStore(database: device)
                for index in 0..<pending { try store.setValue(.int(index), forKey: "k\(index)") }
            }
            let sync = try DeviceSync(database: device, hub: hub, account: Self.account)
            times.append(try Self.timedRound(sync, pushing: pending))
        }
        return times
    }

    /// A round's milliseconds; it must push `pending` changes and leave none.
    static func timedRound(_ sync: DeviceSync, pushing pending: Int) throws -> Double {
        let started = ObservationWorkloads.monotonicNanoseconds()
        let report = try sync.sync()
        let elapsed = Double(ObservationWorkloads.monotonicNanoseconds() - started) / 1e6
        guard report.pushed == pending, report.pending == 0 else {
            throw BenchmarkError(description: "the round pushed \(report.pushed) of \(pending)")
        }
        return elapsed
    }

    /// A round that pushes `pending` updates of keys the hub has already (a device's second
    /// round), straight to the server and through PgBouncer in transaction pooling, in
    /// alternation; milliseconds of each.
    func syncUpdateRound(pending: Int, samples: Int) throws -> (
        direct: [Double], pooled: [Double]
    ) {
        let folder = try TemporaryFolder()
        let pooler = try PgBouncer(server: server, poolSize: 2)
        var times: (direct: [Double], pooled: [Double]) = ([], [])
        for sample in 0..<samples {
            for isPooled in [false, true] {
                let name = try server.makeDatabase()
                let hub = isPooled ? pooler.target(database: name) : server.target(database: name)
                var options = PostgreSQLOptions()
                options.isBehindTransactionPooler = isPooled
                let device = try AppDatabase(
                    path: folder.path("update\(sample)-\(isPooled).db"))
                let store = PreferenceStore(database: device)
                try device.transaction {
                    for index in 0..<pending {
                        try store.setValue(.int(index), forKey: "k\(index)")
                    }
                }
                let sync = try DeviceSync(
                    database: device, hub: hub, account: Self.account, hubOptions: options)
                try sync.sync()
                try device.transaction {
                    for index in 0..<pending {
                        try store.setValue(.int(index + 1), forKey: "k\(index)")
                    }
                }
                let elapsed = try Self.timedRound(sync, pushing: pending)
                if isPooled { times.pooled.append(elapsed) } else { times.direct.append(elapsed) }
            }
        }
        return times
    }

    /// A server app's transaction of `writes` preference writes through the engine, on an
    /// account that syncs (every write stamped for the devices) and on one that does not;
    /// runs interleaved, each writing new values to the same keys, times in milliseconds.
    func serverTransaction(writes: Int, samples: Int) throws -> (
        syncing: [Double], alone: [Double]
    ) {
        let folder = try TemporaryFolder()
        var options = PostgreSQLOptions()
        options.watchesForChanges = false
        let (syncing, syncingHub) = try freshDatabase(options: options)
        let (alone, _) = try freshDatabase(options: options)
        // A device's first round turns the account's sync on.
        try DeviceSync(
            database: try AppDatabase(path: folder.path("device.db")), hub: syncingHub,
            account: Self.account
        ).sync()
        var times: (syncing: [Double], alone: [Double]) = ([], [])
        for sample in 0...samples {
            for (database, isSyncing) in [(syncing, true), (alone, false)] {
                let store = PreferenceStore(database: database)
                let started = ObservationWorkloads.monotonicNanoseconds()
                try store.transaction { edit in
                    for index in 0..<writes {
                        try edit.setValue(.int(sample * writes + index), forKey: "k\(index)")
                    }
                }
                let elapsed = Double(ObservationWorkloads.monotonicNanoseconds() - started) / 1e6
                // The first sample inserts the keys; the others update them.
                guard sample > 0 else { continue }
                if isSyncing { times.syncing.append(elapsed) } else { times.alone.append(elapsed) }
            }
        }
        return times
    }

    /// From a write on device A to its arrival in device B's file, both running
    /// `prefs sync --watch` (real processes), in milliseconds.
    func syncArrival(samples: Int) async throws -> [Double] {
        let folder = try TemporaryFolder()
        let hub = server.target(database: try server.makeDatabase())
        let paths = [folder.path("a.db"), folder.path("b.db")]
        let executable = URL(fileURLWithPath: CommandLine.arguments[0])
            .deletingLastPathComponent().appendingPathComponent("prefs")
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw BenchmarkError(
                description: "no prefs next to prefs-bench: build both (swift build -c release)")
        }
        var watchers: [Process] = []
        defer {
            for watcher in watchers {
                watcher.terminate()
                watcher.waitUntilExit()
            }
        }
        for path in paths {
            let first = Process()
            first.executableURL = executable
            first.arguments = ["--db", path, "sync", "--hub", hub, "--account", Self.account]
            try first.run()
            first.waitUntilExit()
            let watcher = Process()
            watcher.executableURL = executable
            watcher.arguments = ["--db", path, "-q", "sync", "--watch"]
            watcher.standardOutput = FileHandle.nullDevice
            try watcher.run()
            watchers.append(watcher)
        }
        return try await Self.arrivals(writer: paths[0], reader: paths[1], samples: samples)
    }

    /// Milliseconds from each write of a key on the device at `writer` to its arrival on the
    /// device at `reader`, both syncing on their own (`sync --watch`), writes spaced 5-60 ms.
    static func arrivals(writer: String, reader: String, samples: Int) async throws -> [Double] {
        var options = AppDatabase.Options()
        options.cachesValues = false
        let writer = PreferenceStore(database: try AppDatabase(path: writer))
        let reader = PreferenceStore(database: try AppDatabase(path: reader, options: options))
        var delays: [Double] = []
        for sample in 0..<samples {
            let started = ObservationWorkloads.monotonicNanoseconds()
            try writer.setValue(.int(sample), forKey: "arrival")
            while try reader.storedValue(forKey: "arrival") != .int(sample) {
                try await Task.sleep(for: .milliseconds(1))
                if ObservationWorkloads.monotonicNanoseconds() - started > 10_000_000_000 {
                    throw BenchmarkError(description: "a write never reached the other device")
                }
            }
            delays.append(Double(ObservationWorkloads.monotonicNanoseconds() - started) / 1e6)
            try await Task.sleep(for: .milliseconds(Int.random(in: 5...60)))
        }
        return delays
    }
}

/// When each value reached the observer.
final class Arrivals: @unchecked Sendable {
    private let lock = NSLock()
    private var times: [Int: UInt64] = [:]
    func record(_ value: Int) {
        let now = ObservationWorkloads.monotonicNanoseconds()
        lock.withLock { if times[value] == nil { times[value] = now } }
    }
    func time(of value: Int) -> UInt64? { lock.withLock { times[value] } }
}
