import Foundation
import Observation
import PrefsTestSupport
import SQLiteCore
import TestSupport
import Testing

@testable import PrefsKit

/// A write that changes nothing is silent: no time moves, no history row, and neither
/// Observation nor a value stream hears of it. Only a read whose result differs fires. It is
/// still the user's latest decision, so sync stamps it: in a file that never synced, its time
/// is noted for the first round (docs/sync.md, "Stamping").
@Suite(.serialized) struct NoOpWriteTests {
    let folder: TemporaryFolder
    let path: String
    let database: AppDatabase

    init() throws {
        folder = try TemporaryFolder()
        path = folder.path("prefs.sqlite")
        database = try AppDatabase(path: path)
    }

    private func scalar(_ sql: String) throws -> Double? {
        let connection = try Connection(path: path, mode: .readOnly)
        return try connection.scalar(Double.self, sql: sql)
    }

    /// Long enough for a clock read to differ from the last one.
    private func tick() { usleep(20_000) }

    @Test func writingTheStoredValueAgainMovesNoTimeAndTellsNoOne() async throws {
        let store = PreferenceStore(database: database)
        try store.set(true, for: .hasViewedWalkthrough)
        try store.setValue(.string("dark"), forKey: "theme")
        let updatedAt = try scalar("SELECT max(updated_at) FROM preference")
        let history = try scalar("SELECT count(*) FROM preference_history")
        let pending = try scalar("SELECT count(*) FROM sync_written_early")
        _ = store[.hasViewedWalkthrough]
        let seen = Collected<Bool>()
        let task = Task {
            for await value in store.values(for: .hasViewedWalkthrough) { seen.append(value) }
        }
        defer { task.cancel() }
        #expect(await seen.wait(upTo: 10) { $0 == [true] })
        let observed = trackObservation { _ = store[.hasViewedWalkthrough] }
        tick()

        try store.set(true, for: .hasViewedWalkthrough)
        try store.setValue(.string("dark"), forKey: "theme")
        try store.transaction { edit in try edit.set(true, for: .hasViewedWalkthrough) }

        #expect(try scalar("SELECT max(updated_at) FROM preference") == updatedAt)
        #expect(try scalar("SELECT count(*) FROM preference_history") == history)
        // Noted for sync, each key once (its newest write).
        #expect(try scalar("SELECT count(*) FROM sync_written_early") == (pending ?? 0) + 2)
        #expect(observed.value == 0, "Observation fired for a value that did not change")
        // A real change after them is the next thing the stream hears.
        try store.set(false, for: .hasViewedWalkthrough)
        #expect(await seen.wait(upTo: 10) { $0.count >= 2 })
        #expect(seen.all == [true, false])
        #expect(observed.value == 1)
    }

    @Test func theSameValueOfAnotherTypeIsAChange() throws {
        let store = PreferenceStore(database: database)
        try store.setValue(.int(1), forKey: "n")
        try store.setValue(.double(1), forKey: "n")
        try store.setValue(.string("1"), forKey: "n")
        try store.setValue(.data(Data("1".utf8)), forKey: "n")
        #expect(try store.history(forKey: "n").count == 4)
        #expect(try store.value(forKey: "n") == .data(Data("1".utf8)))
    }

    @Test func nextAtTheEndOfAClampSelectionTellsNoOne() throws {
        let selections = SelectionStore(database: database)
        try selections.define("carousel", count: 3, policy: .clamp, initialIndex: 2)
        let before = try #require(try selections.selection(named: "carousel"))
        let one = trackObservation { _ = try? selections.selection(named: "carousel") }
        let every = trackObservation { _ = try? selections.all() }
        tick()
        try selections.next("carousel")
        try selections.define("carousel", count: 3, policy: .clamp)
        try selections.select(2, in: "carousel")
        #expect(one.value == 0, "Observation fired for a selection that did not move")
        #expect(every.value == 0, "the list of selections fired though none changed")
        #expect(try selections.selection(named: "carousel") == before)
        try selections.previous("carousel")
        #expect(one.value == 1)
        #expect(every.value == 1)
    }

    @Test func addingABookmarkWithTheSameDetailsMovesNoTime() throws {
        let bookmarks = BookmarkStore(database: database)
        let draft = BookmarkDraft(
            kind: "trip", itemID: "london", title: "London",
            url: URL(string: "https://example.com/london"), category: "Europe",
            tags: ["uk", "city"], note: "Tea")
        let stored = try bookmarks.add(draft)
        let list = trackObservation { _ = try? bookmarks.list(BookmarkQuery(kind: "trip")) }
        let history = try scalar("SELECT count(*) FROM sync_written_early")
        tick()
        let again = try bookmarks.add(draft)
        #expect(try bookmarks.add(contentsOf: [draft]) == 1)
        #expect(again.updatedAt == stored.updatedAt)
        #expect(
            try bookmarks.bookmark(kind: "trip", itemID: "london")?.updatedAt == stored.updatedAt)
        #expect(list.value == 0, "Observation fired for a bookmark that did not change")
        // Noted for sync: the title, URL, category and note the add states (its two tags,
        // noted when they were added, are noted again with the new time).
        #expect(try scalar("SELECT count(*) FROM sync_written_early") == (history ?? 0) + 4)
        // A different title is a change.
        var retitled = draft
        retitled.title = "London, UK"
        let changed = try bookmarks.add(retitled)
        #expect(changed.updatedAt > stored.updatedAt)
        #expect(list.value == 1)
    }
}

/// A value larger than one database value can hold is refused as bad data, naming the key,
/// and nothing is written.
@Suite struct TooLargeValueTests {
    @Test func aValuePastTheLimitIsRefusedNamingItsKey() throws {
        let folder = try TemporaryFolder()
        let store = PreferenceStore(database: try AppDatabase(path: folder.path("p.sqlite")))
        let data = Data(count: PreferenceValue.maximumBytes + 1)
        #expect(throws: PreferenceValue.tooLarge(key: "big", bytes: data.count)) {
            try store.setValue(.data(data), forKey: "big")
        }
        #expect(try store.storedValue(forKey: "big") == nil)
        // An array whose encoding passes the limit: SQLite's own check, the same class. The
        // connection's limit is lowered to make such an array small.
        try store.database.read { state in
            (state.engine as? SQLiteEngine)?.connection.limitValueLength(to: 1_000)
        }
        let text = String(repeating: "x", count: 600)
        do {
            try store.setValue(.array([.string(text), .string(text)]), forKey: "big")
            Issue.record("an array past the limit was stored")
        } catch let error as DatabaseError {
            guard case .tooLarge = error.kind else {
                Issue.record("not .tooLarge: \(error)")
                return
            }
        }
        #expect(try store.storedValue(forKey: "big") == nil)
    }
}
