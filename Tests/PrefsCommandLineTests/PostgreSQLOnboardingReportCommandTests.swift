import Foundation
import TestSupport
import Testing

/// `prefs onboarding report` on a server's store: counts across accounts for a service role
/// (here the superuser, which is one), `<n` below the threshold, by week, and exit 77 for an
/// account's own role.
@Suite struct PostgreSQLOnboardingReportCommandTests {
    let server: PostgresServer
    let database: String

    init() throws {
        server = try PostgresServer.start()
        database = try server.makeDatabase()
    }

    func prefs(_ arguments: [String], user: String? = nil) throws -> ProcessOutput {
        try runPrefs(["--db", server.target(database: database, user: user)] + arguments)
    }

    /// Five accounts skip on the first page, two stop on the second, one finishes.
    func write() throws {
        for index in 0..<5 {
            #expect(try prefs(["--account", "s\(index)", "onboarding", "skip"]).status == 0)
        }
        for index in 0..<2 {
            #expect(try prefs(["--account", "t\(index)", "onboarding", "next"]).status == 0)
        }
        for _ in 0..<3 {
            #expect(try prefs(["--account", "f", "onboarding", "next"]).status == 0)
        }
    }

    @Test func countsAcrossAccountsWithTheThreshold() throws {
        try write()
        let text = try prefs(["onboarding", "report"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(
            text.stdout
                == "finished: <5\nskipped on page 1: 5\nstopped on page 2: <5\nnever started: 0\n")
        let exact = try prefs(["--json", "onboarding", "report", "--threshold", "1"])
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(exact.stdout.utf8)) as? [String: Any])
        let group = try #require((report["groups"] as? [[String: Any]])?.first)
        #expect(group["finished"] as? Int == 1)
        #expect((group["stopped"] as? [[String: Any]])?.first?["accounts"] as? Int == 2)
        #expect(!exact.stdout.contains("\"s0\"") && !exact.stdout.contains("\"f\""))
        let weekly = try prefs(["onboarding", "report", "--by", "week"])
        #expect(weekly.stdout.hasPrefix("week 20"), "\(weekly.stdout)")
        #expect(weekly.stdout.contains("\n  skipped on page 1: 5\n"), "\(weekly.stdout)")
    }

    /// `--format svg`: the same counts as a picture, a bar a line; one output at a time,
    /// and only on a server's store.
    @Test func theFunnelAsAPicture() throws {
        try write()
        let picture = try prefs(["onboarding", "report", "--format", "svg"])
        #expect(picture.status == 0, "\(picture.stderr)")
        #expect(picture.stdout.hasPrefix("<?xml"), "\(picture.stdout)")
        #expect(picture.stdout.contains(">skipped on page 1</text>"), "\(picture.stdout)")
        #expect(picture.stdout.contains("data-count=\"5\""), "\(picture.stdout)")
        #expect(picture.stdout.contains("data-count=\"&lt;5\""), "\(picture.stdout)")
        #expect(picture.stdout.hasSuffix("</svg>\n"))
        let both = try prefs(["--json", "onboarding", "report", "--format", "svg"])
        #expect(both.status == 64, "\(both.stderr)")
        let folder = try TemporaryFolder()
        let file = try runPrefs([
            "--db", folder.path("prefs.sqlite"), "onboarding", "report", "--format", "svg",
        ])
        #expect(file.status == 64, "\(file.stderr)")
    }

    @Test func anAccountsOwnRoleIsRefusedWithExit77() throws {
        // The first open migrates, which makes the group roles.
        #expect(try prefs(["--account", "s0", "onboarding", "skip"]).status == 0)
        try server.makeLoginRoles([("report_reader", "prefs_account")])
        let refused = try prefs(["onboarding", "report"], user: "report_reader")
        #expect(refused.status == 77, "\(refused.stderr)")
        #expect(refused.stderr.contains("service role"), "\(refused.stderr)")
    }

    @Test func serverOptionsOnAFileAreAUsageError() throws {
        let folder = try TemporaryFolder()
        let file = try runPrefs([
            "--db", folder.path("prefs.sqlite"), "onboarding", "report", "--since", "2026-11-30",
        ])
        #expect(file.status == 64)
        #expect(try prefs(["onboarding", "report", "--threshold", "0"]).status == 64)
        #expect(try prefs(["onboarding", "report", "--since", "last week"]).status == 64)
        // Huge numbers are refused before the server sees them.
        #expect(
            try prefs(["onboarding", "report", "--threshold", "99999999999"]).status == 64)
        #expect(try prefs(["stats", "theme", "--top", "99999999999"]).status == 64)
    }

    /// `prefs stats KEY`: the values and their counts; a file is a usage error, an
    /// account's own role exit 77.
    @Test func statsOfAKeyAcrossAccounts() throws {
        for index in 0..<6 {
            #expect(try prefs(["--account", "d\(index)", "set", "darkMode", "true"]).status == 0)
        }
        for index in 0..<5 {
            #expect(try prefs(["--account", "l\(index)", "set", "darkMode", "false"]).status == 0)
        }
        #expect(try prefs(["--account", "n", "set", "launches", "3"]).status == 0)
        let text = try prefs(["stats", "darkMode"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(
            text.stdout == "darkMode: bool\n  true: 6\n  false: 5\n  no value (the default): <5\n",
            "\(text.stdout)")
        let json = try prefs(["--json", "stats", "darkMode", "--threshold", "1"])
        let stats = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(stats["usingDefault"] as? Int == 1)
        #expect((stats["values"] as? [[String: Any]])?.count == 2)
        // An int key's numbers are whole numbers, shown as such ("3", not "3.0").
        let launches = try prefs(["stats", "launches", "--threshold", "1"])
        #expect(
            launches.stdout.contains("min 3, p25 3, median 3, p75 3, max 3"), "\(launches.stdout)")
        let folder = try TemporaryFolder()
        #expect(
            try runPrefs(["--db", folder.path("prefs.sqlite"), "stats", "darkMode"]).status == 64)
        try server.makeLoginRoles([("stats_reader", "prefs_account")])
        #expect(try prefs(["stats", "darkMode"], user: "stats_reader").status == 77)
    }
}
