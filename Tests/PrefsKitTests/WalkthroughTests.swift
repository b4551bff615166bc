import Foundation
import PrefsTestSupport
import SQLiteCore
import TestSupport
import Testing

@testable import PrefsKit

@Suite struct WalkthroughTests {
    let folder: TemporaryFolder
    let path: String

    init() throws {
        folder = try TemporaryFolder()
        path = folder.path("prefs.sqlite")
    }

    func open() throws -> Walkthrough {
        let database = try AppDatabase(path: path)
        return try Walkthrough(
            preferences: PreferenceStore(database: database),
            selections: SelectionStore(database: database),
            pageCount: try Fixtures.walkthrough.count)
    }

    @Test func freshStoreShowsTheWalkthroughOnItsFirstPage() throws {
        let walkthrough = try open()
        #expect(walkthrough.shouldShow)
        #expect(!walkthrough.hasViewedWalkthrough)
        #expect(walkthrough.pageCount == 3)
        #expect(walkthrough.currentPage == 0)
        #expect(walkthrough.primaryButtonTitle == "Next")
        #expect(walkthrough.showsSkip)
    }

    @Test func nextNextReachesTheLastPageAndNextThereCompletes() throws {
        let walkthrough = try open()
        try walkthrough.next()
        try walkthrough.next()
        #expect(walkthrough.currentPage == 2)
        #expect(walkthrough.isOnLastPage)
        #expect(walkthrough.primaryButtonTitle == "Get Started")
        #expect(!walkthrough.showsSkip)
        #expect(walkthrough.shouldShow)
        try walkthrough.next()
        #expect(walkthrough.hasViewedWalkthrough)
        #expect(!walkthrough.shouldShow)
        #expect(try open().hasViewedWalkthrough)
    }

    @Test func skipFromTheFirstPageCompletes() throws {
        let walkthrough = try open()
        try walkthrough.skip()
        #expect(walkthrough.hasViewedWalkthrough)
        #expect(PreferenceStore(database: try AppDatabase(path: path))[.hasViewedWalkthrough])
    }

    @Test func resetShowsItAgainFromTheStart() throws {
        let walkthrough = try open()
        try walkthrough.next()
        try walkthrough.skip()
        try walkthrough.reset()
        #expect(walkthrough.shouldShow)
        #expect(walkthrough.currentPage == 0)
        let reopened = try open()
        #expect(reopened.shouldShow)
        #expect(reopened.currentPage == 0)
    }

    @Test func stateSurvivesReopeningMidWay() throws {
        try open().next()
        let reopened = try open()
        #expect(reopened.currentPage == 1)
        #expect(reopened.shouldShow)
    }

    // MARK: - How it ended

    @Test func getStartedRecordsFinishedOnTheLastPageWithTheTime() throws {
        let walkthrough = try open()
        let before = Date()
        try walkthrough.next()
        try walkthrough.next()
        #expect(walkthrough.outcome == .notEnded(page: 2))
        try walkthrough.next()
        let reopened = try open()
        guard case .finished(let at?) = reopened.outcome else {
            Issue.record("\(reopened.outcome)")
            return
        }
        // Kept to the whole second.
        #expect(at.timeIntervalSince1970 == at.timeIntervalSince1970.rounded(.down))
        #expect(at.timeIntervalSince1970 >= before.timeIntervalSince1970.rounded(.down))
        #expect(at <= Date())
        #expect(reopened.preferences[Walkthrough.endedOnPageKey] == 2)
        #expect(reopened.preferences[Walkthrough.endingKey] == .finished)
    }

    @Test(arguments: [0, 1])
    func skipRecordsThePageItWasSkippedOn(page: Int) throws {
        let walkthrough = try open()
        for _ in 0..<page { try walkthrough.next() }
        try walkthrough.skip()
        guard case .skipped(let skippedOn, let at) = try open().outcome else {
            Issue.record("\(try open().outcome)")
            return
        }
        #expect(skippedOn == page)
        #expect(at != nil)
    }

    /// A store written before the ending was recorded (or by `prefs set
    /// hasViewedWalkthrough true`) reads as finished at a time unknown.
    @Test func onlyHasViewedWalkthroughReadsAsFinishedAtATimeUnknown() throws {
        let database = try AppDatabase(path: path)
        try PreferenceStore(database: database).set(true, for: Walkthrough.hasViewedWalkthroughKey)
        #expect(try open().outcome == .finished(at: nil))
    }

    @Test func resetForgetsHowItEnded() throws {
        let walkthrough = try open()
        try walkthrough.skip()
        try walkthrough.reset()
        #expect(walkthrough.outcome == .notEnded(page: 0))
        for key in Walkthrough.keyNames {
            #expect(try walkthrough.preferences.storedValue(forKey: key) == nil, "\(key)")
        }
    }

    /// The keys are declared with their types: another type is refused, and opening the
    /// walkthrough again writes no declaration again.
    @Test func theKeysAreDeclaredOnceWithTheirTypes() throws {
        let walkthrough = try open()
        let declared = try walkthrough.preferences.declarations().filter {
            Walkthrough.keyNames.contains($0.key)
        }
        #expect(
            declared.map { "\($0.key) \($0.type)" }.sorted() == [
                "hasViewedWalkthrough bool", "walkthroughEndedAt date",
                "walkthroughEndedOnPage int", "walkthroughEnding string",
            ])
        #expect(declared.allSatisfy { !($0.description ?? "").isEmpty })
        #expect(throws: PreferenceError.self) {
            try walkthrough.preferences.setValue(.string("two"), forKey: "walkthroughEndedOnPage")
        }
        // SQLite's data_version, on a connection of its own, moves with every commit of
        // another connection.
        let watcher = try Connection(path: path)
        let version = try watcher.dataVersion()
        _ = try open()
        #expect(try watcher.dataVersion() == version)
        try walkthrough.next()
        #expect(try watcher.dataVersion() != version)
    }
}
