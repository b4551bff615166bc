import Dispatch
import Foundation
import PrefsKit
import PrefsPostgreSQL
import PrefsSync
import Synchronization
import TestSupport

/// `prefs-bench --postgres --scale`: many accounts, several devices each, syncing through
/// PgBouncer in transaction pooling in front of one hub database, as a service with many
/// users runs. The accounts grow in steps (100, 1,000, 10,000 by default); at each step the
/// same number of sync rounds is measured: a random device of a random account writes a few
/// preferences and syncs (its push, and the pull of what its other devices pushed).
///
/// Every device is a real SQLite file and every round a real `DeviceSync` through the
/// pooler, acting for its account through one service role (row-level security applies).
/// Reported per step: round latency (median, p99), changes pushed per second, the server
/// connections the hub database had (sampled), the server's and the pooler's CPU time per
/// change (from `/proc`), and the hub database's size per account.
struct ScaleWorkload {
    struct Configuration {
        var steps = [100, 1_000, 10_000]
        var devices = 3
        var rounds = 2_000
        var workers = 4
        var poolSize = 4
        /// Preferences each account starts with, written on its first device.
        var initialPreferences = 20
        var initialBookmarks = 5
        /// Preferences a device changes before each measured round.
        var changesPerRound = 5
        /// The server's `shared_buffers`: a production server's cache, not the tests' 32MB.
        var sharedBuffers = "1GB"
        /// Print each step's costliest statements (pg_stat_statements).
        var showsStatements = false

        init(arguments: [String], quick: Bool) throws {
            if quick {
                steps = [100, 1_000]
                rounds = 300
            }
            func value(_ name: String) -> String? {
                arguments.firstIndex(of: name).flatMap {
                    arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil
                }
            }
            func number(_ name: String) throws -> Int? {
                guard let text = value(name) else { return nil }
                guard let number = Int(text), number > 0 else {
                    throw BenchmarkError(description: "\(name) needs a positive number: \(text)")
                }
                return number
            }
            if let text = value("--accounts") {
                let parsed = text.split(separator: ",").compactMap { Int($0) }
                guard !parsed.isEmpty, parsed.allSatisfy({ $0 > 0 }), parsed == parsed.sorted()
                else {
                    throw BenchmarkError(
                        description: "--accounts needs growing counts, such as 100,1000: \(text)")
                }
                steps = parsed
            }
            devices = try number("--devices") ?? devices
            rounds = try number("--rounds") ?? rounds
            workers = try number("--workers") ?? workers
            poolSize = try number("--pool") ?? poolSize
            sharedBuffers = value("--shared-buffers") ?? sharedBuffers
            showsStatements = arguments.contains("--statements")
        }
    }

    struct StepResult {
        let accounts: Int
        let populateSeconds: Double
        let latencies: [Double]
        let changes: Int
        let pulled: Int
        let seconds: Double
        let connections: (maximum: Int, median: Int)
        let serverCPUSecondsPerChange: Double
        let poolerCPUSecondsPerChange: Double
        let bytesPerAccount: Double
        let rowsPerAccount: Double
    }

    let configuration: Configuration
    let server: PostgresServer
    let pooler: PgBouncer
    let folder: TemporaryFolder
    let hubDatabase: String
    let hub: String
    let template: String
    let emptyHubBytes: Int
    var hubOptions: PostgreSQLOptions {
        var options = PostgreSQLOptions()
        options.isBehindTransactionPooler = true
        options.watchesForChanges = false
        return options
    }
    static var deviceOptions: AppDatabase.Options {
        var options = AppDatabase.Options()
        // The devices are simulated on the server's machine: their disks are not measured.
        options.synchronous = .off
        options.watchesForChanges = false
        return options
    }

