import Foundation
import Observation
import PrefsTestSupport
import Synchronization
import TestSupport
import Testing

@testable import PrefsKit

/// A model as a SwiftUI app would write it: Observation for its own state, preferences
/// through `@Preference` marked `@ObservationIgnored`.
@Observable final class OnboardingSettings {
    @ObservationIgnored @Preference var hasViewedWalkthrough: Bool
    @ObservationIgnored @Preference var launchCount: Int
    var title = "Welcome"

    init(store: PreferenceStore) {
        _hasViewedWalkthrough = Preference(
            wrappedValue: false, "hasViewedWalkthrough", store: store)
        _launchCount = Preference(wrappedValue: 0, "launchCount", store: store)
    }
}

/// How many times an `onChange` fired.
private final class Firings: Sendable {
    private let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .acquiring) }
    func fire() { count.add(1, ordering: .releasing) }

    /// Waits up to `seconds` for at least `expected` firings.
    func wait(for expected: Int = 1, upTo seconds: Double = 10) async -> Bool {
        await waitUntil(upTo: seconds) { value >= expected }
    }
}

@Suite(.serialized) struct SwiftObservationTests {
    let folder: TemporaryFolder
    let path: String
    let store: PreferenceStore

    init() throws {
        folder = try TemporaryFolder()
        path = folder.path("prefs.sqlite")
        store = PreferenceStore(database: try AppDatabase(path: path))
    }

    /// Tracks the reads `apply` makes; the returned firings count `onChange` calls (at most
    /// one: a tracking fires once).
    private func track(_ apply: () -> Void) -> Firings {
        let firings = Firings()
        withObservationTracking(apply) { firings.fire() }
        return firings
    }

    @Test func aLocalSetFiresForTheKeyReadOnly() throws {
        let walkthrough = track { _ = store[.hasViewedWalkthrough] }
        let volume = track { _ = store[.volume] }
        try store.set(true, for: .hasViewedWalkthrough)
        // Synchronous, as @AppStorage's: fired before set returns.
        #expect(walkthrough.value == 1)
        #expect(volume.value == 0)
        #expect(store[.hasViewedWalkthrough])
    }

    @Test func readsWithoutTheCacheRegisterToo() throws {
        var options = AppDatabase.Options()
        options.cachesValues = false
        let uncached = PreferenceStore(database: try AppDatabase(path: path, options: options))
        let typed = track { _ = uncached[.hasViewedWalkthrough] }
        let untyped = track { _ = uncached.integer(forKey: "launchCount") }
        try uncached.set(true, for: .hasViewedWalkthrough)
        #expect(typed.value == 1)
        #expect(untyped.value == 0)
        try uncached.setValue(.int(2), forKey: "launchCount")
        #expect(untyped.value == 1)
    }

    @Test(arguments: [true, false])
    func untrackedReadsRegisterNothingAndStillRead(cachesValues: Bool) throws {
        var options = AppDatabase.Options()
        options.tracksReadsForObservation = false
        options.cachesValues = cachesValues
        let untracked = PreferenceStore(database: try AppDatabase(path: path, options: options))
        let typed = track { _ = untracked[.hasViewedWalkthrough] }
        let untyped = track { _ = untracked.integer(forKey: "launchCount") }
        try untracked.set(true, for: .hasViewedWalkthrough)
        try untracked.setValue(.int(2), forKey: "launchCount")
        #expect(typed.value == 0)
        #expect(untyped.value == 0)
        #expect(untracked[.hasViewedWalkthrough])
        #expect(untracked.integer(forKey: "launchCount") == 2)
        // A tracked store on the same file is not affected.
        let tracked = track { _ = store[.hasViewedWalkthrough] }
        try store.set(false, for: .hasViewedWalkthrough)
        #expect(tracked.value == 1)
    }

    @Test func theHandlerSeesTheNewValueAndMayReadTheStore() throws {
        let seen = Mutex<[Bool]>([])
        withObservationTracking {
            _ = store[.hasViewedWalkthrough]
        } onChange: { [store] in
            seen.withLock { $0.append(store[.hasViewedWalkthrough]) }
        }
        try store.set(true, for: .hasViewedWalkthrough)
        #expect(seen.withLock { $0 } == [true])
    }

