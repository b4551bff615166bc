import Foundation
import PrefsTestSupport
import TestSupport
import Testing

@testable import PrefsKit

@Suite(.serialized) struct ObservationTests {
    let folder: TemporaryFolder
    let path: String
    let store: PreferenceStore

    init() throws {
        folder = try TemporaryFolder()
        path = folder.path("prefs.sqlite")
        store = PreferenceStore(database: try AppDatabase(path: path))
    }

    @Test func keyObservationStartsWithTheCurrentValueAndSeesLocalWrites() async throws {
        let seen = Collected<Bool>()
        let task = Task { [store] in
            for await value in store.values(for: .hasViewedWalkthrough) { seen.append(value) }
        }
        defer { task.cancel() }
        #expect(await seen.wait(upTo: 10) { $0 == [false] })
        try store.set(true, for: .hasViewedWalkthrough)
        try store.removeValue(for: .hasViewedWalkthrough)
        #expect(await seen.wait(upTo: 10) { $0 == [false, true, false] })
    }

    @Test func suiteObserverHearsChangesPrunedBeforeItLooked() async throws {
        try store.setHistoryLimit(1)
        try store.setValue(.int(1), forKey: "kept")
        try store.setValue(.int(2), forKey: "removed")
        let seen = Collected<PreferenceChange>()
        let stream = store.changes()  // observing from this call on
        let task = Task { for await change in stream { seen.append(change) } }
        defer { task.cancel() }
        // Another process changes three keys at once; only the newest history row survives.
        let writer = PreferenceStore(database: try AppDatabase(path: path))
        try writer.transaction { edit in
            try edit.setValue(.int(10), forKey: "a")
            try edit.setValue(.string("b"), forKey: "b")
            try edit.setValue(.int(1), forKey: "kept")  // the same value: no change
            try edit.setValue(nil, forKey: "removed")
        }
        #expect(await seen.wait(upTo: 10) { $0.count >= 3 })

        // Without a gap again, changes arrive one by one as before; that this one is the
        // fourth shows that nothing else arrived after the first three.
        try writer.setValue(.int(11), forKey: "a")
        #expect(await seen.wait(upTo: 10) { $0.count >= 4 })
        #expect(seen.all.map(\.key) == ["a", "b", "removed", "a"])
        #expect(seen.all.map(\.value) == [.int(10), .string("b"), nil, .int(11)])
        #expect(seen.all.map(\.oldValue) == [nil, nil, .int(2), .int(10)])
    }

    @Test func suiteObservationReportsChangesOfThatSuiteOnly() async throws {
        let seen = Collected<PreferenceChange>()
        let stream = store.changes()  // observing from this call on
        let task = Task { for await change in stream { seen.append(change) } }
        defer { task.cancel() }
        let other = PreferenceStore(database: store.database, suite: "other")
        try other.set(1, for: .launchCount)
        try store.set(2, for: .launchCount)
        try store.transaction { edit in
            try edit.set(3, for: .launchCount)
            try edit.set("x", for: .nickname)
        }
        #expect(await seen.wait(upTo: 10) { $0.count == 3 })
        #expect(seen.all.map(\.key) == ["launchCount", "launchCount", "nickname"])
        #expect(seen.all.map(\.value) == [.int(2), .int(3), .string("x")])
        #expect(seen.all.map(\.oldValue) == [nil, .int(2), nil])
    }

    @Test func prefsProcessWriteReachesCacheAndObservation() async throws {
        #expect(store[.launchCount] == 0)  // cached from now on
        let seen = Collected<Int>()
        let changes = Collected<PreferenceChange>()
        let values = Task { [store] in
            for await value in store.values(for: .launchCount) { seen.append(value) }
        }
        let all = Task { [store] in for await change in store.changes() { changes.append(change) } }
        defer {
            values.cancel()
            all.cancel()
        }
        #expect(await seen.wait(upTo: 10) { $0 == [0] })

        let result = try runPrefs(["--db", path, "set", "launchCount", "41"])
        #expect(result.status == 0, "\(result.stderr)")
        // How fast is the benchmark's business; here, that it arrives.
        #expect(await seen.wait(upTo: 10) { $0 == [0, 41] })
        #expect(store[.launchCount] == 41)
        #expect(await changes.wait(upTo: 10) { $0.map(\.value) == [.int(41)] })
    }

    @Test func cachedReadSeesAnotherProcess() async throws {
        try store.set("before", for: .nickname)
        #expect(store[.nickname] == "before")
        let result = try runPrefs(["--db", path, "set", "nickname", "after"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(await waitUntil { store[.nickname] == "after" })
    }

    @Test func observationEndsWhenTheTaskIsCancelled() async throws {
        let stream = store.changes()
        let task = Task { for await _ in stream {} }
        #expect(store.database.state.withLock { $0.hasObservers })
        task.cancel()
        _ = await task.value
        #expect(await waitUntil { !store.database.state.withLock { $0.hasObservers } })
    }

    @Test func aFileDatabaseIsWatchedThroughFileEventsAndAMemoryOneNotAtAll() throws {
        #if os(Linux)
            #expect(store.database.changeDetectionSummary.hasPrefix("file events (inotify)"))
        #endif
        #expect(!store.database.state.withLock { $0.isPolling })
        let memory = PreferenceStore(database: try AppDatabase.inMemory())
        _ = memory.changes()
        #expect(memory.database.changeDetectionSummary.hasPrefix("none needed"))
        #expect(!memory.database.state.withLock { $0.isPolling })
    }

    @Test func withoutWatchingNothingStartsUntilSomeoneObserves() throws {
        var options = AppDatabase.Options()
        options.watchesForChanges = false
        let quiet = PreferenceStore(database: try AppDatabase(path: path, options: options))
        _ = quiet[.hasViewedWalkthrough]
        #expect(quiet.database.changeDetectionSummary.hasPrefix("not started"))
        _ = quiet.changes()
        #expect(!quiet.database.changeDetectionSummary.hasPrefix("not started"))
    }
}
