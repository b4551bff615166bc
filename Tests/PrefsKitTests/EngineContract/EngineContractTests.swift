import Foundation
import PrefsInterchange
import PrefsTestSupport
import TestSupport
import Testing

@testable import PrefsKit

/// What every storage engine must do, written once against the public stores and run for
/// each engine in ``ContractEngine/all``.
@Suite struct EngineContractTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    private static let everyType: [String: PreferenceValue] = [
        "bool": .bool(true), "int": .int(-42), "double": .double(0.1),
        "string": .string("Zoë 🏔"), "url": .url(URL(string: "https://example.com/a?b=1")!),
        "date": .date(Date(timeIntervalSinceReferenceDate: 123_456.789_012_345)),
        "data": .data(Data([0, 255, 7])),
        "array": .array([.int(1), .string("two"), .bool(false)]),
        "dictionary": .dictionary(["volume": .double(0.5), "muted": .bool(false)]),
        "json": .json(#"{"theme":"dark"}"#),
        "float": .float(12.34),
        "nan": .double(.nan),
        "infinity": .double(-.infinity),
        "float nan": .float(.nan),
        "float infinity": .float(.infinity),
    ]

    @Test(arguments: ContractEngine.all)
    func everyTypeRoundTripsThroughAnotherConnection(engine: ContractEngine) throws {
        let (first, second) = try engine.openPair(in: folder)
        let writer = PreferenceStore(database: first)
        for (key, value) in Self.everyType { try writer.setValue(value, forKey: key) }
        let reader = PreferenceStore(database: second, suite: PreferenceStore.standardSuite)
        #expect(try reader.storedValues() == Self.everyType)
        for (key, value) in Self.everyType { #expect(try reader.value(forKey: key) == value) }
        #expect(try reader.suites() == ["standard"])
    }

    /// Paging means one thing on every engine: `limit: -1` returned every row on SQLite and
    /// none on PostgreSQL. A negative limit or offset is refused, naming it; a huge one
    /// is a page past the end or the whole list, on every engine alike.
    @Test(arguments: ContractEngine.all)
    func negativeAndHugeLimitsAndOffsetsMeanTheSameOnEveryEngine(engine: ContractEngine) throws {
        let (database, _) = try engine.openPair(in: folder)
        let bookmarks = BookmarkStore(database: database)
        for index in 0..<5 {
            try bookmarks.add(
                BookmarkDraft(kind: "trip", itemID: "t\(index)", title: "Trip \(index)"))
        }
        for (limit, offset) in [(-1, 0), (Int.min, 0), (nil, -1), (2, Int.min)] as [(Int?, Int)] {
            #expect(
                throws: BookmarkError.self, "limit \(String(describing: limit)), offset \(offset)"
            ) {
                try bookmarks.list(BookmarkQuery(limit: limit, offset: offset))
            }
            #expect(throws: BookmarkError.self) {
                try bookmarks.groupedByFolder(BookmarkQuery(limit: limit, offset: offset))
            }
            #expect(throws: BookmarkError.self) {
                try bookmarks.search("trip", limit: limit ?? 50, offset: offset)
            }
        }
        let all = try bookmarks.list(BookmarkQuery(limit: Int.max))
        #expect(all.map(\.itemID) == ["t0", "t1", "t2", "t3", "t4"])
        #expect(try bookmarks.list(BookmarkQuery(limit: 0)).isEmpty)
        #expect(try bookmarks.list(BookmarkQuery(offset: Int.max)).isEmpty)
        #expect(try bookmarks.list(BookmarkQuery(limit: Int.max, offset: Int.max)).isEmpty)
        #expect(
            try bookmarks.list(BookmarkQuery(limit: 2, offset: 3)).map(\.itemID) == ["t3", "t4"])
        #expect(try bookmarks.search("trip", limit: Int.max).count == 5)
        #expect(try bookmarks.search("trip", limit: 0).isEmpty)
        #expect(try bookmarks.search("trip", limit: 10, offset: Int.max).isEmpty)
    }

    /// Every filter, order and page of a listing means what the reference below says, on
    /// every engine: the plan of a query is decided once above the engines
    /// (`Storage/BookmarkQueryPlan.swift`), and each only renders it. The grid: each filter
    /// on or off (a one-name folder path covers the category's folder, which has no row),
    /// every sort both ways, with and without a page.
    @Test(arguments: ContractEngine.all)
    func everyFilterOrderAndPageMeansWhatTheReferenceSays(engine: ContractEngine) throws {
        let (database, _) = try engine.openPair(in: folder)
        let bookmarks = BookmarkStore(database: database)
        let titles = ["beta", "Alpha", "alpha", "Gamma", "_under", "delta", "Beta", "éclair"]
        for (index, title) in titles.enumerated() {
            try bookmarks.add(
                BookmarkDraft(
                    kind: index % 3 == 0 ? "trip" : "movie", itemID: "i\(index)", title: title,
                    category: index % 2 == 0 ? "Europe" : nil,
                    folder: index % 4 == 1 ? ["Europe", "South"] : nil,
                    tags: index % 3 == 1 ? ["seen"] : []))
        }
        let all = try bookmarks.list()
        #expect(all.count == titles.count)
        func titleKey(_ title: String) -> [UInt8] {
            title.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }
        }
        func reference(_ query: BookmarkQuery) -> [String] {
            var rows = all.filter { bookmark in
                (query.kind.map { bookmark.kind == $0 } ?? true)
                    && (query.category.map { bookmark.category == $0 } ?? true)
                    && (query.folder.map { Array(bookmark.folder.prefix($0.count)) == $0 } ?? true)
                    && (query.tag.map { bookmark.tags.contains($0) } ?? true)
            }
            rows.sort { a, b in
                switch query.sort {
                case .position:
                    a.kind != b.kind
                        ? a.kind.utf8.lexicographicallyPrecedes(b.kind.utf8)
                        : a.position < b.position
                case .created: a.createdAt != b.createdAt ? a.createdAt < b.createdAt : a.id < b.id
                case .title:
                    titleKey(a.title) != titleKey(b.title)
                        ? titleKey(a.title).lexicographicallyPrecedes(titleKey(b.title))
                        : a.id < b.id
                }
            }
            if query.isDescending { rows.reverse() }
            let page = rows.dropFirst(query.offset)
            return (query.limit.map { Array(page.prefix($0)) } ?? Array(page)).map(\.itemID)
        }
        var checked = 0
        for kind in [nil, "trip"] as [String?] {
            for category in [nil, "Europe"] as [String?] {
                for path in [nil, ["Europe"], ["Europe", "South"]] as [[String]?] {
                    for tag in [nil, "seen"] as [String?] {
                        for sort in BookmarkQuery.Sort.allCases {
                            for isDescending in [false, true] {
                                for (limit, offset) in [(nil, 0), (2, 1), (nil, 3)] as [(Int?, Int)]
                                {
                                    let query = BookmarkQuery(
                                        kind: kind, category: category, folder: path, tag: tag,
                                        sort: sort, isDescending: isDescending, limit: limit,
                                        offset: offset)
                                    #expect(
                                        try bookmarks.list(query).map(\.itemID)
                                            == reference(query), "\(query)")
                                    var unpaged = query
                                    unpaged.limit = nil
                                    unpaged.offset = 0
                                    #expect(
                                        try bookmarks.count(query) == reference(unpaged).count,
                                        "\(query)")
                                    checked += 1
                                }
                            }
                        }
                    }
                }
            }
        }
        #expect(checked == 432)
    }

    /// A write of the value already stored, of any type, is no change on any engine: no
    /// history row, and no observer of the value is told.
    @Test(arguments: ContractEngine.all)
    func writingEveryStoredValueAgainChangesNothing(engine: ContractEngine) throws {
        let (database, _) = try engine.openPair(in: folder)
        let store = PreferenceStore(database: database)
        for (key, value) in Self.everyType { try store.setValue(value, forKey: key) }
        let history = try store.history(limit: 1000).count
        let observed = trackObservation {
            for key in Self.everyType.keys { _ = store.hasStoredValue(forKey: key) }
            _ = store[.hasViewedWalkthrough]
        }
        for (key, value) in Self.everyType { try store.setValue(value, forKey: key) }
        #expect(try store.history(limit: 1000).count == history)
        #expect(observed.value == 0)
        try store.setValue(.double(0.2), forKey: "double")
        #expect(try store.history(limit: 1000).count == history + 1)
    }

    /// `delete --forget`: the key's values leave the history, on every engine; its last
    /// change stays (as a removal with no value), and other keys and suites keep theirs.
    @Test(arguments: ContractEngine.all)
    func forgettingAKeyLeavesNoValueOfItInTheHistory(engine: ContractEngine) throws {
        let (database, other) = try engine.openPair(in: folder)
        let store = PreferenceStore(database: database)
        let work = PreferenceStore(database: database, suite: "work")
        try store.setValue(.string("secret-1"), forKey: "token")
        try store.setValue(.string("secret-2"), forKey: "token")
        try store.setValue(.string("kept"), forKey: "other")
        try work.setValue(.string("work-secret"), forKey: "token")
        #expect(try store.forgetValue(forKey: "token") == 2)
        let reader = PreferenceStore(database: other)
        #expect(try reader.storedValue(forKey: "token") == nil)
        let changes = try reader.history(forKey: "token")
        #expect(changes.count == 1)
        #expect(changes.allSatisfy { $0.value == nil && $0.oldValue == nil })
        #expect(try reader.history(forKey: "other").count == 1)
        #expect(try work.history(forKey: "token").count == 1)
        #expect(try work.storedValue(forKey: "token") == .string("work-secret"))
    }

    /// Forgetting is by the key's bytes: another spelling that Swift calls equal ("é" and
    /// "e" with a combining accent) keeps its value and its history, on every engine.
    @Test(arguments: ContractEngine.all)
    func forgettingOneSpellingOfAKeyLeavesTheOtherSpellingsHistory(engine: ContractEngine)
        throws
    {
        let (database, _) = try engine.openPair(in: folder)
        let store = PreferenceStore(database: database)
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        try store.setValue(.string("composed-secret"), forKey: composed)
        try store.setValue(.string("decomposed-kept"), forKey: decomposed)
        #expect(try store.forgetValue(forKey: composed) == 1)
        #expect(try store.storedValue(forKey: decomposed) == .string("decomposed-kept"))
        let kept = try store.history(forKey: decomposed)
        #expect(kept.count == 1)
        #expect(kept.first?.value == .string("decomposed-kept"))
        #expect(try store.history(forKey: composed).allSatisfy { $0.value == nil })
    }

    @Test(arguments: ContractEngine.all)
    func suitesAreSeparateAndRemovalsAreCounted(engine: ContractEngine) throws {
        let (database, _) = try engine.openPair(in: folder)
        let standard = PreferenceStore(database: database)
        let widget = PreferenceStore(database: database, suite: "widget")
        try standard.setValue(.int(1), forKey: "a")
        try widget.setValue(.int(2), forKey: "a")
        try widget.setValue(.int(3), forKey: "b")
        #expect(try standard.value(forKey: "a") == .int(1))
        #expect(try widget.value(forKey: "a") == .int(2))
        #expect(try standard.suites() == ["standard", "widget"])
        #expect(try widget.removeAll() == 2)
        #expect(try widget.storedValues().isEmpty)
        #expect(try standard.storedValues() == ["a": .int(1)])
        try standard.setValue(nil, forKey: "a")
        #expect(try standard.value(forKey: "a") == nil)
    }

    @Test(arguments: ContractEngine.all)
    func typedKeysReadTheirDefaultsUntilSetAndAgainAfterRemoval(engine: ContractEngine) throws {
        let (database, _) = try engine.openPair(in: folder)
        let store = PreferenceStore(database: database)
        #expect(store[.hasViewedWalkthrough] == false)
        try store.set(true, for: .hasViewedWalkthrough)
        #expect(store[.hasViewedWalkthrough] == true)
        try store.removeValue(for: .hasViewedWalkthrough)
        #expect(store[.hasViewedWalkthrough] == false)
        store.register(defaults: ["hasViewedWalkthrough": true], scope: .suite)
        #expect(store[.hasViewedWalkthrough] == true)
        #expect(!store.hasStoredValue(forKey: "hasViewedWalkthrough"))
    }

    @Test(arguments: ContractEngine.all)
    func declarationsAreStoredAndEnforced(engine: ContractEngine) throws {
        let (first, second) = try engine.openPair(in: folder)
        let store = PreferenceStore(database: first)
        try store.declare(
            PreferenceDeclaration(
                key: "volume", type: .double, defaultValue: .double(0.5), description: "Sound"))
        let declared = try PreferenceStore(database: second).declarations()
        #expect(declared.map(\.key) == ["volume"])
        #expect(declared.first?.defaultValue == .double(0.5))
        #expect(declared.first?.description == "Sound")
        #expect(
            throws: PreferenceError.typeMismatch(key: "volume", declared: .double, given: .string)
        ) {
            try store.setValue(.string("loud"), forKey: "volume")
        }
        #expect(try store.storedValue(forKey: "volume") == nil)
        // A key that stays on its device says so on every engine.
        #expect(declared.first?.isDeviceLocal == false)
        try store.declare(
            PreferenceDeclaration(key: "windowWidth", type: .int, isDeviceLocal: true))
        let local = try PreferenceStore(database: second).declarations().first {
            $0.key == "windowWidth"
        }
        #expect(local?.isDeviceLocal == true)
    }

    /// A set of another type than the declared one, on a key that holds a value: refused,
    /// the value and the history as they were, in a transaction as alone; a set of the held
    /// value with the declared type is no refusal.
    @Test(arguments: ContractEngine.all)
    func aSetRefusedByItsDeclarationCommitsNothingOfItsTransaction(engine: ContractEngine) throws {
        let (first, second) = try engine.openPair(in: folder)
        let store = PreferenceStore(database: first)
        try store.setValue(.int(3), forKey: "pages")
        try PreferenceStore(database: second).declare(
            PreferenceDeclaration(key: "pages", type: .int))
        let mismatch = PreferenceError.typeMismatch(key: "pages", declared: .int, given: .string)
        #expect(throws: mismatch) { try store.setValue(.string("three"), forKey: "pages") }
        #expect(throws: mismatch) {
            try store.transaction { edit in
                try edit.setValue(.int(4), forKey: "other")
                try edit.setValue(.string("three"), forKey: "pages")
            }
        }
        try store.setValue(.int(3), forKey: "pages")
        let reader = PreferenceStore(database: second)
        #expect(try reader.storedValue(forKey: "pages") == .int(3))
        #expect(try reader.storedValue(forKey: "other") == nil)
        #expect(try reader.history(forKey: "pages").map(\.value) == [.int(3)])
    }

    /// A declaration another connection commits binds this connection's next set of the key,
    /// however many sets of it this connection checked before (an engine that keeps the
    /// declared types it read keeps them only while no other connection commits).
    @Test(arguments: ContractEngine.all)
    func aDeclarationOfAnotherConnectionBindsTheNextSet(engine: ContractEngine) throws {
        let (first, second) = try engine.openPair(in: folder)
        let store = PreferenceStore(database: first)
        for value in 1...3 { try store.setValue(.int(value), forKey: "mode") }
        try PreferenceStore(database: second).declare(
            PreferenceDeclaration(key: "mode", type: .string))
        #expect(throws: PreferenceError.typeMismatch(key: "mode", declared: .string, given: .int)) {
            try store.setValue(.int(4), forKey: "mode")
        }
        #expect(try store.storedValue(forKey: "mode") == .int(3))
    }

    /// A declaration made in a transaction that rolls back binds no later set, though a set
    /// in that transaction was checked against it.
    @Test(arguments: ContractEngine.all)
    func aDeclarationRolledBackBindsNoLaterSet(engine: ContractEngine) throws {
        let (first, _) = try engine.openPair(in: folder)
        let store = PreferenceStore(database: first)
        try store.setValue(.int(1), forKey: "mode")
        struct Undone: Error {}
        #expect(throws: Undone.self) {
            try store.transaction { transaction in
                try store.declare(PreferenceDeclaration(key: "mode", type: .string))
                try transaction.setValue(.string("dark"), forKey: "mode")
                throw Undone()
            }
        }
        try store.setValue(.int(2), forKey: "mode")
        #expect(try store.storedValue(forKey: "mode") == .int(2))
        #expect(try store.declarations().isEmpty)
    }

    /// A set that no observer waits for, with no other connection's commit since the last
    /// look, is not read back from the history (an engine may put the written value in its
    /// caches instead): what a cached read gives after it is what a read of the database
    /// gives, for every type.
    @Test(arguments: ContractEngine.all)
    func anOwnSetReadsBackFromTheCacheAsTheDatabaseHoldsIt(engine: ContractEngine) throws {
        let (first, second) = try engine.openPair(in: folder)
        let store = PreferenceStore(database: first)
        let values = Self.valuesStoredInOtherForms(on: engine)
        for (index, value) in values.enumerated() {
            // Read first, so that the key's cached value is the one the write must replace.
            _ = try store.value(forKey: "k\(index)")
            try store.setValue(value, forKey: "k\(index)")
            let fromDatabase = try PreferenceStore(database: second).storedValue(
                forKey: "k\(index)")
            #expect(try store.value(forKey: "k\(index)") == fromDatabase)
            #expect(fromDatabase != nil)
        }
        try store.setValue(nil, forKey: "k1")
        #expect(try store.value(forKey: "k1") == nil)
        // A change of a key read under Observation is told, once.
        let observed = trackObservation { _ = store.hasStoredValue(forKey: "k0") }
        try store.setValue(.bool(false), forKey: "k0")
        #expect(observed.value == 1)
    }

    /// Every type, and the values a database gives back in another form than they were
    /// written in (NaN, -0.0, a URL's case, nested containers, NUL).
    static let valuesStoredInOtherForms: [PreferenceValue] = [
        .bool(true), .int(-7), .double(.nan), .double(-0.0), .float(12.34),
        .string("e\u{301}"), .url(URL(string: "https://example.com/a%20b?q=1#f")!),
        .date(Date(timeIntervalSinceReferenceDate: 1.5)), .data(Data([0, 255])),
        .array([.int(1), .string("x")]), .dictionary(["k": .bool(false)]),
        .json("{\"a\": [1, 2]}"),
        .array([
            .float(1.5), .date(Date(timeIntervalSinceReferenceDate: 0.1)),
            .url(URL(string: "HTTP://EXAMPLE.com/%7e")!), .double(-0.0), .int(Int.max),
        ]),
        .dictionary(["f": .float(.nan), "u": .url(URL(string: "a:b")!), "n": .array([])]),
        .url(URL(string: "HTTP://EXAMPLE.com/%7e")!), .float(.infinity),
        .double(.leastNonzeroMagnitude),
        .string("\u{0}nul"),
    ]

    /// ``valuesStoredInOtherForms`` that the engine stores (text with a NUL where its text
    /// holds one).
    static func valuesStoredInOtherForms(on engine: ContractEngine) -> [PreferenceValue] {
        valuesStoredInOtherForms.filter { engine.textHoldsNUL || $0 != .string("\u{0}nul") }
    }

    /// A string with a NUL character (U+0000) is stored whole where the engine's text holds
    /// one, and else refused whole, with its reason: never cut at the NUL (libpq's C strings
    /// end there, and PostgreSQL once stored "" for "\u{0}nul" without a word). Refused, it
    /// changes nothing: the value before stays, the other set of its transaction is not
    /// stored, and a declaration's default with one is refused too.
    @Test(arguments: ContractEngine.all)
    func aStringWithANULIsStoredWholeOrRefusedWhole(engine: ContractEngine) throws {
        // The reader looks for other commits at every read.
        let (first, second) = try engine.openPair(in: folder, changeCheckIntervalMilliseconds: 0)
        let store = PreferenceStore(database: first)
        let reader = PreferenceStore(database: second)
        try store.setValue(.string("before"), forKey: "name")
        let nul = PreferenceValue.string("a\u{0}b")
        if engine.textHoldsNUL {
            try store.setValue(nul, forKey: "name")
            #expect(try reader.storedValue(forKey: "name") == nul)
            #expect(try store.value(forKey: "name") == nul)
            return
        }
        let refused = PreferenceError.invalidValue(
            key: "name",
            reason: "text with a NUL character (U+0000) cannot be stored in PostgreSQL, "
                + "whose text cannot hold it")
        #expect(throws: refused) { try store.setValue(nul, forKey: "name") }
        #expect(throws: refused) {
            try store.transaction { edit in
                try edit.setValue(.int(1), forKey: "other")
                try edit.setValue(nul, forKey: "name")
            }
        }
        #expect(throws: PreferenceError.self) {
            try store.declare(PreferenceDeclaration(key: "name", type: .string, defaultValue: nul))
        }
        #expect(try reader.storedValue(forKey: "name") == .string("before"))
        #expect(try store.value(forKey: "name") == .string("before"))
        #expect(try reader.storedValue(forKey: "other") == nil)
        #expect(try store.declarations().isEmpty)
    }

    /// The sets of one transaction that no observer waits for, as one set: what cached reads
    /// give after the commit is what a read of the database gives, for every type, for a key
    /// set twice and for one removed in the same transaction.
    @Test(arguments: ContractEngine.all)
    func aTransactionsSetsReadBackFromTheCacheAsTheDatabaseHoldsThem(engine: ContractEngine)
        throws
    {
        let (first, second) = try engine.openPair(in: folder)
        let store = PreferenceStore(database: first)
        let values = Self.valuesStoredInOtherForms(on: engine)
        try store.setValue(.int(1), forKey: "removed")
        for index in values.indices { _ = try store.value(forKey: "k\(index)") }
        try store.transaction { edit in
            for (index, value) in values.enumerated() {
                try edit.setValue(value, forKey: "k\(index)")
            }
            try edit.setValue(.int(1), forKey: "twice")
            try edit.setValue(.int(2), forKey: "twice")
            try edit.setValue(nil, forKey: "removed")
        }
        let reader = PreferenceStore(database: second)
        for index in values.indices {
            let fromDatabase = try reader.storedValue(forKey: "k\(index)")
            #expect(try store.value(forKey: "k\(index)") == fromDatabase)
            #expect(fromDatabase != nil)
        }
        #expect(try store.value(forKey: "twice") == .int(2))
        #expect(try store.value(forKey: "removed") == nil)
        #expect(try reader.storedValue(forKey: "removed") == nil)
    }

    /// A transaction of more sets than the feed's record of them holds has its rows read
    /// back: cached reads after it give what the database holds, a value read before it
    /// included. (SQLite alone: the other engines read the rows back whatever the record
    /// holds, and 8,000 sets there take seconds.)
    @Test(arguments: [ContractEngine.sqlite])
    func aTransactionOfMoreSetsThanTheRecordHoldsReadsBackAsTheDatabaseHoldsThem(
        engine: ContractEngine
    ) throws {
        let (first, second) = try engine.openPair(in: folder)
        let store = PreferenceStore(database: first)
        let count = ChangeFeed.KnownWrites.limit + 10
        try store.setValue(.int(-1), forKey: "k0")
        #expect(try store.value(forKey: "k0") == .int(-1))
        try store.transaction { edit in
            for index in 0..<count { try edit.setValue(.int(index), forKey: "k\(index)") }
        }
        let reader = PreferenceStore(database: second)
        for index in [0, 1, count / 2, count - 1] {
            #expect(try store.value(forKey: "k\(index)") == .int(index))
            #expect(try reader.storedValue(forKey: "k\(index)") == .int(index))
        }
    }

    /// A set in a transaction nested inside another, rolled back while the outer one
    /// commits, leaves nothing in the caches: the write was counted as it happened, and its
    /// row is gone with the nested transaction.
    @Test(arguments: ContractEngine.all)
    func aNestedTransactionRolledBackLeavesItsSetOutOfTheCache(engine: ContractEngine) throws {
        let (first, second) = try engine.openPair(in: folder)
        let store = PreferenceStore(database: first)
        #expect(try store.value(forKey: "undone") == nil)
        struct Undone: Error {}
        try store.transaction { edit in
            try edit.setValue(.int(1), forKey: "kept")
            #expect(throws: Undone.self) {
                try store.transaction { inner in
                    try inner.setValue(.int(5), forKey: "undone")
                    throw Undone()
                }
            }
        }
        #expect(try store.value(forKey: "undone") == nil)
        #expect(try PreferenceStore(database: second).storedValue(forKey: "undone") == nil)
        #expect(try store.value(forKey: "kept") == .int(1))
    }

    /// A transaction that sets one key to the value it holds and another to a new one tells
    /// Swift's Observation of the second key only.
    @Test(arguments: ContractEngine.all)
    func aTransactionTellsObservationOfTheKeysItChangedOnly(engine: ContractEngine) throws {
        let (first, _) = try engine.openPair(in: folder)
        let store = PreferenceStore(database: first)
        try store.setValue(.int(1), forKey: "same")
        let same = trackObservation { _ = try? store.value(forKey: "same") }
        let changed = trackObservation { _ = try? store.value(forKey: "changed") }
        try store.transaction { edit in
            try edit.setValue(.int(1), forKey: "same")
            try edit.setValue(.int(2), forKey: "changed")
        }
        #expect(same.value == 0)
        #expect(changed.value == 1)
    }

    /// Another connection's commit between two sets of this one reaches this connection's
    /// caches with the second set, though the reads between them do not look for it: the
    /// second set reads the history rows (the token moved), not its own value alone.
    @Test(arguments: ContractEngine.all)
    func anotherCommitBetweenTwoOwnSetsReachesTheCacheWithTheSecond(engine: ContractEngine)
        throws
    {
        let (first, second) = try engine.openPair(
            in: folder, changeCheckIntervalMilliseconds: 3_600_000, watchesForChanges: false)
        let store = PreferenceStore(database: first)
        try store.setValue(.int(1), forKey: "mine")
        #expect(try store.value(forKey: "theirs") == nil)
        try PreferenceStore(database: second).setValue(.int(5), forKey: "theirs")
        try store.setValue(.int(2), forKey: "mine")
        #expect(try store.value(forKey: "theirs") == .int(5))
        #expect(try store.value(forKey: "mine") == .int(2))
    }

    /// Two spellings of a suite that Swift's `==` calls equal are two suites to a
    /// declaration, whichever of them a set wrote to first.
    @Test(arguments: ContractEngine.all)
    func aDeclarationBindsItsOwnSpellingOfASuiteOnly(engine: ContractEngine) throws {
        let (first, _) = try engine.openPair(in: folder)
        let composed = PreferenceStore(database: first, suite: "caf\u{E9}")
        let decomposed = PreferenceStore(database: first, suite: "cafe\u{301}")
        try composed.declare(PreferenceDeclaration(key: "mode", type: .string))
        try decomposed.setValue(.int(1), forKey: "mode")
        #expect(throws: PreferenceError.typeMismatch(key: "mode", declared: .string, given: .int)) {
            try composed.setValue(.int(1), forKey: "mode")
        }
        #expect(try decomposed.storedValue(forKey: "mode") == .int(1))
        #expect(try composed.storedValue(forKey: "mode") == nil)
    }

    /// One title order on every engine, whatever the server's locale: ASCII letters folded,
    /// then the bytes; equal titles by id.
    @Test(arguments: ContractEngine.all)
    func titlesSortInOneOrderOnEveryEngine(engine: ContractEngine) throws {
        let (database, _) = try engine.openPair(in: folder)
        let bookmarks = BookmarkStore(database: database)
        let titles = ["b", "B", "a", "\u{C9}", "\u{E9}", "e", "Z", "_x", "\u{E4}", "A"]
        for (index, title) in titles.enumerated() {
            try bookmarks.add(BookmarkDraft(kind: "t", itemID: "i\(index)", title: title))
        }
        let sorted = try bookmarks.list(BookmarkQuery(kind: "t", sort: .title)).map(\.title)
        #expect(sorted == ["_x", "a", "A", "b", "B", "e", "Z", "\u{C9}", "\u{E4}", "\u{E9}"])
        let descending = try bookmarks.list(
            BookmarkQuery(kind: "t", sort: .title, isDescending: true)
        ).map(\.title)
        #expect(descending == sorted.reversed())
    }

    @Test(arguments: ContractEngine.all)
    func defaultsComeRegisteredThenDeclaredThenFromTheKey(engine: ContractEngine) async throws {
        let (first, second) = try engine.openPair(in: folder, changeCheckIntervalMilliseconds: 0)
        let store = PreferenceStore(database: first)
        #expect(try store.value(forKey: "volume") == nil)
        #expect(store[.volume] == 0.5)
        // Once read, the typed key's default is what the untyped getters read too.
        #expect(try store.value(forKey: "volume") == .double(0.5))
        try PreferenceStore(database: second).declare(
            PreferenceDeclaration(key: "volume", type: .double, defaultValue: .double(0.8)))
        // Another connection's commit: a server's notification may take a moment.
        #expect(await waitUntil { store[.volume] == 0.8 })
        #expect(try store.value(forKey: "volume") == .double(0.8))
        store.register(defaults: ["volume": 0.3], scope: .suite)
        #expect(store[.volume] == 0.3)
        try store.set(1.0, for: .volume)
        #expect(store[.volume] == 1.0)
        try store.removeValue(for: .volume)
        #expect(store[.volume] == 0.3)
    }

    @Test(arguments: ContractEngine.all)
    func aTransactionCommitsAllOrNothing(engine: ContractEngine) throws {
        let (first, second) = try engine.openPair(in: folder)
        let store = PreferenceStore(database: first)
        struct Abandoned: Error {}
        #expect(throws: Abandoned.self) {
            try store.transaction { edit in
                try edit.setValue(.int(1), forKey: "a")
                #expect(try edit.value(forKey: "a") == .int(1))
                throw Abandoned()
            }
        }
        #expect(try store.value(forKey: "a") == nil)
        try store.transaction { edit in
            try edit.setValue(.int(1), forKey: "a")
            try edit.setValue(.int(2), forKey: "b")
        }
        #expect(
            try PreferenceStore(database: second).storedValues() == ["a": .int(1), "b": .int(2)])
    }

    @Test(arguments: ContractEngine.all)
    func historyIsNewestFirstAndKeptWithinItsLimit(engine: ContractEngine) throws {
        let (database, _) = try engine.openPair(in: folder)
        let store = PreferenceStore(database: database)
        #expect(try store.historyLimit() == 10_000)
        try store.setHistoryLimit(3)
        for value in 1...10 { try store.setValue(.int(value), forKey: "count") }
        try store.setValue(.int(10), forKey: "count")  // what is there already: no change
        try store.setValue(nil, forKey: "count")
        try store.setValue(nil, forKey: "count")  // nothing to remove: no change
        let history = try store.history()
        #expect(history.map(\.value) == [nil, .int(10), .int(9)])
        #expect(history.map(\.oldValue) == [.int(10), .int(9), .int(8)])
        #expect(history.map(\.id) == history.map(\.id).sorted(by: >))
        let error = #expect(throws: PreferenceError.self) { try store.setHistoryLimit(0) }
        #expect(
            error?.description
                == "Invalid value for 'history limit': 0 is below 1; the newest change is always kept, as other processes learn of changes through it"
        )
        #expect(try store.historyLimit() == 3)

        // Raised, the limit keeps more from then on; lowered, it drops the oldest at once;
        // each later write drops exactly the one that falls out.
        try store.setHistoryLimit(5)
        for value in 1...7 { try store.setValue(.int(value), forKey: "other") }
        #expect(try store.history(limit: 100).count == 5)
        try store.setHistoryLimit(2)
        #expect(try store.history(limit: 100).map(\.value) == [.int(7), .int(6)])
        for value in 8...9 { try store.setValue(.int(value), forKey: "other") }
        #expect(try store.history(limit: 100).map(\.value) == [.int(9), .int(8)])
    }

    @Test(arguments: ContractEngine.all)
    func selectionsFollowTheirPolicies(engine: ContractEngine) throws {
        let (first, second) = try engine.openPair(in: folder)
        let selections = SelectionStore(database: first)
        try selections.define("carousel", count: 13, policy: .clamp, initialIndex: 2)
        for _ in 0..<20 { _ = try selections.next("carousel") }
        #expect(try selections.selection(named: "carousel")?.index == 12)
        try selections.define("pager", count: 4, policy: .wrap)
        #expect(try selections.previous("pager").index == 3)
        try selections.define("list", count: 5, policy: .optional)
        #expect(try selections.select(4, itemID: "a5", in: "list").itemID == "a5")
        #expect(try selections.clear("list").index == nil)
        #expect(throws: SelectionError.indexOutOfRange(name: "carousel", index: 13, count: 13)) {
            try selections.select(13, in: "carousel")
        }
        let seen = SelectionStore(database: second)
        #expect(try seen.all().map(\.name) == ["carousel", "list", "pager"])
        #expect(try seen.selection(named: "carousel")?.index == 12)
        #expect(try seen.remove("pager"))
        #expect(try selections.selection(named: "pager") == nil)
    }

    @Test(arguments: ContractEngine.all)
    func bookmarksKeepDensePositionsTagsAndFolders(engine: ContractEngine) throws {
        let (first, second) = try engine.openPair(in: folder)
        let bookmarks = BookmarkStore(database: first)
        let trip = try bookmarks.add(
            BookmarkDraft(kind: "trip", itemID: "london", title: "London", tags: ["uk", "city"]))
        try bookmarks.add(BookmarkDraft(kind: "trip", itemID: "paris", title: "Paris"))
        try bookmarks.add(
            BookmarkDraft(kind: "trip", itemID: "rome", title: "Rome", folder: ["Europe", "South"]))
        #expect(trip.tags == ["city", "uk"])
        #expect(try bookmarks.list().map(\.itemID) == ["london", "paris", "rome"])
        _ = try bookmarks.move(id: trip.id, to: 2)
        #expect(try bookmarks.list().map(\.itemID) == ["paris", "rome", "london"])
        #expect(try bookmarks.remove(kind: "trip", itemID: "paris"))
        let other = BookmarkStore(database: second)
        #expect(try other.list().map(\.position) == [0, 1])
        #expect(try other.list(BookmarkQuery(tag: "uk")).map(\.itemID) == ["london"])
        #expect(try other.bookmark(kind: "trip", itemID: "rome")?.folder == ["Europe", "South"])
        #expect(try other.folders().map(\.name).contains("South"))
        #expect(try other.isBookmarked(kind: "trip", itemID: "london"))
        #expect(try !other.toggle(BookmarkDraft(kind: "trip", itemID: "london", title: "London")))
        #expect(try bookmarks.count() == 1)
    }

    /// The bookmark rules (Sources/PrefsKit/Storage/BookmarkRules.swift), decided once above
    /// the engines: dense positions per kind through moves both ways and deletes in the
    /// middle, a place out of range refused, other kinds untouched, folder placement and the
    /// folder filter (a one-name path also covers the category's folder, which has no row).
    @Test(arguments: ContractEngine.all)
    func bookmarkRulesHoldTheSameOnEveryEngine(engine: ContractEngine) throws {
        let (first, second) = try engine.openPair(in: folder)
        let bookmarks = BookmarkStore(database: first)
        var ids: [String: Int64] = [:]
        for item in ["a", "b", "c", "d", "e"] {
            ids[item] = try bookmarks.add(
                BookmarkDraft(kind: "movie", itemID: item, title: item.uppercased())
            ).id
        }
        try bookmarks.add(BookmarkDraft(kind: "book", itemID: "x", title: "X"))
        func order(_ store: BookmarkStore = bookmarks) throws -> String {
            try store.list(BookmarkQuery(kind: "movie")).map(\.itemID).joined()
        }
        _ = try bookmarks.move(id: try #require(ids["e"]), to: 1)
        #expect(try order() == "aebcd")
        _ = try bookmarks.move(id: try #require(ids["a"]), to: 3)
        #expect(try order() == "ebcad")
        _ = try bookmarks.move(id: try #require(ids["c"]), to: 2)
        #expect(try order() == "ebcad")
        #expect(throws: BookmarkError.positionOutOfRange(position: 5, count: 5, kind: "movie")) {
            try bookmarks.move(id: try #require(ids["a"]), to: 5)
        }
        #expect(try bookmarks.remove(kind: "movie", itemID: "c"))
        #expect(try !bookmarks.remove(kind: "movie", itemID: "c"))
        let other = BookmarkStore(database: second)
        #expect(try order(other) == "ebad")
        #expect(try other.list(BookmarkQuery(kind: "movie")).map(\.position) == [0, 1, 2, 3])
        #expect(try other.list(BookmarkQuery(kind: "book")).map(\.position) == [0])
        // Folders: a one-name path is the category's folder (no row); deeper ones are rows.
        try bookmarks.add(
            BookmarkDraft(kind: "trip", itemID: "lisbon", title: "Lisbon", category: "Europe"))
        try bookmarks.add(
            BookmarkDraft(
                kind: "trip", itemID: "porto", title: "Porto", folder: ["Europe", "Portugal"]))
        try bookmarks.add(
            BookmarkDraft(kind: "trip", itemID: "kyoto", title: "Kyoto", folder: ["Asia"]))
        #expect(try other.folders().map(\.name) == ["Europe", "Portugal"])
        #expect(
            try other.list(BookmarkQuery(folder: ["Europe"])).map(\.itemID).sorted()
                == ["lisbon", "porto"])
        #expect(
            try other.list(BookmarkQuery(folder: ["Europe", "Portugal"])).map(\.itemID) == ["porto"]
        )
        #expect(try other.list(BookmarkQuery(folder: ["Asia"])).map(\.itemID) == ["kyoto"])
        #expect(try other.bookmark(kind: "trip", itemID: "kyoto")?.folder == ["Asia"])
    }

    /// A browser's bookmark file groups the same bookmarks under the same headings on every
    /// engine (the groups are planned above the engines): a top-level folder's row holds
    /// its rows and the bookmarks in no folder of its category, in list order (kind, then
    /// position); a category with no folder row gets its own heading; bookmarks with neither
    /// come last. An import with explicit positions is numbered densely per kind.
    @Test(arguments: ContractEngine.all)
    func aBrowserFileAndImportedPositionsMeanTheSameOnEveryEngine(engine: ContractEngine) throws {
        let (database, other) = try engine.openPair(in: folder)
        let bookmarks = BookmarkStore(database: database)
        func link(_ name: String, category: String? = nil, folder: [String]? = nil)
            -> BookmarkDraft
        {
            BookmarkDraft(
                kind: "link", itemID: "https://example.com/" + name, title: name,
                url: URL(string: "https://example.com/" + name), category: category,
                folder: folder)
        }
        try bookmarks.add(link("lisbon", category: "Europe"))
        try bookmarks.add(link("porto", folder: ["Europe", "Portugal"]))
        try bookmarks.add(link("loose"))
        try bookmarks.add(link("kyoto", category: "Asia"))
        try bookmarks.add(link("madrid", category: "Europe"))
        try bookmarks.add(
            BookmarkDraft(kind: "book", itemID: "b", title: "atlas", category: "Europe"))
        let lines = try BookmarkStore(database: other).exportHTML()
            .split(separator: "\n").compactMap { line -> String? in
                guard let close = line.range(of: "</", options: .backwards),
                    let open = line[..<close.lowerBound].lastIndex(of: ">")
                else { return nil }
                let name = line[line.index(after: open)..<close.lowerBound]
                return line.contains("<H3") ? "[\(name)]" : String(name)
            }
        #expect(
            lines == [
                "Bookmarks", "Bookmarks", "[Europe]", "[Portugal]", "porto", "atlas", "lisbon",
                "madrid", "[Asia]",
                "kyoto", "loose",
            ],
            "\(lines)")
        // Our own export's positions, with a gap and a tie, come back dense per kind.
        let document = """
            {"format": "prefs-bookmarks", "version": 1, "bookmarks": [
            {"kind": "film", "itemID": "x", "title": "X", "position": 7},
            {"kind": "film", "itemID": "y", "title": "Y", "position": 3},
            {"kind": "film", "itemID": "z", "title": "Z", "position": 3}]}
            """
        _ = try bookmarks.importJSON(document)
        let films = try BookmarkStore(database: other).list(BookmarkQuery(kind: "film"))
        #expect(films.map(\.itemID) == ["y", "z", "x"])
        #expect(films.map(\.position) == [0, 1, 2])
    }

    @Test(arguments: ContractEngine.all)
    func searchMatchesWordsAndPrefixesAndTreatsSyntaxAsText(engine: ContractEngine) throws {
        let (database, _) = try engine.openPair(in: folder)
        let bookmarks = BookmarkStore(database: database)
        try bookmarks.add(
            BookmarkDraft(kind: "trip", itemID: "london", title: "London Eye", tags: ["uk"]))
        try bookmarks.add(
            BookmarkDraft(kind: "movie", itemID: "endgame", title: "Avengers: Endgame"))
        try bookmarks.add(
            BookmarkDraft(kind: "note", itemID: "q", title: "Quotes", note: #"say "OR" NEAR here"#))
        #expect(try bookmarks.search("lond*").map(\.itemID) == ["london"])
        #expect(try bookmarks.search("lond").isEmpty)
        #expect(try bookmarks.search("ÉNDGAME").map(\.itemID) == ["endgame"])
        #expect(try bookmarks.search("london uk").map(\.itemID) == ["london"])
        #expect(try bookmarks.search("london endgame").isEmpty)
        #expect(try bookmarks.search(#""OR" NEAR("#).map(\.itemID) == ["q"])
        #expect(throws: BookmarkError.invalid("The search text is empty")) {
            try bookmarks.search(" * \" ")
        }
    }

    @Test(arguments: ContractEngine.all)
    func anotherConnectionsCommitReachesCachedReadsAndObservers(engine: ContractEngine) async throws
    {
        let (first, second) = try engine.openPair(in: folder, changeCheckIntervalMilliseconds: 0)
        let observed = PreferenceStore(database: first)
        #expect(observed[.launchCount] == 0)  // cached from now on
        let seen = Collected<Int>()
        let task = Task {
            for await value in observed.values(for: .launchCount) { seen.append(value) }
        }
        defer { task.cancel() }
        #expect(await seen.wait(upTo: 10) { $0 == [0] })
        try PreferenceStore(database: second).set(41, for: .launchCount)
        #expect(await waitUntil { observed[.launchCount] == 41 })
        #expect(await seen.wait(upTo: 10) { $0 == [0, 41] })
    }

    /// A commit reads the history after it (in the commit's round trip on a server): the
    /// other connection's earlier commit is in the cache as soon as this one's write returns,
    /// with an hour before the cache would look by itself and no watching of the file.
    @Test(arguments: ContractEngine.all)
    func aCommitBringsInWhatOtherConnectionsCommittedBeforeIt(engine: ContractEngine) throws {
        let (first, second) = try engine.openPair(
            in: folder, changeCheckIntervalMilliseconds: 3_600_000, watchesForChanges: false)
        let store = PreferenceStore(database: first)
        #expect(store[.launchCount] == 0)  // cached from now on
        try PreferenceStore(database: second).set(41, for: .launchCount)
        #expect(store[.launchCount] == 0)  // not looked yet: the interval is an hour
        try store.set(true, for: .hasViewedWalkthrough)
        #expect(store[.launchCount] == 41)
        #expect(store[.hasViewedWalkthrough])
        try PreferenceStore(database: second).set(42, for: .launchCount)
        try store.set(false, for: .hasViewedWalkthrough)
        #expect(store[.launchCount] == 42)
    }

    /// The commit token moves for another connection's commits only: the change feed reads
    /// its own commits' rows at the commit, and a token moved by them would cost a second look.
    /// Behind a transaction pooler, the listener cannot tell this connection's notifications
    /// from others' (they come from whichever server connection ran the transaction): there
    /// the token moves for both, and the second look finds nothing new.
    @Test(arguments: ContractEngine.all)
    func theCommitTokenMovesForOtherConnectionsOnly(engine: ContractEngine) async throws {
        let (first, second) = try engine.openPair(in: folder)
        func token() throws -> Int64 { try first.state.withLock { try $0.engine.commitToken() } }
        let store = PreferenceStore(database: first)
        try store.set(1, for: .launchCount)
        let before = try token()
        for value in 2...4 { try store.set(value, for: .launchCount) }
        try store.declare(Prefs.Key("volume", default: 0.5))
        // Time for the notifications of its own commits to come back (on a server, behind a
        // pooler through a listening connection of its own): they must not count.
        try await Task.sleep(for: .milliseconds(300))
        #expect(try token() == before)
        let beforeOther = try token()
        try PreferenceStore(database: second).set(true, for: .hasViewedWalkthrough)
        #expect(try await waitUntil { try token() != beforeOther })
    }

    /// What a write replaced in a bookmark is kept alike on every engine (migrations 0018
    /// and postgres 0028): the title and folder a second write replaced, read by another
    /// connection too; nothing for a write that changes nothing; numbered, newest first,
    /// the newest 10 kept; gone with the bookmark.
    @Test(arguments: ContractEngine.all)
    func whatAWriteReplacedInABookmarkIsKeptNewestFirstAndBounded(engine: ContractEngine)
        throws
    {
        let (database, other) = try engine.openPair(in: folder)
        let bookmarks = BookmarkStore(database: database)
        let item = "https://example.com/london"
        let added = try bookmarks.add(
            BookmarkDraft(
                kind: "link", itemID: item, title: "London guide", url: URL(string: item),
                category: "Travel"))
        #expect(try bookmarks.history(id: added.id).isEmpty)
        try bookmarks.update(kind: "link", itemID: item) { $0.title = "London guide" }
        #expect(try bookmarks.history(id: added.id).isEmpty)
        let before = Date()
        try bookmarks.update(kind: "link", itemID: item) {
            $0.title = "London: the complete guide"
            $0.folder = ["Reading", "Later"]
        }
        for reader in [bookmarks, BookmarkStore(database: other)] {
            let history = try reader.history(id: added.id)
            #expect(history.map(\.title) == ["London guide"])
            #expect(history.first?.folder == ["Travel"])
            #expect(history.first?.category == "Travel")
            #expect(history.first?.urlString == item)
            #expect(history.first?.revision == 1)
            if let replacedAt = history.first?.replacedAt {
                #expect(abs(replacedAt.timeIntervalSince(before)) < 60, "\(replacedAt)")
            }
        }
        for index in 1...12 {
            try bookmarks.update(kind: "link", itemID: item) { $0.title = "Title \(index)" }
        }
        let bounded = try bookmarks.history(id: added.id)
        #expect(bounded.map(\.revision) == Array((4...13).reversed()))
        #expect(bounded.first?.title == "Title 11")
        #expect(bounded.last?.title == "Title 2")
        #expect(bounded.first?.folder == ["Reading", "Later"])
        #expect(try bookmarks.remove(kind: "link", itemID: item))
        #expect(try bookmarks.history(id: added.id).isEmpty)
    }
}
