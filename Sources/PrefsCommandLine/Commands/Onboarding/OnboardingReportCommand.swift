import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// `prefs onboarding report`: this account's walkthrough, from the store's history: how it
/// stands, how it ended, and each change of its keys.
struct OnboardingReportCommand: RunnableCommand {
    static var name: String { "report" }
    static let limit = Option<Int>(
        "limit", short: "n", value: "n",
        help: "Show at most this many changes of the walkthrough's keys (default: 50).",
        in: 1...Int.max)
    static let spec = CommandSpec(
        Self.self, abstract: "Report how the walkthrough went: shown, pages, outcome, changes.",
        discussion: """
            Reads the walkthrough's keys (hasViewedWalkthrough, walkthroughEnding,
            walkthroughEndedOnPage, walkthroughEndedAt) and their history, newest first.
            A store with only hasViewedWalkthrough set reads as finished at a time unknown.
            """,
        options: [OnboardingGroup.pages.spec, limit.spec], scope: .preferences)

    var pageCount: Int? = nil
    var limit = 50

    func run(_ context: CommandContext) throws {
        let database = try context.openForReading()
        let store = database.map { PreferenceStore(database: $0, suite: context.suite) }
        let selection = try database.flatMap {
            try SelectionStore(database: $0).selection(named: Walkthrough.selectionName)
        }
        let count = pageCount ?? selection?.count ?? 3
        let page = min(selection?.index ?? 0, count - 1)
        let outcome =
            store.map { Walkthrough.outcome(in: $0, currentPage: page) } ?? .notEnded(page: page)
        // The history of the suite, newest first, kept to the walkthrough's keys.
        var changes: [PreferenceChange] = []
        if let store {
            for key in Walkthrough.keyNames {
                changes += try store.history(forKey: key, limit: limit)
            }
        }
        changes = Array(changes.sorted { $0.id > $1.id }.prefix(limit))
        if context.globals.isJSON {
            context.printJSON(
                .object([
                    ("shouldShow", .bool(outcome.isNotEnded)),
                    ("currentPage", .integer(Int64(page))), ("pageCount", .integer(Int64(count))),
                    ("outcome", Self.json(outcome)),
                    ("changes", .array(changes.map(JSONShapes.change))),
                ]))
            return
        }
        var text = """
            shown: \(outcome.isNotEnded ? "yes" : "no")
            page: \(page + 1) of \(count)
            outcome: \(Self.text(outcome))
            changes:\(changes.isEmpty ? " none" : "")

            """
        for change in changes {
            let value = change.value.map(ValueText.listed) ?? "(removed)"
            text += "  \(ISO8601.string(from: change.changedAt))  \(change.key) = \(value)\n"
        }
        context.console.print(text)
    }

    static func text(_ outcome: WalkthroughOutcome) -> String {
        func time(_ date: Date?) -> String {
            date.map { "at " + ISO8601.string(from: $0) } ?? "at a time not recorded"
        }
        switch outcome {
        case .notEnded(let page): return "not ended (on page \(page + 1))"
        case .finished(let date): return "finished \(time(date))"
        case .skipped(let page, let date): return "skipped on page \(page + 1) \(time(date))"
        }
    }

    /// `{"ending": "skipped", "page": 1, "at": "..."}`; pages from 0, as `currentPage`.
    static func json(_ outcome: WalkthroughOutcome) -> JSONValue {
        let (page, date): (Int?, Date?) =
            switch outcome {
            case .notEnded(let page): (page, nil)
            case .finished(let date): (nil, date)
            case .skipped(let page, let date): (page, date)
            }
        let pageValue: JSONValue = page.map { .integer(Int64($0)) } ?? .null
        let dateValue: JSONValue = date.map { .string(ISO8601.string(from: $0)) } ?? .null
        return .object([("ending", .string(outcome.name)), ("page", pageValue), ("at", dateValue)])
    }
}

extension WalkthroughOutcome {
    var isNotEnded: Bool {
        if case .notEnded = self { true } else { false }
    }
}

extension OnboardingReportCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(
            pageCount: try parsed[OnboardingGroup.pages], limit: try parsed[Self.limit] ?? 50)
    }
}
