import Foundation
import PrefsTestSupport
import Synchronization
import TestSupport
import Testing

@testable import PrefsKit

/// The file monitor's looks: one thread serves every database of the process, so a look
/// never waits for a database's lock, and events that a write of this process came after
/// need no look at all.
@Suite struct FileMonitorTests {
    @Test func aLookNeverWaitsForALockThisProcessHolds() throws {
        let folder = try TemporaryFolder()
        let database = try AppDatabase(path: folder.path("prefs.sqlite"))
        try PreferenceStore(database: database).setValue(.int(0), forKey: "warm")
        let held = DispatchSemaphore(value: 0)
        let holding = Thread {
            try? database.read { _ in
                held.signal()
                usleep(1_000_000)
            }
        }
        holding.start()
        held.wait()
        let started = Date()
        let outcome = database.changeCheck.fileEventCheck(eventsRead: FileChangeMonitor.now())
        let waited = Date().timeIntervalSince(started)
        #expect(outcome == .busy)
        #expect(waited < 0.1, "the look waited \(waited) s for the lock")
        while holding.isExecuting { usleep(10_000) }
        #expect(
            database.changeCheck.fileEventCheck(eventsRead: FileChangeMonitor.now()) == .looked)
    }

    @Test func eventsAWriteOfThisProcessCameAfterNeedNoLook() throws {
        let folder = try TemporaryFolder()
        let database = try AppDatabase(path: folder.path("prefs.sqlite"))
        let store = PreferenceStore(database: database)
        try store.setValue(.int(0), forKey: "warm")
        let eventsRead = FileChangeMonitor.now()
        #expect(database.changeCheck.fileEventCheck(eventsRead: eventsRead) == .looked)
        try store.setValue(.int(1), forKey: "warm")
        #expect(database.changeCheck.fileEventCheck(eventsRead: eventsRead) == .covered)
        // Events read after that write are looked at: they may be another process's.
        #expect(
            database.changeCheck.fileEventCheck(eventsRead: FileChangeMonitor.now()) == .looked)
    }
}

/// A process's own commits wake nothing: while it writes, and for a moment after, the folder
/// of its only database is not watched for writes, and another connection's commit in that
/// moment is still found.
@Suite struct QuietFolderTests {
    private func subscription(_ database: AppDatabase) -> FileChangeMonitor.Subscription? {
        database.state.withLock { $0.changeDetection.fileSubscription }
    }

    /// A store that watches its file, and another connection to the file that does not: its
    /// commits are another connection's, and it leaves the folder's watch to the first.
    private func watchedAndOther(in folder: TemporaryFolder) throws -> (
        store: PreferenceStore, other: PreferenceStore
    ) {
        let path = folder.path("prefs.sqlite")
        let store = PreferenceStore(database: try AppDatabase(path: path))
        var options = AppDatabase.Options()
        options.watchesForChanges = false
        let other = PreferenceStore(database: try AppDatabase(path: path, options: options))
        try other.setValue(.int(0), forKey: "warm")
        return (store, other)
    }

    /// Waits until a quiet period and the looks after it are over.
    private func waitForTheLooksToEnd() {
        usleep(UInt32(FileChangeMonitor.quietPeriod) + 300_000)
    }

    @Test func ownWritesWakeTheMonitorNoMore() throws {
        #if os(Linux)
            let folder = try TemporaryFolder()
            let store = PreferenceStore(
                database: try AppDatabase(path: folder.path("prefs.sqlite")))
            try store.setValue(.int(0), forKey: "warm")
            waitForTheLooksToEnd()  // its looks are over
            let watch = try #require(subscription(store.database))
            #expect(!watch.isQuiet)
            let before = store.database.changeCheck.fileEventChecks.load(ordering: .relaxed)
            for index in 0..<2_000 { try store.setValue(.int(index), forKey: "count") }
            let checks = store.database.changeCheck.fileEventChecks.load(ordering: .relaxed)
            #expect(watch.isQuiet)
            // Each of 2,000 commits writes the log several times; none of it wakes the thread.
            #expect(checks - before <= 2, "the monitor looked \(checks - before) times")
            usleep(UInt32(FileChangeMonitor.quietPeriod) + 100_000)
            #expect(!watch.isQuiet)
        #endif
    }

    @Test func aQuietPeriodEndsInOneLookWhenNoWriteIsUnderWay() throws {
        #if os(Linux)
            let folder = try TemporaryFolder()
            let store = PreferenceStore(
                database: try AppDatabase(path: folder.path("prefs.sqlite")))
            try store.setValue(.int(0), forKey: "warm")
            waitForTheLooksToEnd()
            let checks = { store.database.changeCheck.fileEventChecks.load(ordering: .relaxed) }
            let before = checks()
            try store.setValue(.int(1), forKey: "count")
            // After the period, the look finds the write lock free: it saw every commit, and
            // no looks follow (they would come 0.2, 0.5, 1 ... 256 ms after it).
            usleep(UInt32(FileChangeMonitor.quietPeriod) + 400_000)
            let looks = checks() - before
            #expect(looks == 1, "the monitor looked \(looks) times")
        #endif
    }

    @Test func aWriteUnderWayWhenTheQuietPeriodEndsIsLookedForAgain() async throws {
        #if os(Linux)
            let folder = try TemporaryFolder()
            let (store, other) = try watchedAndOther(in: folder)
            waitForTheLooksToEnd()
            let checks = { store.database.changeCheck.fileEventChecks.load(ordering: .relaxed) }
            let before = checks()
            try store.setValue(.int(1), forKey: "count")
            // The other connection holds the write lock across the end of the quiet period.
            let holding = Thread {
                try? other.transaction { edit in
                    try edit.setValue(.int(2), forKey: "theirs")
                    usleep(UInt32(FileChangeMonitor.quietPeriod) * 3)
                }
            }
            holding.start()
            usleep(UInt32(FileChangeMonitor.quietPeriod) * 2)
            let looks = checks() - before
            #expect(looks >= 2, "the monitor looked \(looks) times")
            while holding.isExecuting { usleep(1_000) }
            #expect(await waitUntil { checks() > before + 2 })
        #endif
    }

