import Foundation
import PrefsTestSupport
import TestSupport
import Testing

@testable import PrefsKit

/// The shapes an app moving from `@AppStorage` writes: no store argument, optional enums,
/// assignment through the typed subscript.
@Suite(.serialized) struct AppStorageShapeTests {
    final class OnboardingModel {
        @Preference("hasViewedWalkthrough") var hasViewedWalkthrough = false
        @Preference("theme") var theme: Theme?
        @Preference("density") var density: Density?
    }

    @Test func aPropertyWithoutAStoreUsesTheStandardStoreAsItIsWhenRead() throws {
        let first = PreferenceStore(database: try .inMemory())
        PreferenceStore.standard = first
        let model = OnboardingModel()
        #expect(model.hasViewedWalkthrough == false)
        model.hasViewedWalkthrough = true
        #expect(first[.hasViewedWalkthrough] == true)
        // Replaced later (a test's set-up, an app group): the same property follows.
        let second = PreferenceStore(database: try .inMemory())
        PreferenceStore.standard = second
        #expect(model.hasViewedWalkthrough == false)
        #expect(PreferenceStore.standard === second)
    }

    @Test func optionalEnumsAreNilUntilSetAndRemovedBySettingNil() throws {
        let store = PreferenceStore(database: try .inMemory())
        PreferenceStore.standard = store
        let model = OnboardingModel()
        #expect(model.theme == nil)
        #expect(model.density == nil)
        model.theme = .dark
        model.density = .compact
        #expect(try store.storedValue(forKey: "theme") == .string("dark"))
        #expect(try store.storedValue(forKey: "density") == .int(Density.compact.rawValue))
        #expect(model.theme == .dark)
        model.theme = nil
        #expect(try store.storedValue(forKey: "theme") == nil)
        #expect(model.density == .compact)
    }

    @Test func theTypedSubscriptIsSettableAndReportsFailures() throws {
        let store = PreferenceStore(database: try .inMemory())
        store[.launchCount] = 5
        #expect(store[.launchCount] == 5)
        #expect(try store.storedValue(forKey: "launchCount") == .int(5))
        let reported = Reported()
        let readOnly = PreferenceStore(
            database: try AppDatabase(path: ":memory:", options: .readOnlyForTests))
        readOnly.errorHandler = { reported.add("\($0)") }
        readOnly[.launchCount] = 6
        #expect(readOnly[.launchCount] == 0)
        #expect(
            reported.messages == [
                "':memory:' is read-only; check the permissions of the file and its folder"
            ])
    }

    @Test func aStandardStoreThatCannotOpenReadsDefaultsAndReportsWithoutTrapping() throws {
        let folder = try TemporaryFolder()
        // A directory where the file should be: opening fails.
        // The test's handler from the start: the opening failure is reported to it, not
        // printed on the test run's standard error.
        let reported = Reported()
        let store = PreferenceStore.openStandard(at: folder.url.path) { reported.add("\($0)") }
        #expect(store[.hasViewedWalkthrough] == false)
        store[.hasViewedWalkthrough] = true
        #expect(store[.hasViewedWalkthrough] == false)
        #expect(
            reported.messages == [
                "'\(folder.url.path)' is a directory, not a prefs database",
                "':memory:' is read-only; check the permissions of the file and its folder",
            ])
    }
}
