// prefs-bench: the performance table of the specification, measured in one run next to
// raw SQLite C calls and Foundation's UserDefaults.
//
//   swift build -c release --static-swift-stdlib
//   swift run -c release prefs-bench [--quick] [--json] [--scaling] [--only NAME] [--instructions]
//   prefs-bench --operations KIND N       (for callgrind: N operations and nothing else)
//   prefs-bench --scale-local [--quick] [--only process|memory|keys|links|search]
//                                         (cost and memory of the local store at 1,000,
//                                         100,000 and 1,000,000 keys; --quick stops at
//                                         100,000)
//   prefs-bench --postgres [--quick] [--only get|set|bookmarks|observe|sync]
//   prefs-bench --postgres --reports [--quick]   (onboarding reports at 1k, 10k, 100k accounts)
//   prefs-bench --postgres --scale [--quick] [--accounts 100,1000,10000] [--devices 3]
//               [--rounds 2000] [--workers 4] [--pool 4]
//                                         (many accounts syncing through PgBouncer)
//   prefs-bench --https [--quick] [--only round|arrival|scale] [--devices-steps 100,1000,10000]
//               [--rounds 2000] [--workers 4] [--statements]
//                                         (sync through nginx and two prefs-server
//                                         instances, next to the same made directly)
//                                         (the PostgreSQL engine next to raw libpq, on a
//                                         throwaway server started for the run)
//   prefs-bench --watchers N [--writes 3]  (N devices in a long poll on one prefs-server:
//                                         its threads and memory, and when each hears a
//                                         write)
//
// A full run (not --quick) also counts instructions per operation with callgrind when
// valgrind is installed; --instructions does only that.
import Foundation
import PrefsKit
import TestSupport

let arguments = Array(CommandLine.arguments.dropFirst())
let quick = arguments.contains("--quick")
let asJSON = arguments.contains("--json")
let scaling = arguments.contains("--scaling")
let only = arguments.firstIndex(of: "--only").flatMap {
    arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil
}

let instructionsOnly = arguments.contains("--instructions")

func wants(_ name: String) -> Bool { !instructionsOnly && (only == nil || only == name) }

