internal import PostgresCore
import PrefsKit

#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// How the onboarding walkthrough went across the accounts of a server's store: how many
/// finished it, skipped it on each page, stopped on each page, or never started it, in all
/// or by the week of each account's first change. For a service role only; it holds counts,
/// never an account's name, and a count below the threshold is only said to be below it.
///
/// ```swift
/// let report = try OnboardingReport.read(
///     target: "postgresql:///prefs?user=app", threshold: 5)
/// for group in report.groups { print(group.week ?? "all", group.finished) }
/// ```
///
/// An account is one that changed anything in the store. What it shows comes from the
/// walkthrough's keys (``PrefsKit/Walkthrough``): `hasViewedWalkthrough`,
/// `walkthroughEnding` and `walkthroughEndedOnPage`, and its page selection. An account
/// with only `hasViewedWalkthrough` set counts as finished.
public struct OnboardingReport: Sendable, Hashable {
    /// A number of accounts, or that there are fewer than the threshold (and at least one).
    public enum Count: Sendable, Hashable, CustomStringConvertible {
        /// Exactly this many.
        case exactly(Int)
        /// At least one and fewer than this many.
        case fewerThan(Int)

        /// `12`, or `<5`.
        public var description: String {
            switch self {
            case .exactly(let count): "\(count)"
            case .fewerThan(let threshold): "<\(threshold)"
            }
        }
    }

    /// The accounts of one week (or all of them).
    public struct Group: Sendable, Hashable {
        /// The ISO week of the accounts' first change (`2026-W49`); nil for all accounts.
        public var week: String?
        /// Accounts that finished the walkthrough (*Get Started*).
        public var finished: Count?
        /// Accounts that skipped it, by the page (from 0) they skipped on.
        public var skipped: [Int: Count] = [:]
        /// Accounts that have not ended it, by the page (from 0) they are on.
        public var stopped: [Int: Count] = [:]
        /// Accounts with no walkthrough key and no walkthrough page.
        public var neverStarted: Count?
        /// Accounts that skipped it on a page not recorded (by hand, or an old app).
        public var skippedOnUnknownPage: Count?
    }

    /// One group, or one per week in order.
    public var groups: [Group]
    /// The threshold counts were compared with.
    public var threshold: Int

    /// Reads the report from a server's store, as a service role.
    ///
    /// - Parameters:
    ///   - target: The connection string of a service role (a member of `prefs_service`).
    ///   - options: How the server is reached (a pooler, timeouts); its account is not used.
    ///   - suite: The suite of the walkthrough's keys.
    ///   - since: Only accounts whose first change is at or after this time.
    ///   - byWeek: One group per week of the accounts' first change.
    ///   - threshold: Counts below it are given as ``Count/fewerThan(_:)``; at least 1.
    /// - Throws: ``PrefsKit/DatabaseError/permissionDenied(path:detail:)`` for a role that
    ///   is not a service role; ``PrefsKit/DatabaseError`` for a server that cannot be
    ///   reached; ``PrefsKit/DatabaseError/invalidConnectionOption(path:detail:)`` for a
    ///   threshold below 1 or above 2,147,483,647.
    public static func read(
        target: String, options: PostgreSQLOptions = PostgreSQLOptions(),
        suite: String = PreferenceStore.standardSuite, since: Date? = nil, byWeek: Bool = false,
        threshold: Int = 5
    ) throws -> OnboardingReport {
        let redacted = PGConnection.redacted(target)
        guard (1...Int(Int32.max)).contains(threshold) else {
            throw DatabaseError.invalidConnectionOption(
                path: redacted,
                detail: "the threshold must be from 1 to 2147483647 (got \(threshold))")
        }
        return try Self.asServiceRole(target: target, options: options) { connection in
            let result = try connection.execute(
                "SELECT week, outcome, page, accounts FROM prefs_onboarding_report($1, $2, $3, $4)",
                [
                    suite, since.map { PGValue.text($0.timeIntervalSinceReferenceDate) },
                    byWeek ? "true" : "false", String(threshold),
                ])
            var groups: [Group] = []
            for row in 0..<result.rowCount {
                let week = result.text(row: row, column: 0)
                if groups.last.map({ $0.week != week }) ?? true {
                    groups.append(Group(week: week))
                }
                let count: Count =
                    result.integer(row: row, column: 3).map { .exactly(Int($0)) }
                    ?? .fewerThan(threshold)
                let page = result.integer(row: row, column: 2).map { Int($0) }
                switch result.text(row: row, column: 1) {
                case "finished": groups[groups.count - 1].finished = count
                case "never started": groups[groups.count - 1].neverStarted = count
                case "skipped":
                    if let page {
                        groups[groups.count - 1].skipped[page] = count
                    } else {
                        groups[groups.count - 1].skippedOnUnknownPage = count
                    }
                case "stopped": groups[groups.count - 1].stopped[page ?? 0] = count
                default: break
                }
            }
            if groups.isEmpty && !byWeek { groups = [Group(week: nil)] }
            return OnboardingReport(groups: groups, threshold: threshold)
        }
    }