    @Test func untypedGettersAndRemovalsRegisterToo() throws {
        let untyped = track { _ = store.bool(forKey: "flag") }
        let stored = track { _ = try? store.storedValue(forKey: "count") }
        try store.setValue(.bool(true), forKey: "flag")
        try store.setValue(.int(3), forKey: "count")
        #expect(untyped.value == 1)
        #expect(stored.value == 1)

        let removal = track { _ = store.integer(forKey: "count") }
        try store.setValue(nil, forKey: "count")
        #expect(removal.value == 1)
    }

    @Test func aTransactionFiresAtCommitAndARollbackNever() throws {
        let rolledBack = track { _ = store[.launchCount] }
        struct Abandon: Error {}
        #expect(throws: Abandon.self) {
            try store.transaction { edit in
                try edit.set(5, for: .launchCount)
                throw Abandon()
            }
        }
        #expect(rolledBack.value == 0)
        try store.transaction { edit in
            try edit.set(6, for: .launchCount)
            // Not yet: the change is not committed.
            #expect(rolledBack.value == 0)
        }
        #expect(rolledBack.value == 1)
    }

    @Test func anObservationIgnoredPreferenceInAnObservableModelFires() throws {
        let model = OnboardingSettings(store: store)
        let firings = track { _ = model.hasViewedWalkthrough }
        model.hasViewedWalkthrough = true
        #expect(firings.value == 1)
        #expect(model.hasViewedWalkthrough)

        // Its own tracked properties still work beside it, and an untouched key stays quiet.
        let title = track { _ = model.title }
        let launches = track { _ = model.launchCount }
        model.title = "Hello"
        #expect(title.value == 1)
        #expect(launches.value == 0)
    }

    @Test func aWriteThroughAnotherStoreOfTheDatabaseFires() throws {
        let other = PreferenceStore(database: store.database)
        let firings = track { _ = store[.hasViewedWalkthrough] }
        try other.set(true, for: .hasViewedWalkthrough)
        #expect(firings.value == 1)
        // Another suite's key of the same name is another key.
        let inOtherSuite = PreferenceStore(database: store.database, suite: "other")
        let quiet = track { _ = store[.launchCount] }
        try inOtherSuite.set(9, for: .launchCount)
        #expect(quiet.value == 0)
    }

    @Test func aCommitOfAnotherConnectionFiresWithoutAnyRead() async throws {
        let firings = track { _ = store[.hasViewedWalkthrough] }
        let writer = PreferenceStore(database: try AppDatabase(path: path))
        try writer.set(true, for: .hasViewedWalkthrough)
        #expect(await firings.wait())
        #expect(store[.hasViewedWalkthrough])
    }

    @Test func aSetByThePrefsCommandFires() async throws {
        let firings = track { _ = store[.launchCount] }
        let quiet = track { _ = store[.volume] }
        let result = try runPrefs(["--db", path, "set", "launchCount", "42"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(await firings.wait())
        #expect(store[.launchCount] == 42)
        #expect(quiet.value == 0)
    }

    @Test func keysReadBeforeAHistoryGapAllFire() async throws {
        try store.setHistoryLimit(1)
        let firings = track {
            _ = store[.launchCount]
            _ = store[.volume]
        }
        let untouched = track { _ = store[.nickname] }
        // Another connection commits two changes; only the newest history row survives, so
        // the store cannot tell which keys changed.
        let writer = PreferenceStore(database: try AppDatabase(path: path))
        try writer.transaction { edit in
            try edit.set(1, for: .launchCount)
            try edit.set("x", for: .hasViewedWalkthroughName)
        }
        #expect(await firings.wait())
        #expect(store[.launchCount] == 1)
        // Every key read fires after a gap, changed or not: a spurious refresh, never a miss.
        #expect(untouched.value == 1)
    }
}

extension Prefs.Keys {
    fileprivate static let hasViewedWalkthroughName = Prefs.Key("walkthroughName", default: "")
}
