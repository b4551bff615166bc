import Foundation
import PrefsKit

/// Runs exactly N operations of one kind and nothing else, so that callgrind runs with two
/// values of N give the instructions of one operation by difference.
enum OperationCounter {
    static func run(_ kind: String, count: Int) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("prefs-count-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var options = AppDatabase.Options()
        options.synchronous = .off  // count CPU work, not waiting for the disk
        if kind == "uncached-get" { options.cachesValues = false }
        let database = try AppDatabase(path: folder.appendingPathComponent("count.sqlite").path, options: options)
        let store = PreferenceStore(database: database)
        let key = PreferenceKey("launchCount", default: 0)
        try store.set(1, for: key)
        var sink = 0
        switch kind {
        case "get", "uncached-get":
            for _ in 0..<count { sink &+= store[key] }
        case "wide-get":
            // Cached gets cycling through 100,000 keys: more than the CPU caches hold.
            let keys = (0..<100_000).map { PreferenceKey("key\($0)", default: 0) }
            try store.transaction { edit in for (i, key) in keys.enumerated() { try edit.set(i, for: key) } }
            for key in keys { sink &+= store[key] }
            for i in 0..<count { sink &+= store[keys[i % keys.count]] }
        case "set":
            for i in 0..<count { try store.set(i, for: key) }
        case "bookmark":
            let bookmarks = BookmarkStore(database: database)
            try bookmarks.add(contentsOf: (0..<count).lazy.map { i in
                BookmarkDraft(
                    kind: "movie", itemID: "m\(i)", title: "Movie m\(i)",
                    url: URL(string: "https://example.com/m\(i)"), category: "category\(i % 20)",
                    tags: ["featured", "watchlist"])
            })
        case "list":
            let bookmarks = BookmarkStore(database: database)
            try bookmarks.add(contentsOf: (0..<20_000).lazy.map { i in
                BookmarkDraft(
                    kind: "movie", itemID: "m\(i)", title: "Movie m\(i)",
                    url: URL(string: "https://example.com/m\(i)"), category: "category\(i % 20)",
                    tags: ["featured", "watchlist"])
            })
            for _ in 0..<count { sink += try bookmarks.list(BookmarkQuery(category: "category3")).count }
        default:
            throw BenchmarkError(description: "unknown operation '\(kind)' (get, wide-get, uncached-get, set, bookmark, list)")
        }
        blackHole(sink)
    }
}
