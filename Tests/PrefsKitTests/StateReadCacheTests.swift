import Foundation
import TestSupport
import Testing

@testable import PrefsKit

/// A selection read and a bookmark-of-an-item read are cached between commits, so that a
/// view reading them on every frame costs no query; the cache never answers with something
/// the file does not hold: not after a write here, a rollback, or another connection's or
/// process's commit.
@Suite(.serialized) struct StateReadCacheTests {
    let folder: TemporaryFolder
    let path: String
    let selections: SelectionStore
    let bookmarks: BookmarkStore

    init() throws {
        folder = try TemporaryFolder()
        path = folder.path("prefs.sqlite")
        let database = try AppDatabase(path: path)
        selections = SelectionStore(database: database)
        bookmarks = BookmarkStore(database: database)
        try selections.define("carousel", count: 13, policy: .clamp, initialIndex: 2)
    }

    /// A second connection to the same file, as another part of the app or a process has.
    private func otherConnection() throws -> (SelectionStore, BookmarkStore) {
        let database = try AppDatabase(path: path)
        return (SelectionStore(database: database), BookmarkStore(database: database))
    }

    @Test func aCachedSelectionFollowsWritesHere() throws {
        #expect(try selections.selection(named: "carousel")?.index == 2)
        try selections.next("carousel")
        #expect(try selections.selection(named: "carousel")?.index == 3)
        try selections.remove("carousel")
        #expect(try selections.selection(named: "carousel") == nil)
    }

    @Test func aRolledBackWriteIsNotCached() throws {
        struct Abandoned: Error {}
        #expect(throws: Abandoned.self) {
            try selections.database.transaction {
                try selections.select(7, in: "carousel")
                #expect(try selections.selection(named: "carousel")?.index == 7)
                _ = try bookmarks.add(BookmarkDraft(kind: "trip", itemID: "rome", title: "Rome"))
                #expect(try bookmarks.isBookmarked(kind: "trip", itemID: "rome"))
                throw Abandoned()
            }
        }
        #expect(try selections.selection(named: "carousel")?.index == 2)
        #expect(try bookmarks.isBookmarked(kind: "trip", itemID: "rome") == false)
    }

    @Test func anotherConnectionsCommitReachesACachedRead() async throws {
        #expect(try selections.selection(named: "carousel")?.index == 2)
        #expect(try bookmarks.isBookmarked(kind: "trip", itemID: "rome") == false)
        let (otherSelections, otherBookmarks) = try otherConnection()
        try otherSelections.select(5, in: "carousel")
        _ = try otherBookmarks.add(BookmarkDraft(kind: "trip", itemID: "rome", title: "Rome"))
        // The change is seen once the commit token is next checked (every 10 ms on reads).
        #expect(
            await waitUntil(upTo: 5) {
                (try? selections.selection(named: "carousel")?.index) == 5
                    && (try? bookmarks.isBookmarked(kind: "trip", itemID: "rome")) == true
            })
    }

    @Test func anotherProcessesCommitReachesACachedRead() async throws {
        #expect(try bookmarks.isBookmarked(kind: "trip", itemID: "rome") == false)
        #expect(try selections.selection(named: "carousel")?.index == 2)
        #expect(
            try runPrefs(["--db", path, "bookmark", "add", "trip", "rome", "--title", "Rome"])
                .status == 0)
        #expect(try runPrefs(["--db", path, "selection", "set", "carousel", "11"]).status == 0)
        #expect(
            await waitUntil(upTo: 5) {
                (try? selections.selection(named: "carousel")?.index) == 11
                    && (try? bookmarks.isBookmarked(kind: "trip", itemID: "rome")) == true
            })
    }

    @Test func namesThatSwiftCallsEqualAreCachedApart() throws {
        _ = try bookmarks.add(BookmarkDraft(kind: "trip", itemID: "caf\u{E9}", title: "Café"))
        #expect(try bookmarks.isBookmarked(kind: "trip", itemID: "caf\u{E9}"))
        #expect(try bookmarks.isBookmarked(kind: "trip", itemID: "cafe\u{301}") == false)
        try selections.define("\u{212B}", count: 3, policy: .clamp)
        #expect(try selections.selection(named: "\u{212B}") != nil)
        #expect(try selections.selection(named: "\u{C5}") == nil)
    }

    @Test func withoutCachingEveryReadAsksTheFile() throws {
        var options = AppDatabase.Options()
        options.cachesValues = false
        let uncached = SelectionStore(database: try AppDatabase(path: path, options: options))
        #expect(try uncached.selection(named: "carousel")?.index == 2)
        let (other, _) = try otherConnection()
        try other.select(4, in: "carousel")
        #expect(try uncached.selection(named: "carousel")?.index == 4)
    }

    /// What the store remembers about reads, from inside it.
    private func remembered() throws -> (selections: Int, items: Int, queries: Int) {
        try selections.database.read { $0.feed.states.rememberedReadCount }
    }

    /// Names come from the app's data and from whoever wrote the file: reading a stream of
    /// names, each once, must not make the store remember every one of them.
    @Test func readingAStreamOfNamesDoesNotGrowTheStore() throws {
        let limit = StateObservations.rememberedReadLimit
        for i in 0..<(limit * 5) {
            _ = try selections.selection(named: "page-\(i)")
            _ = try bookmarks.isBookmarked(kind: "trip", itemID: "item-\(i)")
            if i < limit * 2 { _ = try bookmarks.list(BookmarkQuery(kind: "kind-\(i)")) }
        }
        let counts = try remembered()
        #expect(counts.selections <= limit)
        #expect(counts.items <= limit)
        #expect(counts.queries <= limit)
    }

    /// A read that is forgotten tells whoever observed it (one refresh too many at worst),
    /// so a view that read it is never left showing a value that later changes unseen; a
    /// property wrapper's read is never forgotten, so its view is not refreshed for nothing.
    @Test func aForgottenReadTellsItsObserverAndAWrappersReadIsKept() async throws {
        @SelectedIndex("carousel", count: 13, policy: .clamp, store: selections) var carousel
        let wrapperTold = trackObservation { _ = carousel }
        let readTold = trackObservation {
            _ = try? bookmarks.isBookmarked(kind: "trip", itemID: "rome")
        }
        for i in 0..<(StateObservations.rememberedReadLimit * 2) {
            _ = try selections.selection(named: "page-\(i)")
            _ = try bookmarks.isBookmarked(kind: "trip", itemID: "item-\(i)")
        }
        #expect(await waitUntil(upTo: 5) { readTold.value == 1 })
        try await Task.sleep(for: .milliseconds(100))
        #expect(wrapperTold.value == 0)
        #expect(carousel == 2)
        try selections.next("carousel")
        #expect(await waitUntil(upTo: 5) { wrapperTold.value == 1 })
    }
}