    @Test func aCommitOfAnotherConnectionRightAfterOwnWritesIsSeen() async throws {
        #if os(Linux)
            let folder = try TemporaryFolder()
            let (store, other) = try watchedAndOther(in: folder)
            let seen = Collected<PreferenceChange>()
            let stream = store.changes()
            let task = Task { for await change in stream { seen.append(change) } }
            defer { task.cancel() }
            // Rounds whose other commit came while the folder was quiet: on a loaded machine
            // a round's 20 ms may run out first, and that round proves nothing (but its
            // commit must be seen all the same).
            var quietRounds = 0
            for round in 1...5 {
                for index in 0..<50 { try store.setValue(.int(index), forKey: "mine") }
                let watch = try #require(subscription(store.database))
                let quietBefore = watch.isQuiet
                // The other connection's writes to the log raise no event for this process.
                try other.setValue(.int(round), forKey: "theirs")
                if quietBefore && watch.isQuiet { quietRounds += 1 }
                #expect(
                    await seen.wait(upTo: 10) {
                        $0.contains { $0.key == "theirs" && $0.value == .int(round) }
                    }, "round \(round)")
            }
            #expect(quietRounds > 0, "no other commit came while the folder was quiet")
        #endif
    }

    @Test func aSelectionAnotherConnectionChangedWhileQuietIsReadAfterTheNextOwnWrite() throws {
        #if os(Linux)
            let folder = try TemporaryFolder()
            let path = folder.path("prefs.sqlite")
            let database = try AppDatabase(path: path)
            let store = PreferenceStore(database: database)
            let selections = SelectionStore(database: database)
            var options = AppDatabase.Options()
            options.watchesForChanges = false
            let theirs = SelectionStore(database: try AppDatabase(path: path, options: options))
            try selections.define("carousel", count: 5, policy: .clamp)
            for index in 0..<20 { try store.setValue(.int(index), forKey: "mine") }
            let watch = try #require(subscription(database))
            #expect(watch.isQuiet)
            #expect(try selections.selection(named: "carousel")?.index == 0)  // read, cached
            try theirs.select(3, in: "carousel")
            // This write's transaction reads the other's commit: the cached read goes, at once.
            try store.setValue(.int(99), forKey: "mine")
            #expect(watch.isQuiet)
            #expect(try selections.selection(named: "carousel")?.index == 3)
        #endif
    }

    @Test func anotherProcessCommittingWhileThisOneWritesIsSeen() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("prefs.sqlite")
        let store = PreferenceStore(database: try AppDatabase(path: path))
        try store.setValue(.int(0), forKey: "warm")
        // One key's values: the writes of other keys below would fill a stream of every change
        // faster than a loaded machine empties it.
        let seen = Collected<Int>()
        let task = Task { [store] in
            for await value in store.values(for: .launchCount) { seen.append(value) }
        }
        defer { task.cancel() }
        #expect(await seen.wait(upTo: 10) { $0 == [0] })
        let writing = Atomic<Bool>(true)
        let writer = Thread {
            var index = 0
            while writing.load(ordering: .relaxed) {
                index += 1
                try? store.setValue(.int(index), forKey: "mine")
                usleep(100)
            }
        }
        writer.start()
        let result = try runPrefs(["--db", path, "set", "launchCount", "7"])
        #expect(result.status == 0, "\(result.stderr)")
        // This process writes all along, so its folder stays quiet: its commits find this one.
        let found = await seen.wait(upTo: 10) { $0.contains(7) }
        writing.store(false, ordering: .relaxed)
        while writer.isExecuting { usleep(1_000) }
        #expect(found)
    }

    @Test func aFolderWithTwoWatchedDatabasesIsNeverQuiet() async throws {
        #if os(Linux)
            let folder = try TemporaryFolder()
            let first = PreferenceStore(database: try AppDatabase(path: folder.path("a.sqlite")))
            try first.setValue(.int(0), forKey: "warm")
            for index in 0..<20 { try first.setValue(.int(index), forKey: "mine") }
            let watch = try #require(subscription(first.database))
            #expect(watch.isQuiet)
            // A second database in the folder ends the quiet period at once, and the first one
            // looks as after events.
            let second = PreferenceStore(database: try AppDatabase(path: folder.path("b.sqlite")))
            try second.setValue(.int(0), forKey: "warm")
            #expect(!watch.isQuiet)
            for index in 0..<20 { try first.setValue(.int(index), forKey: "mine") }
            #expect(!watch.isQuiet)
            // Another connection's commit to the second database, while the first one writes,
            // still reaches the second's observers.
            let seen = Collected<PreferenceChange>()
            let stream = second.changes()
            let task = Task { for await change in stream { seen.append(change) } }
            defer { task.cancel() }
            var options = AppDatabase.Options()
            options.watchesForChanges = false
            let other = PreferenceStore(
                database: try AppDatabase(path: folder.path("b.sqlite"), options: options))
            try first.setValue(.int(1), forKey: "mine")
            try other.setValue(.int(5), forKey: "theirs")
            try first.setValue(.int(2), forKey: "mine")
            #expect(await seen.wait(upTo: 10) { $0.contains { $0.key == "theirs" } })
        #endif
    }
}
