import CRawLibPQ
import Dispatch
import Foundation
import PrefsCommandLine
import PrefsKit
import PrefsPostgreSQL
import PrefsSync
import Synchronization
import TestSupport

/// `prefs-bench --https`: sync through nginx (TLS, docs/deploy.md's configuration) and two
/// `prefs-server` instances in front of one hub, next to the same sync made directly (a
/// device with a database login), on one throwaway server:
/// - a round that pushes 10,000 changes, through the servers and directly, in alternation;
/// - how soon a write on one device reaches another, both running `prefs sync --watch`
///   through nginx (the `prefs` binaries);
/// - N simulated devices (2 per account), N = 100, 1,000, 10,000: rounds of random
///   devices that changed a few preferences, through the servers, then directly, then with
///   the same login through PgBouncer.
struct HTTPSWorkloads {
    let server: PostgresServer
    let database: String
    let instances: [SyncServerProcess]
    let nginx: NginxProxy
    /// PgBouncer in transaction pooling in front of the hub, for devices with a login that
    /// go through it (nil when it is not installed: that route is left out).
    let pooler: PgBouncer?
    let folder: TemporaryFolder
    let quick: Bool

    static let devicesPerAccount = 2
    static let changesPerRound = 5
    static let preferences = 20

    /// Whether the hub counts its statements (pg_stat_statements), to print where its CPU
    /// goes.
    let statements: Bool

    init(quick: Bool, statements: Bool = false) throws {
        self.quick = quick
        self.statements = statements
        guard NginxProxy.isInstalled else {
            throw BenchmarkError(description: "--https needs nginx and openssl")
        }
        if let reason = CurlTransport.loadFailure { throw BenchmarkError(description: reason) }
        (server, database) = try PostgresServer.syncHub(
            settings: ["shared_buffers=512MB"]
                + (statements
                    ? [
                        "shared_preload_libraries=pg_stat_statements",
                        "pg_stat_statements.track=all",
                        "pg_stat_statements.track_planning=on",
                        "track_functions=all",
                    ]
                    : []))
        if statements {
            _ = try server.psql(
                "CREATE EXTENSION IF NOT EXISTS pg_stat_statements", database: database)
        }
        let hub = server.target(database: database, user: "sync_service")
        instances = try (0..<2).map { _ in try SyncServerProcess(hub: hub) }
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        nginx = try NginxProxy(
            configuration: try NginxProxy.documentedConfiguration(repository: repository),
            ports: ["127.0.0.1:8081": instances[0].port, "127.0.0.1:8082": instances[1].port])
        pooler =
            PgBouncer.isInstalled
            ? try PgBouncer(
                serverSocket: server.folder, users: PgBouncer.users + ["sync_service"],
                poolSize: 4)
            : nil
        folder = try TemporaryFolder()
    }

    /// How a device reaches the hub: through nginx and the servers, with a login straight to
    /// PostgreSQL, or with a login through PgBouncer (whose server sessions outlive a
    /// device's round).
    enum Route: String, CaseIterable {
        case https, direct, pooled
    }

    /// The hub as the service role acting for the account (a device with a login).
    func direct(_ account: String) -> String {
        server.target(database: database, user: "sync_service")
    }

    func token(_ account: String, _ name: String) throws -> String {
        var options = PostgreSQLOptions()
        options.account = account
        options.watchesForChanges = false
        let hub = try AppDatabase.postgreSQL(direct(account), options: options)
        return try DeviceTokens.issue(on: hub, name: name).token
    }

    func throughServers(_ device: AppDatabase, token: String) throws -> DeviceSync {
        let transport = CurlTransport(
            server: nginx.url, certificateAuthorityFile: nginx.certificateAuthority)
        return try DeviceSync(
            database: device, connector: HTTPHubConnector(transport: transport, token: token),
            account: nil)
    }

    func directly(_ device: AppDatabase, account: String) throws -> DeviceSync {
        try DeviceSync(database: device, hub: direct(account), account: account)
    }

