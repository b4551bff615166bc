import CRawSQLite
import Foundation
import PrefsKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `prefs-bench --scale-local`: how the local store's costs and memory grow with it, at
/// 1,000, 100,000 and 1,000,000 keys (issue 47).
///
/// - In the process: the uncached get and the own-commit set, next to raw C on a file of
///   the same size, each with its thread's CPU time and its wall time.
/// - Whole processes (`/usr/bin/time`, started with `posix_spawn`): the peak RSS and CPU of
///   listing, exporting and importing a store of 1,000,000 keys, of importing and exporting
///   bookmark files of 10,000 to 1,000,000 links, and of an empty run, with `sqlite3` doing
///   the same listing.
/// - The full-text search's first page at 1,000,000 bookmarks, next to raw C.
struct ScaleLocal {
    let workloads: Workloads
    let prefs: String
    let sizes: [Int]
    let linkCounts: [Int]
    /// The sections to run: "process", "memory", "keys" or "links" (the key store's or the
    /// bookmark files' rows of "memory" alone), "search" (nil: all).
    var only: String? = nil

    /// What one whole process used.
    struct ProcessCost {
        let wallSeconds: Double
        let cpuSeconds: Double
        let peakKilobytes: Int
    }

    /// Prints the tables as it goes (each row as soon as it is measured).
    func run() throws {
        if only == nil || only == "process" { try inProcess() }
        if only == nil || only == "memory" { try wholeProcesses() }
        if only == "keys" { try wholeProcesses(links: false) }
        if only == "links" { try wholeProcesses(keys: false) }
        if only == nil || only == "search" { try search() }
    }

    private func inProcess() throws {
        print("## In the process: uncached get and own-commit set, next to raw C\n")
        print(
            "| keys | operation | PrefsKit CPU | raw C CPU | CPU ratio (median of rounds) |"
                + " PrefsKit wall | raw C wall | wall ratio |")
        print("|---|---|---|---|---|---|---|---|")
        for keys in sizes {
            progress("scale-local: uncached get, \(keys) keys")
            printRow(keys: keys, try workloads.uncachedGet(keys: keys))
            progress("scale-local: own-commit set, \(keys) keys")
            printRow(keys: keys, try workloads.setOwnCommit(keys: keys))
        }
        print()
    }

    private func search() throws {
        if let largest = linkCounts.last {
            progress("scale-local: FTS first page at \(largest) bookmarks")
            let results = try workloads.bookmarkQueries(rows: largest)
            print("## Search at \(largest) bookmarks\n")
            print("| query | PrefsKit | raw C | ratio (median of rounds) |")
            print("|---|---|---|---|")
            for result in results {
                guard let own = result.sample("PrefsKit"), let raw = result.sample("raw C") else {
                    continue
                }
                print(
                    "| \(result.name) | \(Self.time(own.median)) | \(Self.time(raw.median)) |"
                        + " \(Self.ratio(Sample.median(of: result.roundRatios(of: "PrefsKit")))) |"
                )
            }
        }
    }

    private func printRow(keys: Int, _ result: WorkloadResult) {
        guard let own = result.sample("PrefsKit"), let raw = result.sample("raw C") else { return }
        let name = result.name.hasPrefix("get") ? "get, uncached" : "set, own commit"
        print(
            "| \(keys) | \(name) | \(Self.time(own.cpuMedian)) | \(Self.time(raw.cpuMedian)) |"
                + " \(Self.ratio(Sample.median(of: result.roundCPURatios(of: "PrefsKit")))) |"
                + " \(Self.time(own.median)) | \(Self.time(raw.median)) |"
                + " \(Self.ratio(Sample.median(of: result.roundRatios(of: "PrefsKit")))) |")
    }

    // MARK: - Whole processes

