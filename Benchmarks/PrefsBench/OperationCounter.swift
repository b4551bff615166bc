import CRawLibPQ
import CRawSQLite
import Foundation
import PrefsInterchange
import PrefsKit
import PrefsPostgreSQL
import Synchronization

/// Runs exactly N operations of one kind and nothing else, so that callgrind runs with two
/// values of N give the instructions of one operation by difference. Each PrefsKit
/// operation has a `raw-` twin doing the same work through raw C calls, on a file with the
/// same schema and pragmas.
enum OperationCounter {
    static let kinds = [
        "get", "wide-get", "uncached-get", "set", "bookmark", "list", "import", "read-html",
        "raw-uncached-get", "raw-bookmark", "raw-list", "uncached-get-after-commit",
        "raw-uncached-get-after-commit", "uncached-get-1000", "raw-uncached-get-1000", "raw-set",
        "pg-set", "raw-pg-set", "pg-get", "raw-pg-get", "set-unwatched", "set-batch",
        "raw-set-batch", "set-spaced", "raw-set-spaced",
    ]

    /// The pause between two sets of `set-spaced`, in microseconds: longer than the file
    /// monitor's quiet period, so that each set is a burst of its own, as an app's writes on
    /// a user's taps are.
    static let spacedSetPause: UInt32 = 50_000

    /// Keys of the `-1000` gets, read in turn as `prefs-bench`'s uncached get reads them.
    static let cycledKeys = (0..<1_000).map { "key\($0)" }

    /// Bookmarks listed by one `list` operation: one category of 20 in a table of this many.
    static let listRows = 20_000

