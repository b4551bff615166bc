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
