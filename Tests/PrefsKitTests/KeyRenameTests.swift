import Foundation
import Testing

@testable import PrefsKit

/// A key declared with previous names takes over the value stored under an old name, once,
/// atomically, in the history, and never over a value already under the new name.
@Suite struct KeyRenameTests {
    let store: PreferenceStore

    init() throws {
        store = PreferenceStore(database: try .inMemory())
    }

    static let renamed = Prefs.Key(
        "hasViewedWalkthrough", default: false, previousNames: ["walkthroughSeen", "seenIntro"])

    @Test func anOldValueMovesToTheNewNameOnFirstRead() throws {
        try store.setValue(.bool(true), forKey: "walkthroughSeen")
        #expect(store[Self.renamed] == true)
        #expect(try store.storedValue(forKey: "hasViewedWalkthrough") == .bool(true))
        #expect(try store.storedValue(forKey: "walkthroughSeen") == nil)
        let history = try store.history()
        #expect(history.prefix(2).map(\.key) == ["walkthroughSeen", "hasViewedWalkthrough"])
        #expect(history.first?.value == nil)
        #expect(history.first?.oldValue == .bool(true))
        #expect(history.dropFirst().first?.value == .bool(true))
    }

    @Test func theNewestPreviousNameWithAValueIsTakenAndTheOthersStay() throws {
        try store.setValue(.bool(true), forKey: "seenIntro")
        try store.setValue(.bool(false), forKey: "walkthroughSeen")
        #expect(store[Self.renamed] == false)
        #expect(try store.storedValue(forKey: "seenIntro") == .bool(true))
        #expect(try store.storedValue(forKey: "walkthroughSeen") == nil)
    }

    @Test func aValueUnderTheNewNameIsNeverOverwritten() throws {
        try store.setValue(.bool(false), forKey: "hasViewedWalkthrough")
        try store.setValue(.bool(true), forKey: "walkthroughSeen")
        #expect(store[Self.renamed] == false)
        #expect(try store.storedValue(forKey: "walkthroughSeen") == .bool(true))
        #expect(try store.history().count == 2)  // the two sets above, nothing moved
    }

    @Test func itHappensOncePerStore() throws {
        try store.setValue(.bool(true), forKey: "walkthroughSeen")
        #expect(store[Self.renamed] == true)
        try store.removeValue(for: Self.renamed)
        try store.setValue(.bool(true), forKey: "walkthroughSeen")  // an old build writes again
        #expect(store[Self.renamed] == false)
        #expect(try store.storedValue(forKey: "walkthroughSeen") == .bool(true))
    }

    @Test func aReadOnlyDatabaseReadsTheDefaultAndChangesNothing() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "prefs-rename-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("prefs.sqlite").path
        try PreferenceStore(database: try AppDatabase(path: path)).setValue(
            .bool(true), forKey: "walkthroughSeen")
        var options = AppDatabase.Options()
        options.isReadOnly = true
        let reader = PreferenceStore(database: try AppDatabase(path: path, options: options))
        #expect(reader[Self.renamed] == false)
        #expect(try reader.storedValue(forKey: "walkthroughSeen") == .bool(true))
    }
}