    private func wholeProcesses(keys withKeys: Bool = true, links withLinks: Bool = true) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/time") else {
            print("Whole-process rows skipped: /usr/bin/time is not installed.\n")
            return
        }
        let folder = workloads.folder.path
        print("## Whole processes: peak RSS and CPU (user + system)\n")
        print("| command | size | peak RSS | above the empty run | CPU | wall |")
        print("|---|---|---|---|---|---|")
        let empty = folder + "/scale-empty.sqlite"
        try run([prefs, "--db", empty, "set", "seed", "1"])
        let baseline = try cost([prefs, "--db", empty, "list"])
        printRow("prefs list (one key)", "1", baseline, baseline: baseline)
        if withKeys { try keyRows(baseline: baseline) }
        let perLink = withLinks ? try bookmarkRows(baseline: baseline) : []
        print()
        // Flat cost: what the import adds to storing the links, against the storing itself,
        // which grows with the indexes (raw C's rows), the same at every size.
        let ratios = perLink.map { $0.imported / $0.raw }
        if let lowest = ratios.min(), let highest = ratios.max() {
            let each = zip(perLink, ratios).map {
                String(
                    format: "%.2fx (%.1f us more) at %d", $1, $0.imported - $0.raw, $0.links)
            }
            print(
                "The HTML import's CPU per link against raw C storing the same links: "
                    + each.joined(separator: ", ") + " links; the highest ratio "
                    + String(format: "%.1f%%", (highest / lowest - 1) * 100)
                    + " above the lowest.\n")
        }
    }

    private func keyRows(baseline: ProcessCost) throws {
        let folder = workloads.folder.path
        let keys = sizes.last ?? 1_000_000
        let store = folder + "/scale-\(keys).sqlite"
        progress("scale-local: a store of \(keys) keys")
        try fill(store, keys: keys)
        let size = "\(keys) keys"
        let exported = folder + "/scale-export.json"
        let exportedPlist = folder + "/scale-export.plist"
        let exportedBinary = folder + "/scale-export.bplist"
        let rows: [(String, [String], String?)] = [
            ("prefs list", [prefs, "--db", store, "list"], nil),
            ("prefs --json list", [prefs, "--db", store, "--json", "list"], nil),
            ("prefs export (JSON)", [prefs, "--db", store, "export"], exported),
            (
                "prefs export --format plist",
                [prefs, "--db", store, "export", "--format", "plist"], exportedPlist
            ),
            (
                "prefs export --format binary-plist",
                [prefs, "--db", store, "export", "--format", "binary-plist"], exportedBinary
            ),
        ]
        for (name, arguments, output) in rows {
            progress("scale-local: \(name)")
            printRow(name, size, try cost(arguments, stdout: output), baseline: baseline)
        }
        for (name, file) in [
            ("JSON", exported), ("plist", exportedPlist), ("binary-plist", exportedBinary),
        ] {
            let imported = folder + "/scale-import-\(name).sqlite"
            progress("scale-local: prefs import (\(name))")
            printRow(
                "prefs import (\(name))", size,
                try cost([prefs, "--db", imported, "import", file]), baseline: baseline)
        }
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3") {
            progress("scale-local: sqlite3 -json")
            printRow(
                "sqlite3 -json (same rows)", size,
                try cost([
                    "/usr/bin/sqlite3", "-json", store,
                    "SELECT suite, key, type, value FROM preference ORDER BY suite, key",
                ]), baseline: baseline)
        }
    }

    /// The bookmark rows; returns the HTML import's CPU per link and raw C's, in us, by size.
    private func bookmarkRows(
        baseline: ProcessCost
    ) throws -> [(links: Int, imported: Double, raw: Double)] {
        let folder = workloads.folder.path
        var perLink: [(links: Int, imported: Double, raw: Double)] = []
        for links in linkCounts {
            let file = folder + "/scale-links-\(links).html"
            try Workloads.bookmarkFile(links: links, prefix: "s")
                .write(toFile: file, atomically: false, encoding: .utf8)
            let database = folder + "/scale-links-\(links).sqlite"
            progress("scale-local: bookmark import of \(links) links")
            let imported = try cost([prefs, "--db", database, "bookmark", "import", file])
            printRow(
                "prefs bookmark import (HTML)", "\(links) links", imported, baseline: baseline,
                perItem: (links, "link"))
            progress("scale-local: raw C storing the same \(links) links")
            let floor = try rawStoring(links: links)
            if floor > 0 {
                let scale = 1e6 / Double(links)
                perLink.append((links, imported.cpuSeconds * scale, floor * scale))
            }
            print(
                "| raw C storing the same links (in process, no parsing) | \(links) links | | |"
                    + String(
                        format: " %.2f s (%.1f us/link) | |", floor, floor * 1e6 / Double(links)))
            let exported = folder + "/scale-links-\(links).json"
            for format in ["html", "json"] {
                progress("scale-local: bookmark export (\(format)) of \(links) links")
                printRow(
                    "prefs bookmark export --format \(format)", "\(links) links",
                    try cost(
                        [prefs, "--db", database, "bookmark", "export", "--format", format],
                        stdout: format == "json" ? exported : nil),
                    baseline: baseline)
            }
            // The JSON export read back, and the same links as Chromium's and Safari's files,
            // each into an empty store.
            let chromium = folder + "/scale-links-\(links)-Bookmarks"
            try Workloads.chromiumFile(links: links, prefix: "s")
                .write(toFile: chromium, atomically: false, encoding: .utf8)
            let safari = folder + "/scale-links-\(links)-Bookmarks.plist"
            try Workloads.safariFile(links: links, prefix: "s")
                .write(to: URL(fileURLWithPath: safari))
            let safariXML = folder + "/scale-links-\(links)-Bookmarks-xml.plist"
            try Workloads.safariFile(links: links, prefix: "s", format: .xml)
                .write(to: URL(fileURLWithPath: safariXML))
            var stores: [String] = []
            for (name, source) in [
                ("its JSON export", exported), ("Chromium JSON", chromium),
                ("Safari binary plist", safari), ("Safari XML plist", safariXML),
            ] {
                let store = folder + "/scale-links-\(links)-\(stores.count).sqlite"
                stores.append(store)
                progress("scale-local: bookmark import (\(name)) of \(links) links")
                printRow(
                    "prefs bookmark import (\(name))", "\(links) links",
                    try cost([prefs, "--db", store, "bookmark", "import", source]),
                    baseline: baseline, perItem: (links, "link"))
            }
            for path in [file, exported, chromium, safari, safariXML] + stores {
                try? FileManager.default.removeItem(atPath: path)
            }
        }
        return perLink
    }

    /// The CPU seconds raw C takes to store the links of the file, in its order, in one
    /// transaction on a fresh file of the same schema and cache: the import's floor, whose
    /// own growth with the index's size the import's CPU per link is set against.
    private func rawStoring(links: Int) throws -> Double {
        // The schema made by PrefsKit, whose connection is closed again here.
        let path = try workloads.freshDatabase("scale-raw-links").1
        let raw = try workloads.raw(path, synchronous: 1)
        defer { raw_close(raw) }
        let rows = BookmarkRows(fileOf: links, prefix: "s")
        let start = Clock.threadCPUNanoseconds()
        let code = rows.insert(into: raw, count: links)
        let used = Clock.threadCPUNanoseconds() - start
        guard code == 0 else { throw BenchmarkError(description: "raw C storing: \(code)") }
        try? FileManager.default.removeItem(atPath: path)
        return Double(used) / 1e9
    }

    /// A store of `keys` keys, a third each int, string and bool, written by PrefsKit.
    private func fill(_ path: String, keys: Int) throws {
        let store = PreferenceStore(database: try AppDatabase(path: path))
        let batch = 50_000
        for start in stride(from: 0, to: keys, by: batch) {
            try store.transaction { edit in
                for i in start..<min(keys, start + batch) {
                    let value: PreferenceValue =
                        switch i % 3 {
                        case 0: .int(i)
                        case 1: .string("value \(i)")
                        default: .bool(i % 2 == 0)
                        }
                    try edit.setValue(value, forKey: "key\(i)")
                }
            }
        }
    }

    private func printRow(
        _ name: String, _ size: String, _ cost: ProcessCost, baseline: ProcessCost,
        perItem: (count: Int, name: String)? = nil
    ) {
        let above = Double(cost.peakKilobytes - baseline.peakKilobytes) / 1024
        var cpu = String(format: "%.2f s", cost.cpuSeconds)
        if let perItem {
            cpu += String(
                format: " (%.1f us/%@)", cost.cpuSeconds * 1e6 / Double(perItem.count),
                perItem.name)
        }
        print(
            "| \(name) | \(size) | \(String(format: "%.1f MB", Double(cost.peakKilobytes) / 1024))"
                + " | \(String(format: "%+.1f MB", above)) | \(cpu) |"
                + " \(String(format: "%.2f s", cost.wallSeconds)) |")
    }

    /// Runs a command under `/usr/bin/time` (its own child, so the peak is the command's,
    /// not this process's), its stdout to `stdout` or /dev/null.
    func cost(_ arguments: [String], stdout: String? = nil) throws -> ProcessCost {
        let report = workloads.folder.path + "/time-\(getpid()).txt"
        try run(
            ["/usr/bin/time", "-f", "%e %U %S %M", "-o", report] + arguments, stdout: stdout)
        let fields = ((try? String(contentsOfFile: report, encoding: .utf8)) ?? "")
            .split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Double($0) }
        guard fields.count == 4 else {
            throw BenchmarkError(description: "no timing of \(arguments.joined(separator: " "))")
        }
        return ProcessCost(
            wallSeconds: fields[0], cpuSeconds: fields[1] + fields[2],
            peakKilobytes: Int(fields[3]))
    }

    /// Runs a command to its end with `posix_spawn`; throws unless it exits 0.
    private func run(_ arguments: [String], stdout: String? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(
            &actions, 1, stdout ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, arguments[0], &actions, nil, argv, environ) == 0 else {
            throw BenchmarkError(description: "cannot run \(arguments[0])")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else {
            throw BenchmarkError(
                description: "\(arguments.joined(separator: " ")) exited with status \(status)")
        }
    }

    static func time(_ nanoseconds: Double) -> String {
        nanoseconds >= 1_000_000
            ? String(format: "%.2f ms", nanoseconds / 1e6)
            : String(format: "%.2f us", nanoseconds / 1e3)
    }

    static func ratio(_ value: Double) -> String { String(format: "%.2fx", value) }
}

/// The 1-, 5- and 15-minute load averages, as `/proc/loadavg` gives them ("unknown"
/// elsewhere).
func loadAverage() -> String {
    #if os(Linux)
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else {
            return "unknown"
        }
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    #else
        return "unknown"
    #endif
}