if let index = arguments.firstIndex(of: "--operations"), arguments.count > index + 2,
    let count = Int(arguments[index + 2])
{
    // Scripts run this form (Benchmarks/callgrind, alternate-operations): a refusal is one
    // line and exit 1, not a trap.
    do {
        try OperationCounter.run(arguments[index + 1], count: count)
    } catch {
        FileHandle.standardError.write(Data("prefs-bench: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}

if let index = arguments.firstIndex(of: "--commit-writer"), arguments.count > index + 2,
    let samples = Int(arguments[index + 2])
{
    try ObservationWorkloads.runWriter(path: arguments[index + 1], samples: samples)
    exit(0)
}
if let index = arguments.firstIndex(of: "--watchers"), arguments.count > index + 1,
    let devices = Int(arguments[index + 1]), devices > 0
{
    let writes =
        arguments.firstIndex(of: "--writes").flatMap {
            arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil
        } ?? 3
    #if os(Linux)
        let load =
            (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?
            .split(separator: " ").first ?? "?"
    #else
        let load = "?"
    #endif
    print(
        "Devices waiting in a long poll on one prefs-server (pool 8), straight to it, PostgreSQL"
            + " 15 on loopback, all devices in one account; load \(load) at the start.")
    let workload = try WatcherWorkloads(devices: devices)
    print(try workload.run(writes: writes), terminator: "")
    exit(0)
}

if arguments.contains("--https") {
    let https = try HTTPSWorkloads(quick: quick, statements: arguments.contains("--statements"))
    func value(_ name: String) -> String? {
        arguments.firstIndex(of: name).flatMap {
            arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil
        }
    }
    let progress: (String) -> Void = {
        FileHandle.standardError.write(Data("running: \($0)\n".utf8))
    }
    print(
        "Sync through nginx \(nginxVersion()) (TLS, docs/deploy.md's configuration) and 2"
            + " prefs-server instances (pool 8 each), PostgreSQL 15 on loopback; devices are"
            + " SQLite files on this machine; the clients use libcurl (the command line's).")
    if wants("round") {
        progress("a round of 10,000 changes, through the servers and directly")
        let rounds = try https.round(pending: 10_000, samples: quick ? 1 : 5)
        print(
            HTTPSWorkloads.summary(
                "Sync: a round of 10,000 changes directly took", rounds.direct, target: "<= 1 s"))
        print(
            HTTPSWorkloads.summary(
                "Sync: the same round through nginx and prefs-server took", rounds.https,
                target: "<= 1.5x direct"))
        let direct = rounds.direct.sorted()[rounds.direct.count / 2]
        let through = rounds.https.sorted()[rounds.https.count / 2]
        print(
            String(
                format: "Sync: the round through the servers / direct: %.2fx (medians)",
                through / direct))
    }
    if wants("arrival") {
        progress("arrival in sync --watch through nginx")
        let arrivals = try await https.arrival(samples: quick ? 10 : 50)
        print(
            HTTPSWorkloads.summary(
                "Sync: a write on device A reached device B (both sync --watch through nginx) after",
                arrivals, target: "<= 200 ms"))
    }
    if wants("scale") {
        let steps =
            value("--devices-steps").map { $0.split(separator: ",").compactMap { Int($0) } }
            ?? (quick ? [100, 1_000] : [100, 1_000, 10_000])
        let rounds = value("--rounds").flatMap { Int($0) } ?? (quick ? 300 : 2_000)
        let workers = value("--workers").flatMap { Int($0) } ?? 4
        let results = try https.scale(
            steps: steps, rounds: rounds, workers: workers, progress: progress)
        print(HTTPSWorkloads.report(results, rounds: rounds, workers: workers), terminator: "")
        progress("the floor: the same changes by one INSERT ... ON CONFLICT a transaction")
        let changes = results.map(\.changes).max() ?? rounds * HTTPSWorkloads.changesPerRound
        let floor = try https.floorCPU(changes: changes)
        print(
            String(
                format:
                    "The hub's floor: %d changes, %d a transaction, each one INSERT ... ON"
                    + " CONFLICT DO UPDATE on one connection: PostgreSQL %.0f us/change.",
                changes, HTTPSWorkloads.changesPerRound, floor * 1e6))
        for result in results {
            print(
                "  \(result.route) at \(result.devices) devices: "
                    + String(
                        format: "PostgreSQL %.0f us/change, %.1fx the floor",
                        result.postgresCPU * 1e6, result.postgresCPU / floor))
        }
    }
    try? FileManager.default.removeItem(at: https.folder.url)
    exit(0)
}

/// `nginx -v`'s version.
func nginxVersion() -> String {
    let output = try? runProcess(URL(fileURLWithPath: "/usr/sbin/nginx"), ["-v"])
    return output?.stderr.split(separator: "/").last.map {
        $0.trimmingCharacters(in: .whitespacesAndNewlines)
    } ?? "?"
}

if arguments.contains("--postgres"), arguments.contains("--scale") {
    let configuration = try ScaleWorkload.Configuration(arguments: arguments, quick: quick)
    let workload = try ScaleWorkload(configuration: configuration)
    let results = Result {
        try workload.run { FileHandle.standardError.write(Data("running: \($0)\n".utf8)) }
    }
    workload.cleanUp()
    print(ScaleWorkload.report(try results.get(), configuration: configuration), terminator: "")
    exit(0)
}
if arguments.contains("--postgres"), arguments.contains("--reports") {
    let reports = try ReportWorkloads(quick: quick)
    let rows = try reports.run { FileHandle.standardError.write(Data("running: \($0)\n".utf8)) }
    print(
        "prefs-bench --postgres --reports, \(ProcessInfo.processInfo.activeProcessorCount) CPUs,"
            + " load average \(loadAverage())\n")
    print(ReportWorkloads.report(rows), terminator: "")
    exit(0)
}
if arguments.contains("--postgres") {
    let postgres = try PostgresWorkloads(quick: quick)
    var rows: [WorkloadResult] = []
    FileHandle.standardError.write(Data("running: PostgreSQL workloads\n".utf8))
    if wants("get") {
        rows.append(try postgres.cachedGet(keys: 1_000))
        rows.append(try postgres.uncachedGet(keys: 1_000))
    }
    if wants("set") { rows.append(try postgres.setOwnCommit(keys: 1_000)) }
    if wants("bookmarks") {
        rows.append(try postgres.bookmarkInsert(count: quick ? 2_000 : 100_000))
    }
    let delay =
        wants("observe")
        ? try await postgres.observationDelay(samples: quick ? 20 : 100)
        : (median: 0, all: [])
    var rounds: [Double] = []
    var updates: (direct: [Double], pooled: [Double]) = ([], [])
    var arrivals: [Double] = []
    var serverWrites: (syncing: [Double], alone: [Double]) = ([], [])
    if wants("sync") {
        rounds = try postgres.syncRound(pending: 10_000, samples: quick ? 1 : 5)
        updates = try postgres.syncUpdateRound(pending: 10_000, samples: quick ? 1 : 5)
        serverWrites = try postgres.serverTransaction(writes: 10_000, samples: quick ? 1 : 5)
        arrivals = try await postgres.syncArrival(samples: quick ? 10 : 50)
    }
    if asJSON {
        print(
            try Report.json(
                rows,
                notes: [
                    "observationDelayMilliseconds": delay.all,
                    "syncRoundMilliseconds": rounds, "syncArrivalMilliseconds": arrivals,
                    "syncUpdateRoundDirectMilliseconds": updates.direct,
                    "syncUpdateRoundPooledMilliseconds": updates.pooled,
                    "serverTransactionSyncingMilliseconds": serverWrites.syncing,
                    "serverTransactionAloneMilliseconds": serverWrites.alone,
                ]),
            terminator: "")
    } else {
        print(Report.table(rows), terminator: "")
        let sorted = delay.all.sorted()
        if !sorted.isEmpty {
            print(
                "PostgreSQL: a commit by another connection reached an observer after "
                    + String(
                        format: "%.1f ms (median of %d; min %.1f, max %.1f)", delay.median,
                        sorted.count, sorted.first ?? 0, sorted.last ?? 0)
                    + "; target <= 50 ms")
        }
        for (name, times, target) in [
            ("Sync: one round of 10,000 pending changes took", rounds, "<= 1 s (1,000 ms)"),
            (
                "Sync: a round of 10,000 updates of keys the hub has, direct, took",
                updates.direct, "<= 1 s (1,000 ms)"
            ),
            (
                "Sync: the same round through PgBouncer (transaction pooling) took",
                updates.pooled, "<= 1.5x direct"
            ),
            (
                "Sync: a write on device A reached device B (both --watch) after", arrivals,
                "<= 200 ms"
            ),
        ] where !times.isEmpty {
            let sorted = times.sorted()
            print(
                name
                    + String(
                        format: " %.1f ms (median of %d; min %.1f, max %.1f)",
                        sorted[sorted.count / 2], sorted.count, sorted[0], sorted[sorted.count - 1])
                    + "; target " + target)
        }
        if !updates.direct.isEmpty, !updates.pooled.isEmpty {
            let direct = updates.direct.sorted()[updates.direct.count / 2]
            let pooled = updates.pooled.sorted()[updates.pooled.count / 2]
            print(
                String(
                    format: "Sync: the update round through the pooler / direct: %.2fx (medians)",
                    pooled / direct))
        }
        let syncing = serverWrites.syncing.sorted()
        let alone = serverWrites.alone.sorted()
        if !syncing.isEmpty, !alone.isEmpty {
            let ratio = syncing[syncing.count / 2] / alone[alone.count / 2]
            print(
                String(
                    format:
                        "Sync: a server transaction of 10,000 preference writes took %.1f ms on an"
                        + " account that syncs, %.1f ms on one that does not (medians of %d):"
                        + " %.2fx; target <= 2x", syncing[syncing.count / 2],
                    alone[alone.count / 2], syncing.count, ratio))
        }
    }
    exit(0)
}

let executables = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
let workloads = try Workloads(quick: quick)
defer { workloads.cleanUp() }
var results: [WorkloadResult] = []
var notes: [String: Any] = [
    "mode": quick ? "quick" : "full",
    "cpus": ProcessInfo.processInfo.activeProcessorCount,
    "sqlite": "system libsqlite3",
]
func progress(_ text: String) {
    if !asJSON { FileHandle.standardError.write(Data("running: \(text)\n".utf8)) }
}

// Same pragmas on both sides, or the ratios to raw C mean nothing.
let settings = try workloads.connectionSettings()
let mismatched = settings.filter { $0.prefsKit != $0.rawC }
notes["connectionSettings"] = Dictionary(
    uniqueKeysWithValues: settings.map { ($0.name, ["PrefsKit": $0.prefsKit, "raw C": $0.rawC]) })
if !asJSON {
    print("Connection settings, read back with PRAGMA (PrefsKit / raw C):")
    print(
        settings.map {
            "\($0.name)=\($0.prefsKit)" + ($0.prefsKit == $0.rawC ? "" : " / \($0.rawC) MISMATCH")
        }
        .joined(separator: ", "))
    print()
}
guard mismatched.isEmpty else {
    FileHandle.standardError.write(
        Data(
            "prefs-bench: the raw C connection's pragmas differ from PrefsKit's: \(mismatched.map(\.name).joined(separator: ", "))\n"
                .utf8))
    exit(1)
}

if arguments.contains("--scale-local") {
    print(
        "prefs-bench --scale-local, \(ProcessInfo.processInfo.activeProcessorCount) CPUs,"
            + " load average at the start \(loadAverage())\n")
    try ScaleLocal(
        workloads: workloads, prefs: executables.appendingPathComponent("prefs").path,
        sizes: quick ? [1_000, 100_000] : [1_000, 100_000, 1_000_000],
        linkCounts: quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000], only: only
    ).run()
    print("\nload average at the end \(loadAverage())")
    workloads.cleanUp()
    exit(0)
}

let keyCounts = scaling ? [10, 1_000, 100_000] : [1_000]
if wants("get") {
    for keys in keyCounts {
        progress("get with \(keys) keys")
        results.append(try workloads.cachedGet(keys: keys))
        results.append(try workloads.uncachedGet(keys: keys))
    }
}
if wants("state") {
    progress("cached selection and bookmark reads")
    results += try workloads.cachedStateReads()
}
if wants("set") {
    for keys in keyCounts {
        progress("set with \(keys) keys")
        results.append(try workloads.setOwnCommit(keys: keys))
    }
    progress("set with 10 keys, watched")
    results.append(try workloads.setOwnCommit(keys: 10, watched: true))
    progress("preparing the hot write statements")
    results += try workloads.prepareHotStatements()
    progress("batched sets")
    results.append(try workloads.batchedSets(count: quick ? 10_000 : 100_000))
}
if wants("bookmarks") {
    progress("bookmark insert")
    results.append(try workloads.bookmarkInsert(count: quick ? 10_000 : 100_000))
    progress("bookmark import")
    results.append(try workloads.bookmarkImport(count: quick ? 10_000 : 100_000))
    let rowCounts = scaling ? [1_000, 100_000, 1_000_000] : [quick ? 20_000 : 100_000]
    for rows in rowCounts {
        progress("bookmark queries over \(rows) rows")
        results += try workloads.bookmarkQueries(rows: rows)
    }
}
if wants("cli") {
    let prefs = executables.appendingPathComponent("prefs").path
    let cget =
        cFloor("Benchmarks/CGetPrint/main.c", ".build/prefs-cget-dynamic")
        ?? executables.appendingPathComponent("prefs-cget").path
    if FileManager.default.isExecutableFile(atPath: prefs),
        FileManager.default.isExecutableFile(atPath: cget)
    {
        progress("whole-process get")
        let (result, peak) = try workloads.commandLine(prefs: prefs, cget: cget)
        results.append(result)
        notes["cliPeakRSSKilobytes"] = peak
    } else {
        notes["cli"] = "skipped: build prefs and prefs-cget first"
    }
    let cset =
        cFloor("Benchmarks/CSet/main.c", ".build/prefs-cset-dynamic")
        ?? executables.appendingPathComponent("prefs-cset").path
    if FileManager.default.isExecutableFile(atPath: prefs),
        FileManager.default.isExecutableFile(atPath: cset)
    {
        progress("whole-process set")
        results.append(try workloads.commandLineSet(prefs: prefs, cset: cset))
    } else {
        notes["cliSet"] = "skipped: build prefs and prefs-cset first"
    }
    // The README's install command's fully static file against the C program linked
    // statically too, as `Benchmarks/static-get` builds them (paths from the package root).
    let staticPrefs = ".build/static/release/prefs"
    let staticCget = ".build/prefs-cget-static"
    if FileManager.default.isExecutableFile(atPath: staticPrefs),
        FileManager.default.isExecutableFile(atPath: staticCget)
    {
        progress("whole-process get, both static")
        let (result, _) = try workloads.commandLine(
            prefs: staticPrefs, cget: staticCget,
            name: "`prefs get KEY`, whole process, both static",
            target: "<= 1.3x the static C program")
        results.append(result)
        if !quick,
            let counts = try InstructionCount.wholeProcessGet(
                prefs: staticPrefs, cget: staticCget, folder: workloads.folder)
        {
            notes["staticGetInstructions"] = ["prefs": counts.prefs, "C": counts.c]
        }
        let staticCset = ".build/prefs-cset-static"
        if FileManager.default.isExecutableFile(atPath: staticCset) {
            progress("whole-process set, both static")
            results.append(
                try workloads.commandLineSet(
                    prefs: staticPrefs, cset: staticCset,
                    name: "`prefs set KEY INT`, whole process, both static"))
        }
    } else {
        notes["staticCLI"] = "skipped: run Benchmarks/static-get first (it builds .build/static)"
    }
}
var separateProcesses: [SeparateProcesses.Result] = []
var separateLoad = ""
if wants("processes") {
    progress("each side in its own process")
    separateLoad = loadAverage()
    separateProcesses = try SeparateProcesses(executable: CommandLine.arguments[0]).run(
        pairs: SeparateProcesses.pairs(quick: quick), rounds: quick ? 1 : 3)
    notes["separateProcesses"] = separateProcesses.map {
        [
            "operation": $0.pair.name, "count": $0.pair.count,
            "prefsKitProcessCPUMicroseconds": $0.prefsKit.map(\.cpu),
            "rawCProcessCPUMicroseconds": $0.floor.map(\.cpu),
            "processCPURatios": $0.ratios,
        ]
    }
}
if wants("memory") {
    progress("memory over many operations")
    let operations = quick ? 100_000 : 1_000_000
    let memory = try workloads.memory(operations: operations)
    notes["memory"] = memory.merging(["operations": [operations]]) { $1 }
}

if wants("observation") {
    progress("another process's commits reaching an observer")
    let delays = try await ObservationWorkloads.deliveryDelays(
        executable: CommandLine.arguments[0], folder: workloads.folder, samples: quick ? 50 : 200)
    notes["observationDelayMilliseconds"] = delays
    let idleObserver = executables.appendingPathComponent("prefs-idle-observer").path
    if FileManager.default.isExecutableFile(atPath: idleObserver) {
        let seconds = quick ? 5 : 10
        progress("an idle observer's wake-ups over \(seconds) s")
        let idle = try ObservationWorkloads.idleWakeups(
            idleObserver: idleObserver, folder: workloads.folder, seconds: seconds)
        notes["idleObserverWakeupsPerSecond"] = idle.perSecond
        notes["idleObserverChangeDetection"] = idle.detection
    } else {
        notes["idleObserver"] = "skipped: build prefs-idle-observer first"
    }
}

var instructionCounts: [InstructionCount]? = nil
if instructionsOnly || (!quick && only == nil) {
    progress("instructions per operation (callgrind)")
    do {
        instructionCounts = try InstructionCount.measure(executable: CommandLine.arguments[0])
        if let instructionCounts {
            notes["instructionsPerOperation"] = instructionCounts.map {
                [
                    "workload": $0.workload, "operation": $0.operation, "PrefsKit": $0.prefsKit,
                    "raw C": $0.rawC,
                ]
            }
        } else {
            notes["instructionsPerOperation"] = "skipped: valgrind is not installed"
        }
    } catch {
        // The timings above stand on their own: a callgrind that cannot read this binary's
        // debug information must not take them down with it.
        let reason = "\(error)".split(separator: "\n").first.map(String.init) ?? "\(error)"
        notes["instructionsPerOperation"] = "failed: \(reason)"
        progress("callgrind failed, instruction counts left out: \(reason)")
    }
}

if asJSON {
    print(try Report.json(results, notes: notes), terminator: "")
} else {
    if !results.isEmpty { print(Report.table(results), terminator: "") }
    if !separateProcesses.isEmpty {
        print()
        print(SeparateProcesses.table(separateProcesses, load: separateLoad), terminator: "")
    }
    if let delays = notes["observationDelayMilliseconds"] as? [Double] {
        let sorted = delays.sorted()
        print(
            String(
                format:
                    "Another process's commit reached an observer after %.2f ms (median of %d; min %.2f, p90 %.2f, max %.2f); target <= 2 ms",
                sorted[sorted.count / 2], sorted.count, sorted[0], sorted[sorted.count * 9 / 10],
                sorted[sorted.count - 1]))
    }
    if let wakeups = notes["idleObserverWakeupsPerSecond"] as? Double {
        print(
            String(
                format:
                    "An observing process with no changes: %.1f context switches per second (all threads); target <= 1; change detection: %@",
                wakeups, (notes["idleObserverChangeDetection"] as? String) ?? "?"))
    }
    if let peak = notes["cliPeakRSSKilobytes"] as? Int {
        print("prefs get peak RSS: \(peak / 1024) MB (\(peak) KB); target <= 20 MB")
    }
    if let counts = notes["staticGetInstructions"] as? [String: Int], let prefs = counts["prefs"],
        let c = counts["C"], c > 0
    {
        print(
            String(
                format:
                    "prefs get, whole process, both static: %@ instructions against the C program's %@ (%.2fx; callgrind)",
                prefs.formatted(), c.formatted(), Double(prefs) / Double(c)))
    }
    if let instructionCounts {
        print()
        print(InstructionCount.table(instructionCounts), terminator: "")
    }
    if let memory = notes["memory"] as? [String: [Int]] {
        for name in ["getsRSSBytes", "setsRSSBytes"] {
            let samples = memory[name] ?? []
            let mb = samples.map { String(format: "%.1f", Double($0) / 1_048_576) }.joined(
                separator: " ")
            print(
                "RSS (MB) after each tenth of \(memory["operations"]?.first ?? 0) \(name.hasPrefix("gets") ? "gets" : "sets"): \(mb)"
            )
        }
    }
}

/// A C floor built by `cc` alone, linked dynamically with libsqlite3, libm and libc as a C
/// program is: the `prefs-cget` and `prefs-cset` products SwiftPM builds also load Swift's
/// runtime (libswiftCore, libstdc++, libgcc_s), which doubled the floor's start-up and made
/// `prefs get` look 1.23x the C program when it is about 2x. Nil when `cc` fails (the
/// SwiftPM products are used then).
func cFloor(_ source: String, _ output: String) -> String? {
    let compiler = Process()
    compiler.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    compiler.arguments = ["cc", "-O2", "-o", output, source, "-lsqlite3", "-lm"]
    compiler.standardError = FileHandle.nullDevice
    guard (try? compiler.run()) != nil else { return nil }
    compiler.waitUntilExit()
    return compiler.terminationStatus == 0 ? output : nil
}
