import Foundation
import PrefsKit
import PrefsPostgreSQL
import TestSupport

/// `prefs-bench --postgres --reports`: ``OnboardingReport`` on stores of 1,000, 10,000 and
/// 100,000 accounts, on a throwaway server. The accounts are written by SQL with the
/// triggers off (a tenth each finished on pages 0-2, skipped, stopped, never started...),
/// then analyzed; each report is timed whole, as the library reads it (connect, role check,
/// the function, the rows), median of the rounds.
struct ReportWorkloads {
    let server: PostgresServer
    let quick: Bool

    init(quick: Bool) throws {
        server = try PostgresServer.startPrivate()
        self.quick = quick
    }

    struct Row {
        let accounts: Int
        let all: [Double]
        let byWeek: [Double]
        let since: [Double]
        let statsString: [Double]
        let statsNumber: [Double]
        let plan: String
    }

    func run(progress: (String) -> Void) throws -> [Row] {
        var rows: [Row] = []
        for accounts in quick ? [1_000, 10_000] : [1_000, 10_000, 100_000] {
            progress("reports: \(accounts) accounts")
            let database = try server.makeDatabase()
            let target = server.target(database: database)
            var options = PostgreSQLOptions()
            options.account = "bench"
            _ = try AppDatabase.postgreSQL(target, options: options)
            let filled = try server.psql(Self.fill(accounts), database: database)
            guard filled.status == 0 else { throw BenchmarkError(description: filled.stderr) }
            let check = try OnboardingReport.read(target: target, threshold: 1)
            guard check.groups.first?.finished == .exactly(accounts / 10 * 4) else {
                throw BenchmarkError(description: "unexpected report: \(check)")
            }
            func time(_ body: () throws -> Void) throws -> [Double] {
                try (0..<(quick ? 3 : 7)).map { _ in
                    let start = DispatchTime.now().uptimeNanoseconds
                    try body()
                    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
                }
            }
            let plan = try server.psql(
                """
                SET session_replication_role = origin;
                EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON)
                    SELECT * FROM prefs_onboarding_report('standard', NULL, false, 5);
                """, database: database
            ).stdout.split(separator: "\n").last { $0.contains("Execution Time") }
            rows.append(
                Row(
                    accounts: accounts,
                    all: try time { _ = try OnboardingReport.read(target: target) },
                    byWeek: try time {
                        _ = try OnboardingReport.read(target: target, byWeek: true)
                    },
                    since: try time {
                        _ = try OnboardingReport.read(
                            target: target,
                            since: Date(timeIntervalSinceReferenceDate: 800_000_000 + 10 * 604_800))
                    },
                    statsString: try time {
                        _ = try PreferenceStatistics.read(target: target, key: "theme")
                    },
                    statsNumber: try time {
                        _ = try PreferenceStatistics.read(target: target, key: "launches")
                    },
                    plan: plan.map { String($0).trimmingCharacters(in: .whitespaces) } ?? "?"))
        }
        return rows
    }

    /// Accounts a1...aN over 20 weeks of first changes: by i % 10, 0-3 finished, 4-5
    /// skipped, 6-7 stopped (on page i % 3), 8-9 never started; every account has a theme
    /// (dark, light or sepia), three in four a number of launches (0-99).
    static func fill(_ accounts: Int) -> String {
        """
        SET session_replication_role = replica;
        INSERT INTO prefs_account_state (account, first_change_at)
            SELECT 'a' || i, 800000000 + (i % 20) * 604800 FROM generate_series(1, \(accounts)) AS i;
        INSERT INTO preference (account, suite, key, type, value, updated_at)
            SELECT 'a' || i, 'standard', 'theme', 'string',
                (ARRAY['dark', 'light', 'sepia'])[i % 3 + 1], 800000000
            FROM generate_series(1, \(accounts)) AS i;
        INSERT INTO preference (account, suite, key, type, value, updated_at)
            SELECT 'a' || i, 'standard', 'launches', 'int', (i % 100)::text, 800000000
            FROM generate_series(1, \(accounts)) AS i WHERE i % 4 <> 0;
        INSERT INTO preference (account, suite, key, type, value, updated_at)
            SELECT 'a' || i, 'standard', k.key, k.type,
                CASE k.key WHEN 'hasViewedWalkthrough' THEN 'true'
                    WHEN 'walkthroughEnding' THEN
                        CASE WHEN i % 10 < 4 THEN 'finished' ELSE 'skipped' END
                    ELSE (i % 3)::text END,
                800000000
            FROM generate_series(1, \(accounts)) AS i,
                (VALUES ('hasViewedWalkthrough', 'bool'), ('walkthroughEnding', 'string'),
                    ('walkthroughEndedOnPage', 'int')) AS k (key, type)
            WHERE i % 10 < 6;
        INSERT INTO selection (account, name, selected_index, count, policy, updated_at)
            SELECT 'a' || i, 'walkthrough', i % 3, 3, 'clamp', 800000000
            FROM generate_series(1, \(accounts)) AS i WHERE i % 10 < 8;
        SET session_replication_role = origin;
        ANALYZE prefs_account_state, preference, selection;
        """
    }

    static func report(_ rows: [Row]) -> String {
        func median(_ values: [Double]) -> String {
            let sorted = values.sorted()
            return String(format: "%.1f ms", sorted[sorted.count / 2])
        }
        var text =
            "| accounts | report | by week | since (half the weeks) | server's execution"
            + " (EXPLAIN ANALYZE) | stats of a string key | stats of a number key | target |\n"
        text += "|---|---|---|---|---|---|---|---|\n"
        for row in rows {
            text +=
                "| \(row.accounts) | \(median(row.all)) | \(median(row.byWeek)) | \(median(row.since)) | \(row.plan) | \(median(row.statsString)) | \(median(row.statsNumber)) | <= 1 s |\n"
        }
        return text
    }
}
