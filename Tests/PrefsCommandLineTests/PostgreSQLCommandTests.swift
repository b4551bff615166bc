import Foundation
import TestSupport
import Testing

/// The `prefs` command against a PostgreSQL server: the same commands, `--account`, and the
/// server's refusals as exit 77.
@Suite struct PostgreSQLCommandTests {
    let server: PostgresServer
    let database: String

    init() throws {
        server = try PostgresServer.start()
        database = try server.makeDatabase()
    }

    var target: String { server.target(database: database) }

    @Test func setGetListAndBookmarksForAnAccount() throws {
        let first = try runPrefs([
            "--db", target, "--account", "alice", "set", "hasViewedWalkthrough", "true",
        ])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(
            try runPrefs(["--db", target, "--account", "alice", "get", "hasViewedWalkthrough"])
                .stdout == "true\n")
        // Another account has its own values: nothing stored for bob.
        let other = try runPrefs([
            "--db", target, "--account", "bob", "get", "hasViewedWalkthrough",
        ])
        #expect(other.status == 1)
        let added = try runPrefs([
            "--db", target, "--account", "alice", "bookmark", "add", "trip", "london", "--title",
            "London",
            "--tag", "uk",
        ])
        #expect(added.status == 0, "\(added.stderr)")
        let found = try runPrefs([
            "--db", target, "--account", "alice", "bookmark", "search", "lond*",
        ])
        #expect(found.stdout.contains("London"), "\(found.stdout)")
        let environment = try runPrefs(
            ["get", "hasViewedWalkthrough"],
            environment: ["PREFS_DB": target, "PREFS_ACCOUNT": "alice"])
        #expect(environment.stdout == "true\n")
    }

    @Test func aRefusalByTheServerExits77() throws {
        let roles = try server.psql(
            """
            DO $$ BEGIN
                BEGIN CREATE ROLE carol LOGIN IN ROLE prefs_account;
                EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END;
            END $$
            """)
        #expect(roles.status == 0, "\(roles.stderr)")
        // The schema exists once an administrator (here the superuser) opened the database.
        #expect(try runPrefs(["--db", target, "--account", "admin", "get", "x"]).status == 1)
        let carol = server.target(database: database, user: "carol")
        let refused = try runPrefs(["--db", carol, "--account", "dave", "set", "x", "1"])
        #expect(refused.status == 77)
        #expect(refused.stderr.hasPrefix("Error: Permission denied by '"))
        #expect(refused.stderr.contains("acting for account 'dave'"))
        #expect(try runPrefs(["--db", carol, "set", "x", "1"]).status == 0)
    }

    @Test func aPasswordIsNeverPrinted() throws {
        let target = "postgresql://alice:pa55word@/\(database)?host=/nonexistent-folder"
        let result = try runPrefs(["--db", target, "get", "x"])
        #expect(result.status == 75)
        #expect(!result.stderr.contains("pa55word"))
        #expect(result.stderr.contains("postgresql://alice:***@/"))
        let json = try runPrefs(["--db", target, "--json", "get", "x"])
        #expect(!json.stderr.contains("pa55word") && !json.stdout.contains("pa55word"))
    }
}
