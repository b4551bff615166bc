import Foundation
import SQLiteCore
import TestSupport
import Testing

@testable import PrefsKit

/// A typed key keeps its cached value in the key object for the first suite cache that reads
/// through it; every way of changing the value must reach that copy, and other suites and
/// databases reading through the same key object must never see it.
@Suite struct PreferenceCacheSlotTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    /// A database whose cached reads look for other connections' commits on every read, so
    /// that a commit is seen by the next read rather than within the interval.
    func openCheckingEveryRead(_ path: String) throws -> AppDatabase {
        var options = AppDatabase.Options()
        options.changeCheckIntervalMilliseconds = 0
        return try AppDatabase(path: path, options: options)
    }

    @Test func everyWriteReachesTheKeysOwnCopy() throws {
        let path = folder.path("prefs.sqlite")
        let store = PreferenceStore(database: try openCheckingEveryRead(path))
        let counter = Prefs.Key("counter", default: 0)
        #expect(store[counter] == 0)  // claims the slot, with the key absent
        #expect(counter.cacheSlot.ownerIdentifier == store.suiteCacheIdentifier)
        try store.set(1, for: counter)
        #expect(store[counter] == 1)
        try store.setValue(.int(2), forKey: "counter")
        #expect(store[counter] == 2)
        store.set(3, forKey: "counter")
        #expect(store[counter] == 3)
        store.removeObject(forKey: "counter")
        #expect(store[counter] == 0)
        try store.transaction { edit in try edit.set(4, for: counter) }
        #expect(store[counter] == 4)
        #expect(
            (try? store.transaction { edit in
                try edit.set(99, for: counter)
                throw CancellationError()
            }) == nil)
        #expect(store[counter] == 4)

        // Another connection to the same file: seen by the next check.
        try PreferenceStore(database: try AppDatabase(path: path)).set(5, for: counter)
        #expect(store[counter] == 5)
        try store.removeAll()
        #expect(store[counter] == 0)
    }

    @Test func cachesFollowWritesWithTheSmallestHistory() throws {
        let path = folder.path("prefs.sqlite")
        let store = PreferenceStore(database: try openCheckingEveryRead(path))
        let error = #expect(throws: PreferenceError.self) { try store.setHistoryLimit(0) }
        #expect(
            error?.description
                == "Invalid value for 'history limit': 0 is below 1; the newest change is always kept, as other processes learn of changes through it"
        )
        try store.setHistoryLimit(1)
        let counter = Prefs.Key("counter", default: 0)
        #expect(store[counter] == 0)
        #expect(try store.value(forKey: "other") == nil)
        for value in 1...3 {
            try store.set(value, for: counter)
            #expect(store[counter] == value)
            try store.setValue(.int(value), forKey: "other")
            #expect(try store.value(forKey: "other") == .int(value))
        }
        // Another process writes twice between two looks: the first entry is gone by then.
        let writer = PreferenceStore(database: try AppDatabase(path: path))
        try writer.set(10, for: counter)
        try writer.setValue(.int(10), forKey: "other")
        #expect(store[counter] == 10)
        #expect(try store.value(forKey: "other") == .int(10))

        // A limit of 0 written behind the library's back still keeps the newest entry.
        let shell = try Connection(path: path, mode: .readWrite)
        try shell.execute(sql: "UPDATE setting SET value = 0 WHERE name = 'history_limit'")
        try writer.set(11, for: counter)
        #expect(try shell.scalar(Int.self, sql: "SELECT count(*) FROM preference_history") == 1)
        #expect(store[counter] == 11)
    }

    @Test func otherSuitesAndDatabasesReadThroughTheTable() throws {
        let database = try AppDatabase(path: folder.path("a.sqlite"))
        let first = PreferenceStore(database: database)
        let widgets = PreferenceStore(database: database, suite: "widgets")
        let elsewhere = PreferenceStore(database: try AppDatabase(path: folder.path("b.sqlite")))
        let counter = Prefs.Key("counter", default: 0)
        try first.set(1, for: counter)
        #expect(first[counter] == 1)
        try widgets.set(2, for: counter)
        try elsewhere.set(3, for: counter)
        for _ in 0..<3 {
            #expect(first[counter] == 1)
            #expect(widgets[counter] == 2)
            #expect(elsewhere[counter] == 3)
        }
        #expect(counter.cacheSlot.ownerIdentifier == first.suiteCacheIdentifier)
        #expect(counter.cacheSlot.ownerIdentifier != widgets.suiteCacheIdentifier)
        try elsewhere.set(4, for: counter)
        #expect(first[counter] == 1)
        #expect(elsewhere[counter] == 4)
    }

    @Test func aClosedDatabaseGivesItsKeySlotsBack() throws {
        let counter = Prefs.Key("counter", default: 0)
        var previousOwner = 0
        do {
            let first = PreferenceStore(
                database: try AppDatabase(path: folder.path("first.sqlite")))
            try first.set(1, for: counter)
            #expect(first[counter] == 1)
            previousOwner = first.suiteCacheIdentifier
            #expect(counter.cacheSlot.ownerIdentifier == previousOwner)
        }
        #expect(counter.cacheSlot.ownerIdentifier == 0)
        let second = PreferenceStore(database: try AppDatabase(path: folder.path("second.sqlite")))
        #expect(second[counter] == 0)  // not the first file's 1
        #expect(counter.cacheSlot.ownerIdentifier == second.suiteCacheIdentifier)
        try second.set(2, for: counter)
        #expect(second[counter] == 2)
    }

    @Test func keysMadePerReadDoNotPileUp() throws {
        let store = PreferenceStore(database: try AppDatabase(path: folder.path("prefs.sqlite")))
        try store.setValue(.int(7), forKey: "launchCount")
        for _ in 0..<10_000 {
            // A key object made at the call site, as `store[Prefs.Key(...)]` in a loop does.
            #expect(store[Prefs.Key("launchCount", default: 0)] == 7)
        }
        let remembered = store.database.state.withLock {
            $0.cache(for: "standard").claimedSlotCount
        }
        #expect(remembered <= 128, "\(remembered) slots remembered for 10,000 short-lived keys")
    }

    @Test func concurrentStoresNeverSeeEachOthersValues() async throws {
        let stores = try (0..<2).map {
            PreferenceStore(database: try AppDatabase(path: folder.path("\($0).sqlite")))
        }
        let keys = (0..<8).map { Prefs.Key("key\($0)", default: -1) }
        let ranges = [0..<1_000, 1_000..<2_000]
        let strays = try await withThrowingTaskGroup(of: Int.self) { group in
            for (index, store) in stores.enumerated() {
                group.addTask {
                    for value in ranges[index] {
                        try store.set(value, for: keys[value % keys.count])
                    }
                    return 0
                }
                group.addTask {
                    var strays = 0
                    for round in 0..<20_000 {
                        let value = store[keys[round % keys.count]]
                        if value != -1 && !ranges[index].contains(value) { strays += 1 }
                    }
                    return strays
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(strays == 0)
        for (index, store) in stores.enumerated() {
            for (number, key) in keys.enumerated() {
                #expect(store[key] == ranges[index].upperBound - keys.count + number)
            }
        }
    }
}