    /// A device with a login through PgBouncer.
    func throughPooler(_ device: AppDatabase, account: String) throws -> DeviceSync {
        guard let pooler else { throw BenchmarkError(description: "PgBouncer is not installed") }
        var options = PostgreSQLOptions()
        options.isBehindTransactionPooler = true
        return try DeviceSync(
            database: device, hub: pooler.target(database: database, user: "sync_service"),
            account: account, hubOptions: options)
    }

    // MARK: - A round of 10,000 changes

    /// Milliseconds of rounds that push `pending` new keys, through the servers and directly
    /// in alternation, each to an account of its own.
    func round(pending: Int, samples: Int) throws -> (direct: [Double], https: [Double]) {
        var times: (direct: [Double], https: [Double]) = ([], [])
        for sample in 0..<samples {
            for isHTTPS in [true, false] {
                let account = "round-\(sample)-\(isHTTPS)"
                let device = try AppDatabase(path: folder.path("\(account).db"))
                try device.transaction {
                    let store = PreferenceStore(database: device)
                    for index in 0..<pending {
                        try store.setValue(.int(index), forKey: "k\(index)")
                    }
                }
                let sync =
                    isHTTPS
                    ? try throughServers(device, token: token(account, "round"))
                    : try directly(device, account: account)
                let elapsed = try PostgresWorkloads.timedRound(sync, pushing: pending)
                if isHTTPS { times.https.append(elapsed) } else { times.direct.append(elapsed) }
            }
        }
        return times
    }

    // MARK: - Arrival in sync --watch

    /// Milliseconds from a write on device A to its arrival on device B, both running
    /// `prefs sync --watch` through nginx and the servers.
    func arrival(samples: Int) async throws -> [Double] {
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
        let paths = [folder.path("watch-a.db"), folder.path("watch-b.db")]
        for (index, path) in paths.enumerated() {
            let tokenFile = folder.path("watch-\(index).token")
            _ = FileManager.default.createFile(
                atPath: tokenFile, contents: Data(try token("watch", "watch-\(index)").utf8),
                attributes: [.posixPermissions: 0o600])
            let tls = ["--token-file", tokenFile, "--ca-file", nginx.certificateAuthority]
            let first = Process()
            first.executableURL = executable
            first.arguments = ["--db", path, "sync", "--hub", nginx.url] + tls
            first.standardOutput = FileHandle.nullDevice
            try first.run()
            first.waitUntilExit()
            let watcher = Process()
            watcher.executableURL = executable
            watcher.arguments = ["--db", path, "-q", "sync", "--watch"] + tls
            watcher.standardOutput = FileHandle.nullDevice
            try watcher.run()
            watchers.append(watcher)
        }
        try await Task.sleep(for: .milliseconds(500))
        return try await PostgresWorkloads.arrivals(
            writer: paths[0], reader: paths[1], samples: samples)
    }

    // MARK: - N devices

    struct StepResult {
        let devices: Int
        let route: String
        let latencies: [Double]
        let changes: Int
        let seconds: Double
        let connections: Int
        /// CPU per change: the servers (prefs-server), nginx, and PostgreSQL.
        let serversCPU: Double
        let nginxCPU: Double
        let postgresCPU: Double
    }

    func devicePath(_ index: Int) -> String { folder.path("device-\(index).db") }
    func account(ofDevice index: Int) -> String { "user\(index / Self.devicesPerAccount)" }

    /// Devices `range`: a token each; the first of each account writes its preferences; each
    /// syncs once through the servers.
    func populate(_ range: Range<Int>, workers: Int) throws -> [Int: String] {
        let tokens = Mutex<[Int: String]>([:])
        try parallel(range, workers: workers) { index in
            let token = try token(account(ofDevice: index), "device-\(index)")
            tokens.withLock { $0[index] = token }
            let device = try AppDatabase(
                path: devicePath(index), options: ScaleWorkload.deviceOptions)
            if index % Self.devicesPerAccount == 0 {
                try PreferenceStore(database: device).transaction { edit in
                    for key in 0..<Self.preferences {
                        try edit.setValue(.int(key), forKey: "s\(key)")
                    }
                }
            }
            try throughServers(device, token: token).sync()
        }
        return tokens.withLock { $0 }
    }