    /// Runs `body` on a connection of a service role (a member of `prefs_service`), the
    /// store migrated; the connection acts for no account.
    ///
    /// - Throws: ``PrefsKit/DatabaseError/permissionDenied(path:detail:)`` for another role;
    ///   the server's errors as ``PrefsKit/DatabaseError``.
    static func asServiceRole<T>(
        target: String, options: PostgreSQLOptions, _ body: (PGConnection) throws -> T
    ) throws -> T {
        let redacted = PGConnection.redacted(target)
        let opened = try PostgreSQLEngine.connectMigrated(target: target, options: options)
        do {
            let role = try opened.connection.execute(
                "SELECT current_user::text, pg_has_role(current_user, 'prefs_service', 'MEMBER')")
            guard role.bool(row: 0, column: 1) == true else {
                throw DatabaseError.permissionDenied(
                    path: redacted,
                    detail:
                        "reports across accounts are for a service role (a member of"
                        + " prefs_service); '\(role.text(row: 0, column: 0) ?? "")' is not one")
            }
            return try body(opened.connection)
        } catch let error as DatabaseError {
            throw error
        } catch {
            throw PostgreSQLEngine.databaseError(for: error, target: redacted, account: nil)
        }
    }
}

extension OnboardingReport {
    /// The report as `prefs --json onboarding report` prints it and `prefs-server` serves
    /// it: `threshold`, and `groups` with `week` (null for all), `finished`, `skipped` and
    /// `stopped` (`page` from 0, `accounts`), `skippedOnUnknownPage` and `neverStarted`;
    /// each count a number, or `"<5"` below the threshold.
    public var json: Prefs.JSONValue {
        func json(_ count: Count?) -> Prefs.JSONValue {
            switch count {
            case .exactly(let count)?: .integer(Int64(count))
            case .fewerThan(let threshold)?: .string("<\(threshold)")
            case nil: .integer(0)
            }
        }
        func json(_ pages: [Int: Count]) -> Prefs.JSONValue {
            .array(
                pages.keys.sorted().map {
                    .object([("page", .integer(Int64($0))), ("accounts", json(pages[$0]))])
                })
        }
        return .object([
            ("threshold", .integer(Int64(threshold))),
            (
                "groups",
                .array(
                    groups.map { group in
                        .object([
                            ("week", group.week.map(Prefs.JSONValue.string) ?? .null),
                            ("finished", json(group.finished)),
                            ("skipped", json(group.skipped)),
                            ("skippedOnUnknownPage", json(group.skippedOnUnknownPage)),
                            ("stopped", json(group.stopped)),
                            ("neverStarted", json(group.neverStarted)),
                        ])
                    })
            ),
        ])
    }
}
