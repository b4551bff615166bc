import Foundation
import Observation
import TestSupport
import Testing

@testable import PrefsKit

/// Bookmarks drive views as preferences do: reading whether an item is bookmarked, one
/// bookmark or a list registers with Swift's Observation, and a change of what was read
/// fires it, from this store, at a transaction's commit (not on rollback) and from another
/// process.
@Suite(.serialized) struct BookmarkObservationTests {
    let folder: TemporaryFolder
    let path: String
    let bookmarks: BookmarkStore

    init() throws {
        folder = try TemporaryFolder()
        path = folder.path("prefs.sqlite")
        bookmarks = BookmarkStore(database: try AppDatabase(path: path))
        try bookmarks.add(BookmarkDraft(kind: "trip", itemID: "london", title: "London"))
    }

    private func track(_ apply: () -> Void) -> ObservationFirings {
        trackObservation(apply)
    }

    @Test func theBookmarkButtonFiresForItsItemOnly() throws {
        let paris = track { _ = try? bookmarks.isBookmarked(kind: "trip", itemID: "paris") }
        let london = track { _ = try? bookmarks.isBookmarked(kind: "trip", itemID: "london") }
        _ = try bookmarks.toggle(BookmarkDraft(kind: "trip", itemID: "paris", title: "Paris"))
        #expect(paris.value == 1)
        #expect(london.value == 0)
        #expect(try bookmarks.isBookmarked(kind: "trip", itemID: "paris"))
    }

    @Test func aListFiresWhenItsRowsChange() throws {
        let trips = track { _ = try? bookmarks.list(BookmarkQuery(kind: "trip")) }
        let movies = track { _ = try? bookmarks.list(BookmarkQuery(kind: "movie")) }
        try bookmarks.add(BookmarkDraft(kind: "trip", itemID: "rome", title: "Rome"))
        #expect(trips.value == 1)
        #expect(movies.value == 0)
    }

    @Test func aTransactionFiresAtItsCommitAndARollbackNever() throws {
        let london = track { _ = try? bookmarks.bookmark(kind: "trip", itemID: "london") }
        struct Abandoned: Error {}
        #expect(throws: Abandoned.self) {
            try bookmarks.database.transaction {
                _ = try bookmarks.remove(kind: "trip", itemID: "london")
                throw Abandoned()
            }
        }
        try bookmarks.add(BookmarkDraft(kind: "movie", itemID: "m1", title: "Heat"))
        #expect(london.value == 0, "fired for a rolled-back change")
        try bookmarks.database.transaction {
            try bookmarks.add(BookmarkDraft(kind: "trip", itemID: "london", title: "London!"))
            #expect(london.value == 0, "fired before the commit")
        }
        #expect(london.value == 1)
    }

    @Test func anotherProcessesChangeFiresTheObservation() async throws {
        let london = track { _ = try? bookmarks.isBookmarked(kind: "trip", itemID: "london") }
        let rome = track { _ = try? bookmarks.isBookmarked(kind: "trip", itemID: "rome") }
        let result = try runPrefs(["--db", path, "bookmark", "remove", "trip", "london"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(await waitUntil(upTo: 10) { london.value == 1 })
        #expect(rome.value == 0)
        #expect(try !bookmarks.isBookmarked(kind: "trip", itemID: "london"))
    }
}

/// ``BookmarkStore/update(kind:itemID:_:)``: an edit in place, in one transaction.
@Suite(.serialized) struct BookmarkUpdateTests {
    let bookmarks: BookmarkStore
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
        bookmarks = BookmarkStore(database: try AppDatabase(path: folder.path("prefs.sqlite")))
        try bookmarks.add(
            BookmarkDraft(
                kind: "trip", itemID: "london", title: "London", category: "Europe",
                tags: ["uk"], note: "Rainy"))
    }

    @Test func anUpdateChangesOnlyWhatTheEditChanges() throws {
        let updated = try bookmarks.update(kind: "trip", itemID: "london") {
            $0.tags.append("capital")
            $0.kind = "movie"  // the item edited stays the one named
        }
        #expect(updated.kind == "trip")
        #expect(updated.tags == ["capital", "uk"])
        #expect(updated.category == "Europe")
        #expect(updated.folder == ["Europe"])
        #expect(updated.note == "Rainy")
        #expect(updated.id == 1)
        #expect(throws: BookmarkError.itemNotFound(kind: "trip", itemID: "rome")) {
            try bookmarks.update(kind: "trip", itemID: "rome") { $0.title = "Rome" }
        }
        #expect(throws: BookmarkError.self) {
            try bookmarks.update(kind: "trip", itemID: "london") { $0.tags.append(" ") }
        }
        #expect(try bookmarks.bookmark(kind: "trip", itemID: "london")?.tags == ["capital", "uk"])
    }

    @Test func anUpdateThatChangesNothingTellsNoObserverAndMovesNoTime() throws {
        let before = try #require(try bookmarks.bookmark(kind: "trip", itemID: "london"))
        let london = trackObservation {
            _ = try? bookmarks.bookmark(kind: "trip", itemID: "london")
        }
        let list = trackObservation { _ = try? bookmarks.list() }
        let after = try bookmarks.update(kind: "trip", itemID: "london") {
            $0.tags = ["uk"]
            $0.category = "Europe"
        }
        #expect(after.updatedAt == before.updatedAt)
        #expect(london.value == 0)
        #expect(list.value == 0)
        try bookmarks.update(kind: "trip", itemID: "london") { $0.title = "London!" }
        #expect(london.value == 1)
    }
}
