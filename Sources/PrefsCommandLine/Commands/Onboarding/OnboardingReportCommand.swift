import PrefsKit
import PrefsPostgreSQL

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// `prefs onboarding report`: on a file, this account's walkthrough, from the store's
/// history: how it stands, how it ended, and each change of its keys. On a server's store,
/// for a service role: how many accounts finished, skipped or stopped on each page, or never
/// started (``OnboardingReport``).
struct OnboardingReportCommand: RunnableCommand {
    static var name: String { "report" }
    static let limit = Option<Int>(
        "limit", short: "n", value: "n",
        help: "Show at most this many changes of the walkthrough's keys (default: 50).",
        in: 1...Int.max)
    static let since = Option<ReportDate>(
        "since", value: "date",
        help: "On a server: only accounts whose first change is since then (2026-11-30).")
    static let by = Option<ReportGrouping>(
        "by", value: "week", help: "On a server: one group per week of the accounts' first change.")
    static let format = Option<ReportFormat>(
        "format", value: "svg",
        help: "On a server: svg draws the funnel as a picture (standalone SVG) instead of text.")
    static let threshold = Option<Int>(
        "threshold", value: "n",
        help: "On a server: counts below n are shown as <n (default: 5).",
        in: 1...1_000_000_000)
    static let spec = CommandSpec(
        Self.self, abstract: "Report how the walkthrough went: shown, pages, outcome, changes.",
        discussion: """
            On a file: the walkthrough's keys (hasViewedWalkthrough, walkthroughEnding,
            walkthroughEndedOnPage, walkthroughEndedAt) and their history, newest first.
            A store with only hasViewedWalkthrough set reads as finished at a time unknown.
            On a PostgreSQL store, for a service role: how many accounts finished, skipped
            or stopped on each page, and never started; counts only, those below the
            threshold shown as <n. An account's own role is refused (exit 77). With
            --format svg, the same counts as a picture: a bar a line, exact counts filled,
            counts below the threshold dashed at the threshold's length.
            """,
        options: [
            OnboardingGroup.pages.spec, limit.spec, since.spec, by.spec, threshold.spec,
            format.spec,
        ], scope: .preferences)

    var pageCount: Int? = nil
    var limit = 50
    var since: ReportDate? = nil
    var byWeek = false
    var threshold: Int? = nil
    var format: ReportFormat? = nil

    func run(_ context: CommandContext) throws {
        if AppDatabase.isConnectionString(context.databasePath) {
            return try reportAcrossAccounts(context)
        }
        if since != nil || byWeek || threshold != nil || format != nil {
            throw CommandFailure(
                "--since, --by, --threshold and --format apply to a server's store"
                    + " (--db postgresql://...)",
                exitCode: CommandFailure.usage)
        }
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

extension OnboardingReportCommand {
    /// The report across the accounts of a server's store.
    func reportAcrossAccounts(_ context: CommandContext) throws {
        if format == .svg && context.globals.isJSON {
            throw CommandFailure(
                "--format svg and --json are two outputs; choose one",
                exitCode: CommandFailure.usage)
        }
        let report = try OnboardingReport.read(
            target: context.databasePath, options: context.serverOptions(), suite: context.suite,
            since: since?.date, byWeek: byWeek, threshold: threshold ?? 5)
        if context.globals.isJSON {
            context.printJSON(report.json)
            return
        }
        if format == .svg {
            context.console.print(report.svg())
            return
        }
        func text(_ count: OnboardingReport.Count?) -> String { count?.description ?? "0" }
        var lines = ""
        for group in report.groups {
            if let week = group.week { lines += "week \(week):\n" }
            let indent = group.week == nil ? "" : "  "
            lines += "\(indent)finished: \(text(group.finished))\n"
            for page in group.skipped.keys.sorted() {
                lines += "\(indent)skipped on page \(page + 1): \(text(group.skipped[page]))\n"
            }
            if let unknown = group.skippedOnUnknownPage {
                lines += "\(indent)skipped on a page not recorded: \(unknown)\n"
            }
            for page in group.stopped.keys.sorted() {
                lines += "\(indent)stopped on page \(page + 1): \(text(group.stopped[page]))\n"
            }
            lines += "\(indent)never started: \(text(group.neverStarted))\n"
        }
        context.console.print(lines)
    }
}

/// A day (`2026-11-30`, midnight UTC) or a time (`2026-11-30T12:00:00Z`).
struct ReportDate: ArgumentValue, Equatable {
    let date: Date

    init?(argumentText text: String) {
        if let date = ISO8601.date(from: text) {
            self.date = date
        } else if text.utf8.count == 10, let date = ISO8601.date(from: text + "T00:00:00Z") {
            self.date = date
        } else {
            return nil
        }
    }
    static var expectation: String { "a date (2026-11-30) or a time (2026-11-30T12:00:00Z)" }
    static var choices: [String] { [] }
}

/// How a server's report is shown: as text (the default) or as a picture.
enum ReportFormat: String, CaseIterable, ArgumentValue {
    case text
    case svg
}

/// What `--by` groups a report by.
enum ReportGrouping: String, CaseIterable, ArgumentValue {
    case week
}

extension WalkthroughOutcome {
    var isNotEnded: Bool {
        if case .notEnded = self { true } else { false }
    }
}

extension OnboardingReportCommand {
    init(parsing parsed: ParsedArguments) throws(UsageError) {
        self.init(
            pageCount: try parsed[OnboardingGroup.pages], limit: try parsed[Self.limit] ?? 50,
            since: try parsed[Self.since], byWeek: try parsed[Self.by] == .week,
            threshold: try parsed[Self.threshold], format: try parsed[Self.format])
    }
}
