import Foundation
import TestSupport
import Testing

@testable import PrefsKit

/// Collects what an observation yields, for checks from the test's task.
final class Collected<Element: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Element] = []
    func append(_ item: Element) { lock.withLock { items.append(item) } }
    var all: [Element] { lock.withLock { items } }

    /// Waits until the condition holds or the time is up; true when it held.
    /// (Generous deadlines: on a 2-core machine the task that collects may wait for a
    /// thread while synchronous suites, such as the power-cut trials, hold the pool.)
    func wait(upTo seconds: Double, until condition: ([Element]) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition(all) { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition(all)
    }
}

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
        let task = Task { [store] in for await change in store.changes() { seen.append(change) } }
        defer { task.cancel() }
        try await Task.sleep(for: .milliseconds(50))
        // Another process changes three keys at once; only the newest history row survives.
        let writer = PreferenceStore(database: try AppDatabase(path: path))
        try writer.transaction { edit in
            try edit.setValue(.int(10), forKey: "a")
            try edit.setValue(.string("b"), forKey: "b")
            try edit.setValue(.int(1), forKey: "kept")  // the same value: no change
            try edit.setValue(nil, forKey: "removed")
        }
        #expect(await seen.wait(upTo: 10) { $0.count >= 3 })
        try await Task.sleep(for: .milliseconds(50))
        #expect(seen.all.map(\.key) == ["a", "b", "removed"])
        #expect(seen.all.map(\.value) == [.int(10), .string("b"), nil])
        #expect(seen.all.map(\.oldValue) == [nil, nil, .int(2)])

        // Without a gap again, changes arrive one by one as before.
        try writer.setValue(.int(11), forKey: "a")
        #expect(await seen.wait(upTo: 10) { $0.count == 4 })
        #expect(seen.all.last?.oldValue == .int(10))
    }

    @Test func suiteObservationReportsChangesOfThatSuiteOnly() async throws {
        let seen = Collected<PreferenceChange>()
        let task = Task { [store] in for await change in store.changes() { seen.append(change) } }
        defer { task.cancel() }
        try await Task.sleep(for: .milliseconds(20))
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

    @Test func prefsProcessWriteReachesCacheAndObservationWithin100Milliseconds() async throws {
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
        let written = Date()
        #expect(
            await seen.wait(upTo: 0.1) { $0 == [0, 41] },
            "observation after \(Date().timeIntervalSince(written))s")
        #expect(store[.launchCount] == 41)
        #expect(await changes.wait(upTo: 0.1) { $0.map(\.value) == [.int(41)] })
    }

    @Test func cachedReadSeesAnotherProcessWithin100Milliseconds() async throws {
        try store.set("before", for: .nickname)
        #expect(store[.nickname] == "before")
        let result = try runPrefs(["--db", path, "set", "nickname", "after"])
        #expect(result.status == 0, "\(result.stderr)")
        try await Task.sleep(for: .milliseconds(100))
        #expect(store[.nickname] == "after")
    }

    @Test func observationEndsWhenTheTaskIsCancelled() async throws {
        let task = Task { [store] in for await _ in store.changes() {} }
        try await Task.sleep(for: .milliseconds(30))
        task.cancel()
        _ = await task.value
        try await Task.sleep(for: .milliseconds(60))
        let isPolling = store.database.state.withLock { $0.isPolling }
        #expect(!isPolling)
    }
}
