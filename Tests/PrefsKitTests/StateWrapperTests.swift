import Foundation
import Observation
import PrefsTestSupport
import Synchronization
import TestSupport
import Testing

@testable import PrefsKit

/// The reference app's trip screen as a model: the carousel's page and the detail screen's
/// bookmark button, persisted, read through property wrappers inside `@Observable`.
@Observable final class TripScreenModel {
    @ObservationIgnored @SelectedIndex var currentTripIndex: Int?
    @ObservationIgnored @SelectedIndex var currentPage: Int?
    @ObservationIgnored @SelectedIndex var selectedArticleIndex: Int?
    @ObservationIgnored @Bookmarked var isLondonBookmarked: Bool
    @ObservationIgnored @BookmarkList var savedTrips: [Bookmark]

    init(selections: SelectionStore, bookmarks: BookmarkStore, errors: ErrorLog) {
        _currentTripIndex = SelectedIndex(
            "carousel", count: 13, policy: .clamp, initialIndex: 2, store: selections,
            onError: errors.record)
        _currentPage = SelectedIndex("featured", count: 4, policy: .wrap, store: selections)
        _selectedArticleIndex = SelectedIndex(
            "articles", count: 10, policy: .optional, store: selections)
        _isLondonBookmarked = Bookmarked(
            kind: "trip", itemID: "london", title: "London", store: bookmarks,
            onError: errors.record)
        _savedTrips = BookmarkList(BookmarkQuery(kind: "trip"), store: bookmarks)
    }
}

/// Errors a wrapper's setter reported.
final class ErrorLog: Sendable {
    private let messages = Mutex<[String]>([])
    var all: [String] { messages.withLock { $0 } }
    var record: @Sendable (any Error) -> Void {
        { error in self.messages.withLock { $0.append("\(error)") } }
    }
}

@Suite(.serialized) struct StateWrapperTests {
    let folder: TemporaryFolder
    let path: String
    let selections: SelectionStore
    let bookmarks: BookmarkStore
    let errors = ErrorLog()
    let model: TripScreenModel

    init() throws {
        folder = try TemporaryFolder()
        path = folder.path("prefs.sqlite")
        let database = try AppDatabase(path: path)
        selections = SelectionStore(database: database)
        bookmarks = BookmarkStore(database: database)
        model = TripScreenModel(selections: selections, bookmarks: bookmarks, errors: errors)
    }

    @Test func initialValuesAreReadWithoutBeingWritten() throws {
        #expect(model.currentTripIndex == 2)
        #expect(model.currentPage == 0)
        #expect(model.selectedArticleIndex == nil)
        #expect(model.isLondonBookmarked == false)
        #expect(try selections.all().isEmpty)
        #expect(try bookmarks.list().isEmpty)
    }

    @Test func theCarouselClampsThePagerWrapsTheListClears() throws {
        for _ in 0..<20 { model.$currentTripIndex.next() }
        #expect(model.currentTripIndex == 12)
        model.$currentPage.previous()
        #expect(model.currentPage == 3)
        model.selectedArticleIndex = 4
        #expect(model.selectedArticleIndex == 4)
        model.selectedArticleIndex = nil
        #expect(model.selectedArticleIndex == nil)
        #expect(errors.all.isEmpty)
    }

    @Test func aFailedSetIsReportedAndTheValueStaysWhatTheFileHolds() throws {
        model.currentTripIndex = 40
        #expect(model.currentTripIndex == 2)
        #expect(errors.all == ["Index 40 is out of range for 'carousel' (valid: 0...12)"])
    }

    @Test func viewsHearOfChangesHereAndFromAnotherProcess() async throws {
        let page = trackObservation { _ = model.currentTripIndex }
        let button = trackObservation { _ = model.isLondonBookmarked }
        model.$currentTripIndex.next()
        #expect(page.value == 1)
        #expect(button.value == 0)
        model.$isLondonBookmarked.toggle()
        #expect(button.value == 1)
        #expect(model.isLondonBookmarked)
        // Another process removes the bookmark and moves the carousel.
        let again = trackObservation { _ = model.isLondonBookmarked }
        let pageAgain = trackObservation { _ = model.currentTripIndex }
        #expect(try runPrefs(["--db", path, "bookmark", "remove", "trip", "london"]).status == 0)
        #expect(try runPrefs(["--db", path, "selection", "set", "carousel", "9"]).status == 0)
        #expect(await waitUntil(upTo: 10) { again.value == 1 && pageAgain.value == 1 })
        #expect(model.isLondonBookmarked == false)
        #expect(model.currentTripIndex == 9)
    }

    @Test func theSavedListFollowsItsRowsOnly() async throws {
        let list = trackObservation { _ = model.savedTrips }
        _ = try bookmarks.add(BookmarkDraft(kind: "article", itemID: "a1", title: "A1"))
        #expect(list.value == 0, "a bookmark of another kind changed the trip list")
        model.isLondonBookmarked = true
        #expect(list.value == 1)
        _ = try bookmarks.add(BookmarkDraft(kind: "trip", itemID: "rome", title: "Rome"))
        #expect(model.savedTrips.map(\.itemID) == ["london", "rome"])
        #expect(model.$savedTrips.count == 2)
        if let rome = model.savedTrips.last { model.$savedTrips.move(rome, to: 0) }
        #expect(model.savedTrips.map(\.itemID) == ["rome", "london"])
        // Another process removes one.
        let again = trackObservation { _ = model.savedTrips }
        #expect(try runPrefs(["--db", path, "bookmark", "remove", "trip", "rome"]).status == 0)
        #expect(await waitUntil(upTo: 10) { again.value == 1 })
        #expect(model.savedTrips.map(\.itemID) == ["london"])
    }
}

/// A list that shrank: the index a property reads is inside the count it was given, before
/// any write of its own.
@Suite struct SelectedIndexInsideItsCountTests {
    @Test(arguments: [
        (SelectionPolicy.clamp, Optional(4)), (.wrap, Optional(0)), (.optional, nil),
    ])
    func aStoredIndexPastTheCountReadsInsideIt(policy: SelectionPolicy, expected: Int?) throws {
        let folder = try TemporaryFolder()
        let selections = SelectionStore(
            database: try AppDatabase(path: folder.path("prefs.sqlite")))
        try selections.define("list", count: 20, policy: policy)
        try selections.select(10, in: "list")
        let shrunk = SelectedIndex("list", count: 5, policy: policy, store: selections)
        #expect(shrunk.wrappedValue == expected)
        let empty = SelectedIndex("list", count: 0, policy: policy, store: selections)
        #expect(empty.wrappedValue == nil)
        let inside = SelectedIndex("list", count: 11, policy: policy, store: selections)
        #expect(inside.wrappedValue == 10)
    }
}
