import Foundation
import TestSupport
import Testing

@testable import PrefsKit

/// The JSON export read piece by piece (`JSONMemberStream`): the same entries as reading it
/// whole, wherever the pieces are cut; nil (read it whole) for anything but an export whose
/// keys rise in byte order; and an import that finds the file changed since it was checked
/// stores nothing.
@Suite struct StreamedImportTests {
    static func pieces(of text: String, size: Int) -> () throws -> [UInt8]? {
        pieces(of: Array(text.utf8), size: size)
    }

    static func pieces(of bytes: [UInt8], size: Int) -> () throws -> [UInt8]? {
        var offset = 0
        return {
            guard offset < bytes.count else { return nil }
            defer { offset += size }
            return Array(bytes[offset..<min(bytes.count, offset + size)])
        }
    }

    static func export(count: Int) throws -> (PreferenceStore, String) {
        let store = PreferenceStore(database: try AppDatabase.inMemory())
        try store.transaction { edit in
            for index in 0..<count {
                let value: PreferenceValue =
                    switch index % 4 {
                    case 0: .string("\u{E9}\"\\ ]}[{,\(index)")
                    case 1: .array([.int(index), .dictionary(["a": .bool(true)])])
                    case 2: .double(Double(index) / 3)
                    default: .json(#"{"k": [1, "]"]}"#)
                    }
                try edit.setValue(value, forKey: String(format: "key%05d", index))
            }
        }
        return (store, try store.exportJSON())
    }

    @Test(arguments: [1, 7, 4_096, 1 << 20])
    func theEntriesAreThoseOfTheWholeReadingWhereverThePiecesAreCut(size: Int) throws {
        let (store, text) = try Self.export(count: 500)
        #expect(
            try PreferenceStore.countStreamable(.jsonExport(Self.pieces(of: text, size: size)))
                == 500)
        let copy = PreferenceStore(database: try AppDatabase.inMemory())
        #expect(
            try copy.importStreamed(.jsonExport(Self.pieces(of: text, size: size)), count: 500)
                == 500)
        #expect(try copy.exportJSON() == text)
        #expect(try copy.storedEntries().count == (try store.storedEntries().count))
    }

    /// Two spellings of one name are two keys, as everywhere in the store: both stream, in
    /// byte order, and both are imported.
    @Test func twoSpellingsOfAKeyAreTwoKeys() throws {
        let store = PreferenceStore(database: try AppDatabase.inMemory())
        try store.setValue(.int(1), forKey: "caf\u{E9}")
        try store.setValue(.int(2), forKey: "cafe\u{301}")
        let text = try store.exportJSON()
        #expect(
            try PreferenceStore.countStreamable(.jsonExport(Self.pieces(of: text, size: 2))) == 2)
        let copy = PreferenceStore(database: try AppDatabase.inMemory())
        #expect(try copy.importStreamed(.jsonExport(Self.pieces(of: text, size: 2)), count: 2) == 2)
        #expect(try copy.storedEntries().map(\.value) == [.int(2), .int(1)])
    }

    @Test func anEmptyExportStreams() throws {
        let (_, text) = try Self.export(count: 0)
        #expect(
            try PreferenceStore.countStreamable(.jsonExport(Self.pieces(of: text, size: 3))) == 0)
    }

    /// Each is read whole instead (where its problem, if any, is named).
    @Test(arguments: [
        #"{"a": 1, "b": true}"#,
        #"{"preferences": [{"key": "b", "type": "int", "value": 1}, {"key": "a", "type": "int", "value": 2}]}"#,
        #"{"preferences": [{"key": "a", "type": "int", "value": 1}, {"key": "a", "type": "int", "value": 2}]}"#,
        #"{"preferences": [{"key": "a", "type": "int", "value": 1},]}"#,
        #"{"preferences": [{"key": "a", "type": "int", "value": 1}]} x"#,
        #"{"preferences": [{"key": "a", "type": "int", "value": 1}], "preferences": []}"#,
        #"{"preferences": [{"key": "a", "type": "int", "value": "one"}]}"#,
        #"{"preferences": [{"key": "a", "type": "int", "value": 1}"#,
        "\u{FEFF}" + #"{"preferences": []}"#,
        #"{"preferences": [{"key": "", "type": "int", "value": 1}]}"#,
        #"{"format": tru, "preferences": []}"#,
        #"["preferences"]"#,
        "",
    ])
    func anythingButAnOrderedExportIsReadWhole(text: String) throws {
        #expect(
            try PreferenceStore.countStreamable(.jsonExport(Self.pieces(of: text, size: 5))) == nil)
    }

    @Test func aFileThatChangedSinceItWasCheckedImportsNothing() throws {
        let (_, text) = try Self.export(count: 300)
        let count = try PreferenceStore.countStreamable(
            .jsonExport(Self.pieces(of: text, size: 999)))
        #expect(count == 300)
        let (_, shorter) = try Self.export(count: 299)
        let copy = PreferenceStore(database: try AppDatabase.inMemory())
        try copy.setValue(.int(1), forKey: "kept")
        #expect(throws: PreferenceError.self) {
            try copy.importStreamed(
                .jsonExport(Self.pieces(of: shorter, size: 999)), count: count ?? 0,
                replacing: true)
        }
        #expect(try copy.storedEntries().map(\.key) == ["kept"])
    }
}
