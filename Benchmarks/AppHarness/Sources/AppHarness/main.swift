// The second harness: PrefsKit as an app links it (a package of its own, depending on prefs
// by path), with default options and an observer on the key as a view would have, next to
// the raw C baseline (the statements and pragmas prefs-bench's raw C side runs). Rounds
// alternate the two sides; each prints its median per operation and the ratio.
//
//   Benchmarks/app-harness [rounds]
import CRawSQLite
import Foundation
import PrefsKit

let rounds = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 15
let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
    "prefs-app-harness-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Median nanoseconds per operation of each side over alternating rounds.
func compare(
    _ name: String, iterations: Int, prefs: (Int) throws -> Void, raw: (Int) throws -> Void
) throws {
    var prefsTimes: [Double] = []
    var rawTimes: [Double] = []
    try prefs(iterations / 10)  // warm-up, not counted
    try raw(iterations / 10)
    for round in 0..<rounds {
        let order = round % 2 == 0
        for side in order ? [0, 1] : [1, 0] {
            let start = now()
            try side == 0 ? prefs(iterations) : raw(iterations)
            let per = Double(now() - start) / Double(iterations)
            if side == 0 { prefsTimes.append(per) } else { rawTimes.append(per) }
        }
    }
    let median = { (times: [Double]) in times.sorted()[times.count / 2] }
    let (p, r) = (median(prefsTimes), median(rawTimes))
    func text(_ ns: Double) -> String {
        ns >= 1_000 ? String(format: "%.2f us", ns / 1_000) : String(format: "%.0f ns", ns)
    }
    print(
        "\(name): PrefsKit \(text(p)), raw C \(text(r)), "
            + String(format: "%.2fx", p / r))
}

/// A file made by PrefsKit (its schema), opened by the raw C side.
func rawFile(_ name: String) throws -> OpaquePointer {
    let path = folder.appendingPathComponent(name).path
    _ = try AppDatabase(path: path)
    guard let raw = raw_open(path, 2) else { throw CocoaError(.fileReadUnknown) }
    return raw
}

// MARK: - A set with its own commit, as an app makes it: default options, observed.

let database = try AppDatabase(path: folder.appendingPathComponent("app.sqlite").path)
let store = PreferenceStore(database: database)
let keys = (0..<10).map { Prefs.Key("key\($0)", default: 0) }
for key in keys { try store.set(0, for: key) }
// A view observing the first key: the database watches its files from here on.
let observer = Task.detached {
    var seen = 0
    for await value in store.values(for: keys[0]) { seen &+= value }
    return seen
}
let settings = try database.connectionSettings()
let raw = try rawFile("raw.sqlite")
defer { raw_close(raw) }
var rawSettings: [String] = []
for (name, _) in settings {
    var buffer = [CChar](repeating: 0, count: 256)
    _ = raw_pragma(raw, name, &buffer, Int32(buffer.count))
    rawSettings.append("\(name)=\(String(cString: buffer))")
}
print("PrefsKit: " + settings.map { "\($0.name)=\($0.value)" }.joined(separator: ", "))
print("raw C:    " + rawSettings.joined(separator: ", "))
print("change detection: \(database.changeDetection())")

let names = (0..<keys.count).map { strdup("key\($0)") }
defer { for name in names { free(name) } }
var value = 0
try compare(
    "set, own commit (default options, observed)", iterations: 100,
    prefs: { n in
        for i in 0..<n {
            value += 1
            try store.set(value, for: keys[i % keys.count])
        }
    },
    raw: { n in
        for i in 0..<n {
            value += 1
            _ = raw_set_int(
                raw, "standard", names[i % names.count], Int64(value),
                Date().timeIntervalSinceReferenceDate)
        }
    })
observer.cancel()

// MARK: - An uncached get: the store's value cache off (a public option), keys in turn.

var uncachedOptions = AppDatabase.Options()
uncachedOptions.cachesValues = false
let uncachedDatabase = try AppDatabase(
    path: folder.appendingPathComponent("uncached.sqlite").path, options: uncachedOptions)
let uncached = PreferenceStore(database: uncachedDatabase)
try uncached.transaction { edit in for key in keys { try edit.set(1, for: key) } }
let rawGet = try rawFile("raw-get.sqlite")
defer { raw_close(rawGet) }
_ = raw_set_batch(rawGet, "standard", Int32(keys.count), 0, Date().timeIntervalSinceReferenceDate)
var sink = 0
try compare(
    "get, uncached (10 keys)", iterations: 100_000,
    prefs: { n in for i in 0..<n { sink &+= uncached[keys[i % keys.count]] } },
    raw: { n in
        var read: Int64 = 0
        for i in 0..<n {
            _ = raw_get_int(rawGet, "standard", names[i % names.count], &read)
            sink &+= Int(read)
        }
    })

// What could tell this harness's uncached get from another's: the order of the keys (a
// random order defeats the CPU's caches and branch predictors of the B-tree walk), and the
// file monitor (an observer makes the database watch its files).
var order = Array(0..<keys.count)
var generator = SystemRandomNumberGenerator()
let randomOrder = (0..<1_024).map { _ in Int.random(in: 0..<keys.count, using: &generator) }
order = randomOrder
try compare(
    "get, uncached (10 keys, random order)", iterations: 100_000,
    prefs: { n in for i in 0..<n { sink &+= uncached[keys[order[i & 1023]]] } },
    raw: { n in
        var read: Int64 = 0
        for i in 0..<n {
            _ = raw_get_int(rawGet, "standard", names[order[i & 1023]], &read)
            sink &+= Int(read)
        }
    })
