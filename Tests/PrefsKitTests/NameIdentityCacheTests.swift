import Foundation
import PrefsKit
import TestSupport
import Testing

/// Inside one process: the value cache, the suite caches and observers keep names that
/// Swift's `String ==` calls equal apart, as the file does. The attack: after reading
/// "café" (U+00E9), a read of "cafe\u{301}" must not be answered from the other's cache
/// entry, and an observer of one must not hear the other.
@Suite struct NameIdentityCacheTests {
    let folder: TemporaryFolder
    let database: AppDatabase
    static let precomposed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    init() throws {
        folder = try TemporaryFolder()
        database = try AppDatabase(path: folder.path("prefs.sqlite"))
    }

    @Test func cachedReadsOfEquivalentKeysAnswerTheirOwnValues() throws {
        let store = PreferenceStore(database: database)
        let first = Prefs.Key(Self.precomposed, default: 0)
        let second = Prefs.Key(Self.decomposed, default: 0)
        try store.set(1, for: first)
        #expect(store[first] == 1)
        #expect(store[second] == 0)
        try store.set(2, for: second)
        #expect(store[first] == 1)
        #expect(store[second] == 2)
        #expect(store.integer(forKey: Self.precomposed) == 1)
        #expect(store.integer(forKey: Self.decomposed) == 2)
        let entries = try store.storedEntries()
        #expect(
            entries.map { Array($0.key.utf8) }
                == [Self.decomposed, Self.precomposed].map { Array($0.utf8) })
    }

    @Test func equivalentSuitesHaveTheirOwnCaches() throws {
        let first = PreferenceStore(database: database, suite: Self.precomposed)
        let second = PreferenceStore(database: database, suite: Self.decomposed)
        let key = Prefs.Key("k", default: "")
        try first.set("one", for: key)
        #expect(first[key] == "one")
        #expect(second[key] == "")
        try second.set("two", for: key)
        #expect(first[key] == "one")
        #expect(second[key] == "two")
    }

    @Test func anObserverOfOneSpellingDoesNotHearTheOther() async throws {
        let store = PreferenceStore(database: database)
        let first = Prefs.Key(Self.precomposed, default: 0)
        let second = Prefs.Key(Self.decomposed, default: 0)
        var heard = store.values(for: first).makeAsyncIterator()
        #expect(await heard.next() == 0)
        try store.set(7, for: second)
        try store.set(1, for: first)
        #expect(await heard.next() == 1)
    }
}
