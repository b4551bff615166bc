import CCrashVFS
import Foundation
import SQLiteCore
import TestSupport
import Testing

@testable import PrefsCommandLine
@testable import PrefsKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Power cuts and I/O errors, simulated by the `crashsim` VFS (`Tests/CrashVFS`): writes
/// reach the files, but a cut puts back everything not yet synced (dropped, or torn block by
/// block with garbage), and a file whose folder was never synced disappears. After each cut
/// the file is opened the normal way and checked: integrity, the search index, every write
/// whose call returned, no half transaction. The seed of a failing trial is printed.
@Suite(.serialized) struct PowerLossTests {
    let folder: TemporaryFolder
    /// A database with the schema and the carousel defined, copied for each trial.
    let template: String
    /// The carousel's index in the template, where every trial starts.
    let templateSelection: Int?

    init() throws {
        #expect(crashvfs_register() == sqliteOK)
        folder = try TemporaryFolder()
        template = folder.path("template.sqlite")
        let database = try AppDatabase(path: template)
        templateSelection = try SelectionStore(database: database).define(
            "carousel", count: 10, policy: .clamp
        ).index
    }

    static let fullCuts = Reliability.isLong ? 10_000 : 400
    static let normalCuts = Reliability.isLong ? 2_000 : 100
    static let firstStartCuts = Reliability.isLong ? 2_000 : 100
    static let steps = 24

    /// The VFS itself: a commit that was not synced (synchronous=OFF) is gone after a cut,
    /// a synced one stays; a file created in a folder never synced disappears.
    @Test func theSimulatedCutDropsWhatWasNotSyncedAndKeepsWhatWas() throws {
        for (synchronous, survives) in [("OFF", false), ("FULL", true)] {
            let path = folder.path("self-\(synchronous).sqlite")
            try FileManager.default.copyItem(atPath: template, toPath: path)
            crashvfs_reset(9)
            do {
                let connection = try Connection(path: path, mode: .readWrite, vfs: "crashsim")
                try connection.execute(sql: "PRAGMA synchronous = \(synchronous)")
                try connection.execute(
                    sql:
                        "INSERT INTO preference (suite, key, type, value, updated_at) VALUES ('s', 'k', 'int', 1, 0)"
                )
                crashvfs_power_cut(0)
            }
            let connection = try Connection(path: path, mode: .readOnly)
            let rows =
                try connection.scalar(
                    Int.self, sql: "SELECT count(*) FROM preference WHERE suite = 's'") ?? -1
            #expect(rows == (survives ? 1 : 0), "synchronous=\(synchronous)")
        }
        let created = folder.path("self-new.sqlite")
        crashvfs_reset(9)
        close(open(created, O_CREAT | O_EXCL | O_WRONLY, 0o600))
        crashvfs_mark_new(created)
        crashvfs_power_cut(0)
        #expect(!FileManager.default.fileExists(atPath: created))
    }

    // MARK: - The write loop

    /// What the loop confirmed (calls that returned) and the call that failed, if any.
    struct Ledger {
        var values: [String: Int] = [:]
        var transaction: Int? = nil
        var bookmarks: Set<String> = []
        var selection: Int? = nil
        var pending: Int? = nil
        var confirmedCalls = 0
        var failures: [Error] = []
        /// Calls that threw, the checkpoints included.
        var reported = 0
    }

