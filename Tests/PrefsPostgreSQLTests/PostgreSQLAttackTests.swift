import Foundation
import PostgresCore
import PrefsKit
import PrefsPostgreSQL
import PrefsSync
import PrefsTestSupport
import TestSupport
import Testing

/// Another account on the same server, attacking by raw SQL as a real login role (psql and
/// libpq), not through PrefsKit: every key includes the account, ids are the account's own,
/// functions pin their search_path, group roles are no account, waits end, and channels are
/// secret. Each test is named after its attack.
@Suite struct PostgreSQLAttackTests {
    let server: PostgresServer
    let database: String

    init() throws {
        server = try PostgresServer.start()
        database = try server.makePrefsDatabase(roles: [
            ("mallory", "prefs_account"), ("victor", "prefs_account"), ("webapp", "prefs_service"),
        ])
    }

    func open(as role: String, account: String? = nil) throws -> AppDatabase {
        try server.open(database, as: role, account: account)
    }

    /// SQL as the attacker, through psql.
    func asMallory(_ sql: String) throws -> ProcessOutput {
        try server.psql(sql, database: database, user: "mallory")
    }

    /// The victim's bookmark with a secret tag; returns its id.
    func victimsTaggedBookmark() throws -> Int64 {
        let victor = BookmarkStore(database: try open(as: "victor"))
        return try victor.add(
            BookmarkDraft(kind: "trip", itemID: "hideout", title: "Hideout", tags: ["secret"])
        ).id
    }

    /// A bookmark's note with a NUL character (U+0000), which its checks let through (a
    /// note may hold any text), is refused with its reason by the connection, whole: libpq's
    /// C strings would end it at the NUL, storing "a" for "a\0b" without a word. Nothing of
    /// the bookmark is stored; the tools exit 65 for it (a data error).
    @Test func aNULInABookmarksNoteIsRefusedNotCut() throws {
        let victor = BookmarkStore(database: try open(as: "victor"))
        var draft = BookmarkDraft(kind: "trip", itemID: "nul", title: "Nul")
        draft.note = "a\u{0}b"
        let error = #expect(throws: DatabaseError.self) { try victor.add(draft) }
        #expect(error?.kind == .cannotHoldText(detail: PGConnection.nulRefused.message))
        // One line, saying why and that nothing was written.
        let message = error?.description ?? ""
        #expect(message.contains("NUL") && message.contains("nothing was written"), "\(message)")
        #expect(!message.contains("\n"))
        #expect(try victor.list(BookmarkQuery(kind: "trip")).isEmpty)
    }

