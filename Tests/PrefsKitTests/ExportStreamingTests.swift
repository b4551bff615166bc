import Foundation
import TestSupport
import Testing

@testable import PrefsKit

/// The JSON export is written as it is read, piece by piece: its bytes must be those of the
/// whole document serialized at once (the earlier implementation, kept here as the
/// reference), across chunk boundaries, for an empty suite, and for a suite whose name
/// spells the array's key.
@Suite struct ExportStreamingTests {
    static func reference(_ store: PreferenceStore) throws -> String {
        let entries: [JSONValue] = try store.storedEntries().map { key, value in
            .object([
                ("key", .string(key)), ("type", .string(value.type.rawValue)),
                ("value", value.jsonValue),
            ])
        }
        return JSONValue.object([
            ("format", .string(PreferenceStore.exportFormatName)), ("version", .integer(1)),
            ("suite", .string(store.suite)), ("preferences", .array(entries)),
        ]).serialized(.pretty) + "\n"
    }

    @Test(arguments: ["standard", "x\", \"preferences\": null", "empty"])
    func theStreamedExportIsTheWholeDocumentsBytes(suite: String) throws {
        let folder = try TemporaryFolder()
        let store = PreferenceStore(
            database: try AppDatabase(path: folder.path("export.sqlite")), suite: suite)
        if suite != "empty" {
            try store.transaction { edit in
                for index in 0..<2_000 {
                    try edit.setValue(
                        index % 2 == 0
                            ? .string(String(repeating: "\u{E9}", count: 40) + "\(index)")
                            : .array([.int(index), .bool(true)]),
                        forKey: "key\(index)")
                }
            }
        }
        var pieces: [String] = []
        try store.exportJSON { pieces.append($0) }
        let streamed = pieces.joined()
        #expect(streamed == (try Self.reference(store)))
        #expect(suite == "empty" || pieces.count > 3, "\(pieces.count) pieces")
        // And it reads back.
        let copy = PreferenceStore(database: try AppDatabase.inMemory(), suite: suite)
        try copy.importJSON(streamed)
        #expect(try copy.storedEntries().count == (try store.storedEntries().count))
    }
}

/// The property-list exports are written as they are read too: the binary format walks the
/// values six times (counting, then writing, then finding offsets), all in one snapshot.
/// Their bytes must be those of the whole dictionary encoded at once by the value encoder
/// (a separate path: it flattens one value and lays out its objects), for both formats,
/// with references of 1, 2 and 4 bytes.
@Suite struct PropertyListStreamingTests {
    static func fill(_ store: PreferenceStore, count: Int) throws {
        try store.transaction { edit in
            for index in 0..<count {
                let value: PreferenceValue =
                    switch index % 5 {
                    case 0: .string("caf\u{E9} \(index)")
                    case 1: .array([.int(index), .bool(true), .array([.double(0.5)])])
                    case 2: .dictionary(["b": .int(index), "a": .dictionary([:]), "c": .array([])])
                    case 3: .date(Date(timeIntervalSinceReferenceDate: Double(index)))
                    default: .data(Data([UInt8(index % 256), 1, 2]))
                    }
                try edit.setValue(value, forKey: String(format: "key%06d", index))
            }
        }
    }

    @Test(arguments: [0, 10, 3_000, 40_000])
    func theStreamedPropertyListsAreTheWholeEncodingsBytes(count: Int) throws {
        let folder = try TemporaryFolder()
        let store = PreferenceStore(database: try AppDatabase(path: folder.path("p.sqlite")))
        try Self.fill(store, count: count)
        let whole = PreferenceValue.dictionary(
            Dictionary(uniqueKeysWithValues: try store.storedEntries().map { ($0.key, $0.value) }))
        for format in Prefs.PropertyList.Format.allCases {
            var pieces: [[UInt8]] = []
            try store.exportPropertyList(format: format) { pieces.append($0) }
            let streamed = Data(pieces.joined())
            #expect(streamed == Prefs.PropertyList.encode(whole, format: format), "\(format)")
            #expect(count < 3_000 || pieces.count > 2, "\(format): \(pieces.count) pieces")
            #expect(
                try Prefs.PropertyList.decodeEntries(streamed)?.count == count, "\(format)")
        }
    }

    /// On every engine (PostgreSQL's snapshot is a repeatable-read transaction, behind
    /// PgBouncer too), both formats stream the whole encoding's bytes.
    @Test(arguments: ContractEngine.all)
    func everyEngineStreamsTheWholeEncodingsBytes(engine: ContractEngine) throws {
        let folder = try TemporaryFolder()
        let store = PreferenceStore(database: try engine.open(folder, .init()))
        try Self.fill(store, count: 400)
        let whole = PreferenceValue.dictionary(
            Dictionary(uniqueKeysWithValues: try store.storedEntries().map { ($0.key, $0.value) }))
        for format in Prefs.PropertyList.Format.allCases {
            var pieces: [[UInt8]] = []
            try store.exportPropertyList(format: format) { pieces.append($0) }
            #expect(
                Data(pieces.joined()) == Prefs.PropertyList.encode(whole, format: format),
                "\(engine.name) \(format)")
        }
    }

    /// Another process commits while the binary export is between its walks: the export is
    /// still one moment's values, and its references and offsets hold (a mix of two moments
    /// would point into the wrong objects).
    @Test func aWriteDuringTheBinaryExportDoesNotMixTwoMoments() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("p.sqlite")
        let store = PreferenceStore(database: try AppDatabase(path: path))
        try Self.fill(store, count: 5_000)
        let before = try store.storedEntries()
        var options = AppDatabase.Options()
        options.watchesForChanges = false
        let other = PreferenceStore(database: try AppDatabase(path: path, options: options))
        var wrote = false
        var pieces: [[UInt8]] = []
        try store.exportPropertyList(format: .binary) { piece in
            pieces.append(piece)
            if !wrote {
                wrote = true
                try other.transaction { edit in
                    for index in 0..<100 {
                        try edit.setValue(
                            .array([.string("new"), .int(index)]),
                            forKey: String(format: "key%06d", index * 7))
                    }
                    try edit.setValue(nil, forKey: "key000001")
                }
            }
        }
        #expect(wrote)
        let read = try Prefs.PropertyList.decodeEntries(Data(pieces.joined()))
        #expect(read?.map(\.key) == before.map(\.key))
        #expect(read?.map(\.value) == before.map(\.value))
        #expect(try store.storedEntries().count == before.count - 1)
    }
}