    init(configuration: Configuration) throws {
        self.configuration = configuration
        server = try PostgresServer.startPrivate(
            settings: ["shared_buffers=\(configuration.sharedBuffers)"]
                + (configuration.showsStatements
                    ? [
                        "shared_preload_libraries=pg_stat_statements",
                        "pg_stat_statements.track_planning=on",
                    ] : []))
        pooler = try PgBouncer(
            server: server, poolSize: configuration.poolSize,
            maxClients: configuration.workers * 4 + 50)
        folder = try TemporaryFolder()
        hubDatabase = try server.makeDatabase()
        // The schema is made by its owner; the devices' role only acts for accounts.
        var owner = PostgreSQLOptions()
        owner.account = "admin"
        owner.watchesForChanges = false
        _ = try AppDatabase.postgreSQL(server.target(database: hubDatabase), options: owner)
        try server.makeLoginRoles([("service", "prefs_service")])
        if configuration.showsStatements {
            try Self.check(
                server.psql("CREATE EXTENSION pg_stat_statements", database: hubDatabase))
        }
        hub = pooler.target(database: hubDatabase, user: "service")
        // Devices start as copies of one migrated, never-synced file.
        template = folder.path("template.db")
        do { _ = try AppDatabase(path: template, options: Self.deviceOptions) }
        emptyHubBytes = try Self.databaseSize(server, hubDatabase)
    }

    /// Removes the devices' files (gigabytes at 10,000 accounts): the process ends with
    /// `exit`, which runs no deinitializer.
    func cleanUp() {
        try? FileManager.default.removeItem(at: folder.url)
    }

    func devicePath(account: Int, device: Int) -> String {
        folder.path("a\(account)-d\(device).db")
    }

    static func account(_ index: Int) -> String { "user\(index)" }

