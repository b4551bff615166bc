#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// The onboarding walkthrough of the reference app, over the store.
///
/// Its page is a selection (`walkthrough`, clamp) and whether it was seen is the preference
/// `hasViewedWalkthrough`. The list screen shows it while ``shouldShow`` is true; *Next*
/// advances and, on the last page (where the button reads *Get Started*), completes;
/// *Skip*, shown on every page but the last, completes at once.
///
/// How it ended is recorded beside it, in the same write: `walkthroughEnding` (finished
/// or skipped), `walkthroughEndedOnPage` and `walkthroughEndedAt`. These are preferences
/// like the others, declared, kept in the history and synced; ``outcome`` reads them.
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
    /// How the walkthrough ended; absent while it has not (or before it was recorded).
    public static let endingKey = Prefs.Key<WalkthroughEnding?>(
        "walkthroughEnding", default: nil,
        summary: "How the onboarding walkthrough ended: finished (Get Started) or skipped.")
    /// The page (from 0) on which the walkthrough was finished or skipped.
    public static let endedOnPageKey = Prefs.Key<Int?>(
        "walkthroughEndedOnPage", default: nil,
        summary: "The page, from 0, on which the onboarding walkthrough was finished or skipped.")
    /// When the walkthrough was finished or skipped.
    public static let endedAtKey = Prefs.Key<Date?>(
        "walkthroughEndedAt", default: nil,
        summary: "When the onboarding walkthrough was finished or skipped.")
    /// The names of the keys a walkthrough writes, `hasViewedWalkthrough` first.
    public static let keyNames = [
        hasViewedWalkthroughKey.name, endingKey.name, endedOnPageKey.name, endedAtKey.name,
    ]

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
        try Self.declareKeys(in: preferences)
    }

    /// Declares the walkthrough's keys in a store (their types and summaries), so that
    /// `prefs keys` lists them and a value of another type is refused.
    ///
    /// - Throws: ``PreferenceError`` when a key is declared with another type already,
    ///   ``DatabaseError``.
    /// Declarations already stored as they are are not written again.
    public static func declareKeys(in preferences: PreferenceStore) throws {
        let stored = Set(try preferences.declarations())
        func declare<Value>(_ key: Prefs.Key<Value>) throws {
            if !stored.contains(key.declaration) { try preferences.declare(key) }
        }
        try declare(hasViewedWalkthroughKey)
        try declare(endingKey)
        try declare(endedOnPageKey)
        try declare(endedAtKey)
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

    /// How the walkthrough stands: not ended (on its current page), finished, or skipped
    /// on a page. A store with only `hasViewedWalkthrough` set (written before the ending
    /// was recorded, or by hand) reads as finished at a time unknown.
    public var outcome: WalkthroughOutcome {
        Self.outcome(in: preferences, currentPage: currentPage)
    }

    /// The outcome recorded in a store, for a reader that has no walkthrough open (a
    /// read-only store).
    public static func outcome(in preferences: PreferenceStore, currentPage: Int)
        -> WalkthroughOutcome
    {
        guard preferences[hasViewedWalkthroughKey] else { return .notEnded(page: currentPage) }
        let endedAt = preferences[endedAtKey]
        switch preferences[endingKey] {
        case .skipped?:
            return .skipped(page: preferences[endedOnPageKey] ?? currentPage, at: endedAt)
        case .finished?, nil:
            return .finished(at: endedAt)
        }
    }

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
                try Self.recordEnding(.finished, onPage: currentPage, in: preferences)
            } else {
                try selections.next(Self.selectionName)
            }
        }
    }

    /// *Skip*: completes the walkthrough from any page.
    ///
    /// - Throws: ``DatabaseError`` when the write fails.
    public func skip() throws {
        try Self.recordEnding(.skipped, onPage: currentPage, in: preferences)
    }

    /// Ends the walkthrough in one write: `hasViewedWalkthrough`, how it ended, the page
    /// and the time. For an app that drives the walkthrough with its own state (as the
    /// reference app's screen does with property wrappers).
    ///
    /// The time is kept to the whole second (the default: now), which every export format
    /// holds exactly (an XML property list's dates have no fraction).
    ///
    /// - Throws: ``DatabaseError`` when the write fails (nothing changes then).
    public static func recordEnding(
        _ ending: WalkthroughEnding, onPage page: Int, in preferences: PreferenceStore,
        at date: Date = Date()
    ) throws {
        let date = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
        try preferences.database.write { _ in
            try preferences.set(true, for: hasViewedWalkthroughKey)
            try preferences.set(ending, for: endingKey)
            try preferences.set(page, for: endedOnPageKey)
            try preferences.set(date, for: endedAtKey)
        }
    }

    /// Shows the walkthrough again from its first page.
    ///
    /// - Throws: ``DatabaseError`` when the write fails.
    public func reset() throws {
        try preferences.database.write { _ in
            try preferences.removeValue(for: Self.hasViewedWalkthroughKey)
            try preferences.removeValue(for: Self.endingKey)
            try preferences.removeValue(for: Self.endedOnPageKey)
            try preferences.removeValue(for: Self.endedAtKey)
            try selections.select(0, in: Self.selectionName)
        }
    }
}

/// How a walkthrough ended, as `walkthroughEnding` stores it.
public enum WalkthroughEnding: String, Sendable, CaseIterable, PreferenceStorable {
    /// *Get Started* on the last page.
    case finished
    /// *Skip*, on any page but the last.
    case skipped
}

/// Where a walkthrough stands.
public enum WalkthroughOutcome: Sendable, Hashable {
    /// Not finished or skipped yet; shown on this page.
    case notEnded(page: Int)
    /// Finished with *Get Started*, at this time (nil: not recorded).
    case finished(at: Date?)
    /// Skipped on this page, at this time (nil: not recorded).
    case skipped(page: Int, at: Date?)

    /// `finished`, `skipped` or `not ended`, for output.
    public var name: String {
        switch self {
        case .notEnded: "not ended"
        case .finished: "finished"
        case .skipped: "skipped"
        }
    }
}