    /// An account name with a NUL character (U+0000) is refused when the store opens, for a
    /// session of its own and behind a pooler's prelude: libpq's C strings end at the NUL, so
    /// a service role told to act for "victor\0mallory" (a name an app took from its user)
    /// would act for victor.
    @Test func anAccountNameWithANULIsRefusedNotCut() throws {
        try PreferenceStore(database: try open(as: "victor")).set(7, for: .launchCount)
        for behindPooler in [false, true] {
            var options = PostgreSQLOptions()
            options.account = "victor\u{0}mallory"
            options.isBehindTransactionPooler = behindPooler
            options.watchesForChanges = false
            let error = #expect(throws: DatabaseError.self) {
                let store = PreferenceStore(
                    database: try AppDatabase.postgreSQL(
                        server.target(database: database, user: "webapp"), options: options))
                Issue.record(
                    "acted for victor: launchCount \(store[.launchCount]), pooled \(behindPooler)"
                )
            }
            let message = error?.description ?? ""
            #expect(message.contains("NUL") && !message.contains("\n"), "\(message)")
        }
    }

    /// An account's size is counted for its bound (migration 0027): its role can neither
    /// zero its own count, nor raise its own bound, nor read another's count, nor call the
    /// counting function (which drops history past the bound) for another account.
    @Test func anAccountCannotResetItsSizeCountOrMoveAnothers() throws {
        let seeded = try server.psql(
            "INSERT INTO prefs_account_size (account, held_bytes) VALUES ('victor', 5000),"
                + " ('mallory', 7000)",
            database: database)
        #expect(seeded.status == 0, "\(seeded.stderr)")
        let counts = "SELECT account || '=' || held_bytes FROM prefs_account_size ORDER BY 1"
        let before = try server.psql(counts, database: database).stdout
        for attack in [
            "UPDATE prefs_account_size SET held_bytes = 0",
            "INSERT INTO prefs_account_size (account, bytes_limit) VALUES ('mallory', 1000000000)",
            "SELECT * FROM prefs_account_size",
            "SELECT prefs_account_count('victor', 1)",
            "SELECT prefs_account_bytes_limit('victor')",
        ] {
            let output = try asMallory(attack)
            #expect(output.status != 0, "\(attack): \(output.stdout)")
            #expect(output.stderr.contains("permission denied"), "\(attack): \(output.stderr)")
        }
        #expect(try server.psql(counts, database: database).stdout == before)
    }

    @Test func probingAnotherAccountsTagsThroughKeyErrorsLearnsNothing() throws {
        let id = try victimsTaggedBookmark()
        // The same statement for a tag the victim has and one it has not: the same answer.
        let present = try asMallory(
            "INSERT INTO bookmark_tag (bookmark_id, tag) VALUES (\(id), 'secret')")
        let absent = try asMallory(
            "INSERT INTO bookmark_tag (bookmark_id, tag) VALUES (\(id), 'nothing-here')")
        #expect(present.status != 0 && absent.status != 0)
        let normalize = { (text: String) in
            text.replacingOccurrences(of: "nothing-here", with: "secret")
        }
        #expect(normalize(absent.stderr) == present.stderr, "\(present.stderr) / \(absent.stderr)")
        #expect(!present.stderr.contains("already exists"))
    }

    @Test func aPlantedTagRowDoesNotShadowAnotherAccountsTag() throws {
        // Mallory takes the id the victim's next bookmark would have had under one sequence,
        // in her own account, with the tag the victim will use.
        let planted = try asMallory(
            """
            INSERT INTO bookmark (id, kind, item_id, title, position, created_at, updated_at)
                VALUES (1, 'trip', 'decoy', 'Decoy', 0, 0, 0);
            INSERT INTO bookmark_tag (bookmark_id, tag) VALUES (1, 'secret');
            """)
        #expect(planted.status == 0, "\(planted.stderr)")
        let id = try victimsTaggedBookmark()
        let victor = BookmarkStore(database: try open(as: "victor"))
        #expect(try victor.bookmark(id: id)?.tags == ["secret"])
        #expect(try victor.list(BookmarkQuery(tag: "secret")).count == 1)
    }

    @Test func plantedIdsNeitherBlockNorForetellAnotherAccountsInserts() throws {
        // A thousand ids of Mallory's own, bookmarks and folders.
        let planted = try asMallory(
            """
            INSERT INTO bookmark (id, kind, item_id, title, position, created_at, updated_at)
                SELECT n, 'trip', 'x' || n, 'X', n, 0, 0 FROM generate_series(1, 1000) AS n;
            INSERT INTO bookmark_folder (id, name, position)
                SELECT n, 'f' || n, n FROM generate_series(1, 1000) AS n;
            """)
        #expect(planted.status == 0, "\(planted.stderr)")
        let victor = BookmarkStore(database: try open(as: "victor"))
        var ids: [Int64] = []
        for index in 0..<5 {
            ids.append(
                try victor.add(BookmarkDraft(kind: "trip", itemID: "v\(index)", title: "V")).id)
        }
        // Numbered in the victim's account alone: what Mallory did moves nothing.
        #expect(ids == [1, 2, 3, 4, 5])
        let folder = try asMallory("SELECT max(id) FROM bookmark_folder")
        #expect(folder.stdout == "1000\n")
    }

    @Test func aWritableSearchPathCannotImpersonateAnotherAccount() throws {
        try PreferenceStore(database: try open(as: "victor")).set(7, for: .launchCount)
        // The PostgreSQL 14 default, kept by upgrades: everyone may create in public.
        #expect(
            try server.psql("GRANT CREATE ON SCHEMA public TO PUBLIC", database: database).status
                == 0)
        defer {
            _ = try? server.psql("REVOKE CREATE ON SCHEMA public FROM PUBLIC", database: database)
        }
        let attack = try asMallory(
            """
            CREATE FUNCTION public.pg_has_role(name, text, text) RETURNS boolean
                LANGUAGE sql AS 'SELECT true';
            SET search_path = public, pg_catalog;
            SET prefs.account = 'victor';
            SELECT count(*) FROM preference;
            """)
        #expect(attack.stdout.hasSuffix("0\n"), "\(attack.stdout) \(attack.stderr)")
        _ = try asMallory("DROP FUNCTION IF EXISTS public.pg_has_role(name, text, text)")
        // An operator "=" of Mallory's on names, true for any role but the group roles,
        // ahead of pg_catalog in the path: were the account's function read with the
        // caller's path, every role would be the store's owner, who acts for the account
        // prefs.account names.
        let operators = try asMallory(
            """
            CREATE FUNCTION public.same(name, name) RETURNS boolean LANGUAGE sql
                AS 'SELECT $2 OPERATOR(pg_catalog.<>) ''prefs_account''::pg_catalog.name
                    AND $2 OPERATOR(pg_catalog.<>) ''prefs_service''::pg_catalog.name';
            CREATE OPERATOR public.= (LEFTARG = name, RIGHTARG = name, FUNCTION = public.same);
            SET search_path = public, pg_catalog;
            SET prefs.account = 'victor';
            SELECT count(*) FROM preference;
            """)
        #expect(operators.stdout.hasSuffix("0\n"), "\(operators.stdout) \(operators.stderr)")
        _ = try asMallory(
            "DROP OPERATOR IF EXISTS public.= (name, name); DROP FUNCTION IF EXISTS public.same")
        let pinned = try server.psql(
            """
            SELECT count(*) FROM pg_proc WHERE proname LIKE 'prefs\\_%'
                AND NOT coalesce(proconfig::text LIKE '%search_path=pg_catalog%', false)
            """, database: database)
        #expect(pinned.stdout == "0\n", "functions without a pinned search_path: \(pinned.stdout)")
    }

    @Test func aGroupRoleIsNoAccount() throws {
        let attack = try asMallory(
            """
            SET ROLE prefs_account;
            SELECT count(*) FROM preference;
            """)
        #expect(attack.stdout == "0\n", "\(attack.stderr)")
        let write = try asMallory(
            """
            SET ROLE prefs_account;
            INSERT INTO preference (suite, key, type, value, updated_at)
                VALUES ('standard', 'k', 'int', '1', 0);
            """)
        #expect(write.status != 0)
        #expect(
            try server.psql(
                "SELECT count(*) FROM preference WHERE account = 'prefs_account'",
                database: database
            ).stdout == "0\n")
    }

    @Test func aServiceRoleThatNamesNoAccountIsRefused() throws {
        let error = #expect(throws: DatabaseError.self) { _ = try open(as: "webapp") }
        guard case .permissionDenied(_, let detail)? = error?.kind else {
            Issue.record("expected permissionDenied, got \(String(describing: error))")
            return
        }
        #expect(
            detail
                == "the role 'webapp' acts for other accounts; name the account it acts for"
                + " (PostgreSQLOptions.account)")
        #expect(
            try server.psql(
                "SELECT count(*) FROM prefs_account_state WHERE account = 'webapp'",
                database: database
            ).stdout == "0\n")
    }

    @Test func anotherAccountsTableLockEndsIn75WithinSeconds() throws {
        try PreferenceStore(database: try open(as: "victor")).set(1, for: .launchCount)
        let holder = try ChildProcess(
            "/bin/sh",
            [
                "-c",
                "printf 'BEGIN;\\nLOCK TABLE preference IN ACCESS EXCLUSIVE MODE;\\nSELECT pg_sleep(60);\\n'"
                    + " | psql -X -q '\(server.target(database: database, user: "mallory"))'",
            ])
        defer { holder.send(SIGTERM) }
        // Until the lock is held.
        var isHeld = false
        for _ in 0..<100 where !isHeld {
            let locks = try server.psql(
                """
                SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
                WHERE c.relname = 'preference' AND l.mode = 'AccessExclusiveLock' AND l.granted
                """, database: database)
            isHeld = locks.stdout == "1\n"
            if !isHeld { usleep(50_000) }
        }
        #expect(isHeld)
        let start = Date()
        let read = try runPrefs([
            "--db", server.target(database: database, user: "victor"), "get", "launchCount",
        ])
        let seconds = Date().timeIntervalSince(start)
        #expect(read.status == 75, "\(read.stderr)")
        #expect(read.stderr.contains("gave up waiting"), "\(read.stderr)")
        #expect(seconds < 20, "waited \(seconds) s")
        _ = try server.psql(
            // Mallory's sessions of this test's database only: the suite's other tests run
            // at the same time, as Mallory too, in databases of their own.
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                + " WHERE usename = 'mallory' AND datname = current_database()",
            database: database)
    }

    @Test func listeningOnAnotherAccountsChannelHearsNothing() throws {
        let victor = PreferenceStore(database: try open(as: "victor"))
        try victor.set(1, for: .launchCount)
        let mallory = try PGConnection(server.target(database: database, user: "mallory"))
        // The old channel name, and every channel Mallory can read.
        try mallory.execute("LISTEN \"prefs:victor\"")
        let readable = try mallory.execute("SELECT channel FROM prefs_account_state")
        for row in 0..<readable.rowCount {
            if let channel = readable.text(row: row, column: 0) {
                try mallory.execute("LISTEN " + PGConnection.quotedIdentifier(channel))
            }
        }
        _ = try mallory.takeNotifications()
        for value in 2...5 { try victor.set(value, for: .launchCount) }
        usleep(200_000)
        #expect(try mallory.takeNotifications() == 0)
        let channel = try server.psql(
            "SELECT channel FROM prefs_account_state WHERE account = 'victor'", database: database)
        #expect(channel.stdout.hasPrefix("prefs:") && !channel.stdout.contains("victor"))
        #expect(channel.stdout.count > 30)
    }

    @Test func aMissingDatabaseIs66WithTheCreatedbHint() throws {
        let missing = server.target(database: "no_such_database_here")
        let result = try runPrefs(["--db", missing, "--account", "admin", "get", "x"])
        #expect(result.status == 66, "\(result.stderr)")
        #expect(result.stderr.contains("does not exist on the server; create it first (createdb"))
    }

    @Test func anOwnerWithoutCreateroleMigratesOnceTheGroupRolesExist() throws {
        let name = try server.makeDatabaseOfPlainOwner(prefix: "t_owner_")
        let store = PreferenceStore(
            database: try AppDatabase.postgreSQL(server.target(database: name, user: "plain_owner"))
        )
        try store.set(true, for: .hasViewedWalkthrough)
        #expect(store[.hasViewedWalkthrough] == true)
    }

    /// Whoever can notify the account's channel (only the account can read its name) cannot
    /// make `sync --watch` run more than one round per interval.
    @Test func aFloodOfNotificationsCostsABoundedNumberOfRounds() async throws {
        let folder = try TemporaryFolder()
        let device = try AppDatabase(path: folder.path("device.sqlite"))
        let sync = try DeviceSync(
            database: device, hub: server.target(database: database), account: "flooded")
        _ = try sync.sync()
        let channel = try server.psql(
            "SELECT channel FROM prefs_account_state WHERE account = 'flooded'",
            database: database
        ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(channel.hasPrefix("prefs:"))
        let rounds = RoundCounter()
        let watcher = Task { await sync.watch(interval: .milliseconds(50)) { _ in rounds.add() } }
        let start = Date()
        for batch in 0..<10 {
            let sent = try server.psql(
                "SELECT count(pg_notify('\(channel)', n::text)) FROM generate_series(\(batch * 1000), \(batch * 1000 + 999)) AS n",
                database: database)
            #expect(sent.status == 0, "\(sent.stderr)")
        }
        // At least one round comes; on a loaded machine the watcher's task may start late,
        // so wait for it (the bound below counts the whole time waited).
        try await Task.sleep(for: .milliseconds(300))
        let deadline = Date().addingTimeInterval(10)
        while rounds.count == 0, Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        watcher.cancel()
        await watcher.value
        let seconds = Date().timeIntervalSince(start)
        let bound = Int(seconds / 0.05) + 2
        #expect(
            rounds.count <= bound, "\(rounds.count) rounds in \(seconds) s for 10,000 notifications"
        )
        #expect(rounds.count >= 1)
    }
}

/// Counts rounds reported from the watcher's task.
private final class RoundCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func add() { lock.withLock { value += 1 } }
    var count: Int { lock.withLock { value } }
}
