import Foundation
import TestSupport
import Testing

@testable import PrefsKit
@testable import SQLiteCore

extension Prefs.Keys {
    fileprivate static let scale = Prefs.Key("scale", default: Float(1))
}

/// A Float stays a Float, and NaN and the infinities are stored, as Foundation keeps them.
@Suite struct FloatAndNaNTests {
    let folder: TemporaryFolder
    let path: String
    let store: PreferenceStore

    init() throws {
        folder = try TemporaryFolder()
        path = folder.path("prefs.sqlite")
        store = PreferenceStore(database: try AppDatabase(path: path))
    }

    /// The same file through a new connection, so that nothing comes from a cache.
    private func reopened() throws -> PreferenceStore {
        PreferenceStore(database: try AppDatabase(path: path))
    }

    @Test func aFloatReadsBackWithItsOwnDigits() throws {
        store.set(Float(12.34), forKey: "ratio")
        for reader in [store, try reopened()] {
            #expect(reader.string(forKey: "ratio") == "12.34")
            #expect(reader.float(forKey: "ratio") == 12.34)
            // Foundation widens as well: 12.34000015258789.
            #expect(reader.double(forKey: "ratio") == Double(Float(12.34)))
            #expect(try reader.storedValue(forKey: "ratio") == .float(12.34))
        }
        try store.set(Float(0.1), for: .scale)
        #expect(try reopened()[.scale] == Float(0.1))
        #expect(try reopened().storedValue(forKey: "scale")?.type == .float)
        // A whole Float reads as a whole number's text, as NSNumber shows it.
        store.set(Float(3), forKey: "whole")
        #expect(store.string(forKey: "whole") == "3")
    }

    @Test func aFloatBridgesToTheOtherNumericKeys() throws {
        store.set(Float(2), forKey: "n")
        #expect(store[Prefs.Key("n", default: 0)] == 2)
        #expect(store[Prefs.Key("n", default: 0.0)] == 2.0)
        #expect(store[Prefs.Key("n", default: false)])
        store.set(Float(2.5), forKey: "half")
        #expect(store[Prefs.Key("half", default: 7)] == 7)  // not a whole number
        // A double reads through a Float key to the nearest Float.
        store.set(0.1, forKey: "d")
        #expect(store[Prefs.Key("d", default: Float(0))] == Float(0.1))
    }

    @Test func nanAndTheInfinitiesAreStoredAndReadBack() throws {
        store.set(Double.nan, forKey: "nan")
        store.set(Double.infinity, forKey: "inf")
        store.set(-Double.infinity, forKey: "-inf")
        store.set(Float.nan, forKey: "fnan")
        store.set(-Float.infinity, forKey: "f-inf")
        try store.setValue(.array([.double(.nan), .double(1)]), forKey: "list")
        for reader in [store, try reopened()] {
            #expect(reader.double(forKey: "nan").isNaN)
            #expect(reader.double(forKey: "inf") == .infinity)
            #expect(reader.double(forKey: "-inf") == -.infinity)
            #expect(reader.float(forKey: "fnan").isNaN)
            #expect(reader.float(forKey: "f-inf") == -.infinity)
            #expect(try reader.storedValue(forKey: "nan") == .double(.nan))
            #expect(try reader.storedValue(forKey: "fnan") == .float(.nan))
            #expect(try reader.storedValue(forKey: "list") == .array([.double(.nan), .double(1)]))
            #expect(reader.string(forKey: "nan") == "nan")
            #expect(reader.string(forKey: "inf") == "inf")
            #expect(!reader.bool(forKey: "nan"))
            #expect(reader.integer(forKey: "nan") == 0)
        }
        // Storing NaN again is no change: the history records one.
        let before = try store.history(forKey: "nan").count
        store.set(Double.nan, forKey: "nan")
        #expect(try store.history(forKey: "nan").count == before)
    }

    @Test func exportsAndImportsKeepFloatsAndNaN() throws {
        store.set(Float(12.34), forKey: "ratio")
        store.set(Double.nan, forKey: "nan")
        store.set(Float.infinity, forKey: "finf")
        let json = try store.exportJSON()
        #expect(json.contains("12.34"))
        #expect(!json.contains("12.340000"))
        let other = PreferenceStore(database: try AppDatabase.inMemory())
        try other.importJSON(json)
        #expect(try other.storedValue(forKey: "ratio") == .float(12.34))
        #expect(try other.storedValue(forKey: "nan") == .double(.nan))
        #expect(try other.storedValue(forKey: "finf") == .float(.infinity))
        for format in [PropertyList.Format.xml, .binary] {
            let plist = try store.exportPropertyList(format: format)
            let again = PreferenceStore(database: try AppDatabase.inMemory())
            try again.importPropertyList(plist)
            // A property list has one real type: a float comes back as a double of its value.
            #expect(again.float(forKey: "ratio") == 12.34)
            #expect(again.double(forKey: "nan").isNaN)
        }
    }

    @Test func aFileOfTheSchemaBeforeFloatsUpgradesWithItsValuesAndHistory() throws {
        let old = folder.path("old.sqlite")
        do {
            let connection = try Connection(path: old)
            try connection.execute(sql: "PRAGMA journal_mode = WAL")
            let before = SQLiteEngine.migrations.filter { $0.version <= 6 }
            _ = try Migrator(migrations: before, applicationID: AppDatabase.applicationID).migrate(
                connection)
            try connection.execute(
                sql: """
                    INSERT INTO preference (suite, key, type, value, updated_at)
                    VALUES ('standard', 'volume', 'double', 0.5, 0), ('standard', 'seen', 'bool', 1, 0);
                    INSERT INTO preference_declaration (suite, key, type, default_value)
                    VALUES ('standard', 'volume', 'double', 0.25);
                    """)
        }
        let upgraded = PreferenceStore(database: try AppDatabase(path: old))
        #expect(upgraded.double(forKey: "volume") == 0.5)
        #expect(upgraded.bool(forKey: "seen"))
        #expect(try upgraded.declarations().map(\.key) == ["volume"])
        #expect(try upgraded.history().count == 2)
        // The rebuilt table keeps its triggers: a change is recorded, a NaN is accepted.
        upgraded.set(Double.nan, forKey: "volume")
        #expect(try upgraded.history(forKey: "volume").first?.value == .double(.nan))
        try upgraded.declare(PreferenceDeclaration(key: "ratio", type: .float))
        #expect(try upgraded.declarations().map(\.type) == [.float, .double])
    }
}