    /// Step i of the loop: a set, a five-key transaction, a bookmark with tags, a selection;
    /// every eighth step another connection checkpoints the WAL and truncates it, as another
    /// process may.
    static func run(
        step i: Int, database: AppDatabase, checkpointer: Connection?, ledger: inout Ledger
    ) {
        if i % 8 == 7, let checkpointer {
            do {
                _ = try checkpointer.rows(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            } catch {
                ledger.reported += 1  // not a write of the ledger: nothing to undo
            }
        }
        let preferences = PreferenceStore(database: database)
        do {
            switch i % 4 {
            case 0:
                try preferences.setValue(.int(i), forKey: "k\(i % 5)")
                ledger.values["k\(i % 5)"] = i
            case 1:
                try preferences.transaction { edit in
                    for key in 0..<5 { try edit.setValue(.int(i), forKey: "t\(key)") }
                }
                ledger.transaction = i
            case 2:
                try BookmarkStore(database: database).add(
                    BookmarkDraft(
                        kind: "trip", itemID: "b\(i)", title: "Trip \(i)",
                        url: URL(string: "https://example.com/\(i)"),
                        category: "c\(i % 3)", tags: ["t\(i % 4)", "all"], note: "note \(i)"))
                ledger.bookmarks.insert("b\(i)")
            default:
                _ = try SelectionStore(database: database).select(i % 10, in: "carousel")
                ledger.selection = i % 10
            }
            ledger.confirmedCalls += 1
        } catch {
            if ledger.pending == nil { ledger.pending = i }
            ledger.failures.append(error)
            ledger.reported += 1
        }
    }

    /// What a reopened file shows against the ledger.
    struct Check {
        var problems: [String] = []
        var lost = 0
    }

    static func check(_ path: String, against ledger: Ledger, allowsLoss: Bool) throws -> Check {
        var result = Check()
        let database = try AppDatabase(path: path)
        let diagnostics = try database.diagnostics()
        if diagnostics.integrityProblems != ["ok"] {
            result.problems.append("integrity: \(diagnostics.integrityProblems)")
        }
        if diagnostics.searchIndexMismatchCount != 0 {
            result.problems.append("search index off by \(diagnostics.searchIndexMismatchCount)")
        }
        let preferences = PreferenceStore(database: database)
        func stored(_ key: String) throws -> Int? {
            if case .int(let value) = try preferences.storedValue(forKey: key) { return value }
            return nil
        }
        let pending = ledger.pending
        for key in 0..<5 {
            let value = try stored("k\(key)")
            let expected = ledger.values["k\(key)"]
            let mayBePending = pending.map { $0 % 4 == 0 && $0 % 5 == key } ?? false
            if value != expected && !(mayBePending && value == pending) {
                if allowsLoss {
                    result.lost += 1
                } else {
                    result.problems.append(
                        "k\(key) = \(value.map(String.init) ?? "nil"), confirmed \(expected.map(String.init) ?? "nil")"
                    )
                }
            }
        }
        let transaction = try (0..<5).map { try stored("t\($0)") }
        if Set(transaction).count != 1 {
            result.problems.append("half a transaction: \(transaction)")
        }
        if transaction[0] != ledger.transaction
            && !(pending.map { $0 % 4 == 1 } == true && transaction[0] == pending)
        {
            if allowsLoss {
                result.lost += 1
            } else {
                result.problems.append(
                    "transaction \(transaction[0].map(String.init) ?? "nil"), confirmed \(ledger.transaction.map(String.init) ?? "nil")"
                )
            }
        }
        let present = Set(
            try BookmarkStore(database: database).list(BookmarkQuery(kind: "trip")).map(\.itemID))
        let missing = ledger.bookmarks.subtracting(present)
        if !missing.isEmpty {
            if allowsLoss {
                result.lost += missing.count
            } else {
                result.problems.append("bookmarks lost: \(missing.sorted())")
            }
        }
        let extra = present.subtracting(ledger.bookmarks).subtracting(
            pending.map { ["b\($0)"] } ?? [])
        if !extra.isEmpty && !allowsLoss {
            result.problems.append("bookmarks never written: \(extra.sorted())")
        }
        let selection = try SelectionStore(database: database).selection(named: "carousel")?.index
        let pendingSelection = pending.flatMap { $0 % 4 == 3 ? $0 % 10 : nil }
        if selection != ledger.selection
            && !(pendingSelection != nil && selection == pendingSelection)
        {
            if allowsLoss {
                result.lost += 1
            } else {
                result.problems.append(
                    "selection \(selection.map(String.init) ?? "nil"), confirmed \(ledger.selection.map(String.init) ?? "nil")"
                )
            }
        }
        return result
    }

    /// One trial: a fresh copy, the loop through the VFS until the cut, then the check.
    func trial(seed: UInt64, cutAt: Int64, torn: Bool, synchronous: AppDatabase.Synchronous) throws
        -> (check: Check, ledger: Ledger)
    {
        let path = folder.path("trial-\(seed).sqlite")
        try FileManager.default.copyItem(atPath: template, toPath: path)
        defer { for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) } }
        crashvfs_reset(seed)
        crashvfs_arm_power_cut(cutAt, torn ? 1 : 0)
        var ledger = Ledger(selection: templateSelection)
        do {
            var options = AppDatabase.Options()
            options.synchronous = synchronous
            let database = try SQLiteEngine.withVFS(named: "crashsim") {
                try AppDatabase(path: path, options: options)
            }
            let checkpointer = try? Connection(path: path, mode: .readWrite, vfs: "crashsim")
            for step in 0..<Self.steps where ledger.pending == nil {
                Self.run(
                    step: step, database: database, checkpointer: checkpointer, ledger: &ledger)
            }
            // The power goes now if it has not yet: before the database closes (and checkpoints).
            crashvfs_power_cut(torn ? 1 : 0)
        } catch {
            crashvfs_power_cut(torn ? 1 : 0)
        }
        return (try Self.check(path, against: ledger, allowsLoss: synchronous != .full), ledger)
    }

    /// VFS operations of a whole loop with no cut, to pick cut points among.
    func operationsOfALoop(synchronous: AppDatabase.Synchronous) throws -> Int64 {
        let (_, _) = try trial(seed: 0, cutAt: 0, torn: false, synchronous: synchronous)
        return crashvfs_operations()
    }

    @Test func powerCutsDuringWritesLoseNothingConfirmedWithSynchronousFull() throws {
        let operations = try operationsOfALoop(synchronous: .full)
        #expect(operations > 20)
        var generator = SeededRandom(seed: 1)
        var confirmed = 0
        var failed = 0
        for trialNumber in 1...Self.fullCuts {
            let seed = UInt64(trialNumber)
            // The first operations each get a cut of their own; then cuts fall at random.
            let cut =
                trialNumber <= 20
                ? Int64(trialNumber) : Int64.random(in: 1...operations, using: &generator)
            let torn = trialNumber % 2 == 0
            let (check, ledger) = try trial(seed: seed, cutAt: cut, torn: torn, synchronous: .full)
            confirmed += ledger.confirmedCalls
            if !check.problems.isEmpty {
                failed += 1
                Issue.record(
                    "seed \(seed), cut at operation \(cut) of \(operations), \(torn ? "torn" : "dropped"): \(check.problems)"
                )
                if failed > 5 { break }
            }
        }
        Reliability.report(
            "power cut, synchronous=FULL: \(Self.fullCuts) cuts, \(confirmed) confirmed writes, \(failed) trials with a write lost or a file damaged"
        )
        #expect(failed == 0)
    }

    @Test func powerCutsWithSynchronousNormalMayLoseTheLastWritesButNeverCorrupt() throws {
        let operations = try operationsOfALoop(synchronous: .normal)
        var generator = SeededRandom(seed: 2)
        var confirmed = 0
        var lost = 0
        var damaged = 0
        for trialNumber in 1...Self.normalCuts {
            let seed = UInt64(100_000 + trialNumber)
            let cut = Int64.random(in: 1...max(1, operations), using: &generator)
            let (check, ledger) = try trial(
                seed: seed, cutAt: cut, torn: trialNumber % 2 == 0, synchronous: .normal)
            confirmed += ledger.confirmedCalls
            lost += check.lost
            if !check.problems.isEmpty {
                damaged += 1
                Issue.record("seed \(seed), cut at operation \(cut): \(check.problems)")
                if damaged > 5 { break }
            }
        }
        Reliability.report(
            "power cut, synchronous=NORMAL: \(Self.normalCuts) cuts, \(confirmed) confirmed writes, \(lost) lost, \(damaged) damaged files"
        )
        #expect(damaged == 0)
    }

    // MARK: - First start

    @Test func powerCutsDuringTheFirstStartLeaveNothingOrAValidFile() throws {
        // Operations of a whole first start (the file made, every migration run).
        func firstStart(_ path: String) throws {
            _ = try SQLiteEngine.withVFS(named: "crashsim") { try AppDatabase(path: path) }
        }
        let probe = folder.path("probe.sqlite")
        crashvfs_reset(0)
        try firstStart(probe)
        let operations = crashvfs_operations()
        #expect(operations > 5)
        var generator = SeededRandom(seed: 3)
        var outcomes: [String: Int] = [:]
        var failed = 0
        for trialNumber in 1...Self.firstStartCuts {
            let seed = UInt64(200_000 + trialNumber)
            let path = folder.path("first-\(seed).sqlite")
            defer { for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) } }
            crashvfs_reset(seed)
            // As AppDatabase does: an empty file made with open(2), not yet in a synced folder.
            close(open(path, O_CREAT | O_EXCL | O_WRONLY, 0o600))
            crashvfs_mark_new(path)
            let cut =
                trialNumber <= 10
                ? Int64(trialNumber) : Int64.random(in: 1...operations, using: &generator)
            crashvfs_arm_power_cut(cut, trialNumber % 2 == 0 ? 1 : 0)
            try? firstStart(path)
            crashvfs_power_cut(trialNumber % 2 == 0 ? 1 : 0)
            var outcome: String
            if !FileManager.default.fileExists(atPath: path) {
                outcome = "absent"
            } else if (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) == 0
                && !FileManager.default.fileExists(atPath: path + "-wal")
            {
                outcome = "empty"
            } else {
                do {
                    let connection = try Connection(path: path, mode: .readWrite)
                    let integrity = try connection.rows(sql: "PRAGMA integrity_check").compactMap {
                        $0.get(0, as: String.self)
                    }
                    let version = try connection.scalar(Int.self, sql: "PRAGMA user_version") ?? -1
                    outcome = integrity == ["ok"] ? "version \(version)" : "damaged: \(integrity)"
                } catch {
                    outcome = "damaged: \(error)"
                }
            }
            outcomes[outcome.hasPrefix("damaged") ? "damaged" : outcome, default: 0] += 1
            // The next start finishes the job.
            do {
                let store = PreferenceStore(database: try AppDatabase(path: path))
                try store.set(true, for: Prefs.Key("hasViewedWalkthrough", default: false))
                #expect(store[Prefs.Key("hasViewedWalkthrough", default: false)] == true)
                #expect(try store.database.diagnostics().schemaVersion == AppDatabase.schemaVersion)
            } catch {
                outcome = "damaged: next start failed: \(error)"
            }
            if outcome.hasPrefix("damaged") {
                failed += 1
                Issue.record("seed \(seed), cut at operation \(cut) of \(operations): \(outcome)")
                if failed > 5 { break }
            }
        }
        let summary = outcomes.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(
            separator: ", ")
        Reliability.report(
            "power cut during first start: \(Self.firstStartCuts) cuts, \(operations) operations in a start; \(summary)"
        )
        #expect(failed == 0)
    }

    // MARK: - I/O errors

    @Test(
        arguments: [(Int32(0), EIO), (0, ENOSPC), (1, EIO), (1, ENOSPC), (2, EIO)]
            as [(Int32, Int32)])
    func anIOErrorIsReportedAndLosesNoConfirmedWrite(kind: Int32, error: Int32) throws {
        // Operations of this kind in a loop, to pick which one fails.
        _ = try trial(seed: 0, cutAt: 0, torn: false, synchronous: .full)
        let ofKind = crashvfs_operations_of_kind(kind)
        #expect(ofKind > 0, "the loop does no operation of kind \(kind)")
        var generator = SeededRandom(seed: UInt64(10 * kind + error))
        let trials = Reliability.isLong ? 200 : 20
        var injected = 0
        var reported = 0
        for trialNumber in 1...trials {
            let seed = UInt64(300_000 + 1_000 * Int(kind) + trialNumber)
            let path = folder.path("error-\(seed).sqlite")
            try FileManager.default.copyItem(atPath: template, toPath: path)
            defer { for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) } }
            crashvfs_reset(seed)
            // The first trials fail the first operations of the kind, the rest one at random.
            let failing =
                trialNumber <= 3
                ? Int64(trialNumber) : Int64.random(in: 1...max(1, ofKind), using: &generator)
            crashvfs_arm_error(failing, kind, error)
            var ledger = Ledger(selection: templateSelection)
            do {
                let database = try SQLiteEngine.withVFS(named: "crashsim") {
                    try AppDatabase(path: path)
                }
                let checkpointer = try? Connection(path: path, mode: .readWrite, vfs: "crashsim")
                // The loop goes on after a failure: the error must not poison later writes.
                for step in 0..<Self.steps {
                    let before = ledger.failures.count
                    Self.run(
                        step: step, database: database, checkpointer: checkpointer, ledger: &ledger)
                    if ledger.failures.count > before, let failure = ledger.failures.last {
                        #expect(failure is DatabaseError, "seed \(seed): \(failure)")
                    }
                }
                crashvfs_power_cut(0)
            } catch {
                // Opening failed: reported too.
                ledger.reported += 1
                crashvfs_power_cut(0)
            }
            injected += Int(crashvfs_errors())
            if crashvfs_errors() > 0 {
                #expect(ledger.reported > 0, "seed \(seed): an injected error was not reported")
                if ledger.reported > 0 { reported += 1 }
            }
            // Every confirmed write is there; a failed one may be there too (SQLite can find
            // a WAL commit whose sync failed), but only whole.
            let check = try Self.check(path, against: ledger, allowsLoss: false)
            #expect(check.problems.isEmpty, "seed \(seed): \(check.problems)")
        }
        Reliability.report(
            "I/O error (\(["write", "fsync", "ftruncate"][Int(kind)]), \(error == EIO ? "EIO" : "ENOSPC")): \(trials) trials, \(injected) errors injected, \(reported) reported"
        )
    }

    @Test func theCommandLineExits74OnAnIOErrorAndKeepsWhatWasThere() throws {
        let path = folder.path("cli.sqlite")
        try FileManager.default.copyItem(atPath: template, toPath: path)
        try PreferenceStore(database: try AppDatabase(path: path)).setValue(
            .int(1), forKey: "volume")
        for (kind, error) in [(Int32(0), EIO), (0, ENOSPC), (1, EIO)] {
            crashvfs_reset(7)
            crashvfs_arm_error(1, kind, error)
            let status = silenced {
                SQLiteEngine.withVFS(named: "crashsim") {
                    PrefsCommand.run(["--db", path, "set", "volume", "2", "--type", "int"])
                }
            }
            #expect(status == 74, "kind \(kind), error \(error)")
            #expect(crashvfs_errors() == 1)
            crashvfs_power_cut(0)
            let value = try PreferenceStore(database: try AppDatabase(path: path)).storedValue(
                forKey: "volume")
            #expect(value == .int(1), "kind \(kind), error \(error): \(String(describing: value))")
        }
    }

    /// Runs a closure with standard output and error sent to /dev/null.
    private func silenced<T>(_ body: () -> T) -> T {
        fflush(nil)
        let savedOut = dup(1)
        let savedError = dup(2)
        let null = open("/dev/null", O_WRONLY)
        dup2(null, 1)
        dup2(null, 2)
        defer {
            fflush(nil)
            dup2(savedOut, 1)
            dup2(savedError, 2)
            close(savedOut)
            close(savedError)
            close(null)
        }
        return body()
    }
}

private let sqliteOK: Int32 = 0

/// A generator with a seed, so that a failing trial can be run again.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }
    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}
