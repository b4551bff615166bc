import Foundation
import PrefsTestSupport
import SQLiteCore
import TestSupport
import Testing

@testable import PrefsKit

@Suite struct PreferenceStoreTests {
    let folder: TemporaryFolder
    let path: String
    let store: PreferenceStore

    init() throws {
        folder = try TemporaryFolder()
        path = folder.path("prefs.sqlite")
        store = PreferenceStore(database: try AppDatabase(path: path))
    }

    func rawRowCount(_ table: String = "preference") throws -> Int {
        let connection = try Connection(path: path, mode: .readOnly)
        return try connection.scalar(Int.self, sql: "SELECT count(*) FROM \(table)") ?? -1
    }

    func reopened(suite: String = "standard") throws -> PreferenceStore {
        PreferenceStore(database: try AppDatabase(path: path), suite: suite)
    }

    @Test func walkthroughFlagDefaultsToFalseAndIsNeverWritten() throws {
        #expect(store[.hasViewedWalkthrough] == false)
        #expect(store[.launchCount] == 0)
        #expect(store.bool(forKey: "hasViewedWalkthrough") == false)
        #expect(try rawRowCount() == 0)
        try store.set(true, for: .hasViewedWalkthrough)
        #expect(store[.hasViewedWalkthrough] == true)
        #expect(try reopened()[.hasViewedWalkthrough] == true)
        #expect(try rawRowCount() == 1)
    }

    @Test func everyTypeRoundTripsThroughTypedKeysAndSurvivesReopening() throws {
        let date = Date(timeIntervalSinceReferenceDate: 817_700_000.123_456_7)
        let layout = WindowLayout(width: 1024, height: 768, title: "Éditeur \"1\"")
        try store.set(true, for: .hasViewedWalkthrough)
        try store.set(-42, for: .launchCount)
        try store.set(2.0, for: .volume)
        try store.set("Ada 🙂\nLovelace", for: .nickname)
        try store.set(URL(string: "https://example.org/x?y=1#z")!, for: .homepage)
        try store.set(date, for: .lastOpened)
        try store.set(Data([0, 1, 2, 0xFF]), for: .avatar)
        try store.set(.dark, for: .theme)
        try store.set(.spacious, for: .density)
        try store.set(["swift", "sqlite"], for: .recentSearches)
        try store.set(["a": 1, "b": 2], for: .counters)
        try store.set(layout, for: .layout)
        try store.set(3, for: .selectedArticle)

        for reader in [store, try reopened()] {
            #expect(reader[.hasViewedWalkthrough] == true)
            #expect(reader[.launchCount] == -42)
            #expect(reader[.volume] == 2.0)
            #expect(reader[.nickname] == "Ada 🙂\nLovelace")
            #expect(reader[.homepage] == URL(string: "https://example.org/x?y=1#z")!)
            #expect(reader[.lastOpened] == date)
            #expect(reader[.avatar] == Data([0, 1, 2, 0xFF]))
            #expect(reader[.theme] == .dark)
            #expect(reader[.density] == .spacious)
            #expect(reader[.recentSearches] == ["swift", "sqlite"])
            #expect(reader[.counters] == ["a": 1, "b": 2])
            #expect(reader[.layout] == layout)
            #expect(reader[.selectedArticle] == 3)
        }
        let reopenedStore = try reopened()
        #expect(try reopenedStore.storedValue(forKey: "volume") == .double(2.0))
        #expect(try reopenedStore.storedValue(forKey: "theme") == .string("dark"))
        #expect(try reopenedStore.storedValue(forKey: "density") == .int(2))
        #expect(try reopenedStore.storedValue(forKey: "layout")?.type == .json)
    }

    @Test func assigningNilToAnOptionalRemovesTheKey() throws {
        try store.set(5, for: .selectedArticle)
        #expect(try rawRowCount() == 1)
        try store.set(nil, for: .selectedArticle)
        #expect(store[.selectedArticle] == nil)
        #expect(try rawRowCount() == 0)
    }

    @Test func storedValueOfTheWrongTypeReadsAsTheDefault() throws {
        try store.setValue(.string("yes"), forKey: "hasViewedWalkthrough")
        try store.setValue(.double(3.5), forKey: "launchCount")
        try store.setValue(.string("purple"), forKey: "theme")
        #expect(store[.hasViewedWalkthrough] == false)
        #expect(store[.launchCount] == 0)
        #expect(store[.theme] == .system)
    }

