import Foundation
import PostgresCore
import PrefsPostgreSQL
import PrefsTestSupport
import TestSupport
import Testing

@testable import PrefsKit

/// Accounts on a PostgreSQL server are isolated by the server itself: row-level security,
/// forced on every table, holds for PrefsKit and for any SQL a login role sends.
@Suite struct PostgreSQLIsolationTests {
    let server: PostgresServer
    let database: String

    init() throws {
        server = try PostgresServer.start()
        database = try server.makePrefsDatabase(roles: [
            ("alice", "prefs_account"), ("bob", "prefs_account"), ("app", "prefs_service"),
        ])
    }

    func open(as role: String, account: String? = nil) throws -> AppDatabase {
        try server.open(database, as: role, account: account)
    }

    @Test func eachRoleSeesOnlyItsOwnAccount() throws {
        let alice = PreferenceStore(database: try open(as: "alice"))
        let bob = PreferenceStore(database: try open(as: "bob"))
        try alice.set(true, for: .hasViewedWalkthrough)
        try BookmarkStore(database: alice.database).add(
            BookmarkDraft(kind: "trip", itemID: "london", title: "London"))
        #expect(alice[.hasViewedWalkthrough] == true)
        #expect(bob[.hasViewedWalkthrough] == false)
        #expect(try bob.storedValues().isEmpty)
        #expect(try BookmarkStore(database: bob.database).list().isEmpty)
        try bob.set(3, for: .launchCount)
        #expect(try alice.storedValues() == ["hasViewedWalkthrough": .bool(true)])
    }

