import Foundation
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
}
