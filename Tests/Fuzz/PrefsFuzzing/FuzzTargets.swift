import PrefsCommandLine
import PrefsInterchange
import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// The entry points that fuzzing drives and that `swift test` replays the corpus through.
/// Each must return for any input: errors are fine, crashes and hangs are bugs.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// The decoder of stored values (binary property lists and typed columns).
    case value
    /// JSON import of preferences and bookmarks.
    case json
    /// Property-list import (XML and binary).
    case plist
    /// Netscape bookmark HTML import.
    case html
    /// The argument parser, on NUL-separated arguments.
    case arguments

    /// Feeds one input to the target.
    public func run(_ bytes: [UInt8]) {
        switch self {
        case .value:
            _ = try? PropertyList.decode(Data(bytes), format: .binary)
            let text = String(decoding: bytes, as: UTF8.self)
            for type in PreferenceType.allCases {
                _ = try? PreferenceValue(json: .string(text), type: type, key: "k")
                _ = try? PreferenceValue(json: .number(text), type: type, key: "k")
            }
            _ = ISO8601.date(from: text)
        case .json:
            let text = String(decoding: bytes, as: UTF8.self)
            if let json = try? JSONValue(parsing: bytes) {
                _ = json.serialized(.pretty)
                _ = try? PreferenceValue(nestedJSON: json, key: "k")
            }
            _ = try? FuzzTarget.scratchPreferences?.importJSON(text)
            _ = try? FuzzTarget.scratchBookmarks?.importJSON(text)
            _ = try? BookmarkStore.document(reading: bytes)  // Chromium's Bookmarks too
        case .plist:
            if let value = try? PropertyList.decode(Data(bytes)) {
                _ = PropertyList.encode(value, format: .xml)
                _ = PropertyList.encode(value, format: .binary)
            }
            _ = try? BookmarkStore.document(reading: bytes)  // Safari's Bookmarks.plist
        case .html:
            _ = try? NetscapeBookmarkFile.document(reading: bytes)
            // A fresh store per input: a growing one would slow every later input down.
            if let document = try? BookmarkStore.document(reading: bytes),
                let database = try? AppDatabase.inMemory()
            {
                let store = BookmarkStore(database: database)
                _ = try? store.importDocument(document)
                _ = try? store.exportHTML()
            }
        case .arguments:
            let arguments = bytes.split(separator: 0, omittingEmptySubsequences: false)
                .map { String(decoding: $0, as: UTF8.self) }
            _ = PrefsCommand.usageError(for: arguments)
        }
    }

    // In-memory stores for import targets; imports run in transactions, so each failed
    // input leaves them as they were.
    static let scratchDatabase = try? AppDatabase.inMemory()
    static let scratchPreferences = scratchDatabase.map { PreferenceStore(database: $0) }
    static let scratchBookmarks = scratchDatabase.map { BookmarkStore(database: $0) }
}
