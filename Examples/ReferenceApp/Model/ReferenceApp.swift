// The reference app's model layer: the state of its four screens, kept in one prefs file
// and bound to PrefsKit's property wrappers. It builds on every platform; the SwiftUI views
// over it are in Examples/ReferenceApp/Views, and Examples/ReferenceApp/Check drives it on
// Linux with another process changing the file.
import Observation
import PrefsKit

/// One trip of the carousel.
public struct Trip: Identifiable, Hashable, Sendable {
    public let id: String
    public let name: String
}

/// One page of the featured pager.
public struct FeaturedItem: Identifiable, Hashable, Sendable {
    public let id: String
    public let title: String
}

/// One row of the articles list.
public struct Article: Identifiable, Hashable, Sendable {
    public let id: String
    public let title: String
}

/// The app's content. A real app loads it; the reference app ships it.
public enum Catalog {
    public static let trips = [
        "London", "Paris", "Rome", "Lisbon", "Oslo", "Vienna", "Prague", "Kyoto", "Lima",
        "Quito", "Cusco", "Hanoi", "Dakar",
    ].map { Trip(id: $0.lowercased(), name: $0) }
    public static let featured = [
        ("endgame", "Avengers: Endgame"), ("infinity-war", "Avengers: Infinity War"),
        ("black-panther", "Black Panther"), ("iron-man", "Iron Man"),
    ].map { FeaturedItem(id: $0.0, title: $0.1) }
    public static let articles = (1...5).map {
        Article(id: "article-\($0)", title: "Article \($0)")
    }
}

/// The stores of one prefs file, opened once per process and shared by the screens.
public final class AppStores: Sendable {
    public let database: AppDatabase
    public let preferences: PreferenceStore
    public let selections: SelectionStore
    public let bookmarks: BookmarkStore

    /// Opens the file at `path` (the app passes `DatabaseLocation.defaultPath()`).
    public init(path: String) throws {
        database = try AppDatabase(path: path)
        preferences = PreferenceStore(database: database)
        selections = SelectionStore(database: database)
        bookmarks = BookmarkStore(database: database)
    }
}

/// Screen 1: the onboarding walkthrough, shown until it is completed or skipped.
@Observable public final class WalkthroughScreen {
    public static let pageCount = 3
    @ObservationIgnored @Preference<Bool> public var hasViewedWalkthrough: Bool
    @ObservationIgnored @SelectedIndex public var page: Int?
    @ObservationIgnored private let preferences: PreferenceStore

    public init(stores: AppStores) {
        preferences = stores.preferences
        _hasViewedWalkthrough = Preference(
            Walkthrough.hasViewedWalkthroughKey, store: stores.preferences)
        _page = SelectedIndex(
            Walkthrough.selectionName, count: Self.pageCount, policy: .clamp,
            store: stores.selections)
    }

    /// Whether the app presents the walkthrough.
    public var showsWalkthrough: Bool { !hasViewedWalkthrough }
    /// The walkthrough sheet's binding: dismissing it skips.
    public var isPresented: Bool {
        get { showsWalkthrough }
        set { if !newValue { skip() } }
    }
    public var isOnLastPage: Bool { (page ?? 0) >= Self.pageCount - 1 }
    /// *Next*, or *Get Started* on the last page.
    public var primaryButtonTitle: String { isOnLastPage ? "Get Started" : "Next" }

    /// The primary button: the next page, or done on the last one.
    public func primaryButtonTapped() {
        if isOnLastPage { end(.finished) } else { $page.next() }
    }

    /// *Skip*: done from any page.
    public func skip() { end(.skipped) }

    /// Done, and how, on which page and when, in one write; if the write fails, the
    /// walkthrough is at least not shown again this session.
    private func end(_ ending: WalkthroughEnding) {
        do {
            try Walkthrough.recordEnding(ending, onPage: page ?? 0, in: preferences)
        } catch {
            hasViewedWalkthrough = true
        }
    }
}

/// Screen 2: the trip carousel, with a bookmark button for the trip in front.
@Observable public final class TripsScreen {
    public let trips = Catalog.trips
    @ObservationIgnored @SelectedIndex public var currentTripIndex: Int?
    /// One bookmark state per trip, made once so each keeps its read-cache slot.
    @ObservationIgnored private let tripBookmarks: [Bookmarked]
    @ObservationIgnored @BookmarkList public var savedTrips: [Bookmark]

    public init(stores: AppStores) {
        _currentTripIndex = SelectedIndex(
            "carousel", count: Catalog.trips.count, policy: .clamp, store: stores.selections)
        tripBookmarks = Catalog.trips.map {
            Bookmarked(kind: "trip", itemID: $0.id, title: $0.name, store: stores.bookmarks)
        }
        _savedTrips = BookmarkList(BookmarkQuery(kind: "trip"), store: stores.bookmarks)
    }

    public var currentTrip: Trip { trips[currentTripIndex ?? 0] }

    /// The bookmark button's state for the trip in front; setting it bookmarks or removes.
    public var isCurrentTripBookmarked: Bool {
        get { tripBookmarks[currentTripIndex ?? 0].wrappedValue }
        set { tripBookmarks[currentTripIndex ?? 0].wrappedValue = newValue }
    }

    public func toggleBookmark() { tripBookmarks[currentTripIndex ?? 0].toggle() }

    /// A swipe ended: the page the carousel settles on.
    public func swipeEnded(translation: Double, pageWidth: Double) {
        currentTripIndex = CarouselPaging.targetPage(
            currentPage: currentTripIndex ?? 0, translation: translation, pageWidth: pageWidth,
            count: trips.count)
    }
}

/// Screen 3: the featured pager, which wraps from the last page to the first.
@Observable public final class FeaturedScreen {
    public let items = Catalog.featured
    @ObservationIgnored @SelectedIndex public var currentPage: Int?

    public init(stores: AppStores) {
        _currentPage = SelectedIndex(
            "featured", count: Catalog.featured.count, policy: .wrap, store: stores.selections)
    }

    public var currentItem: FeaturedItem { items[currentPage ?? 0] }
    /// The pager's binding (a wrapping selection always has a page).
    public var page: Int {
        get { currentPage ?? 0 }
        set { currentPage = newValue }
    }
    public func next() { $currentPage.next() }
    public func previous() { $currentPage.previous() }
}

/// Screen 4: the articles list; nil when no article is open.
@Observable public final class ArticlesScreen {
    public let articles = Catalog.articles
    @ObservationIgnored @SelectedIndex public var selectedArticleIndex: Int?

    public init(stores: AppStores) {
        _selectedArticleIndex = SelectedIndex(
            "articles", count: Catalog.articles.count, policy: .optional, store: stores.selections)
    }

    /// The open article, for a sheet or a navigation destination; nil closes it.
    public var selectedArticle: Article? {
        get { selectedArticleIndex.map { articles[$0] } }
        set { selectedArticleIndex = newValue.flatMap { articles.firstIndex(of: $0) } }
    }
    public func open(_ article: Article) {
        selectedArticleIndex = articles.firstIndex(of: article)
    }
    public func close() { selectedArticleIndex = nil }
}