let watcher = Task.detached {
    var seen = 0
    for await value in uncached.values(for: keys[0]) { seen &+= value }
    return seen
}
try compare(
    "get, uncached (10 keys, watched)", iterations: 100_000,
    prefs: { n in for i in 0..<n { sink &+= uncached[keys[i % keys.count]] } },
    raw: { n in
        var read: Int64 = 0
        for i in 0..<n {
            _ = raw_get_int(rawGet, "standard", names[i % names.count], &read)
            sink &+= Int(read)
        }
    })
watcher.cancel()

// Cache state. Each get timed alone, with what comes between untimed: first the CPU's caches
// evicted (a 16 MB buffer written), as for an app that reads a preference now and then;
// then SQLite's page cache dropped, by another connection's commit to the file before each
// read (every read transaction after a commit starts with an empty page cache).
func compareTimedAlone(
    _ name: String, iterations: Int, between: (_ iteration: Int, _ isPrefs: Bool) -> Void,
    prefs: (Int) -> Void,
    raw: (Int) -> Void
) throws {
    var prefsTimes: [Double] = []
    var rawTimes: [Double] = []
    for round in 0..<rounds {
        for side in round % 2 == 0 ? [0, 1] : [1, 0] {
            var spent: UInt64 = 0
            for i in 0..<iterations {
                between(i, side == 0)
                let start = now()
                side == 0 ? prefs(i) : raw(i)
                spent += now() - start
            }
            let per = Double(spent) / Double(iterations)
            if side == 0 { prefsTimes.append(per) } else { rawTimes.append(per) }
        }
    }
    let median = { (times: [Double]) in times.sorted()[times.count / 2] }
    let (p, r) = (median(prefsTimes), median(rawTimes))
    print(
        "\(name): PrefsKit \(String(format: "%.2f us", p / 1_000)), raw C "
            + "\(String(format: "%.2f us", r / 1_000)), \(String(format: "%.2fx", p / r))")
}
var eviction = [UInt8](repeating: 0, count: 16 << 20)
@MainActor func evictCPUCaches(_ round: Int) {
    eviction.withUnsafeMutableBufferPointer { buffer in
        for i in stride(from: 0, to: buffer.count, by: 64) {
            buffer[i] &+= UInt8(truncatingIfNeeded: round)
        }
    }
}
try compareTimedAlone(
    "get, uncached (10 keys, CPU caches evicted before each)", iterations: 2_000,
    between: { round, _ in evictCPUCaches(round) },
    prefs: { i in sink &+= uncached[keys[i % keys.count]] },
    raw: { i in
        var read: Int64 = 0
        _ = raw_get_int(rawGet, "standard", names[i % names.count], &read)
        sink &+= Int(read)
    })
// Three times: on the database observed above, on one nobody ever observed (it watches its
// files from its first store on, as an app's does, for Swift's Observation), and on one
// with watchesForChanges off: a database that watches takes up each commit on its monitor
// thread as it comes.
let unobservedDatabase = try AppDatabase(
    path: folder.appendingPathComponent("unobserved.sqlite").path, options: uncachedOptions)
var unwatchedOptions = uncachedOptions
unwatchedOptions.watchesForChanges = false
let unwatched = PreferenceStore(
    database: try AppDatabase(
        path: folder.appendingPathComponent("unwatched.sqlite").path, options: unwatchedOptions))
try unwatched.transaction { edit in for key in keys { try edit.set(1, for: key) } }
let unobserved = PreferenceStore(database: unobservedDatabase)
try unobserved.transaction { edit in for key in keys { try edit.set(1, for: key) } }
for (label, store, file) in [
    ("watched before", uncached, "uncached.sqlite"),
    ("never observed", unobserved, "unobserved.sqlite"),
    ("watchesForChanges off", unwatched, "unwatched.sqlite"),
] {
    let otherWriter = raw_open(folder.appendingPathComponent(file).path, 2)
    let otherRawWriter = raw_open(folder.appendingPathComponent("raw-get.sqlite").path, 2)
    defer {
        raw_close(otherWriter)
        raw_close(otherRawWriter)
    }
    try compareTimedAlone(
        "get, uncached (10 keys, another connection's commit before each, \(label))",
        iterations: 2_000,
        between: { i, isPrefs in
            // Both files get a commit; the file about to be read gets it last, so that
            // neither side reads right after a write to the other's file.
            let when = Date().timeIntervalSinceReferenceDate
            let (first, last) =
                isPrefs ? (otherRawWriter, otherWriter) : (otherWriter, otherRawWriter)
            _ = raw_set_int(first, "other", "tick", Int64(i), when)
            _ = raw_set_int(last, "other", "tick", Int64(i), when)
        },
        prefs: { i in sink &+= store[keys[i % keys.count]] },
        raw: { i in
            var read: Int64 = 0
            _ = raw_get_int(rawGet, "standard", names[i % names.count], &read)
            sink &+= Int(read)
        })
}
if sink == 42 { print("") }