    /// The library's signal for what the subscript reads as the default in silence: a
    /// stored value the key cannot read. A value it reads, a bridged number or no value at
    /// all is no mismatch; a typed set still replaces the value, as `@AppStorage` does.
    @Test func aStoredValueTheKeyCannotReadIsToldByCheckedValue() throws {
        try store.setValue(.string("yes"), forKey: "hasViewedWalkthrough")
        try store.setValue(.double(3.5), forKey: "launchCount")
        #expect(
            throws: PreferenceError.storedTypeMismatch(key: "hasViewedWalkthrough", stored: .string)
        ) { try store.checkedValue(for: .hasViewedWalkthrough) }
        #expect(throws: PreferenceError.storedTypeMismatch(key: "launchCount", stored: .double)) {
            try store.checkedValue(for: .launchCount)
        }
        #expect(
            PreferenceError.storedTypeMismatch(key: "launchCount", stored: .int).description
                == "'launchCount' holds an int value that this key cannot read (it reads as the"
                + " key's default)")
        try store.setValue(.double(2), forKey: "launchCount")
        #expect(try store.checkedValue(for: .launchCount) == 2)
        try store.removeValue(for: .launchCount)
        #expect(try store.checkedValue(for: .launchCount) == 0)
        try store.set(true, for: .hasViewedWalkthrough)
        #expect(try store.checkedValue(for: .hasViewedWalkthrough))
    }

    @Test func registeredDefaultsAreVolatileFallbacks() throws {
        // Suite scope: other tests of this process read these keys.
        store.register(defaults: ["launchCount": 7, "nickname": "guest"], scope: .suite)
        #expect(store[.launchCount] == 7)
        #expect(store.string(forKey: "nickname") == "guest")
        #expect(store.object(forKey: "launchCount") as? Int == 7)
        #expect(try rawRowCount() == 0)
        try store.set(9, for: .launchCount)
        #expect(store[.launchCount] == 9)
        try store.removeValue(for: .launchCount)
        #expect(store[.launchCount] == 7)
        #expect(try reopened()[.launchCount] == 0)
        #expect(store.dictionaryRepresentation()["nickname"] as? String == "guest")
    }

    @Test func processRegistrationIsSharedByEverySuiteAndDatabase() throws {
        // Keys of this test alone: the registration reaches every store of the process.
        store.register(defaults: ["registrationProbe": 42, "registrationText": "shared"])
        let widgets = PreferenceStore(database: store.database, suite: "group.widgets")
        let elsewhere = PreferenceStore(database: try .inMemory(), suite: "other")
        for reader in [store, widgets, elsewhere] {
            #expect(reader.integer(forKey: "registrationProbe") == 42)
            #expect(reader[Prefs.Key("registrationText", default: "")] == "shared")
        }
        // A suite's own registration comes first, for that suite only.
        widgets.register(defaults: ["registrationProbe": 7], scope: .suite)
        #expect(widgets.integer(forKey: "registrationProbe") == 7)
        #expect(store.integer(forKey: "registrationProbe") == 42)
        #expect(widgets.registeredDefaults["registrationProbe"] == .int(7))
        #expect(store.registeredDefaults["registrationText"] == .string("shared"))
        #expect(try rawRowCount() == 0)
    }

    @Test func suitesAreIsolated() throws {
        let other = PreferenceStore(database: store.database, suite: "group.widgets")
        try store.set(true, for: .hasViewedWalkthrough)
        try other.set(3, for: .launchCount)
        #expect(other[.hasViewedWalkthrough] == false)
        #expect(store[.launchCount] == 0)
        #expect(try store.suites() == ["group.widgets", "standard"])
        try other.removeAll()
        #expect(store[.hasViewedWalkthrough] == true)
    }

    @Test func renameMovesTheValueAtomicallyAndKeepsHistory() throws {
        try store.setValue(.string("02134"), forKey: "zip")
        try store.setValue(.int(3), forKey: "taken")
        #expect(try store.renameKey("zip", to: "postcode") == .string("02134"))
        #expect(try store.storedValue(forKey: "zip") == nil)
        #expect(try store.storedValue(forKey: "postcode") == .string("02134"))
        let history = try store.history(limit: 10)
        #expect(
            history.contains {
                $0.key == "postcode" && $0.value == .string("02134") && $0.oldValue == nil
            })
        #expect(
            history.contains {
                $0.key == "zip" && $0.value == nil && $0.oldValue == .string("02134")
            })

        #expect(throws: PreferenceError.wouldOverwrite(key: "taken")) {
            try store.renameKey("postcode", to: "taken")
        }
        #expect(throws: PreferenceError.noValue(key: "missing")) {
            try store.renameKey("missing", to: "x")
        }
        #expect(try store.storedValue(forKey: "postcode") == .string("02134"))
        #expect(try store.storedValue(forKey: "taken") == .int(3))
        try store.renameKey("postcode", to: "taken", overwriting: true)
        #expect(try store.storedValue(forKey: "taken") == .string("02134"))
        #expect(try store.storedValue(forKey: "postcode") == nil)
        // Another process sees it (the file, not this store's cache).
        #expect(try reopened().storedValue(forKey: "taken") == .string("02134"))
    }

    /// Uncached reads of two suites through one connection, interleaved: the suite kept
    /// bound to the read statement must follow every switch.
    @Test func uncachedReadsFollowTheSuiteOfEachStore() throws {
        var options = AppDatabase.Options()
        options.cachesValues = false
        let database = try AppDatabase(path: folder.path("uncached.sqlite"), options: options)
        let suites = [
            "standard", "group.widgets", "x", String(repeating: "long-suite-", count: 40),
        ]
        let stores = suites.map { PreferenceStore(database: database, suite: $0) }
        for (index, store) in stores.enumerated() { try store.set(index + 1, for: .launchCount) }
        for round in 0..<200 {
            let index = (round * 7) % stores.count
            #expect(stores[index][.launchCount] == index + 1)
            #expect(stores[index].integer(forKey: "launchCount") == index + 1)
        }
    }

    /// Every type name reads back from its bytes; near misses do not.
    @Test func typeNamesParseFromTheirBytesOnly() {
        for type in PreferenceType.allCases {
            var name = type.rawValue
            #expect(name.withUTF8 { PreferenceType(utf8: $0) } == type)
        }
        for wrong in [
            "", "in", "dat", "datx", "dates", "bool ", "Bool", "strinG", "dictionarx", "jsonb",
            "urx", "int\u{0}", "in\u{0}", "dictionar\u{0}", "Dictionary", "doublf",
            // Longer than a packed tag keeps, or another spelling of a name's letters.
            "dictionaryy", "dictionary\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}",
            "intintintintintintint", "i\u{301}nt", "\u{FF49}\u{FF4E}\u{FF54}", "\u{130}nt",
        ] {
            var name = wrong
            #expect(name.withUTF8 { PreferenceType(utf8: $0) } == nil, "\(wrong)")
        }
    }

    @Test func transactionChangesSeveralKeysAtomically() throws {
        try store.transaction { edit in
            try edit.set(true, for: .hasViewedWalkthrough)
            try edit.set(3, for: .launchCount)
            #expect(try edit.value(forKey: "launchCount") == .int(3))
        }
        #expect(store[.hasViewedWalkthrough] == true)
        #expect(store[.launchCount] == 3)
    }

    @Test func throwingTransactionLeavesNothingBehind() throws {
        struct Abort: Error {}
        try store.set(1, for: .launchCount)
        #expect(throws: Abort.self) {
            try store.transaction { edit in
                try edit.set(true, for: .hasViewedWalkthrough)
                try edit.set(2, for: .launchCount)
                throw Abort()
            }
        }
        #expect(store[.hasViewedWalkthrough] == false)
        #expect(store[.launchCount] == 1)
        #expect(try rawRowCount() == 1)
        #expect(try reopened()[.launchCount] == 1)
    }

    @Test func writeInsideATransactionClosureJoinsIt() throws {
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try store.transaction { _ in
                try store.set(true, for: .hasViewedWalkthrough)
                throw Abort()
            }
        }
        #expect(store[.hasViewedWalkthrough] == false)
    }

    @Test func invalidKeysAndValuesAreRejectedAndNothingIsWritten() throws {
        #expect(throws: PreferenceError.invalidKey("", reason: "The key cannot be empty")) {
            try store.setValue(.int(1), forKey: "")
        }
        #expect(
            throws: PreferenceError.invalidKey(
                "a\0b", reason: "The key 'a\\0b' contains a NUL or newline character")
        ) {
            try store.setValue(.int(1), forKey: "a\0b")
        }
        let long = String(repeating: "k", count: 1025)
        #expect(
            throws: PreferenceError.invalidKey(
                long, reason: "The key is 1025 bytes long; keys are at most 1024 bytes")
        ) {
            try store.setValue(.int(1), forKey: long)
        }
        let badSuite = PreferenceStore(database: store.database, suite: "")
        #expect(throws: PreferenceError.invalidSuite("", reason: "The suite name cannot be empty"))
        {
            try badSuite.setValue(.int(1), forKey: "a")
        }
        #expect(try badSuite.value(forKey: "a") == nil)
        let json = #expect(throws: PreferenceError.self) {
            try store.setValue(.json("{nope"), forKey: "j")
        }
        #expect(
            json?.description
                == "Invalid value for 'j': not valid JSON (expected a string key at line 1, column 2)"
        )
        #expect(try rawRowCount() == 0)
    }

    @Test func sqlLookingKeysAreJustKeys() throws {
        let key = "x'); DROP TABLE preference;--"
        try store.setValue(.string("1'; DELETE FROM preference; --"), forKey: key)
        #expect(
            try reopened().storedValue(forKey: key) == .string("1'; DELETE FROM preference; --"))
        #expect(try rawRowCount() == 1)
    }

    @Test func declarationsAreStored() throws {
        try store.declare(Prefs.Keys.hasViewedWalkthrough)
        try store.declare(
            PreferenceDeclaration(
                key: "volume", type: .double, defaultValue: .double(0.5),
                description: "Playback volume"))
        let declarations = try reopened().declarations()
        #expect(declarations.map(\.key) == ["hasViewedWalkthrough", "volume"])
        #expect(declarations[0].type == .bool)
        #expect(declarations[0].defaultValue == .bool(false))
        #expect(declarations[1].description == "Playback volume")
        #expect(throws: PreferenceError.typeMismatch(key: "x", declared: .int, given: .string)) {
            try store.declare(
                PreferenceDeclaration(key: "x", type: .int, defaultValue: .string("1")))
        }
        #expect(try rawRowCount() == 0)
    }

    @Test func historyRecordsEveryChangeAndIsBounded() throws {
        try store.set(1, for: .launchCount)
        try store.set(2, for: .launchCount)
        try store.set(2, for: .launchCount)  // unchanged: not a change
        try store.removeValue(for: .launchCount)
        let history = try store.history(forKey: "launchCount")
        #expect(history.map(\.value) == [nil, .int(2), .int(1)])
        #expect(history.map(\.oldValue) == [.int(2), .int(1), nil])
        #expect(try store.historyLimit() == 10_000)

        try store.setHistoryLimit(5)
        for value in 0..<20 { try store.set(value, for: .launchCount) }
        #expect(try rawRowCount("preference_history") == 5)
        #expect(try store.history(limit: 100).first?.value == .int(19))
    }

    @Test func propertyWrapperReadsAndWritesLikeAppStorage() throws {
        final class Onboarding {
            @Preference var hasViewedWalkthrough: Bool
            @Preference var selectedArticle: Int?
            init(store: PreferenceStore) {
                _hasViewedWalkthrough = Preference(
                    wrappedValue: false, "hasViewedWalkthrough", store: store)
                _selectedArticle = Preference("selectedArticleIndex", store: store)
            }
        }
        let model = Onboarding(store: store)
        #expect(model.hasViewedWalkthrough == false)
        model.hasViewedWalkthrough = true
        model.selectedArticle = 4
        #expect(try reopened()[.hasViewedWalkthrough] == true)
        #expect(try reopened()[.selectedArticle] == 4)
        model.selectedArticle = nil
        #expect(try reopened()[.selectedArticle] == nil)
        try model.$hasViewedWalkthrough.reset()
        #expect(model.hasViewedWalkthrough == false)
    }

    @Test func failedSetterWriteIsReportedAndNotClaimed() throws {
        try store.set(false, for: .hasViewedWalkthrough)
        let readOnly = AppDatabase.Options.readOnlyForTests
        let reader = PreferenceStore(database: try AppDatabase(path: path, options: readOnly))
        let reported = Reported()
        reader.errorHandler = { reported.add("\($0)") }
        @Preference(wrappedValue: false, "hasViewedWalkthrough", store: reader)
        var flag: Bool
        flag = true
        #expect(flag == false)
        #expect(reported.messages.count == 1)
        #expect(reported.messages.first?.contains("read-only") == true)
    }

    @Test func anotherConnectionsCommitReachesTheCache() async throws {
        #expect(store[.launchCount] == 0)  // now cached
        let writer = try reopened()
        try writer.set(41, for: .launchCount)
        #expect(await waitUntil { store[.launchCount] == 41 })
    }
}

final class Reported: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func add(_ message: String) { lock.withLock { stored.append(message) } }
    var messages: [String] { lock.withLock { stored } }
}

extension AppDatabase.Options {
    static var readOnlyForTests: AppDatabase.Options {
        var options = AppDatabase.Options()
        options.isReadOnly = true
        return options
    }
}
