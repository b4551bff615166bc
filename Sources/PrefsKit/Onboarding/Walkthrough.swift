/// The onboarding walkthrough of the reference app, over the store.
///
/// Its page is a selection (`walkthrough`, clamp) and whether it was seen is the preference
/// `hasViewedWalkthrough`. The list screen shows it while ``shouldShow`` is true; *Next*
/// advances and, on the last page (where the button reads *Get Started*), completes;
/// *Skip*, shown on every page but the last, completes at once.
///
/// ```swift
/// let walkthrough = try Walkthrough(preferences: store, selections: selections, pageCount: 3)
/// if walkthrough.shouldShow { present(walkthrough) }
/// try walkthrough.next()
/// ```
public final class Walkthrough: Sendable {
    /// The preference that records completion.
    public static let hasViewedWalkthroughKey = Prefs.Key(
        "hasViewedWalkthrough", default: false,
        summary: "Whether the onboarding walkthrough was completed or skipped.")
    /// The name of the selection that holds the current page.
    public static let selectionName = "walkthrough"

    /// The store holding `hasViewedWalkthrough`.
    public let preferences: PreferenceStore
    /// The store holding the current page.
    public let selections: SelectionStore

    /// Opens the walkthrough state, defining its page selection when needed.
    ///
    /// - Parameters:
    ///   - preferences: The store of `hasViewedWalkthrough`.
    ///   - selections: The store of the current page.
    ///   - pageCount: The number of pages (3 in the reference app).
    /// - Throws: ``SelectionError`` for a page count below 1, ``DatabaseError``.
    public init(preferences: PreferenceStore, selections: SelectionStore, pageCount: Int = 3) throws
    {
        guard pageCount >= 1 else {
            throw SelectionError.invalid("A walkthrough needs at least one page (got \(pageCount))")
        }
        self.preferences = preferences
        self.selections = selections
        try selections.define(Self.selectionName, count: pageCount, policy: .clamp, initialIndex: 0)
    }

    private var selection: Selection? {
        try? selections.selection(named: Self.selectionName)
    }

    /// The number of pages.
    public var pageCount: Int { selection?.count ?? 0 }

    /// The page shown, from 0.
    public var currentPage: Int { selection?.index ?? 0 }

    /// Whether the walkthrough was completed or skipped.
    public var hasViewedWalkthrough: Bool { preferences[Self.hasViewedWalkthroughKey] }

    /// Whether the list screen should present the walkthrough.
    public var shouldShow: Bool { !hasViewedWalkthrough }

    /// Whether the current page is the last.
    public var isOnLastPage: Bool { currentPage >= pageCount - 1 }

    /// The primary button's title: *Next*, or *Get Started* on the last page.
    public var primaryButtonTitle: String { isOnLastPage ? "Get Started" : "Next" }

    /// Whether *Skip* is shown (every page but the last).
    public var showsSkip: Bool { !isOnLastPage }

    /// *Next*: moves to the next page, or on the last page completes the walkthrough.
    ///
    /// - Throws: ``DatabaseError`` when the write fails (nothing changes then).
    public func next() throws {
        try preferences.database.write { _ in
            if isOnLastPage {
                try preferences.set(true, for: Self.hasViewedWalkthroughKey)
            } else {
                try selections.next(Self.selectionName)
            }
        }
    }

    /// *Skip*: completes the walkthrough from any page.
    ///
    /// - Throws: ``DatabaseError`` when the write fails.
    public func skip() throws {
        try preferences.set(true, for: Self.hasViewedWalkthroughKey)
    }

    /// Shows the walkthrough again from its first page.
    ///
    /// - Throws: ``DatabaseError`` when the write fails.
    public func reset() throws {
        try preferences.database.write { _ in
            try preferences.removeValue(for: Self.hasViewedWalkthroughKey)
            try selections.select(0, in: Self.selectionName)
        }
    }
}