    private func parallel(
        _ range: Range<Int>, workers: Int, _ body: @Sendable (Int) throws -> Void
    ) throws {
        let next = Atomic<Int>(range.lowerBound)
        let failure = Mutex<(any Error)?>(nil)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while failure.withLock({ $0 == nil }) {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < range.upperBound else { return }
                do { try body(index) } catch { failure.withLock { $0 = error } }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
    }

    private func cpu(_ pids: [Int32]) -> Double {
        pids.compactMap { ProcessTimes(pid: $0) }.map(\.seconds).reduce(0, +)
    }

    private func nginxCPU() -> Double {
        let master = ProcessTimes(pid: nginx.pid)?.seconds ?? 0
        return master + ProcessTimes.children(of: nginx.pid).map(\.seconds).reduce(0, +)
    }

    private func postgresCPU() -> Double { ProcessTimes.ofServer(server) }

    /// `rounds` rounds of random devices among the first `devices`, `workers` at once.
    func measure(devices: Int, tokens: [Int: String], route: Route, rounds: Int, workers: Int)
        throws -> StepResult
    {
        let latencies = Mutex<[Double]>([])
        let changes = Atomic<Int>(0)
        let busy = Mutex<Set<Int>>([])
        let sampler = ConnectionSampler(server: server, database: database)
        // The route's own servers: prefs-server's two, or the pooler.
        let servers =
            route == .pooled ? pooler?.pid.map { [$0] } ?? [] : instances.map(\.process.pid)
        let before = (cpu(servers), nginxCPU(), postgresCPU())
        sampler.start()
        let started = ObservationWorkloads.monotonicNanoseconds()
        let seeds = Atomic<Int>(0)
        try parallel(0..<rounds, workers: workers) { _ in
            var generator = SeededGenerator(seed: UInt64(seeds.add(1, ordering: .relaxed).oldValue))
            var index = 0
            repeat {
                index = Int(generator.next() % UInt64(devices))
            } while !busy.withLock {
                $0.insert(index).inserted
            }
            defer { _ = busy.withLock { $0.remove(index) } }
            let device = try AppDatabase(
                path: devicePath(index), options: ScaleWorkload.deviceOptions)
            try PreferenceStore(database: device).transaction { edit in
                for _ in 0..<Self.changesPerRound {
                    try edit.setValue(
                        .int(Int(generator.next() % 1_000_000)),
                        forKey: "s\(generator.next() % UInt64(Self.preferences))")
                }
            }
            let roundStarted = ObservationWorkloads.monotonicNanoseconds()
            let sync =
                switch route {
                case .https: try throughServers(device, token: tokens[index] ?? "")
                case .direct: try directly(device, account: account(ofDevice: index))
                case .pooled: try throughPooler(device, account: account(ofDevice: index))
                }
            let report = try sync.sync()
            let elapsed = Double(ObservationWorkloads.monotonicNanoseconds() - roundStarted) / 1e6
            guard report.pending == 0 else {
                throw BenchmarkError(description: "a round left \(report.pending) pending")
            }
            latencies.withLock { $0.append(elapsed) }
            changes.add(report.pushed, ordering: .relaxed)
        }
        let seconds = Double(ObservationWorkloads.monotonicNanoseconds() - started) / 1e9
        let connections = sampler.stop().maximum
        let after = (cpu(servers), nginxCPU(), postgresCPU())
        let count = Double(max(changes.load(ordering: .relaxed), 1))
        return StepResult(
            devices: devices, route: route.rawValue,
            latencies: latencies.withLock { $0 }.sorted(),
            changes: changes.load(ordering: .relaxed), seconds: seconds,
            connections: connections, serversCPU: (after.0 - before.0) / count,
            nginxCPU: (after.1 - before.1) / count, postgresCPU: (after.2 - before.2) / count)
    }

    /// The statements that took the hub's time since the last reset: first those the
    /// clients sent (top level: their sum is what the hub spent executing and planning, the
    /// rest of its CPU is the protocol, sessions and commits), then those run inside
    /// functions (counted in their callers too). Calls, microseconds per change executing
    /// and planning, the statement's first 100 characters. Last the hub's functions
    /// (`track_functions`): the time in each itself, and with what it calls.
    func topStatements(per changes: Int) throws -> String {
        let perChange = "* 1000 / \(max(changes, 1))"
        let rows = try server.psql(
            """
            (SELECT 'top', calls, round(total_exec_time \(perChange)),
                round(total_plan_time \(perChange)),
                left(regexp_replace(query, '\\s+', ' ', 'g'), 100)
            FROM pg_stat_statements WHERE toplevel
            ORDER BY total_exec_time + total_plan_time DESC LIMIT 16)
            UNION ALL
            SELECT 'sum', sum(calls), round(sum(total_exec_time) \(perChange)),
                round(sum(total_plan_time) \(perChange)), 'every top-level statement'
            FROM pg_stat_statements WHERE toplevel
            UNION ALL
            (SELECT 'in', calls, round(total_exec_time \(perChange)),
                round(total_plan_time \(perChange)),
                left(regexp_replace(query, '\\s+', ' ', 'g'), 100)
            FROM pg_stat_statements WHERE NOT toplevel
            ORDER BY total_exec_time DESC LIMIT 12)
            UNION ALL
            (SELECT 'fn', calls, round(self_time \(perChange)), round(total_time \(perChange)),
                funcname
            FROM pg_stat_user_functions ORDER BY self_time DESC LIMIT 16)
            """, database: database
        ).stdout
        return rows.split(separator: "\n").map { line in
            let parts = line.split(separator: "|", maxSplits: 4)
            guard parts.count == 5 else { return "  " + line }
            if parts[0] == "fn" {
                return
                    "  fn \(parts[1]) calls, \(parts[2]) us/change in itself, \(parts[3]) with "
                    + "what it calls: \(parts[4])"
            }
            return
                "  \(parts[0]) \(parts[1]) calls, \(parts[2]) us/change executing, "
                + "\(parts[3]) planning: \(parts[4])"
        }.joined(separator: "\n") + "\n"
    }

    /// The floor of the hub's CPU per change: `changes` changes, `changesPerRound` a
    /// transaction as a round pushes them, each transaction one `INSERT ... ON CONFLICT DO
    /// UPDATE` of its rows into a table of sync_change's shape, on one connection (none of
    /// the hub's checks, clocks, history or notifications). PostgreSQL's CPU per change.
    func floorCPU(changes: Int) throws -> Double {
        guard let raw = raw_pg_open(server.target(database: database), "floor") else {
            throw BenchmarkError(description: "the floor's connection could not be opened")
        }
        defer { raw_pg_close(raw) }
        guard
            raw_pg_exec(
                raw,
                """
                CREATE TABLE IF NOT EXISTS floor_change (
                    account text, ident text, field text, clock text COLLATE "C", device text,
                    present boolean, type text, value text, sequence bigserial,
                    PRIMARY KEY (account, ident, field))
                """) == 1
        else { throw BenchmarkError(description: "the floor's table could not be made") }
        var generator = SeededGenerator(seed: 63)
        let before = postgresCPU()
        let transactions = max(1, changes / Self.changesPerRound)
        for round in 0..<transactions {
            // Distinct keys within one statement (ON CONFLICT takes a row once).
            let offset = Int(generator.next() % UInt64(Self.preferences / Self.changesPerRound))
            let rows = (0..<Self.changesPerRound).map { index in
                let clock = String(1_796_000_000_000 + round * 10 + index)
                return "('user\(round % 500)', 's\(offset * Self.changesPerRound + index)',"
                    + " 'value', '\(clock)', 'device\(round % 1000)', true, 'int',"
                    + " '\(generator.next() % 1_000_000)')"
            }
            let sql =
                "BEGIN; INSERT INTO floor_change"
                + " (account, ident, field, clock, device, present, type, value) VALUES "
                + rows.joined(separator: ", ")
                + " ON CONFLICT (account, ident, field) DO UPDATE SET clock = excluded.clock,"
                + " device = excluded.device, present = excluded.present, type = excluded.type,"
                + " value = excluded.value, sequence = nextval('floor_change_sequence_seq');"
                + " COMMIT"
            guard raw_pg_exec(raw, sql) == 1 else {
                throw BenchmarkError(description: "the floor's write failed")
            }
        }
        return (postgresCPU() - before) / Double(transactions * Self.changesPerRound)
    }

    func scale(steps: [Int], rounds: Int, workers: Int, progress: (String) -> Void) throws
        -> [StepResult]
    {
        var results: [StepResult] = []
        var tokens: [Int: String] = [:]
        var populated = 0
        for step in steps {
            progress("populating devices \(populated)..<\(step)")
            tokens.merge(try populate(populated..<step, workers: workers)) { $1 }
            populated = step
            _ = try server.psql("VACUUM ANALYZE", database: database)
            for route in Route.allCases where route != .pooled || pooler != nil {
                progress("\(rounds) rounds over \(step) devices, \(route.rawValue)")
                if statements {
                    _ = try server.psql(
                        "SELECT pg_stat_statements_reset(), pg_stat_reset()", database: database)
                }
                results.append(
                    try measure(
                        devices: step, tokens: tokens, route: route, rounds: rounds,
                        workers: workers))
                if statements {
                    print(
                        "The hub's statements, \(route.rawValue) at \(step) devices"
                            + " (most time first):")
                    print(try topStatements(per: results.last?.changes ?? 1), terminator: "")
                }
            }
        }
        return results
    }

    static func report(_ results: [StepResult], rounds: Int, workers: Int) -> String {
        let widths = [8, 7, 9, 8, 8, 10, 10, 10, 10, 8]
        func row(_ cells: [String]) -> String {
            zip(cells, widths).map { cell, width in
                String(repeating: " ", count: max(0, width - cell.count)) + cell
            }.joined(separator: " ")
        }
        var lines = [
            "N devices (\(devicesPerAccount) per account), \(workers) syncing at once, \(rounds)"
                + " rounds per row, each a device that changed \(changesPerRound) preferences"
                + " (push and pull): through nginx (TLS) and 2 prefs-server instances, then"
                + " directly (a login per device, a connection per round), then with the"
                + " same login through PgBouncer (pool 4; its CPU in the servers' column).",
            row([
                "devices", "route", "rounds/s", "p50", "p99", "servers", "nginx", "postgres",
                "PG conns", "vs direct",
            ]),
            row(["", "", "", "ms", "ms", "us/change", "us/change", "us/change", "max", "p50"]),
        ]
        for result in results {
            let p50 = result.latencies.isEmpty ? .nan : result.latencies[result.latencies.count / 2]
            let p99 =
                result.latencies.isEmpty
                ? .nan
                : result.latencies[
                    min(result.latencies.count - 1, result.latencies.count * 99 / 100)]
            let direct = results.first { $0.devices == result.devices && $0.route == "direct" }
            let directP50 = direct.map { $0.latencies[$0.latencies.count / 2] } ?? .nan
            lines.append(
                row([
                    "\(result.devices)", result.route,
                    String(format: "%.0f", Double(result.latencies.count) / result.seconds),
                    String(format: "%.2f", p50), String(format: "%.2f", p99),
                    String(format: "%.0f", result.serversCPU * 1e6),
                    String(format: "%.0f", result.nginxCPU * 1e6),
                    String(format: "%.0f", result.postgresCPU * 1e6), "\(result.connections)",
                    String(format: "%.2fx", p50 / directP50),
                ]))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func summary(_ name: String, _ times: [Double], target: String) -> String {
        let sorted = times.sorted()
        guard !sorted.isEmpty else { return name + ": no samples" }
        return name
            + String(
                format: " %.1f ms (median of %d; min %.1f, max %.1f)", sorted[sorted.count / 2],
                sorted.count, sorted[0], sorted[sorted.count - 1]) + "; target " + target
    }
}
