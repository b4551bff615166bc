import Foundation
import TestSupport
import Testing

@testable import PrefsKit

/// The order of a search's results on each engine. Both give every match and break ties by
/// when the bookmark was added; the relevance before that is each engine's own: SQLite
/// ranks with FTS5's bm25 over the indexed columns (a word in a short field weighs more
/// than the same word in a long one), PostgreSQL with `ts_rank` over the bookmark's text as
/// one document (a word that comes more often weighs more), as docs/postgresql.md says. The
/// order each gives this corpus is pinned here, so that a change of either is seen.
@Suite struct SearchOrderContractTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    static let corpus: [BookmarkDraft] = [
        BookmarkDraft(
            kind: "trip", itemID: "guide", title: "Portugal guide",
            url: URL(string: "https://example.com/lisbon")),
        BookmarkDraft(
            kind: "trip", itemID: "notes", title: "Trip notes",
            note: "lisbon trams, lisbon harbour, lisbon at night, and a day in sintra"),
        BookmarkDraft(kind: "trip", itemID: "city", title: "Lisbon"),
        BookmarkDraft(kind: "trip", itemID: "tagged", title: "Harbour walk", tags: ["lisbon"]),
        BookmarkDraft(kind: "trip", itemID: "porto", title: "Porto"),
        BookmarkDraft(
            kind: "trip", itemID: "long", title: "Lisbon, Sintra, Cascais, Evora and the coast"),
    ]

    /// Each engine's order for "lisbon": SQLite's bm25 puts the short title first and the
    /// long fields last; PostgreSQL's ts_rank the note that says it three times.
    static let pinned = [
        "SQLite": ["city", "tagged", "notes", "guide", "long"],
        "PostgreSQL": ["notes", "city", "tagged", "long", "guide"],
        "PostgreSQL behind PgBouncer": ["notes", "city", "tagged", "long", "guide"],
    ]

    @Test(arguments: ContractEngine.all)
    func theOrderOfASearchIsTheEnginesPinnedOrder(engine: ContractEngine) throws {
        let (database, _) = try engine.openPair(in: folder)
        let bookmarks = BookmarkStore(database: database)
        for draft in Self.corpus { try bookmarks.add(draft) }
        #expect(try bookmarks.search("lisbon").map(\.itemID) == Self.pinned[engine.name])
        // Paging cuts the same order.
        #expect(
            try bookmarks.search("lisbon", limit: 2, offset: 1).map(\.itemID)
                == Array((Self.pinned[engine.name] ?? [])[1...2]))
    }

    /// What a search finds is the same on every engine, whatever the order: the words of a
    /// URL, of a tag, of a note, and prefixes of them.
    @Test(arguments: ContractEngine.all)
    func aSearchFindsTheSameBookmarksOnEveryEngine(engine: ContractEngine) throws {
        let (database, _) = try engine.openPair(in: folder)
        let bookmarks = BookmarkStore(database: database)
        for draft in Self.corpus { try bookmarks.add(draft) }
        let expected: [(String, [String])] = [
            ("lisbon", ["city", "guide", "long", "notes", "tagged"]),
            ("lisb*", ["city", "guide", "long", "notes", "tagged"]),
            ("example", ["guide"]),
            ("harbour", ["notes", "tagged"]),
            ("sintra", ["long", "notes"]),
            ("porto", ["porto"]),
            ("lisbon sintra", ["long", "notes"]),
        ]
        for (text, found) in expected {
            #expect(try bookmarks.search(text).map(\.itemID).sorted() == found, "\(text)")
        }
    }
}