    /// Accounts `range`: each device a copy of the template; the first writes the account's
    /// starting preferences and bookmarks and syncs, then the others sync (pulling them).
    func populate(_ range: Range<Int>) throws {
        let next = Atomic<Int>(range.lowerBound)
        let failure = Mutex<Error?>(nil)
        DispatchQueue.concurrentPerform(iterations: configuration.workers) { _ in
            while failure.withLock({ $0 == nil }) {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < range.upperBound else { return }
                do {
                    try populate(account: index)
                } catch {
                    failure.withLock { $0 = error }
                }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
    }

    private func populate(account index: Int) throws {
        for device in 0..<configuration.devices {
            let path = devicePath(account: index, device: device)
            try FileManager.default.copyItem(atPath: template, toPath: path)
            let database = try AppDatabase(path: path, options: Self.deviceOptions)
            if device == 0 {
                let store = PreferenceStore(database: database)
                try store.transaction { edit in
                    for key in 0..<configuration.initialPreferences {
                        try edit.setValue(.int(key), forKey: "setting\(key)")
                    }
                }
                try BookmarkStore(database: database).add(
                    contentsOf: (0..<configuration.initialBookmarks).map {
                        BookmarkDraft(
                            kind: "article", itemID: "a\($0)", title: "Article \($0)",
                            category: "reading", tags: ["saved"])
                    })
            }
            let report = try DeviceSync(
                database: database, hub: hub, account: Self.account(index),
                hubOptions: hubOptions
            ).sync()
            guard report.pending == 0 else {
                throw BenchmarkError(description: "a first round left \(report.pending) pending")
            }
        }
    }

    /// `rounds` sync rounds of random devices of the first `accounts` accounts, by
    /// `workers` threads at once.
    func measure(accounts: Int, populateSeconds: Double) throws -> StepResult {
        let latencies = Mutex<[Double]>([])
        let totals = Mutex<(changes: Int, pulled: Int)>((0, 0))
        let next = Atomic<Int>(0)
        let failure = Mutex<Error?>(nil)
        let busy = Mutex<Set<Int>>([])
        let sampler = ConnectionSampler(server: server, database: hubDatabase)
        let cpuBefore = (server: try serverCPUSeconds(), pooler: poolerCPUSeconds())
        sampler.start()
        let started = Clock.nanoseconds()
        DispatchQueue.concurrentPerform(iterations: configuration.workers) { worker in
            var generator = SeededGenerator(seed: UInt64(accounts * 1_000 + worker))
            while failure.withLock({ $0 == nil }) {
                guard next.add(1, ordering: .relaxed).oldValue < configuration.rounds else {
                    return
                }
                // A device runs one round at a time: another worker's device is not picked.
                var account = 0
                var device = 0
                repeat {
                    account = Int(generator.next() % UInt64(accounts))
                    device = Int(generator.next() % UInt64(configuration.devices))
                } while !busy.withLock {
                    $0.insert(account * configuration.devices + device).inserted
                }
                defer { _ = busy.withLock { $0.remove(account * configuration.devices + device) } }
                do {
                    let database = try AppDatabase(
                        path: devicePath(account: account, device: device),
                        options: Self.deviceOptions)
                    var keys = Array(0..<configuration.initialPreferences)
                    for index in keys.indices.reversed() {
                        keys.swapAt(index, Int(generator.next() % UInt64(index + 1)))
                    }
                    let store = PreferenceStore(database: database)
                    try store.transaction { edit in
                        for key in keys.prefix(configuration.changesPerRound) {
                            try edit.setValue(
                                .int(Int(generator.next() % 1_000_000)), forKey: "setting\(key)")
                        }
                    }
                    let roundStarted = Clock.nanoseconds()
                    let report = try DeviceSync(
                        database: database, hub: hub, account: Self.account(account),
                        hubOptions: hubOptions
                    ).sync()
                    let elapsed = Double(Clock.nanoseconds() - roundStarted) / 1e6
                    guard report.pending == 0 else {
                        throw BenchmarkError(
                            description: "a round left \(report.pending) changes pending")
                    }
                    latencies.withLock { $0.append(elapsed) }
                    totals.withLock {
                        $0.changes += report.pushed
                        $0.pulled += report.pulled
                    }
                } catch {
                    failure.withLock { $0 = error }
                }
            }
        }
        let seconds = Double(Clock.nanoseconds() - started) / 1e9
        let connections = sampler.stop()
        if let error = failure.withLock({ $0 }) { throw error }
        let cpuAfter = (server: try serverCPUSeconds(), pooler: poolerCPUSeconds())
        let (changes, pulled) = totals.withLock { $0 }
        let bytes = try Self.databaseSize(server, hubDatabase)
        let rows = try server.psql(
            "SELECT (SELECT count(*) FROM preference) + (SELECT count(*) FROM bookmark)"
                + " + (SELECT count(*) FROM sync_change) + (SELECT count(*) FROM sync_device)",
            database: hubDatabase
        ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return StepResult(
            accounts: accounts, populateSeconds: populateSeconds,
            latencies: latencies.withLock { $0 }.sorted(), changes: changes, pulled: pulled,
            seconds: seconds, connections: connections,
            serverCPUSecondsPerChange: (cpuAfter.server - cpuBefore.server)
                / Double(max(changes, 1)),
            poolerCPUSecondsPerChange: (cpuAfter.pooler - cpuBefore.pooler)
                / Double(max(changes, 1)),
            bytesPerAccount: Double(bytes - emptyHubBytes) / Double(accounts),
            rowsPerAccount: (Double(rows) ?? .nan) / Double(accounts))
    }

    static func check(_ output: ProcessOutput) throws {
        guard output.status == 0 else { throw BenchmarkError(description: output.stderr) }
    }

    /// The statements that cost the server most in a step's rounds, per call.
    func costliestStatements() throws -> String {
        try server.psql(
            """
            SELECT lpad(calls::text, 7) || lpad(to_char((total_exec_time + total_plan_time)
                    / calls * 1000, 'FM999990'), 9) || ' us'
                || lpad(to_char(total_plan_time / calls * 1000, 'FM999990'), 8) || ' us plan'
                || lpad(to_char((shared_blks_hit + shared_blks_read)::float / calls,
                    'FM99990.0'), 9) || ' blocks  '
                || left(regexp_replace(query, '\\s+', ' ', 'g'), 70)
            FROM pg_stat_statements
            WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
            ORDER BY total_exec_time + total_plan_time DESC LIMIT 10
            """, database: hubDatabase
        ).stdout
    }

    func run(progress: (String) -> Void) throws -> [StepResult] {
        var results: [StepResult] = []
        var populated = 0
        for step in configuration.steps {
            progress(
                "populating \(populated)..<\(step) accounts, \(configuration.devices) devices each")
            let started = Clock.nanoseconds()
            try populate(populated..<step)
            populated = step
            let populateSeconds = Double(Clock.nanoseconds() - started) / 1e9
            // What autovacuum does over the life of a service that grew, done at once: the
            // measured rounds do not pay for the bulk load.
            try Self.check(server.psql("VACUUM ANALYZE", database: hubDatabase))
            if configuration.showsStatements {
                try Self.check(
                    server.psql("SELECT pg_stat_statements_reset()", database: hubDatabase))
            }
            progress("measuring \(configuration.rounds) rounds over \(step) accounts")
            results.append(try measure(accounts: step, populateSeconds: populateSeconds))
            if configuration.showsStatements {
                progress(
                    "costliest statements over \(step) accounts (calls, per call, planning,"
                        + " buffers):\n" + (try costliestStatements()))
            }
        }
        return results
    }

    static func databaseSize(_ server: PostgresServer, _ database: String) throws -> Int {
        let output = try server.psql(
            "SELECT pg_database_size(current_database())", database: database)
        guard let bytes = Int(output.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            throw BenchmarkError(description: "pg_database_size: \(output.stdout) \(output.stderr)")
        }
        return bytes
    }

    /// CPU seconds of the server: the postmaster, its children that ended (which it
    /// waited for), and its children running now.
    func serverCPUSeconds() throws -> Double {
        guard let postmaster = server.pid, let own = ProcessTimes(pid: postmaster) else {
            throw BenchmarkError(description: "the server's process is not readable in /proc")
        }
        var seconds = own.seconds + own.childrenSeconds
        for child in ProcessTimes.children(of: postmaster) { seconds += child.seconds }
        return seconds
    }

    func poolerCPUSeconds() -> Double {
        pooler.pid.flatMap { ProcessTimes(pid: $0) }?.seconds ?? .nan
    }

    static let widths = [9, 10, 10, 10, 11, 10, 11, 11, 11, 9]

    static func row(_ cells: [String]) -> String {
        zip(cells, widths).map { cell, width in
            String(repeating: " ", count: max(0, width - cell.count)) + cell
        }.joined(separator: " ")
    }

    static func report(_ results: [StepResult], configuration: Configuration) -> String {
        var lines = [
            "Many accounts through PgBouncer (transaction pooling, pool \(configuration.poolSize)"
                + " server connections), \(configuration.devices) devices per account,"
                + " \(configuration.workers) devices syncing at once; \(configuration.rounds)"
                + " rounds per step, each a device that changed \(configuration.changesPerRound)"
                + " preferences syncing (push and pull). Server: shared_buffers"
                + " \(configuration.sharedBuffers), fsync off; the hub vacuumed and analyzed after"
                + " each step's accounts were added.",
            Self.row(
                [
                    "accounts", "populate", "median", "p99", "changes/s", "server", "server CPU",
                    "pooler CPU", "size", "rows",
                ]),
            Self.row(
                [
                    "", "s", "ms", "ms", "", "conns max", "us/change", "us/change", "KB/account",
                    "/account",
                ]),
        ]
        for result in results {
            let sorted = result.latencies
            let median = sorted.isEmpty ? .nan : sorted[sorted.count / 2]
            let p99 =
                sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, sorted.count * 99 / 100)]
            lines.append(
                row([
                    "\(result.accounts)", String(format: "%.1f", result.populateSeconds),
                    String(format: "%.2f", median), String(format: "%.2f", p99),
                    String(format: "%.0f", Double(result.changes) / result.seconds),
                    "\(result.connections.maximum)",
                    String(format: "%.0f", result.serverCPUSecondsPerChange * 1e6),
                    String(format: "%.0f", result.poolerCPUSecondsPerChange * 1e6),
                    String(format: "%.2f", result.bytesPerAccount / 1024),
                    String(format: "%.1f", result.rowsPerAccount),
                ]))
        }
        let total = results.map(\.changes).reduce(0, +)
        let pulled = results.map(\.pulled).reduce(0, +)
        lines.append(
            "Changes pushed in the measured rounds: \(total); pulled: \(pulled). Size per"
                + " account: the hub database's size less its size when empty, over the"
                + " accounts. Rows: preferences, bookmarks, sync changes and devices.")
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Counts the server's backends of one database, from `/proc` (asking the server would add
/// a connection and CPU of its own), every 20 ms while running.
final class ConnectionSampler: @unchecked Sendable {
    private let server: PostgresServer
    private let database: String
    private let samples = Mutex<[Int]>([])
    private let running = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init(server: PostgresServer, database: String) {
        self.server = server
        self.database = database
    }

    func start() {
        running.store(true, ordering: .sequentiallyConsistent)
        Thread.detachNewThread { [self] in
            while running.load(ordering: .sequentiallyConsistent) {
                let count = count()
                samples.withLock { $0.append(count) }
                usleep(20_000)
            }
            finished.signal()
        }
    }

    func stop() -> (maximum: Int, median: Int) {
        running.store(false, ordering: .sequentiallyConsistent)
        finished.wait()
        let sorted = samples.withLock { $0 }.sorted()
        return (sorted.last ?? 0, sorted.isEmpty ? 0 : sorted[sorted.count / 2])
    }

    private func count() -> Int {
        guard let postmaster = server.pid else { return 0 }
        return ProcessTimes.children(of: postmaster).filter {
            // A backend's title: "postgres: USER DATABASE ...".
            $0.commandLine.contains(" \(database) ")
        }.count
    }
}

/// A process's CPU times, from `/proc/PID/stat`.
struct ProcessTimes {
    let pid: pid_t
    let parent: pid_t
    let seconds: Double
    let childrenSeconds: Double

    var commandLine: String {
        #if os(Linux)
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else {
                return ""
            }
            return String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
        #else
            return ""
        #endif
    }

    /// Nil where there is no `/proc` (the load test measures on Linux only).
    init?(pid: pid_t) {
        #if os(Linux)
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let end = text.lastIndex(of: ")")
            else { return nil }
            // After the name in parentheses: state, ppid, ..., utime (14), stime, cutime, cstime.
            let fields = text[text.index(after: end)...].split(separator: " ")
            guard fields.count > 14, let parent = pid_t(fields[1]),
                let user = Double(fields[11]), let system = Double(fields[12]),
                let childUser = Double(fields[13]), let childSystem = Double(fields[14])
            else { return nil }
            let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
            self.pid = pid
            self.parent = parent
            seconds = (user + system) / ticks
            childrenSeconds = (childUser + childSystem) / ticks
        #else
            return nil
        #endif
    }

    /// The kernel lists each thread's children (`/proc/PID/task/TID/children`): a few
    /// files. Reading every process's `stat` instead, 50 times a second, cost the load test
    /// about 7% of a 2-core machine, shared with what it measured. That scan stays for a
    /// kernel without the lists.
    static func children(of parent: pid_t) -> [ProcessTimes] {
        #if os(Linux)
            let tasks = "/proc/\(parent)/task"
            if let threads = try? FileManager.default.contentsOfDirectory(atPath: tasks),
                FileManager.default.fileExists(atPath: "\(tasks)/\(parent)/children")
            {
                return threads.flatMap { thread in
                    ((try? String(contentsOfFile: "\(tasks)/\(thread)/children", encoding: .utf8))
                        ?? "").split(separator: " ").compactMap { pid_t($0) }
                }.compactMap { ProcessTimes(pid: $0) }
            }
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            return entries.compactMap { pid_t($0) }.compactMap { ProcessTimes(pid: $0) }
                .filter { $0.parent == parent }
        #else
            return []
        #endif
    }
}

extension ProcessTimes {
    /// A PostgreSQL server's CPU so far: the postmaster's, its ended children's and its
    /// running ones' (each backend a child).
    static func ofServer(_ server: PostgresServer) -> Double {
        guard let postmaster = server.pid, let own = ProcessTimes(pid: postmaster) else {
            return .nan
        }
        return own.seconds + own.childrenSeconds
            + children(of: postmaster).map(\.seconds).reduce(0, +)
    }
}

extension PostgresServer {
    /// A throwaway server with a prefs hub in a database of its own (its owner's store
    /// opened once, so migrated) and a service role `sync_service` for prefs-server.
    static func syncHub(settings: [String] = []) throws -> (PostgresServer, String) {
        let server = try PostgresServer.startPrivate(settings: settings)
        let database = try server.makeDatabase()
        var owner = PostgreSQLOptions()
        owner.account = "admin"
        owner.watchesForChanges = false
        _ = try AppDatabase.postgreSQL(server.target(database: database), options: owner)
        try server.makeLoginRoles([("sync_service", "prefs_service")])
        return (server, database)
    }
}