    /// The region callgrind counts (`--toggle-collect` on this function): the operations, without
    /// the set-up before them.
    /// The body is not its last call: a tail call would leave the counted function before
    /// the body runs, and callgrind would count nothing.
    ///
    /// It also prints, on standard error, the process's CPU (every thread) and the wall
    /// time of the region: what the operations cost the whole process, without the set-up.
    @inline(never)
    static func counted(_ body: () throws -> Void) rethrows {
        let cpu = processCPUSeconds()
        let wall = DispatchTime.now().uptimeNanoseconds
        try body()
        countedRegions.add(1, ordering: .relaxed)
        let spent = processCPUSeconds() - cpu
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - wall) / 1e9
        FileHandle.standardError.write(
            Data("counted region: process CPU \(spent) s, wall \(elapsed) s\n".utf8))
    }

    private static let countedRegions = Atomic<Int>(0)

    /// The CPU time of every thread of the process so far.
    private static func processCPUSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    static func run(_ kind: String, count: Int) throws {
        guard kinds.contains(kind) else {
            throw BenchmarkError(
                description: "unknown operation '\(kind)' (\(kinds.joined(separator: ", ")))")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "prefs-count-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        if kind.hasPrefix("pg-") || kind.hasPrefix("raw-pg-") {
            try runPostgreSQL(kind, count: count)
            return
        }
        var options = AppDatabase.Options()
        options.synchronous = .off  // count CPU work, not waiting for the disk
        if kind.hasPrefix("uncached-get") { options.cachesValues = false }
        // The same sets with no file monitor: what the monitor costs the process.
        if kind == "set-unwatched" { options.watchesForChanges = false }
        let path = folder.appendingPathComponent("count.sqlite").path
        let database = try AppDatabase(path: path, options: options)
        if kind.hasPrefix("raw-") {
            try runRaw(kind, count: count, path: path)
            return
        }
        let store = PreferenceStore(database: database)
        let key = Prefs.Key("launchCount", default: 0)
        try store.set(1, for: key)
        var sink = 0
        switch kind {
        case "get", "uncached-get":
            counted { for _ in 0..<count { sink &+= store[key] } }
        case "uncached-get-1000":
            let keys = cycledKeys.map { Prefs.Key($0, default: 0) }
            try store.transaction { edit in
                for (i, key) in keys.enumerated() { try edit.set(i, for: key) }
            }
            counted { for i in 0..<count { sink &+= store[keys[i % keys.count]] } }
        case "uncached-get-after-commit":
            // Another connection commits before each get (uncounted): the read starts with
            // SQLite's page cache emptied, as the first read after another process's write.
            let other = try otherWriter(path)
            defer { raw_close(other) }
            for i in 0..<count {
                _ = raw_set_int(other, "other", "tick", Int64(i), 0)
                counted { sink &+= store[key] }
            }
        case "wide-get":
            // Cached gets cycling through 100,000 keys: more than the CPU caches hold.
            let keys = (0..<100_000).map { Prefs.Key("key\($0)", default: 0) }
            try store.transaction { edit in
                for (i, key) in keys.enumerated() { try edit.set(i, for: key) }
            }
            for key in keys { sink &+= store[key] }
            counted { for i in 0..<count { sink &+= store[keys[i % keys.count]] } }
        case "set", "set-unwatched":
            try counted { for i in 0..<count { try store.set(i, for: key) } }
        case "set-spaced":
            try counted {
                for i in 0..<count {
                    try store.set(i, for: key)
                    usleep(spacedSetPause)
                }
            }
        case "set-batch":
            // As the timed row: `count` keys set in one transaction.
            let names = (0..<count).map { "key\($0)" }
            try counted {
                try store.transaction { edit in
                    for i in 0..<count { try edit.setValue(.int(i), forKey: names[i]) }
                }
            }
        case "bookmark":
            // As in the timed row: the app holds its drafts before it stores them.
            let drafts = (0..<count).map { i in
                BookmarkDraft(
                    kind: "movie", itemID: "m\(i)", title: "Movie m\(i)",
                    url: URL(string: "https://example.com/m\(i)"), category: "category\(i % 20)",
                    tags: ["featured", "watchlist"])
            }
            let bookmarks = BookmarkStore(database: database)
            try counted { try bookmarks.add(contentsOf: drafts) }
        case "import", "read-html":
            // A browser's file of `count` links in 20 folders, read before the count starts:
            // what storing an import costs per link, against raw C's insert.
            let bytes = Array(Workloads.bookmarkFile(links: count, prefix: "m").utf8)
            if kind == "read-html" {
                try counted {
                    sink += try NetscapeBookmarkFile.document(reading: bytes).links.count
                }
            } else {
                let document = try NetscapeBookmarkFile.document(reading: bytes)
                let bookmarks = BookmarkStore(database: database)
                try counted { sink += try bookmarks.importDocument(document).added }
            }
        case "list":
            try fill(path)
            let bookmarks = BookmarkStore(database: database)
            try counted {
                for _ in 0..<count {
                    sink += try bookmarks.list(BookmarkQuery(category: "category3")).count
                }
            }
        default:
            break
        }
        blackHole(sink)
    }

    /// A set or an uncached get on a PostgreSQL store named by `PREFS_COUNT_POSTGRES` (a
    /// connection string of a database this process may migrate), and raw libpq's floor:
    /// the client's instructions alone (the server is another process, not counted).
    private static func runPostgreSQL(_ kind: String, count: Int) throws {
        guard let target = ProcessInfo.processInfo.environment["PREFS_COUNT_POSTGRES"] else {
            throw BenchmarkError(description: "\(kind) needs PREFS_COUNT_POSTGRES")
        }
        // PREFS_COUNT_POOLER=transaction: the string names PgBouncer in transaction
        // pooling; PrefsKit runs as behind it, and the floor sends what is correct there.
        let isPooled = ProcessInfo.processInfo.environment["PREFS_COUNT_POOLER"] == "transaction"
        var options = PostgreSQLOptions()
        options.account = PostgresWorkloads.account
        options.cachesValues = kind.hasSuffix("set")
        options.isBehindTransactionPooler = isPooled
        let store = PreferenceStore(database: try AppDatabase.postgreSQL(target, options: options))
        let key = Prefs.Key("launchCount", default: 0)
        try store.set(1, for: key)
        let opened =
            isPooled
            ? raw_pg_open_pooled(target, PostgresWorkloads.account)
            : raw_pg_open(target, PostgresWorkloads.account)
        guard let raw = opened else {
            throw BenchmarkError(description: "raw_pg_open failed")
        }
        defer { raw_pg_close(raw) }
        let setFloor = isPooled ? raw_pg_set_int_pooled : raw_pg_set_int_floor
        let getFloor = isPooled ? raw_pg_get_int_pooled : raw_pg_get_int
        var sink = 0
        switch kind {
        case "pg-set":
            try counted { for i in 0..<count { try store.set(i, for: key) } }
        case "raw-pg-set":
            try counted {
                for i in 0..<count {
                    let now = Date().timeIntervalSinceReferenceDate
                    guard setFloor(raw, "standard", "raw", Int64(i), now) == 0 else {
                        throw BenchmarkError(description: "the set's floor failed")
                    }
                }
            }
        case "pg-get":
            counted { for _ in 0..<count { sink &+= store[key] } }
        default:
            guard setFloor(raw, "standard", "raw", 1, 0) == 0 else {
                throw BenchmarkError(description: "the set's floor failed")
            }
            var value: Int64 = 0
            counted {
                for _ in 0..<count {
                    sink &+= Int(getFloor(raw, "standard", "raw", &value)) + Int(value)
                }
            }
        }
        blackHole(sink)
    }

    private static func fill(_ path: String) throws {
        guard let filler = raw_open(path, 0) else {
            throw BenchmarkError(description: "raw_open failed")
        }
        defer { raw_close(filler) }
        let code = raw_insert_bookmarks(filler, "m", Int32(listRows), 20, 0)
        guard code == 0 else { throw BenchmarkError(description: "filling: \(code)") }
    }

    /// A second connection to the file, for the commits between counted reads.
    private static func otherWriter(_ path: String) throws -> OpaquePointer {
        guard let other = raw_open(path, 0) else {
            throw BenchmarkError(description: "raw_open failed")
        }
        return other
    }

    private static func runRaw(_ kind: String, count: Int, path: String) throws {
        if kind == "raw-list" { try fill(path) }
        guard let raw = raw_open(path, 0) else {
            throw BenchmarkError(description: "raw_open failed")
        }
        defer { raw_close(raw) }
        var sink = 0
        switch kind {
        case "raw-uncached-get":
            guard raw_set_int(raw, "standard", "launchCount", 1, 0) == 0 else {
                throw BenchmarkError(description: "raw_set_int failed")
            }
            var value: Int64 = 0
            counted {
                for _ in 0..<count {
                    _ = raw_get_int(raw, "standard", "launchCount", &value)
                    sink &+= Int(value)
                }
            }
        case "raw-set-spaced":
            counted {
                for i in 0..<count {
                    guard raw_set_int(raw, "standard", "launchCount", Int64(i), 0) == 0 else {
                        return
                    }
                    usleep(spacedSetPause)
                }
            }
        case "raw-set":
            // As `set`: one key, its own commit each time.
            counted {
                for i in 0..<count {
                    guard raw_set_int(raw, "standard", "launchCount", Int64(i), 0) == 0 else {
                        return
                    }
                }
            }
        case "raw-uncached-get-1000":
            guard raw_set_batch(raw, "standard", Int32(cycledKeys.count), 0, 0) == 0 else {
                throw BenchmarkError(description: "raw_set_batch failed")
            }
            let names = cycledKeys.map { strdup($0) }
            defer { for name in names { free(name) } }
            var value: Int64 = 0
            counted {
                for i in 0..<count {
                    _ = raw_get_int(raw, "standard", names[i % names.count], &value)
                    sink &+= Int(value)
                }
            }
        case "raw-uncached-get-after-commit":
            guard raw_set_int(raw, "standard", "launchCount", 1, 0) == 0 else {
                throw BenchmarkError(description: "raw_set_int failed")
            }
            let other = try otherWriter(path)
            defer { raw_close(other) }
            var value: Int64 = 0
            for i in 0..<count {
                _ = raw_set_int(other, "other", "tick", Int64(i), 0)
                counted {
                    _ = raw_get_int(raw, "standard", "launchCount", &value)
                    sink &+= Int(value)
                }
            }
        case "raw-set-batch":
            var code: Int32 = 0
            counted {
                code = raw_set_batch(
                    raw, "standard", Int32(count), 0, Date().timeIntervalSinceReferenceDate)
            }
            guard code == 0 else { throw BenchmarkError(description: "raw_set_batch: \(code)") }
        case "raw-bookmark":
            let rows = BookmarkRows(prefix: "m", count: count)
            var code: Int32 = 0
            counted { code = rows.insert(into: raw, count: count) }
            guard code == 0 else {
                throw BenchmarkError(description: "raw_insert_bookmarks: \(code)")
            }
        case "raw-list":
            counted { for _ in 0..<count { sink += Int(raw_list_category(raw, "category3")) } }
        default:
            break
        }
        blackHole(sink)
    }
}