    @Test func rawSQLOfALoginRoleCannotReachAnotherAccount() throws {
        let bob = PreferenceStore(database: try open(as: "bob"))
        try bob.set(3, for: .launchCount)
        try PreferenceStore(database: try open(as: "alice")).set(1, for: .launchCount)
        func asAlice(_ sql: String) throws -> ProcessOutput {
            try server.psql(sql, database: database, user: "alice")
        }
        #expect(try asAlice("SELECT count(*) FROM preference").stdout == "1\n")
        #expect(
            try asAlice("SELECT count(*) FROM preference WHERE account = 'bob'").stdout == "0\n")
        let insert = try asAlice(
            """
            INSERT INTO preference (account, suite, key, type, value, updated_at)
            VALUES ('bob', 'standard', 'stolen', 'int', '1', 0)
            """)
        #expect(insert.status != 0)
        #expect(insert.stderr.contains("new row violates row-level security policy"))
        #expect(try asAlice("UPDATE preference SET value = '9' WHERE account = 'bob'").status == 0)
        #expect(try asAlice("DELETE FROM preference_history WHERE account = 'bob'").status == 0)
        #expect(
            try asAlice("SET prefs.account = 'bob'; SELECT count(*) FROM preference").stdout
                == "1\n")
        #expect(try bob.storedValues() == ["launchCount": .int(3)])
        #expect(try bob.history().count == 1)
    }

    /// A bookmark's history (migration 0028) is another account's table like the rest: a
    /// login role's raw SQL reads none of another account's revisions, forges none for it,
    /// deletes none of its; and setting `prefs.sync_applying` itself (the mark of the hub
    /// applying a push, trusted from the owner only) does not stop its own history.
    @Test func rawSQLOfALoginRoleCannotReadForgeOrSkipBookmarkHistory() throws {
        let bob = BookmarkStore(database: try open(as: "bob"))
        let bobs = try bob.add(BookmarkDraft(kind: "trip", itemID: "rome", title: "Rome"))
        try bob.update(kind: "trip", itemID: "rome") { $0.title = "Roma" }
        let alice = BookmarkStore(database: try open(as: "alice"))
        let hers = try alice.add(BookmarkDraft(kind: "trip", itemID: "oslo", title: "Oslo"))
        func asAlice(_ sql: String) throws -> ProcessOutput {
            try server.psql(sql, database: database, user: "alice")
        }
        #expect(try asAlice("SELECT count(*) FROM bookmark_history").stdout == "0\n")
        let forged = try asAlice(
            """
            INSERT INTO bookmark_history (account, bookmark_id, revision, title, replaced_at)
            VALUES ('bob', \(bobs.id), 99, 'forged', 0)
            """)
        #expect(forged.status != 0)
        #expect(forged.stderr.contains("row-level security"), "\(forged.stderr)")
        #expect(try asAlice("DELETE FROM bookmark_history WHERE account = 'bob'").status == 0)
        let skipped = try asAlice(
            """
            SET prefs.sync_applying = 'x';
            UPDATE bookmark SET title = 'Oslo!' WHERE id = \(hers.id)
            """)
        #expect(skipped.status == 0, "\(skipped.stderr)")
        #expect(try alice.history(id: hers.id).map(\.title) == ["Oslo"])
        #expect(try bob.history(id: bobs.id).map(\.title) == ["Rome"])
    }

    /// The one-statement set (prefs_set_value) runs as its caller: naming another account
    /// stores nothing there and reads none of its history; a role outside the store's
    /// groups may not call it at all.
    @Test func theOneStatementSetCannotWriteOrReadAnotherAccount() throws {
        let bob = PreferenceStore(database: try open(as: "bob"))
        try bob.set(3, for: .launchCount)
        _ = try open(as: "alice")
        let forged = try server.psql(
            """
            SELECT * FROM prefs_set_value('bob', 'standard', 'launchCount', 'int', '99', NULL,
                0, NULL, 0)
            """, database: database, user: "alice")
        #expect(forged.status != 0)
        #expect(forged.stderr.contains("row-level security"), "\(forged.stderr)")
        // Her own set through it returns her history alone.
        let own = try server.psql(
            """
            SELECT count(*) FROM prefs_set_value('alice', 'standard', 'launchCount', 'int',
                '1', NULL, 0, NULL, 0)
            """, database: database, user: "alice")
        #expect(own.stdout == "1\n", "\(own.stderr)")
        #expect(try bob.storedValues() == ["launchCount": .int(3)])
        #expect(try bob.history().count == 1)
        let outsiderRole = "outsider_" + String(UInt32.random(in: 0...UInt32.max))
        try server.psql("CREATE ROLE \(outsiderRole) LOGIN", database: database)
        let outsider = try server.psql(
            """
            SELECT * FROM prefs_set_value('outsider', 'standard', 'a', 'int', '1', NULL, 0,
                NULL, 0)
            """, database: database, user: outsiderRole)
        #expect(outsider.stderr.contains("permission denied for function"), "\(outsider.stderr)")
    }

    /// Reads too: a login role that names another account is refused when it opens, not
    /// answered "no value".
    @Test func aLoginRoleActingForAnotherAccountIsRefused() throws {
        let error = #expect(throws: DatabaseError.self) {
            _ = try open(as: "alice", account: "bob")
        }
        guard case .permissionDenied(_, let detail)? = error?.kind else {
            Issue.record("expected permissionDenied, got \(String(describing: error))")
            return
        }
        #expect(detail == "the role 'alice' may act only for its own account, not 'bob'")
        #expect(try PreferenceStore(database: try open(as: "bob")).storedValues().isEmpty)
    }

    @Test func aServiceRoleActsForTheAccountItNames() throws {
        try PreferenceStore(database: try open(as: "alice")).set(true, for: .hasViewedWalkthrough)
        let service = PreferenceStore(database: try open(as: "app", account: "alice"))
        #expect(service[.hasViewedWalkthrough] == true)
        #expect(
            PreferenceStore(database: try open(as: "app", account: "bob"))[.hasViewedWalkthrough]
                == false)
    }

    @Test func diagnosticsCheckTheIsolation() throws {
        let diagnostics = try open(as: "alice").diagnostics()
        #expect(diagnostics.integrityProblems == ["ok"])
        #expect(diagnostics.schemaVersion == diagnostics.supportedSchemaVersion)
        #expect(diagnostics.journalMode == "postgresql")
    }

    @Test func aPasswordNeverAppearsInAnError() throws {
        let target = "postgresql://alice:s3cret-word@/\(database)?host=/nonexistent-folder"
        let error = #expect(throws: DatabaseError.self) { try AppDatabase.postgreSQL(target) }
        let text = error.map { "\($0)" } ?? ""
        #expect(!text.contains("s3cret-word"))
        #expect(text.contains("password=***"), "\(text)")
    }
}
